"""NumPy elementwise functions (ufuncs and friends).  Inputs broadcast; the reverse pass sums
adjoints back to each input's shape where the shapes may differ."""

import builtins

import numpy as np

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    abs_sign,
    match_complex,
    modulus_nonzero,
    over_hypot,
    pow_deriv,
    sinc_deriv,
    tangent_over,
    tangent_times,
)
from .registry import ELEMENTWISE, forward_rule, reverse_rule

# fmt: off
# ---- unary -------------------------------------------------------------------------------


@reverse_rule(np.sin, kind=ELEMENTWISE)
def sin(y, x):
    bx += by * np.cos(x)


@forward_rule(np.sin, kind=ELEMENTWISE)
def sin(y, x):
    dy = dx * np.cos(x)


@reverse_rule(np.cos, kind=ELEMENTWISE)
def cos(y, x):
    bx -= by * np.sin(x)


@forward_rule(np.cos, kind=ELEMENTWISE)
def cos(y, x):
    dy = -dx * np.sin(x)


@reverse_rule(np.tan, kind=ELEMENTWISE)
def tan(y, x):
    bx += by * (1 + y * y)


@forward_rule(np.tan, kind=ELEMENTWISE)
def tan(y, x):
    dy = dx * (1 + y * y)


@reverse_rule(np.exp, kind=ELEMENTWISE)
def exp(y, x):
    bx += by * y


@forward_rule(np.exp, kind=ELEMENTWISE)
def exp(y, x):
    dy = dx * y


@reverse_rule(np.log, kind=ELEMENTWISE)
def log(y, x):
    bx += np.divide(by, x)


@forward_rule(np.log, kind=ELEMENTWISE)
def log(y, x):
    dy = np.divide(dx, x)


@reverse_rule(np.sqrt, kind=ELEMENTWISE)
def sqrt(y, x):
    bx += by / (2 * y)


@forward_rule(np.sqrt, kind=ELEMENTWISE)
def sqrt(y, x):
    dy = tangent_over(dx, 2 * y)


@reverse_rule(np.tanh, kind=ELEMENTWISE)
def tanh(y, x):
    bx += by * (1 - y * y)


@forward_rule(np.tanh, kind=ELEMENTWISE)
def tanh(y, x):
    dy = dx * (1 - y * y)


@reverse_rule(np.sinh, kind=ELEMENTWISE)
def sinh(y, x):
    bx += by * np.cosh(x)


@forward_rule(np.sinh, kind=ELEMENTWISE)
def sinh(y, x):
    dy = dx * np.cosh(x)


@reverse_rule(np.cosh, kind=ELEMENTWISE)
def cosh(y, x):
    bx += by * np.sinh(x)


@forward_rule(np.cosh, kind=ELEMENTWISE)
def cosh(y, x):
    dy = dx * np.sinh(x)


@reverse_rule(np.arcsin, kind=ELEMENTWISE)
def arcsin(y, x):
    bx += by / np.sqrt(1 - x * x)


@forward_rule(np.arcsin, kind=ELEMENTWISE)
def arcsin(y, x):
    dy = tangent_over(dx, np.sqrt(1 - x * x))


@reverse_rule(np.arccos, kind=ELEMENTWISE)
def arccos(y, x):
    bx -= by / np.sqrt(1 - x * x)


@forward_rule(np.arccos, kind=ELEMENTWISE)
def arccos(y, x):
    dy = -tangent_over(dx, np.sqrt(1 - x * x))


@reverse_rule(np.arctan, kind=ELEMENTWISE)
def arctan(y, x):
    bx += by / (1 + x * x)


@forward_rule(np.arctan, kind=ELEMENTWISE)
def arctan(y, x):
    dy = dx / (1 + x * x)


# |x| is real: only the real part of its adjoint counts, and its tangent is real (complex x too)
@reverse_rule(np.abs, builtins.abs, kind=ELEMENTWISE)
def absolute(y, x):
    bx += np.real(by) * abs_sign(x)


@forward_rule(np.abs, builtins.abs, kind=ELEMENTWISE)
def absolute(y, x):
    dy = np.real(dx * abs_sign(x))


# s = abs_sign(x) = conj(x) / |x| (sign(x) when real): ds = (conj(dx) - s Re(s dx)) / |x|, 0 for real x
@reverse_rule(runtime.abs_sign, name="s2sad.runtime.abs_sign", kind=ELEMENTWISE)
def abs_sign_(y, x):
    bx += match_complex((np.conj(by) - np.real(by * y) * y) / modulus_nonzero(x), x)


@forward_rule(runtime.abs_sign, name="s2sad.runtime.abs_sign", kind=ELEMENTWISE)
def abs_sign_(y, x):
    dy = match_complex((np.conj(dx) - y * np.real(y * dx)) / modulus_nonzero(x), x)


