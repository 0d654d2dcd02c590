"""Round 29: ``c += v`` of an array nothing else shares was rebound as ``c = c + v``, which loses what NumPy's
in-place operation keeps: ``c``'s dtype (a float32 array stays float32: the value differed from f's in the
last bits, and jvp's value was float64) and ``c``'s shape, and NumPy's refusals (an int array += floats, a
float array += complex values: UFuncTypeError; a result larger than ``c``: ValueError), where the
derivative returned numbers.  Now the value is cast to ``c``'s dtype as NumPy does, and where NumPy raises
the derivative refuses at the line.  The same holds for ``b[i] op= v`` and ``np.f(..., out=b)``."""

import copy
import re

import numpy as np
import pytest
from exact_or_refused import assert_exact
from fd import numeric_grad

import s2sad

X = np.random.default_rng(15).normal(size=3)
HERE = re.escape("test_inplace_dtypes.py")


# ---- float32 targets: the value is f's, bitwise, with f's dtype --------------------------------------------


def f32_loop(x):
    c = np.zeros(3, dtype=np.float32)
    for i in range(5):
        c += x * 0.1 * (i + 1)
    return float(np.sum(c.astype(np.float64) ** 2))


def f32_astype(x):
    c = x.astype(np.float32)
    c += x
    return np.sum(c * x)


def f32_shared(x):
    c = np.zeros(3, dtype=np.float32)
    d = c
    c += x
    return np.sum(d * x)


def f32_slice(x):
    c = np.ones(3, dtype=np.float32)
    c[1:] += x[1:] * 0.3
    return np.sum(c * x)


def f32_out(x):
    c = np.ones(3, dtype=np.float32)
    np.multiply(c, x, out=c)
    return np.sum(c * x)


def f32_out_slice(x):
    c = np.ones(3, dtype=np.float32)
    np.multiply(c[1:], x[1:], out=c[1:])
    return np.sum(c * x)


SCALAR_F32 = [f32_loop, f32_astype, f32_shared, f32_slice, f32_out, f32_out_slice]


@pytest.mark.parametrize("f", SCALAR_F32, ids=lambda f: f.__name__)
def test_float32_value_is_fs_bitwise_and_gradient_right(f):
    value = f(X.copy())
    got, g = s2sad.value_and_grad(f)(X.copy())
    assert got == value and type(got) is type(value)
    expected = numeric_grad(f, [X.copy()], 0, eps=1e-3)
    np.testing.assert_allclose(g, expected, rtol=2e-3, atol=1e-5)
    np.testing.assert_allclose(s2sad.grad(f)(X.copy()), g, rtol=1e-12)
    out, dout = s2sad.jvp(f)(X.copy(), np.ones(3))
    assert out == value
    np.testing.assert_allclose(dout, np.sum(g), rtol=1e-6)
    h = s2sad.hessian(f)(X.copy())
    hx = numeric_grad(lambda x: s2sad.grad(f)(x), [X.copy()], 0, eps=1e-3)
    np.testing.assert_allclose(h, hx, rtol=2e-3, atol=1e-4)


def f32_array(x):
    c = np.zeros(3, np.float32)
    c += x
    c *= x
    return c


def test_float32_array_output_keeps_its_dtype_in_jvp_and_vjp():
    value = f32_array(X.copy())
    out, dout = s2sad.jvp(f32_array)(X.copy(), np.ones(3))
    assert out.dtype == np.float32 and np.array_equal(out, value)
    np.testing.assert_allclose(dout, 2 * X, rtol=1e-6)
    bx = s2sad.vjp(f32_array)(X.copy(), np.ones(3))
    np.testing.assert_allclose(bx, 2 * X, rtol=1e-6)


def python_number_and_numpy_scalar(x):
    s = 0.0
    for v in x:
        s += v
    t = np.float32(1.0)
    t += x[0]  # a NumPy scalar rebinds: float32 + float64 is a float64
    return s * t


def rows(x):
    s = 0.0
    for r in np.reshape(x, (3, 1)) * np.ones((3, 2)):
        s += r  # a number, then an array of the row's shape
    return np.sum(s * s)


@pytest.mark.parametrize("f", [python_number_and_numpy_scalar, rows], ids=lambda f: f.__name__)
def test_numbers_rebind_as_python_does(f):
    assert_exact(f, [X.copy()])
    got, _ = s2sad.value_and_grad(f)(X.copy())
    assert got == f(X.copy())


