"""The ``math`` module: scalar functions of Python floats.  Derivatives use ``math`` too, so
scalar code stays plain float arithmetic, except where a derivative is infinite or undefined at a point
where ``f`` is not (``sqrt``, ``asin``, ``acos`` at the ends of their domains, ``atan2`` at
(0, 0), ``pow``): there ``np.divide`` and ``pow_deriv`` give NumPy's inf or nan instead of Python's
ZeroDivisionError or math domain error."""

import math

import numpy as np

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    abs_sign,
    axes_back,
    axes_last,
    hypot_of,
    others_product,
    over_hypot,
    polygamma,
    pow_deriv,
    tangent_over,
    tangent_times,
    unarray,
    unsum_items,
)
from .registry import ELEMENTWISE, SCALAR, forward_rule, reverse_rule

# fmt: off


@reverse_rule(math.sin, kind=SCALAR)
def sin(y, x):
    bx += by * math.cos(x)


@forward_rule(math.sin, kind=SCALAR)
def sin(y, x):
    dy = dx * math.cos(x)


@reverse_rule(math.cos, kind=SCALAR)
def cos(y, x):
    bx -= by * math.sin(x)


@forward_rule(math.cos, kind=SCALAR)
def cos(y, x):
    dy = -dx * math.sin(x)


@reverse_rule(math.tan, kind=SCALAR)
def tan(y, x):
    bx += by * (1 + y * y)


@forward_rule(math.tan, kind=SCALAR)
def tan(y, x):
    dy = dx * (1 + y * y)


@reverse_rule(math.exp, kind=SCALAR)
def exp(y, x):
    bx += by * y


@forward_rule(math.exp, kind=SCALAR)
def exp(y, x):
    dy = dx * y


@reverse_rule(math.log, kind=SCALAR)
def log(y, x):
    bx += by / x


@reverse_rule(math.log, kind=SCALAR)
def log(y, x, base):
    bx += by / (x * math.log(base))
    bbase -= by * y / (base * math.log(base))


@forward_rule(math.log, kind=SCALAR)
def log(y, x):
    dy = dx / x


@forward_rule(math.log, kind=SCALAR)
def log(y, x, base):
    dy = dx / (x * math.log(base)) - dbase * y / (base * math.log(base))


@reverse_rule(math.log2, kind=SCALAR)
def log2(y, x):
    bx += by / (x * math.log(2.0))


@forward_rule(math.log2, kind=SCALAR)
def log2(y, x):
    dy = dx / (x * math.log(2.0))


@reverse_rule(math.log10, kind=SCALAR)
def log10(y, x):
    bx += by / (x * math.log(10.0))


@forward_rule(math.log10, kind=SCALAR)
def log10(y, x):
    dy = dx / (x * math.log(10.0))


# fmod(x, y) = x - n y and remainder(x, y) = x - n y, n = (x - z) / y an integer (trunc / round of x / y) locally constant
@reverse_rule(math.fmod, kind=SCALAR)
def fmod(z, x, y):
    bx += bz
    by -= bz * round((x - z) / y)


@forward_rule(math.fmod, kind=SCALAR)
def fmod(z, x, y):
    dz = dx - dy * round((x - z) / y)


@reverse_rule(math.remainder, kind=SCALAR)
def remainder(z, x, y):
    bx += bz
    by -= bz * round((x - z) / y)


@forward_rule(math.remainder, kind=SCALAR)
def remainder(z, x, y):
    dz = dx - dy * round((x - z) / y)


# ldexp(x, i) = x 2**i, the integer i a constant
@reverse_rule(math.ldexp, kind=SCALAR)
def ldexp(z, x, i):
    bx += math.ldexp(bz, i)


@forward_rule(math.ldexp, kind=SCALAR)
def ldexp(z, x, i):
    dz = math.ldexp(dx, i)


@reverse_rule(math.sqrt, kind=SCALAR)
def sqrt(y, x):
    bx += np.divide(by, 2 * y)


@forward_rule(math.sqrt, kind=SCALAR)
def sqrt(y, x):
    dy = tangent_over(dx, 2 * y)


@reverse_rule(math.tanh, kind=SCALAR)
def tanh(y, x):
    bx += by * (1 - y * y)


@forward_rule(math.tanh, kind=SCALAR)
def tanh(y, x):
    dy = dx * (1 - y * y)


@reverse_rule(math.sinh, kind=SCALAR)
def sinh(y, x):
    bx += by * math.cosh(x)


@forward_rule(math.sinh, kind=SCALAR)
def sinh(y, x):
    dy = dx * math.cosh(x)


@reverse_rule(math.cosh, kind=SCALAR)
def cosh(y, x):
    bx += by * math.sinh(x)


