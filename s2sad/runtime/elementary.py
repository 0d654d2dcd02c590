"""Runtime helpers for elementary functions whose derivatives need care at edge points: the
derivatives of powers (``pow_deriv``: exactly 0 where the coefficient is 0, NumPy's inf/nan where
Python would raise) and of ``np.sinc`` (``sinc_deriv``: a Taylor series near 0).  Each derivative of
a helper is the same helper one order higher, so every order is exact (``rules/runtime_rules.py``)."""

from __future__ import annotations

import math

import numpy as np

from .trees import _refusal

__all__ = ["pow_deriv", "falling", "sinc_deriv", "modulus_nonzero", "tangent_times", "tangent_over", "float_zeros"]


def tangent_times(d, c):
    """``d * c`` for a tangent ``d``, but ``d`` itself when it is the int 0 a container holds for a constant
    (the 2 of ``(2, x)``): the tangent of a constant is exactly 0 even where the coefficient ``c`` is infinite
    or nan (``sqrt`` at 0, ``log`` of the negative base of ``x ** 2``)."""
    return d if type(d) is int and d == 0 else d * c


def float_zeros(t):
    """The tangent ``t`` a JVP returns, with the int 0s of constants (see ``tangent_times``) as 0.0, in lists, tuples
    and dicts too."""
    if type(t) is int and t == 0:
        return 0.0
    if type(t) in (list, tuple, dict) or isinstance(t, tuple) and hasattr(t, "_fields"):
        items = t.values() if isinstance(t, dict) else t
        if not any(type(v) is int or type(v) in (list, tuple, dict) or hasattr(v, "_fields") for v in items):
            return t
        if isinstance(t, dict):
            return {k: float_zeros(v) for k, v in t.items()}
        if hasattr(t, "_fields"):
            return tuple.__new__(type(t), [float_zeros(v) for v in t])  # (not its class's __new__)
        return type(t)(float_zeros(v) for v in t)
    return t


def tangent_over(d, c):
    """``np.divide(d, c)`` for a tangent ``d`` (inf or nan where ``c`` is 0, never ZeroDivisionError), but ``d``
    itself when it is the int 0 of a constant (see ``tangent_times``)."""
    return d if type(d) is int and d == 0 else np.divide(d, c)


def _number(value, like):
    """``value`` as a Python number when ``like`` is one (derivatives have their argument's type)."""
    if isinstance(like, (bool, int, float, complex)) and not isinstance(like, np.generic):
        return complex(value) if isinstance(value, complex) or np.iscomplexobj(value) else float(value)
    return value


def falling(y, k, m=0):
    """The ``m``-th derivative in ``y`` of the falling factorial ``y (y - 1) ... (y - k + 1)`` (1 for
    ``k == 0``): the coefficient of ``d^k/dx^k x ** y = falling(y, k) * x ** (y - k)``."""
    poly = np.atleast_1d(np.poly(np.arange(k, dtype=float)))
    if m:
        poly = np.polyder(poly, m) if m <= k else np.zeros(1)
    return _number(np.polyval(poly, y), y)


def pow_deriv(x, y, k):
    """``d^k/dx^k x ** y = falling(y, k) * x ** (y - k)``, exactly 0 where the coefficient is 0 (the
    derivative of ``x ** 0`` is 0 at x == 0 too, and the second derivative of ``x ** 1`` is 0, not
    ``0 * inf``), with NumPy's inf or nan where ``x ** (y - k)`` is infinite (a Python float never
    raises ZeroDivisionError here)."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        c = 1
        for j in range(k):
            c *= y - j
        if c == 0:
            return _number(0.0, x) if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else np.zeros_like(x * 1.0)
    else:
        c = falling(y, k)
    if type(x) in (int, float) and type(y) in (int, float) and x < 0 and y != int(y):
        return c * complex(x) ** (y - k)  # (-8.0) ** (1/3): Python's power is complex there, and so is its derivative
    base = np.asarray(x)
    if not np.issubdtype(base.dtype, np.inexact):
        base = base.astype(float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        value = c * np.power(base, np.subtract(y, k))
        if not np.isscalar(c) and np.any(c == 0):
            value = np.where(c == 0, 0.0, value)
    if isinstance(x, np.ndarray):
        return np.asarray(value)
    return _number(value, x) if not isinstance(x, np.generic) else value[()] if np.ndim(value) == 0 else value


def _sinc_series(a, k):
    """``d^k/da^k sin(a) / a`` by its Taylor series (accurate for |a| <= 3)."""
    total = np.zeros_like(a)
    for n in range((k + 1) // 2, 30):
        total = total + (-1) ** n / ((2 * n + 1) * math.factorial(2 * n - k)) * a ** (2 * n - k)
    return total


def _sinc_closed(a, k):
    """``d^k/da^k sin(a) / a`` by Leibniz's rule (accurate away from 0)."""
    total = np.zeros_like(a)
    for j in range(k + 1):
        total = total + math.comb(k, j) * np.sin(a + j * np.pi / 2) * (-1) ** (k - j) * math.factorial(k - j) / a ** (
            k - j + 1
        )
    return total


def sinc_deriv(x, k):
    """The ``k``-th derivative of ``np.sinc`` (sin(pi x) / (pi x)), exact and numerically stable near
    0: a Taylor series for |pi x| <= 3, the closed form elsewhere."""
    a = np.pi * np.asarray(x, dtype=complex if np.iscomplexobj(x) else float)
    small = np.abs(a) <= 3.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        value = np.where(small, _sinc_series(np.where(small, a, 0.0), k), _sinc_closed(np.where(small, 1.0, a), k))
    value = value * np.pi**k
    if isinstance(x, np.ndarray):
        return value.astype(np.sinc(np.zeros(1, x.dtype)).dtype, copy=False)  # np.sinc's precision
    return _number(value, x) if not isinstance(x, np.generic) else value[()]


def modulus_nonzero(x):
    """``|x|``, the denominator of the derivative of ``abs_sign(x)``: 1.0 at real zeros (where that
    derivative's numerator is exactly 0), and a refusal at complex zeros, where ``conj(z) / |z|`` has no
    derivative (the second derivative of ``|z|``, and of ``|z| ** 2`` formed from it, is not computed)."""
    m = np.abs(x)
    if np.iscomplexobj(x) and np.any(m == 0):
        raise _refusal(
            "the second derivative of abs at complex 0 is not computed (conj(z) / |z| has no derivative "
            "there); write |z|**2 as z.real**2 + z.imag**2"
        )
    return np.where(m == 0, 1.0, m) if isinstance(x, np.ndarray) else 1.0 if m == 0 else m
