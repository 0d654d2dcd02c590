"""The benchmark workloads, written as ordinary user code (s2sad reads their source), each with a
hand-written gradient as fast as we could honestly write it, and inputs at two sizes (``tiny`` for
the smoke test, full for timing).

W1  100-iteration scalar loop on Python floats, gradient w.r.t. x and y
W2  MLP loss (tanh hidden layer, log-sum-exp softmax cross-entropy), batch 32, 64-128-10
W3  the same, batch 256, 512-1024-10
W4  tanh RNN, Python loop over 50 steps, batch 16, input 32, hidden 64, loss sum(h * h)
W5  sum(exp(sin(x)) * x**2 / (1 + x**2)) on 1e6 floats
"""

from __future__ import annotations

import math

import numpy as np

# ---- W1: scalar loop --------------------------------------------------------------------------


def scalar_loop(x, y):
    z = 1.0
    s = 0.0
    for _ in range(100):
        z = 0.5 * z * x + math.sin(y * z)
        s = s + z * z
    return s


def scalar_loop_hand(x, y):
    """A list tape: the values of z, then the loop backwards."""
    z = 1.0
    zs = [z]
    for _ in range(100):
        z = 0.5 * z * x + math.sin(y * z)
        zs.append(z)
    bx = by = bz = 0.0
    for i in range(99, -1, -1):
        old = zs[i]
        bz += 2.0 * zs[i + 1]
        c = math.cos(y * old) * bz
        bx += 0.5 * old * bz
        by += old * c
        bz = 0.5 * x * bz + y * c
    return bx, by


# ---- W2, W3: MLP ------------------------------------------------------------------------------


def mlp_loss(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    m = np.max(logits, axis=1, keepdims=True)
    z = logits - m
    lse = np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * (z - lse)) / X.shape[0]


def mlp_loss_hand(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    e = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    g = (p * np.sum(Y, axis=1, keepdims=True) - Y) / X.shape[0]
    ga = (g @ W2.T) * (1.0 - h * h)
    return X.T @ ga, ga.sum(axis=0), h.T @ g, g.sum(axis=0)


# ---- W4: RNN ----------------------------------------------------------------------------------


def rnn_loss(Wx, Wh, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.sum(h * h)


def rnn_loss_hand(Wx, Wh, xs, h0):
    hs = [h0]
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
        hs.append(h)
    bh = 2.0 * h
    bWx = np.zeros_like(Wx)
    bWh = np.zeros_like(Wh)
    for t in range(xs.shape[0] - 1, -1, -1):
        ba = bh * (1.0 - hs[t + 1] * hs[t + 1])
        bWx += xs[t].T @ ba
        bWh += hs[t].T @ ba
        bh = ba @ Wh.T
    return bWx, bWh


# ---- W5: elementwise ----------------------------------------------------------------------------


def elementwise(x):
    return np.sum(np.exp(np.sin(x)) * x**2 / (1 + x**2))


def elementwise_hand(x):
    """d/dx e^sin(x) r(x), r = x^2 / (1 + x^2): e^sin(x) (cos(x) r + 2x / (1 + x^2)^2)."""
    x2 = x * x
    d = 1.0 + x2
    return np.exp(np.sin(x)) * (np.cos(x) * x2 / d + 2.0 * x / (d * d))


# ---- inputs ---------------------------------------------------------------------------------------


def _mlp_inputs(rng, batch, n_in, n_hidden, n_out):
    W1 = rng.normal(size=(n_in, n_hidden)) / np.sqrt(n_in)
    W2 = rng.normal(size=(n_hidden, n_out)) / np.sqrt(n_hidden)
    b1, b2 = rng.normal(size=n_hidden) * 0.1, rng.normal(size=n_out) * 0.1
    X = rng.normal(size=(batch, n_in))
    Y = np.eye(n_out)[rng.integers(0, n_out, batch)]
    return [W1, b1, W2, b2, X, Y]


def _rnn_inputs(rng, steps, batch, n_in, n_hidden):
    Wx = rng.normal(size=(n_in, n_hidden)) / np.sqrt(n_in)
    Wh = rng.normal(size=(n_hidden, n_hidden)) / np.sqrt(n_hidden)
    return [Wx, Wh, rng.normal(size=(steps, batch, n_in)), np.zeros((batch, n_hidden))]


class Workload:
    def __init__(self, key, title, f, hand, wrt, make, tiny):
        self.key, self.title, self.f, self.hand, self.wrt = key, title, f, hand, wrt
        self.make, self.tiny = make, tiny

    def inputs(self, tiny=False):
        return (self.tiny if tiny else self.make)(np.random.default_rng(0))


WORKLOADS = [
    Workload(
        "W1",
        "scalar loop, 100 iterations",
        scalar_loop,
        scalar_loop_hand,
        (0, 1),
        lambda rng: [0.9, 0.7],
        lambda rng: [0.9, 0.7],
    ),
    Workload(
        "W2",
        "MLP 32x64-128-10",
        mlp_loss,
        mlp_loss_hand,
        (0, 1, 2, 3),
        lambda rng: _mlp_inputs(rng, 32, 64, 128, 10),
        lambda rng: _mlp_inputs(rng, 4, 3, 5, 2),
    ),
    Workload(
        "W3",
        "MLP 256x512-1024-10",
        mlp_loss,
        mlp_loss_hand,
        (0, 1, 2, 3),
        lambda rng: _mlp_inputs(rng, 256, 512, 1024, 10),
        lambda rng: _mlp_inputs(rng, 4, 3, 5, 2),
    ),
    Workload(
        "W4",
        "tanh RNN, 50 steps, 16x32-64",
        rnn_loss,
        rnn_loss_hand,
        (0, 1),
        lambda rng: _rnn_inputs(rng, 50, 16, 32, 64),
        lambda rng: _rnn_inputs(rng, 3, 2, 3, 4),
    ),
    Workload(
        "W5",
        "elementwise, 1e6 floats",
        elementwise,
        elementwise_hand,
        (0,),
        lambda rng: [rng.normal(size=1_000_000)],
        lambda rng: [rng.normal(size=7)],
    ),
]
