"""Every call form of the public API."""

import math

import numpy as np
import pytest
from fd import assert_close, check_grad, numeric_grad

import s2sad

rng = np.random.default_rng(0)


def f(x, y):
    return np.sum(x * y + np.sin(x))


def scalar_f(x, y):
    z = x * y + math.sin(x)
    return z


def test_grad_first_argument_by_default():
    x, y = rng.normal(size=3), rng.normal(size=3)
    assert_close(s2sad.grad(f)(x, y), y + np.cos(x))


@pytest.mark.parametrize("wrt", [1, "y", -1])
def test_grad_wrt_index_or_name(wrt):
    x, y = rng.normal(size=3), rng.normal(size=3)
    assert_close(s2sad.grad(f, wrt=wrt)(x, y), x)


def test_grad_wrt_tuple_gives_tuple():
    x, y = rng.normal(size=3), rng.normal(size=3)
    gx, gy = s2sad.grad(f, wrt=(0, "y"))(x, y)
    assert_close(gx, y + np.cos(x))
    assert_close(gy, x)
    (only,) = s2sad.grad(f, wrt=("x",))(x, y)
    assert_close(only, y + np.cos(x))


def test_value_and_grad():
    value, g = s2sad.value_and_grad(scalar_f, wrt="y")(0.3, 2.0)
    assert value == scalar_f(0.3, 2.0)
    assert g == 0.3


def test_vjp_non_scalar_output():
    def_ = s2sad.vjp(lambda_free_vector, wrt=0)
    x = rng.normal(size=4)
    seed = rng.normal(size=(2, 4))
    expected = np.tensordot(seed, numeric_grad(lambda_free_vector, [x], 0), axes=2)
    assert_close(def_(x, seed), expected)


def lambda_free_vector(x):
    return np.stack([np.sin(x), x * x])


def test_grad_of_non_scalar_points_to_vjp_and_jacobian():
    g = s2sad.grad(lambda_free_vector)
    with pytest.raises(ValueError, match="vjp.*jacobian"):
        g(np.ones(3))


def test_python_float_gives_float_and_array_gives_array():
    gx = s2sad.grad(scalar_f)(0.5, 1.5)
    assert isinstance(gx, float)
    x = rng.normal(size=(2, 3))
    g = s2sad.grad(f)(x, 2.0)
    assert g.shape == x.shape and g.dtype == np.float64


def no_influence(x, y):
    return x * 2.0


def test_argument_without_influence_gives_zeros():
    assert s2sad.grad(no_influence, wrt=1)(1.0, 3.0) == 0.0
    g = s2sad.grad(lambda_free_sum, wrt=1)(np.ones(3), np.ones((2, 2)))
    assert g.shape == (2, 2) and not g.any()


def lambda_free_sum(x, y):
    return np.sum(x)


@s2sad.grad
def decorated(x):
    return x * x * x


@s2sad.grad(wrt=("w", "b"))
def decorated_with_wrt(w, b, x):
    return np.sum((x @ w + b) ** 2)


def test_decorator_forms():
    assert decorated(2.0) == 12.0
    w, b, x = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))
    gw, gb = decorated_with_wrt(w, b, x)
    assert gw.shape == (3, 2) and gb.shape == (2,)


def test_source_and_verbose(capsys):
    g = s2sad.grad(scalar_f, verbose=True)
    printed = capsys.readouterr().out
    assert printed.strip() == s2sad.source(g).strip()
    assert "def dscalar_f_dx(x, y, bz=1.0):" in printed


def test_source_refuses_plain_functions():
    with pytest.raises(s2sad.DifferentiationError):
        s2sad.source(scalar_f)


def test_cache_returns_same_function():
    assert s2sad.grad(scalar_f) is s2sad.grad(scalar_f)
    assert s2sad.grad(scalar_f, wrt=1) is not s2sad.grad(scalar_f)


