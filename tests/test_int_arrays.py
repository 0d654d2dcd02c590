"""Integer and bool arrays carry no derivative (JAX's rule): a differentiated value written into one is
truncated (derivative 0), and a NumPy function given an integer or bool ``dtype=`` returns a constant.
An argument that f writes into and that shares memory with a global, closure cell or default f reads is
refused (the derivative works on a private copy).  Reproducers of the blind tester's round 12."""

import copy

import numpy as np
import pytest

import s2sad
from tests.exact_or_refused import check
from tests.fd import numeric_grad

X4 = np.array([0.31, -0.73, 0.55, 0.21])


def arange_write(x):
    a = np.arange(4)
    a[1] = x[0] * 10
    return np.sum(a * x)


def int_zeros_slice_write(x):
    a = np.zeros(4, dtype=int)
    a[:] = x * 3
    return np.sum(a * x)


def bool_write(x):
    m = np.ones(4, dtype=bool)
    m[:] = x
    return np.sum(m * x)


def int_list_write(x):
    a = np.array([1, 2, 3, 4])
    a[0] = x[0] * 7
    return np.sum(a * x)


def full_int_write(x):
    a = np.full(4, 1)
    a[:2] = x[:2] * 7
    return np.sum(a * x * x)


def zeros_like_int_write(x):
    a = np.zeros_like(x, dtype=int)
    a[1] = x[1] * 7
    return np.sum(a * x)


def augmented_then_write(x):
    a = np.array([1, 2, 3, 4])
    a[1:3] *= 1
    a[0] = x[0] * 7
    return np.sum(a * x)


def write_in_loop(x):
    a = np.array([1, 2, 3, 4])
    s = x[0] * 7
    for i in range(2):
        a[i] = s * x[i]
    return np.sum(a * x)


def array_dtype_int(x):
    a = np.array(x * 7, dtype=int)
    return np.sum(a * x)


def asarray_dtype_int(x):
    a = np.asarray(x * 7, dtype=np.int64)
    return np.sum(a * x * x)


def cumsum_dtype_int(x):
    return np.sum(np.cumsum(x * 5, dtype=int) * x)


def sum_dtype_int(x):
    return np.sum(x * 5, dtype=int) * x[0] + np.sum(x * x)


def array_of_list_dtype_int(x):
    a = np.array([x[0] * 9, 1], dtype=int)
    return np.sum(a * x[:2])


def float_write_still_differentiated(x):
    a = np.zeros(4)
    a[1] = x[0] * 10
    b = x * 1.0
    b[0] = x[2] * x[3]
    return np.sum(a * x) + np.sum(b * b)


def writes_into_given_array(x, n):
    b = np.copy(n)
    b[0] = x[0] * 10
    return np.sum(b * x)


EXACT = [
    arange_write,
    int_zeros_slice_write,
    bool_write,
    int_list_write,
    full_int_write,
    zeros_like_int_write,
    augmented_then_write,
    write_in_loop,
    array_dtype_int,
    asarray_dtype_int,
    cumsum_dtype_int,
    sum_dtype_int,
    array_of_list_dtype_int,
    float_write_still_differentiated,
]


def _exact(f, args, wrt=0):
    fx = lambda *a: f(*copy.deepcopy(list(a)))  # noqa: E731
    fd = numeric_grad(fx, list(args), wrt)
    value, g = s2sad.value_and_grad(f, wrt=wrt)(*copy.deepcopy(list(args)))
    assert np.allclose(value, fx(*args), rtol=1e-13, atol=0)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    dx = np.linspace(-1, 1.3, 4)
    tangent_args = copy.deepcopy(list(args)) + [dx]
    np.testing.assert_allclose(s2sad.jvp(f, wrt=wrt)(*tangent_args)[1], fd @ dx, rtol=1e-6, atol=1e-8)
    return fd


@pytest.mark.parametrize("f", EXACT)
def test_exact_in_every_mode_and_order(f):
    _exact(f, [X4.copy()])
    hess = s2sad.hessian(f)(X4.copy())
    np.testing.assert_allclose(hess, numeric_grad(s2sad.grad(f), [X4.copy()], 0, eps=1e-5), atol=1e-5)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(s2sad.jacobian(s2sad.grad(f), mode=mode)(X4.copy()), hess, atol=1e-10)
    assert check(f, [X4.copy()]) == []


@pytest.mark.parametrize("n", [np.array([1, 2, 3, 4]), np.array([1.5, 2.0, 3.0, 4.0])])
def test_dtype_known_at_run_time_only(n):
    """The written array's dtype comes from an argument: an integer one truncates, a float one does not."""
    _exact(writes_into_given_array, [X4.copy(), n])


