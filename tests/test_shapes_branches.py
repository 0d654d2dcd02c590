"""Shapes proved in one branch of an ``if`` do not hold in the other: ``if isinstance(X, np.ndarray):
return np.sum(np.tanh(X * w))`` / ``return np.tanh(w * X)`` took w and X for numbers everywhere (grad's
output is a number, so ``w * X`` in the second return was), and the first branch's adjoint was never
summed back to w's shape (round 21: a wrong gradient of X's shape, a crash for a float w)."""

import math

import numpy as np
import pytest
from exact_or_refused import check

import s2sad


def returns_by_type(w, X):
    if isinstance(X, np.ndarray):
        return np.sum(np.tanh(X * w))
    return np.tanh(w * X)


def scalar_by_type(x, c):
    if isinstance(c, np.ndarray):
        return np.sum(x * c)
    return x * c


def math_in_a_branch(x, c):
    if isinstance(x, float):
        return math.sin(x) * c
    return np.sum(np.sin(x) * c)


def assigned_in_branches(w, X):
    if X.ndim == 2:
        y = np.sum(X * w)
    else:
        y = np.tanh(w * X)
    return y


@pytest.mark.parametrize(
    "f, args",
    [
        (returns_by_type, [np.array([0.5]), np.array([[1.0, 2.0, -1.0], [0.3, 0.0, 2.0]])]),
        (returns_by_type, [np.array([0.5]), np.array([1.0, 2.0, 4.0])]),
        (returns_by_type, [np.array([0.5, -0.2]), np.array([[1.0], [2.0]])]),
        (returns_by_type, [0.5, 2.0]),
        (scalar_by_type, [0.5, np.array([1.0, 2.0])]),
        (scalar_by_type, [0.5, 2.0]),
        (math_in_a_branch, [np.array([0.3, 0.7]), np.array([[1.0], [2.0]])]),
        (math_in_a_branch, [0.3, 2.0]),
        (assigned_in_branches, [np.array([0.5]), np.array([[1.0, 2.0], [0.3, 0.1]])]),
    ],
    ids=lambda v: v.__name__ if callable(v) else None,
)
def test_a_shape_proved_in_one_branch_is_not_assumed_in_the_other(f, args):
    symptoms = check(f, args, wrt=[0])
    assert not symptoms, "\n".join(symptoms)
    g = s2sad.grad(f)(*args)
    assert np.shape(g) == np.shape(args[0]) and type(g) is type(args[0])
