"""Session of round 35: `a.mT` and `a.flat` of arrays (reverse mode crashed in `add_at`, which took them for
the fields of an object), with the same check as `.T` where the value may be an object with such a field."""

from collections import namedtuple

import numpy as np
import pytest
from exact_or_refused import check

import s2sad

Cfg = namedtuple("Cfg", "flat mT")
A = np.arange(6.0).reshape(2, 3) * 0.3 + 0.1


def flat_reads(a):
    return a.flat[::2] @ a.flat[1::2] + a.T.flat[1] * a.mT.flat[-1]


def flat_loop_over_a_view(a):
    b = a.T
    s = 0.0
    for v in b.flat:
        s = s + v * np.sin(v)
    return s


def stacked_mT(a):
    m = a.reshape(1, 2, 3)
    return np.sum(m.mT @ m * m.mT[0, 1, 0])


@pytest.mark.parametrize("f", [flat_reads, flat_loop_over_a_view, stacked_mT])
def test_mT_and_flat_of_arrays_are_exact_in_every_mode(f):
    assert check(f, (A.copy(),)) == []


def flat_loop_writing(a):
    a = a.copy()
    for v in a.flat:
        a[1, 1] = a[1, 1] + v * v  # the loop reads a[1, 1] after the body wrote it
    return np.sum(a)


def flat_write(a):
    b = a * 1.0
    b.flat[3] = 5.0 * a[0, 0]
    return np.sum(b * b)


def fields_named_flat_and_mT(a, c):
    return np.sum(a) * c.flat + c.mT


@pytest.mark.parametrize(
    "f, args, message",
    [
        (flat_loop_writing, (A,), "a loop over a view of an array"),
        (flat_write, (A,), "in-place write into 'b.flat'"),
        (fields_named_flat_and_mT, (A, Cfg(2.0, 3.0)), "`c.flat` is read as NumPy's flat iterator, of an array only"),
    ],
)
def test_flat_writes_and_fields_named_like_array_attributes_are_refused(f, args, message):
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: " + ".*" + message):
        s2sad.grad(f)(*args)
    assert check(f, args) == []


def other_array_attribute(a):
    b = a[1:]
    return np.sum(b.base * 2.0)


def test_another_attribute_of_an_array_is_refused_at_its_line():
    """Reverse mode took `b.base` for an object's field and crashed in `add_at` (IndexError)."""
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: the attribute `base` of an array"):
        s2sad.grad(other_array_attribute)(np.ones(3))
