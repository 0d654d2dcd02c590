"""A write into ``b = a.astype(np.float64, copy=False)`` / ``np.asarray(a, dtype=...)`` of a local ``a``: the
dtype argument (``np.float64``, a global name) was taken for memory the function does not own, and the write
was refused saying 'b' "holds a global array".  ``b`` may be ``a`` itself: exact when nothing reads ``a``
later, refused (saying it may share memory with 'a') when something does, and a true message for a global."""

import re

import numpy as np
import pytest
from exact_or_refused import assert_exact, assert_exact_or_refused
from fd import check_grad

import s2sad

X = np.array([1.0, 2.0, -3.0])
G = np.array([1.0, 2.0, 3.0])
SHAPE = (3,)
F64 = np.dtype(np.float64)


def astype_no_copy(x):
    a = x * 1.0
    b = a.astype(np.float64, copy=False)
    b[0] = b[0] * 2
    return np.sum(b * b)


def asarray_dtype(x):
    a = np.sin(x)
    b = np.asarray(a, dtype=np.float64)
    b[1] = b[1] * b[0]
    return np.sum(b**2)


def asarray_dtype_string(x):
    a = x * 2.0
    b = np.asarray(a, dtype="float64")
    b[2] = 5.0 * b[2]
    return np.sum(np.cos(b))


def asarray_global_dtype(x):
    a = x * 2.0
    b = np.asarray(a, dtype=F64)
    b[0] = b[0] ** 2
    return np.sum(b)


def reshape_global_shape(x):
    a = x * 1.0
    b = a.reshape(SHAPE)
    b[0] = b[0] * 3.0
    return np.sum(b * x)


@pytest.mark.parametrize("f", [astype_no_copy, reshape_global_shape])
def test_a_write_into_a_local_array_under_another_name_is_exact(f):
    assert_exact(f, (X.copy(),))


@pytest.mark.parametrize("f", [asarray_dtype, asarray_dtype_string, asarray_global_dtype])
def test_a_write_through_np_asarray_of_a_local_array(f):
    """grad, value_and_grad, jvp, vjp exact; the hessian is refused at the line (the derivative keeps ``b`` for
    its adjoint sweep: docs/known_failures.md) or exact."""
    assert_exact_or_refused(f, (X.copy(),))
    check_grad(f, (X.copy(),))
    s2sad.value_and_grad(f)(X.copy())
    s2sad.jvp(f)(X.copy(), np.ones(3))


def a_read_later(x):
    a = x * 1.0
    b = a.astype(np.float64, copy=False)
    b[0] = b[0] * 2
    return np.sum(b) + np.sum(a * a)


def a_read_later_asarray(x):
    a = x * 1.0
    b = np.asarray(a, dtype=np.float64)
    b[0] = b[0] * 2
    return np.sum(b * a)


@pytest.mark.parametrize("f", [a_read_later, a_read_later_asarray])
@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "jvp", "hessian"])
def test_a_write_that_may_change_a_read_later_says_so(f, mode):
    args = (X.copy(), np.ones(3)) if mode == "jvp" else (X.copy(),)
    with pytest.raises(s2sad.DifferentiationError) as info:
        getattr(s2sad, mode)(f)(*args)
    message = str(info.value)
    assert re.match(r"\S+test_view_of_local_write\.py:\d+:\d+: ", message)
    assert "'a'" in message and "global" not in message


def writes_a_global(x):
    b = np.asarray(G, dtype=np.float64)
    b[0] = b[0] * 2
    return np.sum(b * x)


def test_a_write_into_a_global_says_it_is_not_the_functions_own():
    before = G.copy()
    with pytest.raises(s2sad.DifferentiationError, match="an array the function does not own"):
        s2sad.grad(writes_a_global)(X.copy())
    assert np.array_equal(G, before)
