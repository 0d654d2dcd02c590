"""Round 28: ``s = np.array(0.0); s += v`` is rebound as ``s = s + v`` when no other name shares ``s``, and
NumPy's ``s + v`` of a 0-d array is a NumPy scalar: a later write through an alias (``t = s; t *= w``),
which in Python changes the 0-d array ``s``, rebound a number instead (value 2.0 for 6.0).  Such a write is
checked when the code runs: refused for a NumPy scalar, exact for an array of one or more dimensions."""

import numpy as np
import pytest
from exact_or_refused import assert_exact

import s2sad


def zero_d_then_alias(x):
    s = np.array(0.0)
    s += x[1]
    t = s
    t *= x[0]
    return s


def zero_d_loop_then_alias(x):
    s = np.zeros(())
    for v in x:
        s += v
    t = s
    t *= x[0]
    return s


def zero_d_alias_written_through_the_first_name(x):
    s = np.array(1.5)
    s -= x[1]
    t = s
    s **= 2.0
    return t * x[0]


@pytest.mark.parametrize(
    "f",
    [zero_d_then_alias, zero_d_loop_then_alias, zero_d_alias_written_through_the_first_name],
    ids=lambda f: f.__name__,
)
def test_a_rebound_0d_array_written_through_an_alias_is_refused(f):
    x = np.array([3.0, 2.0])
    for make in (s2sad.grad, s2sad.value_and_grad):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round28\.py:\d+:\d+: .*0-d array"):
            make(f)(x)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round28\.py:\d+:\d+: .*0-d array"):
        s2sad.jvp(f)(x, np.ones(2))


def one_d_then_alias(x):
    s = np.zeros(2)
    s += x
    t = s
    t *= x[0]
    return np.sum(s)


def accumulated(x):
    s = np.zeros(2)
    for i in range(3):
        s += x * i
    return np.sum(s * s)


@pytest.mark.parametrize("f", [one_d_then_alias, accumulated], ids=lambda f: f.__name__)
def test_arrays_of_one_or_more_dimensions_stay_exact(f):
    assert_exact(f, [np.array([3.0, 2.0])])
