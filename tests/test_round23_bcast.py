"""Round 23: a value f reads but does not compute (``A.T``, ``self.X``, ``cfg.A``) broadcast against an
argument; every mode, including both Jacobians and the HVP, against finite differences."""

import functools
import types
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest
from exact_or_refused import check, numeric_hessian, numeric_jacobian

import s2sad

A = np.arange(6.0).reshape(3, 2) / 7 + 0.1
S = np.array([0.5, 1.5, 2.0])
cfg = types.ModuleType("cfg")
cfg.A = A
cfg.S = S


class Holder:
    def __init__(self):
        self.X, self.s = A, S

    @property
    def XT(self):
        return self.X.T


G = Holder()


class Frozen(NamedTuple):
    X: np.ndarray
    s: np.ndarray


@dataclass(frozen=True)
class FrozenDC:
    X: np.ndarray
    s: np.ndarray


NT = Frozen(A, S)
DC = FrozenDC(A, S)


def global_T_mul(w):
    return np.sum(A.T * w)


def global_T_add(w):
    return np.sum(np.sin(A.T + w))


def global_T_matmul_and_mul(w):
    return np.sum(A.T @ w) + np.sum(A.T * w)


def module_attr(w):
    return np.sum(np.cos(cfg.A.T * w))


def module_attr_scalar_input(x):
    return np.sum(np.sin(cfg.S * x))


def global_object_attr(w):
    return np.sum((G.X * w[:2]) ** 2)


def global_object_property(w):
    return np.sum(G.XT * w)


def namedtuple_field(w):
    return np.sum(np.tanh(NT.X.T - w))


def dataclass_field(x):
    return np.sum(np.exp(DC.s * x))


def global_row(w):
    return np.sum(A[0] * w)  # (2,) against a scalar


def global_column(x):
    return np.sum(A[:, 0] * x)


def global_method_result(w):
    return np.sum(A.T.copy() * w)


def closure_attr():
    obj = Holder()

    def f(w):
        return np.sum(obj.X.T / (1.0 + w * w))

    return f


class Ridge:
    def __init__(self, X, y):
        self.X, self.y = X, y

    def loss(self, w):
        r = np.sum(self.X * w, axis=1) - self.y
        return np.mean(r**2)

    def __call__(self, w):
        return self.loss(w)

    def scalar_loss(self, x):
        return np.sum(np.sin(self.y * x))


class Cls:
    X = A

    @classmethod
    def loss(cls, w):
        return np.sum(np.sin(cls.X.T * w))


def base(obj, w):
    return np.sum(np.sin(obj.X * w))


RNG = np.random.default_rng(0)
X5, y5 = RNG.normal(size=(5, 3)), RNG.normal(size=5)
ridge = Ridge(X5, y5)

CASES = [
    (global_T_mul, np.array([0.3, -0.2, 0.8])),
    (global_T_add, np.array([0.3, -0.2, 0.8])),
    (global_T_matmul_and_mul, np.array([0.3, -0.2, 0.8])),
    (module_attr, np.array([0.3, -0.2, 0.8])),
    (module_attr_scalar_input, 0.7),
    (global_object_attr, np.array([0.3, -0.2, 0.8])),
    (global_object_property, np.array([0.3, -0.2, 0.8])),
    (namedtuple_field, np.array([0.3, -0.2, 0.8])),
    (dataclass_field, 0.4),
    (global_row, 0.6),
    (global_column, 0.6),
    (global_method_result, np.array([0.3, -0.2, 0.8])),
    (closure_attr(), np.array([0.3, -0.2, 0.8])),
    (ridge.loss, np.array([0.3, -0.2, 0.8])),
    (ridge, np.array([0.3, -0.2, 0.8])),
    (ridge.scalar_loss, 0.3),
    (Cls.loss, np.array([0.3, -0.2, 0.8])),
    (functools.partial(base, Holder()), np.array([0.3, -0.2])),
]


def _id(case):
    f = case[0]
    return getattr(f, "__name__", None) or type(f).__name__


