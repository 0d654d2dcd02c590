"""Checkpointed loops: ``for t in s2sad.checkpoint(range(n), every=k)`` gives the same derivatives
with stacks that hold at most k iterations (O(n/k + k) memory instead of O(n))."""

import math
import re
import tracemalloc

import numpy as np
import pytest
from fd import check_grad

import s2sad

rng = np.random.default_rng(11)


def rnn(Wx, Wh, xs, h0):
    h = h0
    for t in s2sad.checkpoint(range(xs.shape[0]), every=4):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.sum(h * h)


def rnn_plain(Wx, Wh, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.sum(h * h)


def scalar_loop(x, y):
    z = x
    s = 0.0
    for i in s2sad.checkpoint(range(23)):  # every: about sqrt(23)
        z = 0.5 * z * x + math.sin(y * z)
        s = s + z * z
    return s


def loop_with_branch(x, n):
    s = 0.0
    prev = 0.0
    for i in s2sad.checkpoint(range(n), every=3):
        if i > 0:
            s = s + prev * x
        prev = math.tanh(x * i + s)
    return s


def test_checkpointed_rnn_matches_the_plain_gradient_and_finite_differences():
    Wx, Wh = rng.normal(size=(3, 5)) * 0.3, rng.normal(size=(5, 5)) * 0.3
    xs, h0 = rng.normal(size=(10, 2, 3)), np.zeros((2, 5))
    got = check_grad(rnn, [Wx, Wh, xs, h0], wrt=(0, 1))
    plain = s2sad.grad(rnn_plain, wrt=(0, 1))(Wx, Wh, xs, h0)
    for a, b in zip(got, plain):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n", [0, 1, 5, 9, 10])
def test_checkpointed_loops_of_any_length(n):
    check_grad(loop_with_branch, [0.3, n], wrt=[0])


def test_checkpoint_every_defaults_to_about_sqrt_n():
    check_grad(scalar_loop, [0.9, 0.7])
    text = s2sad.source(s2sad.grad(scalar_loop))
    assert "int(len(r) ** 0.5)" in text
    assert re.search(r"checkpoints\.append\(\(s, z\)\)", text), text  # only the carried state


def _peak(fn, *args):
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def deep_rnn(Wh, h0):
    h = h0
    for t in s2sad.checkpoint(range(400), every=20):
        h = np.tanh(h @ Wh)
    return np.sum(h)


def deep_rnn_plain(Wh, h0):
    h = h0
    for t in range(400):
        h = np.tanh(h @ Wh)
    return np.sum(h)


def test_checkpointing_bounds_the_memory_of_the_adjoint():
    Wh, h0 = rng.normal(size=(64, 64)) * 0.1, rng.normal(size=(32, 64))
    checkpointed, plain = s2sad.grad(deep_rnn), s2sad.grad(deep_rnn_plain)
    np.testing.assert_allclose(checkpointed(Wh, h0), plain(Wh, h0), rtol=1e-12)
    array = h0.nbytes  # one step's state: 16 KiB
    # plain: every step's h is kept (400 arrays); checkpointed: 20 checkpoints + 20 steps' values
    assert _peak(plain, Wh, h0) > 300 * array
    assert _peak(checkpointed, Wh, h0) < 80 * array


def breaks(x):
    s = 0.0
    for i in s2sad.checkpoint(range(10)):
        s = s + x
        if s > 3:
            break
    return s


def appends(x):
    items = []
    for i in s2sad.checkpoint(range(10)):
        items.append(x * i)
    return sum(items)


def nested(x):
    s = 0.0
    for i in range(3):
        for j in s2sad.checkpoint(range(3)):
            s = s + x
    return s


def bad_every(x):
    s = 0.0
    for i in s2sad.checkpoint(range(3), every=0):
        s = s + x
    return s


@pytest.mark.parametrize(
    "fn, construct",
    [(breaks, "cannot break"), (appends, "method .append()"), (nested, "top level"), (bad_every, "positive")],
)
def test_refusals(fn, construct):
    with pytest.raises(s2sad.DifferentiationError, match=re.escape(construct)) as err:
        s2sad.grad(fn)(0.5)
    assert str(err.value).startswith(f"{__file__}:")


def test_checkpoint_is_the_identity_when_running_and_in_forward_mode():
    assert list(s2sad.checkpoint(range(3), every=2)) == [0, 1, 2]
    with pytest.raises(ValueError):
        s2sad.checkpoint(range(3), every=-1)
    value, tangent = s2sad.jvp(scalar_loop, wrt=0)(0.9, 0.7, 1.0)
    assert value == scalar_loop(0.9, 0.7)
    assert tangent == pytest.approx(s2sad.grad(scalar_loop)(0.9, 0.7), rel=1e-12)