@forward_rule(math.cosh, kind=SCALAR)
def cosh(y, x):
    dy = dx * math.sinh(x)


@reverse_rule(math.asin, kind=SCALAR)
def asin(y, x):
    bx += np.divide(by, math.sqrt(1 - x * x))


@forward_rule(math.asin, kind=SCALAR)
def asin(y, x):
    dy = tangent_over(dx, math.sqrt(1 - x * x))


@reverse_rule(math.acos, kind=SCALAR)
def acos(y, x):
    bx -= np.divide(by, math.sqrt(1 - x * x))


@forward_rule(math.acos, kind=SCALAR)
def acos(y, x):
    dy = -tangent_over(dx, math.sqrt(1 - x * x))


@reverse_rule(math.asinh, kind=SCALAR)
def asinh(y, x):
    bx += by / math.sqrt(x * x + 1)


@forward_rule(math.asinh, kind=SCALAR)
def asinh(y, x):
    dy = dx / math.sqrt(x * x + 1)


@reverse_rule(math.acosh, kind=SCALAR)
def acosh(y, x):
    """Infinite at x == 1, the end of the domain (NumPy's inf, as math.sqrt's)."""
    bx += np.divide(by, math.sqrt(x * x - 1))


@forward_rule(math.acosh, kind=SCALAR)
def acosh(y, x):
    dy = tangent_over(dx, math.sqrt(x * x - 1))


@reverse_rule(math.atanh, kind=SCALAR)
def atanh(y, x):
    bx += by / (1 - x * x)


@forward_rule(math.atanh, kind=SCALAR)
def atanh(y, x):
    dy = dx / (1 - x * x)


@reverse_rule(math.atan, kind=SCALAR)
def atan(y, x):
    bx += by / (1 + x * x)


@forward_rule(math.atan, kind=SCALAR)
def atan(y, x):
    dy = dx / (1 + x * x)


@reverse_rule(math.atan2, kind=SCALAR)
def atan2(z, y, x):
    by += bz * np.divide(x, x * x + y * y)
    bx -= bz * np.divide(y, x * x + y * y)


@forward_rule(math.atan2, kind=SCALAR)
def atan2(z, y, x):
    dz = np.divide(dy * x - dx * y, x * x + y * y)


@reverse_rule(math.pow, kind=SCALAR)
def pow(z, x, y):
    bx += bz * pow_deriv(x, y, 1)
    by += bz * z * np.log(np.where(x == 0, 1.0, x))  # 0 where x == 0 (z is 0 there), at every order


@forward_rule(math.pow, kind=SCALAR)
def pow(z, x, y):
    dz = tangent_times(dx, pow_deriv(x, y, 1)) + tangent_times(dy, z * np.log(np.where(x == 0, 1.0, x)))


@reverse_rule(math.fabs, kind=SCALAR)
def fabs(y, x):
    bx += by * abs_sign(x)


@forward_rule(math.fabs, kind=SCALAR)
def fabs(y, x):
    dy = dx * abs_sign(x)


# copysign(x, y) = |x| sign(y): d/dx = sign(x) sign(y) (x != 0); locally constant in y (y != 0)
@reverse_rule(math.copysign, kind=SCALAR)
def copysign(z, x, y):
    bx += bz * math.copysign(1.0, x) * math.copysign(1.0, y)


@forward_rule(math.copysign, kind=SCALAR)
def copysign(z, x, y):
    dz = dx * math.copysign(1.0, x) * math.copysign(1.0, y)


# hypot(x, y) = |(x, y)|: d/dx = x / z, 0 at the zero vector (np.linalg.norm's convention, over_hypot)
@reverse_rule(math.hypot, kind=SCALAR)
def hypot(z, x, y):
    bx += bz * over_hypot(x, z)
    by += bz * over_hypot(y, z)


@forward_rule(math.hypot, kind=SCALAR)
def hypot(z, x, y):
    dz = dx * over_hypot(x, z) + dy * over_hypot(y, z)


@reverse_rule(math.log1p, kind=SCALAR)
def log1p(y, x):
    bx += by / (1 + x)


@forward_rule(math.log1p, kind=SCALAR)
def log1p(y, x):
    dy = dx / (1 + x)


@reverse_rule(math.expm1, kind=SCALAR)
def expm1(y, x):
    bx += by * (y + 1)


@forward_rule(math.expm1, kind=SCALAR)
def expm1(y, x):
    dy = dx * (y + 1)


@reverse_rule(math.degrees, kind=SCALAR)
def degrees(y, x):
    bx += by * (180.0 / math.pi)


@forward_rule(math.degrees, kind=SCALAR)
def degrees(y, x):
    dy = dx * (180.0 / math.pi)


