"""Findings of the round-23 blind testers: zero tangents of constants times infinite coefficients, ``.copy()``
of dicts and lists, keyword-only defaults changed in place, a partial's keyword given again at the call."""

import functools

import numpy as np
import pytest
from fd import numeric_grad, numeric_jvp

import s2sad
from s2sad.errors import DifferentiationError

X = np.array([0.3, -0.7, 1.1])
V = np.array([1.0, 2.0, -0.5])


# ---- keyword-only defaults changed in place --------------------------------------------------------
def scaled_kw(x, *, c=2.0):
    return np.sum(c * x**2)


def weighted_kw(x, *, w=np.array([1.0, 2.0, 3.0])):  # noqa: B008
    return np.sum(w * x**2)


def test_kwdefaults_replaced_in_place_make_a_fresh_derivative_and_refuse_the_old_one():
    old = {**scaled_kw.__kwdefaults__}
    try:
        g = s2sad.grad(scaled_kw)
        np.testing.assert_allclose(g(X), 4.0 * X)
        scaled_kw.__kwdefaults__["c"] = 5.0
        with pytest.raises(DifferentiationError, match="defaults of scaled_kw changed"):
            g(X)  # was 2 * 2.0 * x, silently
        for kind in ("grad", "value_and_grad"):
            out = getattr(s2sad, kind)(scaled_kw)(X)
            np.testing.assert_allclose(out[1] if kind == "value_and_grad" else out, 10.0 * X)
        np.testing.assert_allclose(s2sad.jvp(scaled_kw)(X, V)[1], 10.0 * X @ V)
        np.testing.assert_allclose(s2sad.hessian(scaled_kw)(X), 10.0 * np.eye(3))
        np.testing.assert_allclose(s2sad.grad(scaled_kw)(X, c=1.0), 2.0 * X)  # given at the call
        del scaled_kw.__kwdefaults__["c"]  # a keyword without default now: the old derivative refuses
        with pytest.raises(DifferentiationError, match="defaults"):
            g(X)
    finally:
        scaled_kw.__kwdefaults__ = old
    np.testing.assert_allclose(s2sad.grad(scaled_kw)(X), 4.0 * X)


def test_an_array_kwdefault_changed_in_place_is_read_live_like_a_positional_one():
    w = weighted_kw.__kwdefaults__["w"]
    saved = w.copy()
    try:
        g = s2sad.grad(weighted_kw)
        np.testing.assert_allclose(g(X), 2 * saved * X)
        w[:] = [3.0, 4.0, 5.0]
        np.testing.assert_allclose(g(X), 2 * w * X)
        np.testing.assert_allclose(s2sad.grad(weighted_kw)(X), 2 * w * X)
        np.testing.assert_allclose(s2sad.jvp(weighted_kw)(X, V)[1], (2 * w * X) @ V)
    finally:
        w[:] = saved


# ---- a partial's keyword given again at the call --------------------------------------------------
def base(x, *, c=2.0):
    return np.sum(x**2 + c * np.sin(x))


def test_the_calls_keyword_wins_over_the_partials_in_every_mode():
    p = functools.partial(base, c=5.0)
    want = functools.partial(base, c=1.0)
    x0 = X.copy()
    np.testing.assert_allclose(s2sad.grad(p)(X, c=1.0), numeric_grad(want, [X], 0), rtol=1e-6)
    np.testing.assert_allclose(s2sad.grad(p)(X), numeric_grad(p, [X], 0), rtol=1e-6)  # the partial's own
    value, g = s2sad.value_and_grad(p)(X, c=1.0)
    assert value == p(X, c=1.0)
    np.testing.assert_allclose(g, numeric_grad(want, [X], 0), rtol=1e-6)
    value, t = s2sad.jvp(p)(X, V, c=1.0)
    assert value == p(X, c=1.0)
    np.testing.assert_allclose(t, numeric_jvp(want, [X], (0,), [V]), rtol=1e-6)
    np.testing.assert_allclose(s2sad.vjp(p)(X, 1.0, c=1.0), numeric_grad(want, [X], 0), rtol=1e-6)
    np.testing.assert_allclose(s2sad.hessian(p)(X, c=1.0), np.diag(2 - np.sin(X)), rtol=1e-12)
    np.testing.assert_allclose(s2sad.grad(p)(X, c=np.array([0.0, 1.0, 2.0])), 2 * X + [0, 1, 2] * np.cos(X))
    np.testing.assert_array_equal(X, x0)
    q = functools.partial(p, c=3.0)  # nested: the outer partial's keyword, then the call's
    np.testing.assert_allclose(s2sad.grad(q)(X), 2 * X + 3 * np.cos(X))
    np.testing.assert_allclose(s2sad.grad(q)(X, c=-1.0), 2 * X - np.cos(X))


def test_a_partials_keyword_changed_in_place_names_the_partial():
    p = functools.partial(base, c=5.0)
    g = s2sad.grad(p)
    p.keywords["c"] = 1.0
    with pytest.raises(DifferentiationError, match="on the partial again") as info:
        g(X)
    assert "grad(base)" not in str(info.value)
    np.testing.assert_allclose(s2sad.grad(p)(X), 2 * X + np.cos(X))
