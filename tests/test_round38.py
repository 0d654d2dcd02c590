"""Round 38 (blind testers 38a and 38b)."""

import numpy as np
import pytest
from exact_or_refused import check

import s2sad

X4 = np.array([0.3, -0.7, 1.1, 0.45])


def zip_of_one_list(x):
    a = x * 1.0
    b = list(zip([a]))[0][0]
    return np.sum(b * x)


def loop_over_zip_of_one_list(x):
    s = 0.0
    for (v,) in zip([x, x * 2]):
        s = s + np.sum(v**2)
    return s


@pytest.mark.parametrize("f, slope", [(zip_of_one_list, 2.0), (loop_over_zip_of_one_list, 10.0)])
def test_zip_of_one_sequence(f, slope):
    """TypeError ('int' object is not iterable) from `min(len(t))` in generated code (round 38a)."""
    np.testing.assert_allclose(s2sad.grad(f)(X4), slope * X4)
    assert check(f, (X4,)) == []