@reverse_rule(math.radians, kind=SCALAR)
def radians(y, x):
    bx += by * (math.pi / 180.0)


@forward_rule(math.radians, kind=SCALAR)
def radians(y, x):
    dy = dx * (math.pi / 180.0)


if hasattr(math, "cbrt"):  # Python >= 3.11

    @reverse_rule(math.cbrt, kind=SCALAR)
    def cbrt(y, x):
        """Infinite at x == 0, like the derivative of x ** (1/3)."""
        bx += np.divide(by, 3 * y * y)

    @forward_rule(math.cbrt, kind=SCALAR)
    def cbrt(y, x):
        dy = np.divide(dx, 3 * y * y)


@reverse_rule(math.erf, kind=SCALAR)
def erf(y, x):
    bx += by * (2 / math.sqrt(math.pi)) * math.exp(-x * x)


@forward_rule(math.erf, kind=SCALAR)
def erf(y, x):
    dy = dx * (2 / math.sqrt(math.pi)) * math.exp(-x * x)


@reverse_rule(math.erfc, kind=SCALAR)
def erfc(y, x):
    bx -= by * (2 / math.sqrt(math.pi)) * math.exp(-x * x)


@forward_rule(math.erfc, kind=SCALAR)
def erfc(y, x):
    dy = -dx * (2 / math.sqrt(math.pi)) * math.exp(-x * x)


# gamma' = gamma digamma; lgamma = log|gamma| (negative x too): lgamma' = digamma, polygamma(0, x)
@reverse_rule(math.gamma, kind=SCALAR)
def gamma(y, x):
    bx += by * y * polygamma(0, x)


@forward_rule(math.gamma, kind=SCALAR)
def gamma(y, x):
    dy = dx * y * polygamma(0, x)


@reverse_rule(math.lgamma, kind=SCALAR)
def lgamma(y, x):
    bx += by * polygamma(0, x)


@forward_rule(math.lgamma, kind=SCALAR)
def lgamma(y, x):
    dy = dx * polygamma(0, x)


# polygamma(n, x), the n-th derivative of digamma (SciPy's, or a series without SciPy): d/dx is order n + 1
@reverse_rule(runtime.polygamma, kind=ELEMENTWISE, name="s2sad.runtime.polygamma")
def runtime_polygamma(y, n, x):  # not named polygamma: the template calls the helper
    bx += by * polygamma(n + 1, x)


@forward_rule(runtime.polygamma, kind=ELEMENTWISE, name="s2sad.runtime.polygamma")
def runtime_polygamma(y, n, x):  # not named polygamma: the template calls the helper
    dy = dx * polygamma(n + 1, x)


# math.hypot(a, b, c, ...) of other than two coordinates is run as hypot_of([a, b, c, ...]) (desugar)
@reverse_rule(runtime.hypot_of, name="s2sad.runtime.hypot_of")
def hypot_of_(z, items):
    bitems += unarray(bz * over_hypot(np.asarray(items), z), items)


@forward_rule(runtime.hypot_of, name="s2sad.runtime.hypot_of")
def hypot_of_(z, items):
    dz = np.sum(over_hypot(np.asarray(items), z) * np.asarray(ditems))


# ---- functions of sequences (the items of a list, tuple or 1-D array; of arrays, elementwise) ----


@reverse_rule(math.fsum)
def fsum(y, seq):
    bseq += unsum_items(by, seq)


@forward_rule(math.fsum)
def fsum(y, seq):
    dy = math.fsum(dseq)


# prod(seq, start) = start * seq[0] * ...: d/dseq[i] = start * (product of the other items), exact with zeros
@reverse_rule(math.prod)
def prod(y, iterable, *, start=1):
    a = np.asarray(iterable)
    biterable += unarray(by * start * axes_back(others_product(axes_last(a, 0)), a, 0), iterable)
    bstart += by * math.prod(iterable)


@forward_rule(math.prod)
def prod(y, iterable, *, start=1):
    a = np.asarray(iterable)
    dy = start * np.sum(axes_back(others_product(axes_last(a, 0)), a, 0) * np.asarray(diterable), axis=0) + dstart * math.prod(iterable)


# dist(p, q) = |p - q|: its gradient is (p - q) / dist, 0 where p == q (as hypot's at (0, 0))
@reverse_rule(math.dist)
def dist(z, p, q):
    u = over_hypot(np.asarray(p) - np.asarray(q), z)
    bp += unarray(bz * u, p)
    bq += unarray(-bz * u, q)


@forward_rule(math.dist)
def dist(z, p, q):
    u = over_hypot(np.asarray(p) - np.asarray(q), z)
    dz = np.sum(u * np.asarray(dp)) - np.sum(u * np.asarray(dq))
