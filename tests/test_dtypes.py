"""Derivatives have their argument's type (float32 stays float32, 0-d stays 0-d, a float is a float), and
edge values give what the true derivative gives: no NaN where the derivative is a number."""

import warnings

import numpy as np
from fd import assert_type_of

import s2sad


def sum_squares(x):
    return np.sum(x * x)


def mean_(x):
    return np.mean(x)


def std_(x):
    return np.std(x)


def power_of_zero(y):
    return np.power(0.0, y)


def real_of_mixed(a, b):
    c = a + b
    return np.real(c * c)


def test_float32_stays_float32():
    x = np.arange(3, dtype=np.float32)
    g = s2sad.grad(sum_squares)(x)
    assert_type_of(g, x)
    np.testing.assert_allclose(g, 2 * x)


def test_zero_d_array_gets_a_zero_d_array():
    x = np.array(2.0)
    g = s2sad.grad(sum_squares)(x)
    assert_type_of(g, x)
    assert g == 4.0


def test_python_float_gets_a_float():
    assert_type_of(s2sad.grad(sum_squares)(2.0), 2.0)


def test_real_argument_of_complex_intermediate_is_real():
    ga, gb = s2sad.grad(real_of_mixed, wrt=(0, 1))(0.6, 0.6 + 0.3j)
    assert type(ga) is float and ga == 2.4  # JAX: 2.4
    assert type(gb) is complex and np.isclose(gb, 2.4 + 0.6j)  # d/dRe - i d/dIm of Re(c * c)


def test_mean_of_empty_array_is_empty():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # f itself: mean of an empty slice
        g = s2sad.grad(mean_)(np.zeros(0))
    assert g.shape == (0,) and g.dtype == np.float64


def test_std_of_one_value_has_zero_derivative():
    assert s2sad.grad(std_)(2.0) == 0.0
    np.testing.assert_array_equal(s2sad.grad(std_)(np.array([3.0])), [0.0])


def test_power_of_zero_wrt_exponent_is_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no log(0) evaluated into the result
        warnings.simplefilter("ignore", RuntimeWarning)
        assert s2sad.grad(power_of_zero)(2.0) == 0.0
    _, d = s2sad.jvp(power_of_zero)(2.0, 1.0)
    assert d == 0.0


def _sin2(x):
    return np.sin(x) * 2.0


def _det(a):
    return np.linalg.det(a)


def test_jvp_tangent_takes_the_argument_dtype():
    x = np.linspace(0.0, 1.0, 3, dtype=np.float32)
    value, tangent = s2sad.jvp(_sin2)(x, np.ones(3))  # a float64 tangent for a float32 argument
    assert value.dtype == np.float32 and tangent.dtype == np.float32
    a = np.eye(3, dtype=np.float32)
    assert np.asarray(s2sad.jvp(_det)(a, np.ones((3, 3)))[1]).dtype == np.float32


def test_det_derivative_at_singular_matrices_is_the_cofactor_matrix():
    a = np.diag([1.0, 2.0, 0.0])
    np.testing.assert_array_equal(s2sad.grad(_det)(a), np.diag([0.0, 0.0, 2.0]))
    assert s2sad.jvp(_det)(a, np.eye(3))[1] == 2.0
    np.testing.assert_array_equal(s2sad.grad(_det)(np.zeros((3, 3))), np.zeros((3, 3)))