# ---- where NumPy raises, the derivative raises ----------------------------------------------------------


def int_plus_float(x):
    b = np.zeros(3, dtype=int)
    b += x
    return np.sum(b * x)


def int_times_float(x):
    b = np.ones(3, dtype=int)
    b *= x
    return np.sum(b * x)


def int_slice_plus_float(x):
    b = np.zeros(3, dtype=int)
    b[1:] += x[1:]
    return np.sum(b * x)


def int_out(x):
    b = np.zeros(3, dtype=int)
    np.add(b, x, out=b)
    return np.sum(b * x)


def int_argument(x, k):
    c = k.copy()
    c += x
    return np.sum(c * x)


def int_argument_itself(x, k):
    k += x
    return np.sum(k * x)


def int32_in_loop(x):
    h = np.zeros(3, np.int32)
    for i in range(3):
        h += x * i
    return np.sum(h * x)


def int_shared(x):
    b = np.zeros(3, dtype=int)
    d = b
    b += x
    return np.sum(d * x)


def float_plus_complex(x):
    b = np.zeros(3)
    b += x * 1j
    return np.sum(np.abs(b) ** 2)


def grows(x):
    c = x[:2].copy()
    c += np.reshape(x[:2], (2, 1)) * np.ones((2, 2))
    return np.sum(c)


def grows_by_a_leading_one(x):
    c = x.copy()
    c[:] += np.reshape(x, (1, 3))
    return np.sum(c)


def divided_int(x):
    b = np.arange(3)
    b /= 2
    return np.sum(b * x)


def int_out_slice(x):
    b = np.zeros(3, dtype=int)
    np.add(b[1:], x[1:], out=b[1:])
    return np.sum(b * x)


def int_view(x):
    b = np.zeros((2, 3), dtype=int)
    r = b[0]
    r += x
    return np.sum(b[0] * x)


RAISING = [
    (int_out_slice, [X]),
    (int_view, [X]),
    (int_plus_float, [X]),
    (int_times_float, [X]),
    (int_slice_plus_float, [X]),
    (int_out, [X]),
    (int_argument, [X, np.arange(3)]),
    (int_argument_itself, [X, np.arange(3)]),
    (int32_in_loop, [X]),
    (int_shared, [X]),
    (float_plus_complex, [X]),
    (grows, [X]),
    (grows_by_a_leading_one, [X]),
    (divided_int, [X]),
]


def _raises_as_f(call, expected):
    with pytest.raises((s2sad.DifferentiationError, type(expected))) as info:
        call()
    if isinstance(info.value, s2sad.DifferentiationError):
        assert re.search(HERE + r":\d+:\d+: ", str(info.value)), str(info.value)
        assert "NumPy" in str(info.value)


@pytest.mark.parametrize("f, args", RAISING, ids=lambda v: getattr(v, "__name__", ""))
def test_where_f_raises_every_derivative_raises(f, args):
    with pytest.raises((TypeError, ValueError)) as info:
        f(*copy.deepcopy(args))
    expected = info.value
    tangent = [np.ones(3)]
    _raises_as_f(lambda: s2sad.grad(f)(*copy.deepcopy(args)), expected)
    _raises_as_f(lambda: s2sad.value_and_grad(f)(*copy.deepcopy(args)), expected)
    _raises_as_f(lambda: s2sad.jvp(f)(*copy.deepcopy(args), *tangent), expected)
    _raises_as_f(lambda: s2sad.vjp(f)(*copy.deepcopy(args), 1.0), expected)
    _raises_as_f(lambda: s2sad.hessian(f)(*copy.deepcopy(args)), expected)


# ---- shapes that broadcast into the target stay exact -----------------------------------------------------


def smaller_right_side(x):
    c = np.ones((2, 3))
    c += x
    c *= x[0]
    return np.sum(c * c)


def int_plus_int(x):
    b = np.arange(3)
    b += 2
    b *= 3
    return np.sum(b * x)


def complex_target(x):
    c = np.zeros(3, complex)
    c += x
    c *= 1j
    return np.sum(np.abs(c) ** 2)


@pytest.mark.parametrize("f", [smaller_right_side, int_plus_int, complex_target], ids=lambda f: f.__name__)
def test_in_place_operations_numpy_allows_stay_exact(f):
    assert_exact(f, [X.copy()])
    got, _ = s2sad.value_and_grad(f)(X.copy())
    assert got == f(X.copy())
