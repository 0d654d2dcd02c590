"""``stop_gradient(x)``: the identity whose derivative s2sad takes to be zero, in both modes."""

import numpy as np
from fd import call_jvp

import s2sad
from s2sad.rules.nondifferentiable import stop_gradient


def product_with_constant(x):
    return np.sum(x * stop_gradient(x))


def scalar_product(x):
    return x * stop_gradient(x) + stop_gradient(x * x)


def test_reverse_treats_the_stopped_value_as_a_constant():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2sad.grad(product_with_constant)(x), x)


def test_forward_treats_the_stopped_value_as_a_constant():
    x = np.array([0.5, -1.0, 2.0])
    t = np.array([1.0, 2.0, -3.0])
    value, dout = call_jvp(product_with_constant, [x], (0,), [t])
    assert value == np.sum(x * x)
    np.testing.assert_allclose(dout, np.sum(x * t))


def test_floats_in_both_modes():
    assert s2sad.grad(scalar_product)(3.0) == 3.0
    value, dout = call_jvp(scalar_product, [3.0], (0,), [2.0])
    assert (value, dout) == (18.0, 6.0)


def test_stop_gradient_is_the_identity_on_values():
    x = np.arange(3.0)
    assert stop_gradient(x) is x
