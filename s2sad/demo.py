"""``python -m s2sad.demo``: differentiate a small model, print the generated gradient, check it.

The check compares against central finite differences and exits non-zero if they disagree.
"""

from __future__ import annotations

import sys

import numpy as np

import s2sad


def loss(W, b, X, y):
    """Mean squared error of a one-layer tanh model."""
    h = np.tanh(X @ W + b)
    err = h - y
    return np.mean(err * err)


def main() -> int:
    rng = np.random.default_rng(0)
    W, b = rng.normal(size=(3, 2)), rng.normal(size=2)
    X, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    dloss = s2sad.grad(loss, wrt=("W", "b"))
    print(s2sad.source(dloss))
    gW, gb = dloss(W, b, X, y)
    eps = 1e-6
    worst = 0.0
    for arr, g, idx in [(W, gW, i) for i in np.ndindex(W.shape)] + [(b, gb, i) for i in np.ndindex(b.shape)]:
        old = arr[idx]
        arr[idx] = old + eps
        up = loss(W, b, X, y)
        arr[idx] = old - eps
        down = loss(W, b, X, y)
        arr[idx] = old
        worst = max(worst, abs((up - down) / (2 * eps) - g[idx]))
    ok = worst < 1e-6
    print(f"max |s2sad - finite differences| = {worst:.2e}: {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
