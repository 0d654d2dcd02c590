"""Globals named like s2sad's runtime helpers (tests/test_round27_crashes.py)."""

import numpy as np


def zeros_like(a, b):
    return a * 2 + b


def tape(a):
    return np.sin(a)


stored = 3.0
pick = [2.0, 5.0]


def uses_zeros_like(x):
    s = zeros_like(x[0], x[1])
    return s * x[1] + np.sum(x)


def uses_tape_and_stored(x):
    return np.sum(tape(x) * stored) + pick[1] * x[0]


def calls_a_user_function(x):
    return uses_zeros_like(x) * x[2] + uses_tape_and_stored(x)