def test_a_written_integer_argument_truncates():
    def f(x):
        x[0] = x[1] * 3.0
        return np.sum(x * x)

    x = np.array([1, 2, 3])
    np.testing.assert_allclose(s2sad.grad(f)(x.copy()), [0.0, 4.0, 6.0])  # x[0] = 6 is a constant
    assert s2sad.jvp(f)(x.copy(), np.array([1.0, 1.0, 1.0]))[1] == pytest.approx(10.0)


def test_integer_writes_add_no_derivative_code():
    src = s2sad.source(s2sad.grad(arange_write))
    assert "stored" not in src and "ba[1]" not in src  # no adjoint flows through the write
    float_src = s2sad.source(s2sad.grad(float_write_still_differentiated))
    assert "stored" not in float_src  # arrays known to be float need no run-time check


G = np.array([0.3, 0.7])


def writes_argument_reads_global(x):
    x[0] = 5.0 * x[1]
    return np.sum(x * G)


def _closure(c):
    def h(x):
        x[1] = x[0] * 3.0
        return np.sum(x * c)

    return h


D = np.array([0.3, 0.7])


def writes_argument_reads_default(x, d=D):
    x[1] = x[0] * 3.0
    return np.sum(x * d)


@pytest.mark.parametrize(
    "f, arg, what",
    [
        (writes_argument_reads_global, G, "the global 'G'"),
        (writes_argument_reads_global, G[:], "the global 'G'"),
        (_closure(D), D, "the closure variable 'c'"),
        (writes_argument_reads_default, D, "a default argument"),
    ],
)
def test_argument_sharing_memory_with_what_f_reads_is_refused(f, arg, what):
    before = G.copy(), D.copy()
    for derivative in (s2sad.grad(f), s2sad.value_and_grad(f), s2sad.hessian(f)):
        with pytest.raises(s2sad.DifferentiationError, match=rf"test_int_arrays.py:\d+:1: the argument 'x' .*{what}"):
            derivative(arg)
    with pytest.raises(s2sad.DifferentiationError, match=what):
        s2sad.jvp(f)(arg, np.ones_like(arg))
    np.testing.assert_array_equal(G, before[0])
    np.testing.assert_array_equal(D, before[1])
    # a copy is fine
    np.testing.assert_allclose(s2sad.grad(f)(arg.copy()), numeric_grad(lambda v: f(v.copy()), [arg.copy()], 0))


# A dtype given by position (round 13): the same as dtype=.


def zeros_positional_int(x):
    a = np.zeros(3, int)
    a[:] = x * 10
    return np.sum(a * x)


def array_positional_int(x):
    return np.sum(np.array(x * 10, int) * x)


def asarray_positional_int(x):
    return np.sum(np.asarray(x * 10, int) * x)


def empty_positional_int16(x):
    a = np.empty(3, np.int16)
    a[:] = x * 10
    return np.sum(a * x)


def ones_positional_int64(x):
    a = np.ones(3, np.int64)
    a[:] = x * 10
    return np.sum(a * x)


def identity_positional_int(x):
    a = np.identity(3, int)
    a[0] = x * 10
    return np.sum(a[0] * x)


def empty_like_positional_int(x):
    a = np.empty_like(x, int)
    a[:] = x * 10
    return np.sum(a * x)


def full_like_positional_int(x):
    a = np.full_like(x, 1, int)
    a[:] = x * 10
    return np.sum(a * x)


def zeros_positional_float(x):
    a = np.zeros(3, float)
    a[:] = x * 10
    return np.sum(a * x)


POSITIONAL = [
    zeros_positional_int,
    array_positional_int,
    asarray_positional_int,
    empty_positional_int16,
    ones_positional_int64,
    identity_positional_int,
    empty_like_positional_int,
    full_like_positional_int,
]


@pytest.mark.parametrize("f", POSITIONAL)
def test_positional_integer_dtype_truncates(f):
    x = np.array([0.33, -1.27, 0.71])
    np.testing.assert_allclose(s2sad.grad(f)(x), np.trunc(x * 10))  # the truncated values, no derivative through them
    np.testing.assert_allclose(s2sad.hessian(f)(x), 0.0)
    assert check(f, [x]) == []


def test_positional_float_dtype_differentiated():
    x = np.array([0.33, -1.27, 0.71])
    np.testing.assert_allclose(s2sad.grad(zeros_positional_float)(x), 20 * x)
    assert check(zeros_positional_float, [x]) == []


def cumsum_computed_dtype(x):
    a = np.arange(4)
    return np.sum(np.cumsum(x * 5, dtype=a.dtype) * x)


def test_computed_dtype_refused():
    x = np.array([0.33, -1.27, 0.71, 0.2])
    with pytest.raises(
        s2sad.DifferentiationError, match=r"test_int_arrays\.py:\d+:\d+: np\.cumsum\(\.\.\., dtype=<computed>\)"
    ):
        s2sad.grad(cumsum_computed_dtype)(x)
    assert check(cumsum_computed_dtype, [x]) == []