@reverse_rule(np.fabs, kind=ELEMENTWISE)
def fabs(y, x):
    bx += by * abs_sign(x)


@forward_rule(np.fabs, kind=ELEMENTWISE)
def fabs(y, x):
    dy = dx * abs_sign(x)


@reverse_rule(np.log1p, kind=ELEMENTWISE)
def log1p(y, x):
    bx += np.divide(by, 1 + x)


@forward_rule(np.log1p, kind=ELEMENTWISE)
def log1p(y, x):
    dy = np.divide(dx, 1 + x)


@reverse_rule(np.expm1, kind=ELEMENTWISE)
def expm1(y, x):
    bx += by * (y + 1)


@forward_rule(np.expm1, kind=ELEMENTWISE)
def expm1(y, x):
    dy = dx * (y + 1)


@reverse_rule(np.square, kind=ELEMENTWISE)
def square(y, x):
    bx += by * 2 * x


@forward_rule(np.square, kind=ELEMENTWISE)
def square(y, x):
    dy = dx * 2 * x


@reverse_rule(np.reciprocal, kind=ELEMENTWISE)
def reciprocal(y, x):
    bx -= by * y * y


@forward_rule(np.reciprocal, kind=ELEMENTWISE)
def reciprocal(y, x):
    dy = -dx * y * y


@reverse_rule(np.exp2, kind=ELEMENTWISE)
def exp2(y, x):
    bx += by * y * np.log(2)


@forward_rule(np.exp2, kind=ELEMENTWISE)
def exp2(y, x):
    dy = dx * y * np.log(2)


@reverse_rule(np.log2, kind=ELEMENTWISE)
def log2(y, x):
    bx += np.divide(by, x * np.log(2))


@forward_rule(np.log2, kind=ELEMENTWISE)
def log2(y, x):
    dy = np.divide(dx, x * np.log(2))


@reverse_rule(np.log10, kind=ELEMENTWISE)
def log10(y, x):
    bx += np.divide(by, x * np.log(10))


@forward_rule(np.log10, kind=ELEMENTWISE)
def log10(y, x):
    dy = np.divide(dx, x * np.log(10))


@reverse_rule(np.cbrt, kind=ELEMENTWISE)
def cbrt(y, x):
    """Infinite at x == 0, like the derivative of x ** (1/3)."""
    bx += by / (3 * y * y)


@forward_rule(np.cbrt, kind=ELEMENTWISE)
def cbrt(y, x):
    dy = tangent_over(dx, 3 * y * y)


@reverse_rule(np.arcsinh, kind=ELEMENTWISE)
def arcsinh(y, x):
    bx += by / np.sqrt(x * x + 1)


@forward_rule(np.arcsinh, kind=ELEMENTWISE)
def arcsinh(y, x):
    dy = dx / np.sqrt(x * x + 1)


@reverse_rule(np.arccosh, kind=ELEMENTWISE)
def arccosh(y, x):
    bx += by / np.sqrt(x * x - 1)


@forward_rule(np.arccosh, kind=ELEMENTWISE)
def arccosh(y, x):
    dy = tangent_over(dx, np.sqrt(x * x - 1))


@reverse_rule(np.arctanh, kind=ELEMENTWISE)
def arctanh(y, x):
    bx += np.divide(by, 1 - x * x)


@forward_rule(np.arctanh, kind=ELEMENTWISE)
def arctanh(y, x):
    dy = np.divide(dx, 1 - x * x)


@reverse_rule(np.sinc, kind=ELEMENTWISE)
def sinc(y, x):
    """sinc(x) = sin(pi x) / (pi x): its derivatives of every order by ``sinc_deriv`` (a Taylor series
    near 0, where the closed form cancels)."""
    bx += by * sinc_deriv(x, 1)


@forward_rule(np.sinc, kind=ELEMENTWISE)
def sinc(y, x):
    dy = dx * sinc_deriv(x, 1)


@reverse_rule(np.deg2rad, np.radians, kind=ELEMENTWISE)
def deg2rad(y, x):
    bx += by * (np.pi / 180)


@forward_rule(np.deg2rad, np.radians, kind=ELEMENTWISE)
def deg2rad(y, x):
    dy = dx * (np.pi / 180)


@reverse_rule(np.rad2deg, np.degrees, kind=ELEMENTWISE)
def rad2deg(y, x):
    bx += by * (180 / np.pi)


@forward_rule(np.rad2deg, np.degrees, kind=ELEMENTWISE)
def rad2deg(y, x):
    dy = dx * (180 / np.pi)


