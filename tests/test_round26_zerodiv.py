"""A derivative never raises Python's ZeroDivisionError where f does not (round 26a): NumPy's functions of
Python floats at the ends of their domains (``np.log(0.0)`` is -inf, ``np.arctanh(1.0)`` inf,
``np.arctan2(0.0, 0.0)`` 0) have derivatives computed with NumPy's division: inf or nan, as NumPy gives."""

import warnings

import numpy as np
import pytest

import s2sad

UFUNCS = sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc) and getattr(np, n).nin in (1, 2))
POINTS = (0.0, 1.0, -1.0, 0.5)


def _of(u):
    if u.nin == 1:
        return lambda x: u(x)
    return lambda x: u(x, x) + u(x, 0.0) + u(0.0 + x * x, x)


def _value(f, x):
    try:
        with np.errstate(all="ignore"):
            v = f(x)
    except Exception:
        return None
    if not np.isscalar(v) or not np.issubdtype(np.asarray(v).dtype, np.inexact):
        return None
    return v


@pytest.mark.parametrize("mode", ["grad", "jvp", "hessian"])
@pytest.mark.parametrize("ufunc", UFUNCS)
def test_no_zero_division_where_f_gives_a_number(ufunc, mode):
    f = _of(getattr(np, ufunc))
    points = [x for x in POINTS if _value(f, x) is not None]
    if not points:
        return
    try:
        d = {"grad": s2sad.grad, "jvp": s2sad.jvp, "hessian": s2sad.hessian}[mode](f)
    except s2sad.DifferentiationError:
        return  # (no rule: refused, at the user's line)
    for x in points:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                d(x, 1.0) if mode == "jvp" else d(x)
            except s2sad.DifferentiationError:
                pass


@pytest.mark.parametrize(
    "f, x, expected",
    [
        (lambda x: np.log(x), 0.0, np.inf),
        (lambda x: np.log2(x), 0.0, np.inf),
        (lambda x: np.log10(x), 0.0, np.inf),
        (lambda x: np.log1p(x), -1.0, np.inf),
        (lambda x: np.arctanh(x), 1.0, np.inf),
        (lambda x: np.log(x * x), 0.0, np.nan),  # (2x / x^2 = 0 * inf)
        (lambda x: np.arctan2(x, x), 0.0, np.nan),
    ],
)
def test_the_derivative_is_numpys_inf_or_nan(f, x, expected):
    with np.errstate(all="ignore"):
        g = s2sad.grad(f)(x)
        t = s2sad.jvp(f)(x, 1.0)[1]
    np.testing.assert_equal(g, expected)
    np.testing.assert_equal(t, expected)


def test_away_from_the_end_of_the_domain_the_derivative_is_plain_float_arithmetic():
    g = s2sad.grad(lambda x: np.log(x) + np.arctanh(x / 4) + np.arctan2(x, 2.0))(2.0)
    expected = 1 / 2.0 + (1 / 4) / (1 - 0.25) + 2.0 / (4.0 + 4.0)
    assert abs(g - expected) < 1e-12
