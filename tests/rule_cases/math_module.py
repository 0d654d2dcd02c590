"""Cases for the ``math`` module rules: Python floats in, Python floats out."""

import math

from s2sad.runtime import polygamma

from . import A, F, case

U = F(-0.9, 0.9)  # inside the domain of asin/acos
P = F(0.5, 2.0)  # positive


@case("math.sin", F())
def sin_(x):
    return math.sin(x)


@case("math.cos", F())
def cos_(x):
    return math.cos(x)


@case("math.tan", U)
def tan_(x):
    return math.tan(x)


@case("math.exp", F())
def exp_(x):
    return math.exp(x)


@case("math.log", P)
def log_(x):
    return math.log(x)


@case("math.log", P, F(1.5, 3.0))
def log_base(x, base):
    return math.log(x, base)


@case("math.sqrt", P)
def sqrt_(x):
    return math.sqrt(x)


@case("math.tanh", F())
def tanh_(x):
    return math.tanh(x)


@case("math.sinh", F())
def sinh_(x):
    return math.sinh(x)


@case("math.cosh", F())
def cosh_(x):
    return math.cosh(x)


@case("math.asin", U)
def asin_(x):
    return math.asin(x)


@case("math.acos", U)
def acos_(x):
    return math.acos(x)


@case("math.asinh", F())
def asinh_(x):
    return math.asinh(x)


@case("math.acosh", F(1.2, 3.0))
def acosh_(x):
    return math.acosh(x)


@case("math.atanh", U)
def atanh_(x):
    return math.atanh(x)


@case("math.atan", F())
def atan_(x):
    return math.atan(x)


@case("math.atan2", F(), P)
def atan2_(y, x):
    return math.atan2(y, x)


@case("math.pow", P, F())
def pow_(x, y):
    return math.pow(x, y)


@case("math.fabs", P)
def fabs_(x):
    return math.fabs(-x) * x


@case("math.copysign", F(), F(), complex=False)  # real only
def copysign_(x, y):
    return math.copysign(x, y) * y + math.copysign(x * x, -1.5)


@case("math.hypot", F(), F())
def hypot_(x, y):
    return math.hypot(x, y)


@case("math.log1p", P)
def log1p_(x):
    return math.log1p(x)


@case("math.expm1", F())
def expm1_(x):
    return math.expm1(x)


@case("math.degrees", F())
def degrees_(x):
    return math.degrees(x)


@case("math.radians", F())
def radians_(x):
    return math.radians(x)


if hasattr(math, "cbrt"):  # Python >= 3.11

    @case("math.cbrt", F(0.5, 2.0))
    def cbrt_(x):
        return math.cbrt(x) + math.cbrt(-x * x)


@case("math.fsum", F(), F(), complex=False)  # real only
def fsum_(x, y):
    return math.fsum([x, x * y, 1e16, y, -1e16]) + math.fsum((x * x, y))


@case("math.prod", F(), F(), F())
def prod_(x, y, z):
    return math.prod([x, y, z * x]) + math.prod((x, y), start=z) + math.prod([x, 0.0, y])


@case("math.dist", F(), F(), F(), complex=False)  # real only
def dist_(x, y, z):
    return math.dist([x, y, 1.0], (z, x * y, 2.0)) + math.dist((x,), (y,))


@case("s2sad.runtime.hypot_of", F(), F(), F(), complex=False)  # real only
def hypot_of_(x, y, z):
    return math.hypot(x, y * z, z, 1.5) + math.hypot(x * y) + math.hypot()


@case("math.log2", P)
@case("math.log10", P)
def log2_log10(x):
    return math.log2(x) + math.log10(x * x)


@case("math.fmod", F(-5.0, 5.0), F(0.7, 1.3), complex=False)  # real only
def fmod_(x, y):
    return math.fmod(x, y)


@case("math.remainder", F(-5.0, 5.0), F(0.7, 1.3), complex=False)
def remainder_(x, y):
    return math.remainder(x, y) * y


@case("math.ldexp", F(), complex=False)
def ldexp_(x):
    return math.ldexp(x, 3) + math.ldexp(x * x, -2)


@case("math.floor", F(0.1, 0.9), complex=False)  # away from integers
@case("math.ceil", F(0.1, 0.9), complex=False)
@case("math.trunc", F(0.1, 0.9), complex=False)
def floor_ceil_trunc(x):
    return x * (math.floor(x) + math.ceil(x * 3) + math.trunc(x * 5))


@case("math.erf", F(), complex=False)
def erf_(x):
    return math.erf(x) * x


@case("math.erfc", F(), complex=False)
def erfc_(x):
    return math.erfc(x * x)


@case("math.gamma", F(0.3, 4.0), complex=False)
def gamma_(x):
    return math.gamma(x) + math.gamma(x - 3.0)  # a negative argument too


@case("math.lgamma", F(0.3, 4.0), complex=False)
def lgamma_(x):
    return math.lgamma(x) * math.lgamma(x - 3.0)  # log|gamma| of a negative argument too


@case("s2sad.runtime.polygamma", 0, A(3, 4, lo=0.5, hi=5.0))
def runtime_polygamma_(n, x):
    return polygamma(n, x) * x


@case("s2sad.runtime.polygamma", 1, F(-2.9, -2.1), complex=False)
def runtime_polygamma_float(n, x):
    return polygamma(n, x) * x