@reverse_rule(np.nan_to_num, kind=ELEMENTWISE)
def nan_to_num(y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replaced entries (NaN, +-inf) are constants: no derivative flows through them."""
    bx += by * np.isfinite(x)


@forward_rule(np.nan_to_num, kind=ELEMENTWISE)
def nan_to_num(y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    dy = dx * np.isfinite(x)


# ---- complex parts: JAX's convention, dL = Re(sum(bz * dz)); a real output's adjoint counts by its
# real part only, and a real input gets a real adjoint --------------------------------------


@reverse_rule(np.real, kind=ELEMENTWISE)
def real(y, val):
    bval += match_complex(np.real(by), val)


@forward_rule(np.real, kind=ELEMENTWISE)
def real(y, val):
    dy = np.real(dval)


@reverse_rule(np.imag, kind=ELEMENTWISE)
def imag(y, val):
    bval += match_complex(-1j * np.real(by), val)


@forward_rule(np.imag, kind=ELEMENTWISE)
def imag(y, val):
    dy = np.imag(dval)


@reverse_rule(np.conjugate, kind=ELEMENTWISE)
def conjugate(y, x):
    bx += np.conjugate(by)


@forward_rule(np.conjugate, kind=ELEMENTWISE)
def conjugate(y, x):
    dy = np.conjugate(dx)


@reverse_rule(np.real_if_close, kind=ELEMENTWISE)
def real_if_close(y, a, tol=100):
    ba += match_complex(by, a)


@forward_rule(np.real_if_close, kind=ELEMENTWISE)
def real_if_close(y, a, tol=100):
    dy = match_complex(da, y)


@reverse_rule(np.angle, kind=ELEMENTWISE)
def angle(y, z, deg=False):
    """angle(z) = Im(log z); it is locally constant (0 or pi) on the real line."""
    bz += match_complex(np.real(by) * np.conj(z * 1j) / np.abs(z) ** 2, z) * (180 / np.pi if deg else 1.0)


@forward_rule(np.angle, kind=ELEMENTWISE)
def angle(y, z, deg=False):
    dy = np.imag(dz / z) * (180 / np.pi if deg else 1.0)


# ---- binary ------------------------------------------------------------------------------


@reverse_rule(np.arctan2, kind=ELEMENTWISE)
def arctan2(z, y, x):
    by += np.divide(bz * x, x * x + y * y)
    bx -= np.divide(bz * y, x * x + y * y)


@forward_rule(np.arctan2, kind=ELEMENTWISE)
def arctan2(z, y, x):
    dz = np.divide(dy * x - dx * y, x * x + y * y)


@reverse_rule(np.hypot, kind=ELEMENTWISE)
def hypot(z, x, y):
    bx += bz * over_hypot(x, z)
    by += bz * over_hypot(y, z)


@forward_rule(np.hypot, kind=ELEMENTWISE)
def hypot(z, x, y):
    dz = dx * over_hypot(x, z) + dy * over_hypot(y, z)


@reverse_rule(np.logaddexp, kind=ELEMENTWISE)
def logaddexp(z, x1, x2):
    bx1 += bz * np.exp(x1 - z)
    bx2 += bz * np.exp(x2 - z)


@forward_rule(np.logaddexp, kind=ELEMENTWISE)
def logaddexp(z, x1, x2):
    dz = dx1 * np.exp(x1 - z) + dx2 * np.exp(x2 - z)


@reverse_rule(np.logaddexp2, kind=ELEMENTWISE)
def logaddexp2(z, x1, x2):
    bx1 += bz * 2 ** (x1 - z)
    bx2 += bz * 2 ** (x2 - z)


@forward_rule(np.logaddexp2, kind=ELEMENTWISE)
def logaddexp2(z, x1, x2):
    dz = dx1 * 2 ** (x1 - z) + dx2 * 2 ** (x2 - z)


@reverse_rule(np.fmax, kind=ELEMENTWISE)
def fmax(z, x1, x2):
    """Like maximum (ties split equally), but a NaN loses: the other argument takes the derivative."""
    bx1 += bz * ((x1 > x2) + 0.5 * (x1 == x2) + np.isnan(x2))
    bx2 += bz * ((x2 > x1) + 0.5 * (x1 == x2) + np.isnan(x1))


@forward_rule(np.fmax, kind=ELEMENTWISE)
def fmax(z, x1, x2):
    dz = dx1 * ((x1 > x2) + 0.5 * (x1 == x2) + np.isnan(x2)) + dx2 * ((x2 > x1) + 0.5 * (x1 == x2) + np.isnan(x1))


@reverse_rule(np.fmin, kind=ELEMENTWISE)
def fmin(z, x1, x2):
    """Like minimum (ties split equally), but a NaN loses: the other argument takes the derivative."""
    bx1 += bz * ((x1 < x2) + 0.5 * (x1 == x2) + np.isnan(x2))
    bx2 += bz * ((x2 < x1) + 0.5 * (x1 == x2) + np.isnan(x1))


@forward_rule(np.fmin, kind=ELEMENTWISE)
def fmin(z, x1, x2):
    dz = dx1 * ((x1 < x2) + 0.5 * (x1 == x2) + np.isnan(x2)) + dx2 * ((x2 < x1) + 0.5 * (x1 == x2) + np.isnan(x1))


@reverse_rule(np.maximum, kind=ELEMENTWISE)
def maximum(z, x, y):
    bx += bz * ((x > y) + 0.5 * (x == y))
    by += bz * ((y > x) + 0.5 * (x == y))


@forward_rule(np.maximum, kind=ELEMENTWISE)
def maximum(z, x, y):
    dz = dx * ((x > y) + 0.5 * (x == y)) + dy * ((y > x) + 0.5 * (x == y))


@reverse_rule(np.minimum, kind=ELEMENTWISE)
def minimum(z, x, y):
    bx += bz * ((x < y) + 0.5 * (x == y))
    by += bz * ((y < x) + 0.5 * (x == y))


@forward_rule(np.minimum, kind=ELEMENTWISE)
def minimum(z, x, y):
    dz = dx * ((x < y) + 0.5 * (x == y)) + dy * ((y < x) + 0.5 * (x == y))


@reverse_rule(np.where, kind=ELEMENTWISE)
def where(z, condition, x, y):
    bx += np.where(condition, bz, 0.0)
    by += np.where(condition, 0.0, bz)


@forward_rule(np.where, kind=ELEMENTWISE)
def where(z, condition, x, y):
    dz = np.where(condition, dx, 0.0) + np.where(condition, 0.0, dy)


@reverse_rule(np.clip, kind=ELEMENTWISE)
def clip(y, a, a_min=None, a_max=None):
    ba += by * (y == a)
    ba_min += by * ((y != a) & (y == a_min))
    ba_max += by * ((y != a) & (y == a_max))


@forward_rule(np.clip, kind=ELEMENTWISE)
def clip(y, a, a_min=None, a_max=None):
    dy = da * (y == a) + da_min * ((y != a) & (y == a_min)) + da_max * ((y != a) & (y == a_max))


# copysign(x1, x2) = |x1| sign(x2): d/dx1 = sign(x1) sign(x2) (signs of signed zeros as copysign reads them);
# locally constant in x2 (x2 != 0)
@reverse_rule(np.copysign, kind=ELEMENTWISE)
def copysign(z, x1, x2):
    bx1 += bz * np.copysign(1.0, x1) * np.copysign(1.0, x2)


@forward_rule(np.copysign, kind=ELEMENTWISE)
def copysign(z, x1, x2):
    dz = dx1 * np.copysign(1.0, x1) * np.copysign(1.0, x2)


# ldexp(x1, x2) = x1 2**x2, the exponent an integer (NumPy refuses a float one): a constant
@reverse_rule(np.ldexp, kind=ELEMENTWISE)
def ldexp(z, x1, x2):
    bx1 += np.ldexp(bz, x2)


@forward_rule(np.ldexp, kind=ELEMENTWISE)
def ldexp(z, x1, x2):
    dz = np.ldexp(dx1, x2)


# float_power is power computed in float64 (complex128): the power rule, the base made inexact first so that
# pow_deriv computes in NumPy as float_power does (nan, not Python's complex, for a negative float base)
@reverse_rule(np.float_power, kind=ELEMENTWISE)
def float_power(z, x1, x2):
    bx1 += bz * pow_deriv(x1 * np.float64(1.0), x2, 1)
    bx2 += bz * z * np.log(np.where(x1 == 0, 1.0, x1))


@forward_rule(np.float_power, kind=ELEMENTWISE)
def float_power(z, x1, x2):
    dz = tangent_times(dx1, pow_deriv(x1 * np.float64(1.0), x2, 1)) + tangent_times(dx2, z * np.log(np.where(x1 == 0, 1.0, x1)))


# heaviside(x1, x2) is 0 for x1 < 0, 1 for x1 > 0 and x2 where x1 == 0: flat in x1 (away from 0), and x2 counts
# only where x1 == 0
@reverse_rule(np.heaviside, kind=ELEMENTWISE)
def heaviside(z, x1, x2):
    bx2 += bz * (x1 == 0)


@forward_rule(np.heaviside, kind=ELEMENTWISE)
def heaviside(z, x1, x2):
    dz = dx2 * (x1 == 0)
