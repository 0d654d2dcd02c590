"""Jacobians, Hessians and VJPs of functions with default and keyword-only parameters, and of
generated derivatives (whose seeds are such parameters): values against central finite differences."""

import math

import numpy as np
import pytest
from fd import assert_close, numeric_grad

import s2sad
from s2sad.errors import DifferentiationError

x = np.array([1.0, 2.0, -0.5])


def scaled(x, k=2.0):
    return np.sum(x * x) * k


def cubed(x, a=2.0):
    return a * x**3


def cubed_kwonly(x, *, a=2.0):
    return a * x**3


def quartic(x, a=2.0):
    return np.sum(a * x**4)


def sines(a):
    return np.sum(np.sin(a))


@pytest.mark.parametrize("mode", [None, "forward", "reverse"])
@pytest.mark.parametrize("f", [scaled, cubed, cubed_kwonly, quartic])
def test_jacobian_of_a_function_with_a_default(f, mode):
    assert_close(s2sad.jacobian(f, mode=mode)(x), numeric_grad(f, [x], 0))


@pytest.mark.parametrize("mode", [None, "forward", "reverse"])
def test_jacobian_with_respect_to_a_defaulted_parameter(mode):
    jac = s2sad.jacobian(cubed, wrt="a", mode=mode)(x, 3.0)
    assert_close(jac, numeric_grad(cubed, [x, 3.0], 1))


@pytest.mark.parametrize("mode", [None, "forward", "reverse"])
@pytest.mark.parametrize("f", [sines, quartic])
def test_jacobian_of_a_gradient(f, mode):
    g = s2sad.grad(f)
    assert_close(s2sad.jacobian(g, mode=mode)(x), numeric_grad(g, [x], 0), rtol=1e-4)


@pytest.mark.parametrize("mode", [None, "forward", "reverse"])
def test_jacobian_of_a_hessian_and_of_a_jacobian_of_a_gradient(mode):
    h = s2sad.hessian(quartic)
    assert_close(s2sad.jacobian(h, mode=mode)(x), numeric_grad(h, [x], 0), rtol=1e-4)
    jg = s2sad.jacobian(s2sad.grad(quartic))
    assert_close(s2sad.jacobian(jg, mode=mode)(x), numeric_grad(jg, [x], 0), rtol=1e-4)
    jj = s2sad.jacobian(cubed)
    assert_close(s2sad.jacobian(jj, mode=mode)(x), numeric_grad(jj, [x], 0), rtol=1e-4)


def test_hessian_of_a_hessian_is_the_four_index_array():
    h = s2sad.hessian(quartic)
    hh = s2sad.hessian(h)(x)
    assert hh.shape == (3, 3, 3, 3)
    assert_close(hh, numeric_grad(s2sad.jacobian(h), [x], 0), rtol=1e-4)
    assert_close(s2sad.hessian(s2sad.hessian(lambda t: t**4))(2.0), 24.0)


def test_hessian_of_a_vector_function_says_to_use_jacobian():
    with pytest.raises(ValueError, match="jacobian"):
        s2sad.hessian(cubed)(x)


seed = np.array([1.0, 10.0, -3.0])


def test_vjp_seed_is_the_last_positional_argument_with_defaults():
    assert_close(s2sad.vjp(cubed)(x, seed), 6.0 * x**2 * seed)
    assert_close(s2sad.vjp(cubed)(x, 3.0, seed), 9.0 * x**2 * seed)
    assert_close(s2sad.vjp(cubed)(x, seed, a=1.0), 3.0 * x**2 * seed)
    assert_close(s2sad.vjp(cubed_kwonly)(x, seed), 6.0 * x**2 * seed)
    assert_close(s2sad.vjp(cubed, wrt=(0, 1))(x, 3.0, seed)[1], np.sum(x**3 * seed))


def test_vjp_of_a_gradient_takes_its_seed_last():
    g = s2sad.grad(sines)
    assert_close(s2sad.vjp(g)(x, seed), -np.sin(x) * seed)
    assert_close(s2sad.vjp(g)(x, 1.0, seed), -np.sin(x) * seed)
    h = s2sad.hessian(quartic)
    assert_close(s2sad.vjp(h)(x, np.eye(3)), np.einsum("ij,ijk->k", np.eye(3), numeric_grad(h, [x], 0)), rtol=1e-4)


def test_vjp_without_a_seed_says_so():
    with pytest.raises(TypeError, match="seed"):
        s2sad.vjp(cubed)()


def rec(x, n):
    if n == 0:
        return x
    return np.sin(rec(x, n - 1)) * x


def rec_math(x, n):
    if n == 0:
        return x
    return math.sin(rec_math(x, n - 1)) * x


def rec_sum(x):
    return np.sum(rec(x, 2))


def rec_scalar(t):
    return rec(t, 2)


def rec_math_scalar(t):
    return rec_math(t, 2)


def derivative(g, t, eps=1e-5):
    return (g(t + eps) - g(t - eps)) / (2 * eps)


@pytest.mark.parametrize("f", [rec_scalar, rec_math_scalar])
def test_reverse_over_reverse_through_recursion(f):
    g = s2sad.grad(f)
    assert_close(s2sad.grad(g)(0.5), derivative(g, 0.5), rtol=1e-5)
    gg = s2sad.grad(g)
    assert_close(s2sad.grad(gg)(0.5), derivative(gg, 0.5), rtol=1e-5)
    assert_close(s2sad.hessian(g)(0.5), derivative(gg, 0.5), rtol=1e-5)


def test_jacobian_of_a_hessian_through_recursion():
    h = s2sad.hessian(rec_sum)
    for mode in (None, "forward", "reverse"):
        assert_close(s2sad.jacobian(h, mode=mode)(x), numeric_grad(h, [x], 0), rtol=1e-4)


def writes_both(x, y):
    x += y
    y *= 2
    return np.sum(x * y)


def reads_both(x, y):
    return np.sum(x * y)


@pytest.mark.parametrize("entry", [s2sad.grad, s2sad.value_and_grad, s2sad.jacobian, s2sad.hessian])
def test_arguments_sharing_memory_with_one_f_writes_into_are_refused(entry):
    a = np.array([1.0, 2.0])
    with pytest.raises(DifferentiationError, match=r"test_nested_wrappers\.py:\d+:\d+: .*share memory"):
        entry(writes_both)(a, a)
    with pytest.raises(DifferentiationError, match="share memory"):
        entry(writes_both)(a, a[::-1])
    b, c = a.copy(), a.copy()
    expected = numeric_grad(lambda u: writes_both(u.copy(), c.copy()), [b], 0)
    if entry is s2sad.grad:
        assert_close(entry(writes_both)(b, c), expected)
    assert np.array_equal(b, a) and np.array_equal(c, a)


def test_arguments_sharing_memory_f_only_reads_are_exact():
    a = np.array([1.0, 2.0])
    assert_close(s2sad.grad(reads_both)(a, a), a)