@pytest.mark.parametrize("f,x", CASES, ids=[_id(c) for c in CASES])
def test_a_read_value_broadcast_against_the_input_is_summed_back(f, x):
    assert check(f, [x]) == []
    jac = numeric_jacobian(f, [x], 0)
    for mode in ("forward", "reverse", None):
        got = s2sad.jacobian(f, mode=mode)(x)
        np.testing.assert_allclose(got, jac, rtol=1e-5, atol=1e-6, err_msg=f"jacobian {mode}")
    v = np.linspace(0.5, -0.5, np.size(x)).reshape(np.shape(x))
    v = float(v) if isinstance(x, float) else v
    hess = numeric_hessian(f, [x], 0)
    want = np.tensordot(hess, v, axes=np.ndim(x))
    np.testing.assert_allclose(s2sad.hvp(f)(x, v), want, rtol=1e-4, atol=1e-5)


def test_ridge_gradient_is_the_closed_form():
    w = RNG.normal(size=3)
    want = 2 * X5.T @ (X5 @ w - y5) / 5
    np.testing.assert_allclose(s2sad.grad(ridge.loss)(w), want, rtol=1e-12)
    np.testing.assert_allclose(s2sad.grad(ridge)(w), want, rtol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(ridge.loss)(w), 2 * X5.T @ X5 / 5, rtol=1e-12)


def test_an_operand_reshaped_after_generation_still_sums_back():
    # the shape of a read value is never taken from what it held when the code was generated
    h = Holder()
    g = s2sad.grad(functools.partial(base, h))
    x = np.array([0.3, -0.2])
    assert g(x).shape == (2,)
    h.X = np.ones(2)
    np.testing.assert_allclose(g(x), np.cos(x), rtol=1e-12)
    h.X = 2.0
    np.testing.assert_allclose(g(x), 2 * np.cos(2 * x), rtol=1e-12)


def test_module_number_constants_stay_scalars():
    import math

    def f(w):
        return np.sum(math.pi * w + np.e * w)

    text = s2sad.source(s2sad.grad(f))
    assert "unbroadcast" not in text
    np.testing.assert_allclose(s2sad.grad(f)(np.ones(2)), np.full(2, math.pi + np.e))


B = np.arange(9.0).reshape(3, 3) / 9


def square_matmul_and_mul(w):
    return B.T @ w + B.T * w  # an array output: vjp and both Jacobians


def test_a_square_read_value_in_an_array_output():
    x = np.array([0.3, -0.2, 0.8])
    assert check(square_matmul_and_mul, [x]) == []
    jac = numeric_jacobian(square_matmul_and_mul, [x], 0)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(s2sad.jacobian(square_matmul_and_mul, mode=mode)(x), jac, rtol=1e-6, atol=1e-8)


@dataclass
class Named:  # user attributes named like an array's integer facts
    size: np.ndarray
    shape: np.ndarray


NAMED = Named(np.array([[1.0, 2, 3], [4, 5, 6]]), np.array([[1.0, 2, 3], [4, 5, 6]]))


def global_size(w):
    return np.sum(np.sin(NAMED.size * w))


def global_shape_row(w):
    s = NAMED.shape
    return np.sum(np.sin(s[1] + w[0]))


class NamedMethods:
    def __init__(self):
        self.size, self.shape = NAMED.size, NAMED.shape

    def by_size(self, w):
        return np.sum(np.sin(self.size * w))

    def by_shape(self, w):
        n = self.shape
        return np.sum(np.sin(n[0] * w[0]))


@pytest.mark.parametrize(
    "f", [global_size, global_shape_row, NamedMethods().by_size, NamedMethods().by_shape], ids=lambda f: f.__name__
)
def test_an_attribute_named_size_or_shape_of_a_read_object_is_not_taken_for_an_integer(f):
    assert check(f, [np.array([0.3, -0.2, 0.8])]) == []


def param_size(p, w):
    return np.sum(np.sin(p.size * w))  # p is a user object: its .size is an array, not an integer


def param_shape_row(p, w):
    s = p.shape
    return np.sum(np.sin(s[1] * w[0]))


@pytest.mark.parametrize("f", [param_size, param_shape_row], ids=lambda f: f.__name__)
def test_an_attribute_named_size_or_shape_of_an_object_argument_is_not_taken_for_an_integer(f):
    x = np.array([0.3, -0.2, 0.8])
    got = s2sad.grad(f, wrt=1)(NAMED, x)
    want = numeric_jacobian(lambda w: f(NAMED, w), [x], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def array_facts(x):
    n = x.shape[0]
    return np.sum(x**2) / n + np.sum(x / x.size) + np.sum(x * x.ndim)


def test_an_arrays_shape_size_and_ndim_are_still_exact():
    x = np.array([[0.3, -0.2, 0.8], [0.1, 0.5, -0.6]])
    assert check(array_facts, [x]) == []
