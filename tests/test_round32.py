"""Round 32 (blind tester 32a): three wrong numbers.

* ``cfg.T`` of a NamedTuple (or object) with a field named ``T`` (a temperature) was read as NumPy's
  transpose: ``np.transpose(cfg)`` made an array of the fields (value 9.875 for 0.951); ``.T`` of a value not
  known to be an array is now checked to be one where it runs, and refused otherwise.
* ``a.item((1, 2))``: reverse mode unravelled the tuple as two flat positions ([[0, 3, 3, 0], ...]).
* ``x ** (1/3)`` of a negative Python float is complex in Python; its derivative was NumPy's nan.
"""

from typing import NamedTuple

import numpy as np
import pytest
from fd import numeric_grad

import s2sad


class Cfg(NamedTuple):
    T: float
    lam: float


def tempered(z, cfg):
    p = np.exp(z / cfg.T)
    p = p / np.sum(p)
    return -np.log(p[0]) + cfg.lam * np.sum(z**2)


def test_a_field_named_T_is_refused_not_transposed():
    z = np.array([0.5, 1.0])
    for call in (
        lambda: s2sad.value_and_grad(tempered)(z, Cfg(2.0, 0.1)),
        lambda: s2sad.jvp(tempered)(z, Cfg(2.0, 0.1), np.ones(2)),
        lambda: s2sad.hessian(tempered)(z, Cfg(2.0, 0.1)),
    ):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round32.py:\d+:\d+: `cfg.T` is read as NumPy"):
            call()


def test_transpose_of_an_array_argument_stays_exact():
    def f(x, W):
        return np.sum(np.tanh(x @ W.T))

    rs = np.random.RandomState(0)
    x, W = rs.randn(2), rs.randn(3, 2)
    np.testing.assert_allclose(s2sad.grad(f)(x, W), numeric_grad(f, [x, W], 0), rtol=1e-6)
    np.testing.assert_allclose(s2sad.grad(f, wrt=1)(x, W), numeric_grad(f, [x, W], 1), rtol=1e-6)


def test_item_with_a_tuple_index():
    def f(a):
        return 3.0 * a.item((1, 2)) + a.item(5) ** 2

    a = np.arange(12.0).reshape(3, 4)
    expected = np.zeros((3, 4))
    expected[1, 2], expected[1, 1] = 3.0, 10.0
    np.testing.assert_allclose(s2sad.grad(f)(a), expected)
    np.testing.assert_allclose(s2sad.vjp(f)(a, seed=1.0), expected)
    np.testing.assert_allclose(s2sad.jacobian(f, mode="reverse")(a), expected)
    np.testing.assert_allclose(s2sad.jacobian(f, mode="forward")(a), expected)


def test_a_negative_float_to_a_fractional_power_is_complex_as_python_makes_it():
    def f(x):
        return abs(x ** (1 / 3))

    def g(x):
        return (x**0.5).imag * 3

    assert s2sad.value_and_grad(f)(-8.0) == (f(-8.0), pytest.approx(-1 / 12))
    assert s2sad.value_and_grad(g)(-4.0)[1] == pytest.approx(-0.75)
    assert s2sad.jvp(lambda x: x ** (1 / 3))(-8.0, 1.0)[1] == pytest.approx((1 / 3) * complex(-8.0) ** (-2 / 3))
    e = 1e-4
    fd2 = (f(-8 + e) - 2 * f(-8.0) + f(-8 - e)) / e**2
    assert s2sad.hessian(f)(-8.0) == pytest.approx(fd2, rel=1e-4)
    assert s2sad.grad(lambda x: x**1.5)(4.0) == pytest.approx(3.0)  # (a positive base: real, as before)


def _rec(f, x, n):
    return f(x) if n <= 0 else _rec(f, x, n - 1)


def _sq(t):
    return t * t


def test_a_recursive_helper_given_a_function_is_refused_not_a_recursion_error():
    with pytest.raises(s2sad.DifferentiationError, match=r"_rec\(\) calls itself with the function argument"):
        s2sad.grad(lambda x: _rec(_sq, x, 3))(1.5)


def alias_written_then_parent_written(x):
    a = x.copy()
    b = a
    b[0] = b[0] * b[0]
    a[3] = 5.0
    return np.sum(b)


def three_aliases(x):
    a = x.copy()
    b = a
    c = b
    c[1] = x[0] ** 3
    b[2] = 1.0
    a[3] = 2.0
    return np.sum(c)


def slice_alias_then_parent(x):
    a = x.copy()
    b = a[:]
    b[0] = b[0] * b[0]
    a[3] = 5.0
    return np.sum(b * x)


@pytest.mark.parametrize(
    "f", [alias_written_then_parent_written, three_aliases, slice_alias_then_parent], ids=lambda f: f.__name__
)
def test_a_write_through_an_alias_then_through_its_parent(f):
    """``b = a; b[0] = ...; a[3] = ...; return b``: value liveness took ``a`` for dead after the write into
    ``b`` (only written into later), so the write into ``b`` never reached ``a``'s derivative, which ``b``
    was then read from ([1, 1, 1, 0] for [6, 1, 1, 0] in every mode, round 32b).  A write into part of a name
    reads the rest of it."""
    from exact_or_refused import assert_exact

    x = np.array([3.0, 1.0, 1.0, 1.0])
    assert_exact(f, [x])
    np.testing.assert_allclose(s2sad.grad(f)(x), numeric_grad(f, [x.copy()], 0), rtol=1e-6, atol=1e-8)


def sorted_item_overwritten(x):
    a = np.sort(x)
    L = [a]
    L[0] = x * 3.0
    return np.sum(L[0] * x)


def written_item_overwritten(x):
    a = x * 1.0
    a[1] = a[3] * 2.0
    L = [a]
    L[0] = x * 3.0
    return np.sum(L[0] * x)


@pytest.mark.parametrize("f", [sorted_item_overwritten, written_item_overwritten], ids=lambda f: f.__name__)
def test_an_overwritten_list_item_gets_a_zero_adjoint_of_its_shape(f):
    """``L[0] = ...`` over an array item: its adjoint was reset to the number 0.0, which the adjoint of the
    item's own computation (a sort, an in-place write) could not index (crashes, round 32b)."""
    from exact_or_refused import assert_exact

    assert_exact(f, [np.array([0.3, -1.0, 2.0, 0.5])])