@pytest.mark.parametrize("wrt, message", [(5, "out of range"), ("z", "not a parameter"), ((0, 0), "twice")])
def test_bad_wrt(wrt, message):
    with pytest.raises(s2sad.DifferentiationError, match=message):
        s2sad.grad(scalar_f, wrt=wrt)


# ---- name resolution -------------------------------------------------------------------------

from math import exp as mexp  # noqa: E402
from math import sin  # noqa: E402

import numpy.linalg as la  # noqa: E402


def resolved(x, v):
    return sin(x) * mexp(x) + la.norm(v) + np.linalg.norm(v * x)


def test_names_resolve_through_aliases_and_from_imports():
    v = rng.normal(size=3)
    check_grad(resolved, [0.4, v])


SCALE = 3.0


def make_closure(k):
    def inner(x):
        return SCALE * k * x * x

    return inner


def test_closures_and_globals():
    g = s2sad.grad(make_closure(2.0))
    assert g(1.5) == pytest.approx(3.0 * 2.0 * 2 * 1.5)


# ---- user functions ------------------------------------------------------------------------


def layer(W, b, x):
    return np.tanh(x @ W + b)


def two_layers(W1, b1, W2, b2, x):
    h = layer(W1, b1, x)
    out = layer(W2, b2, h)
    return np.sum(out * out)


def test_calls_to_user_functions_are_differentiated_into_the_same_module():
    args = [
        rng.normal(size=(3, 4)),
        rng.normal(size=4),
        rng.normal(size=(4, 2)),
        rng.normal(size=2),
        rng.normal(size=(5, 3)),
    ]
    g = s2sad.grad(two_layers, wrt=(0, 1, 2, 3))
    text = s2sad.source(g)
    assert "def vjp_layer" in text
    check_grad(two_layers, args, wrt=[0, 1, 2, 3])


def fact(x, n):
    if n <= 1:
        return x
    return x * fact(x, n - 1)


def test_recursion():
    assert s2sad.grad(fact)(1.3, 4) == pytest.approx(4 * 1.3**3)


# ---- statements -------------------------------------------------------------------------------


def statements(x, y):
    a, b = x * 2, y
    a += b
    a -= 0.5 * x
    a *= x
    a /= 1.0 + y * y
    a **= 2
    c = x[1:] * y[-1] + x[:-1]
    d = x.T.dot(y) + x.sum() + x.reshape(2, 2).sum(axis=0, keepdims=True).mean()
    e = np.mean(c, axis=0) * x.shape[0]
    return np.sum(a) + d + e


def test_statement_forms():
    check_grad(statements, [rng.normal(size=4), rng.normal(size=4)])


def matrix_indexing(A, v):
    return A[0, 1] * A[:, 0].sum() + A[1][2] + v @ A[:, 1:] @ v[1:]


def test_subscripts():
    check_grad(matrix_indexing, [rng.normal(size=(3, 3)), rng.normal(size=3)])


def polar(r, th, scale=1.0):
    return r * math.cos(th) * scale, r * math.sin(th) * scale


def uses_tuple_helper(r, th):
    x, y = polar(r, th, scale=2.0)
    return x * y + x


def test_user_function_returning_a_tuple_with_keywords_and_defaults():
    check_grad(uses_tuple_helper, [1.3, 0.4])


def make_model(k):
    def activation(v):
        return np.tanh(k * v)

    def model(x, W):
        return np.sum(activation(x @ W) ** 2)

    return model


def test_nested_closure_helpers():
    model = make_model(0.7)
    check_grad(model, [rng.normal(size=3), rng.normal(size=(3, 2))])


def rows(w):  # named like a local of the Jacobian wrapper
    return np.sin(w) * w


def test_jacobian_of_a_function_named_like_a_wrapper_local():
    w = np.array([0.3, -1.2])
    expected = np.diag(np.cos(w) * w + np.sin(w))
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(s2sad.jacobian(rows, mode=mode)(w), expected, rtol=1e-12)
