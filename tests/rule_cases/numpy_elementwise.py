"""Cases for the NumPy elementwise rules: unary ufuncs on arrays and floats, binary ufuncs with
broadcasting, where, clip, nan_to_num, complex parts."""

import builtins

import numpy as np

from . import A, F, case

P = A(3, 4, lo=0.5, hi=2.0)  # positive
U = A(3, 4, lo=-0.9, hi=0.9)  # inside (-1, 1)


@case("numpy.sin", A(3, 4))
def sin_(x):
    return np.sin(x)


@case("numpy.sin", F())
def sin_float(x):
    return np.sin(x)


@case("numpy.cos", A(3, 4))
def cos_(x):
    return np.cos(x)


@case("numpy.tan", U)
def tan_(x):
    return np.tan(x)


@case("numpy.exp", A(3, 4))
def exp_(x):
    return np.exp(x)


@case("numpy.exp", F())
def exp_float(x):
    return np.exp(x) * x


@case("numpy.log", P)
def log_(x):
    return np.log(x)


@case("numpy.sqrt", P)
def sqrt_(x):
    return np.sqrt(x)


@case("numpy.tanh", A(3, 4))
def tanh_(x):
    return np.tanh(x)


@case("numpy.sinh", A(3, 4))
def sinh_(x):
    return np.sinh(x)


@case("numpy.cosh", A(3, 4))
def cosh_(x):
    return np.cosh(x)


@case("numpy.arcsin", U)
def arcsin_(x):
    return np.arcsin(x)


@case("numpy.arccos", U)
def arccos_(x):
    return np.arccos(x)


@case("numpy.arctan", A(3, 4))
def arctan_(x):
    return np.arctan(x)


@case("numpy.absolute", A(3, 4))
def abs_(x):
    return np.abs(x) + np.absolute(x)


@case("numpy.absolute", A(5))
def abs_builtin(x):
    return builtins.abs(x)


@case("numpy.absolute", F())
def abs_float(x):
    return abs(x)


@case("numpy.fabs", A(3, 4))
def fabs_(x):
    return np.fabs(x)


@case("numpy.log1p", P)
def log1p_(x):
    return np.log1p(x)


@case("numpy.expm1", A(3, 4))
def expm1_(x):
    return np.expm1(x)


@case("numpy.square", A(3, 4))
def square_(x):
    return np.square(x)


@case("numpy.reciprocal", P)
def reciprocal_(x):
    return np.reciprocal(x)


@case("numpy.exp2", A(3, 4))
def exp2_(x):
    return np.exp2(x)


@case("numpy.log2", P)
def log2_(x):
    return np.log2(x)


@case("numpy.log10", P)
def log10_(x):
    return np.log10(x)


@case("numpy.cbrt", A(3, 4, lo=0.5, hi=2.0))
def cbrt_(x):
    return np.cbrt(-x) + np.cbrt(x)


@case("numpy.arcsinh", A(3, 4))
def arcsinh_(x):
    return np.arcsinh(x)


@case("numpy.arccosh", A(3, 4, lo=1.5, hi=3.0))
def arccosh_(x):
    return np.arccosh(x)


@case("numpy.arctanh", U)
def arctanh_(x):
    return np.arctanh(x)


@case("numpy.sinc", A(3, 4))
def sinc_(x):
    return np.sinc(x)


@case("numpy.sinc", A(3))
def sinc_at_zero(x):
    return np.sinc(x * np.array([0.0, 1.0, 2.0]))


@case("numpy.deg2rad", A(3, 4))
def deg2rad_(x):
    return np.deg2rad(x) + np.radians(x)


@case("numpy.rad2deg", A(3, 4))
def rad2deg_(x):
    return np.rad2deg(x) + np.degrees(x)


@case("numpy.nan_to_num", A(4, lo=0.5, hi=2.0))
def nan_to_num_(x):
    return np.nan_to_num(np.log(x * np.array([1.0, -1.0, 1.0, -1.0])), nan=-1.0)


@case("numpy.real", A(3, 4))
def real_(x):
    return np.real(x) + x.real


@case("numpy.imag", A(3, 4))
def imag_(x):
    return np.imag(x * (1 + 2j)) + x.imag


@case("numpy.conjugate", A(3, 4))
def conj_(x):
    return np.conj(x) * x + np.conjugate(x) + x.conj()


@case("numpy.real_if_close", A(3, 4))
def real_if_close_(x):
    return np.real_if_close(x + 0j)


@case("numpy.angle", A(3, 4))
def angle_(x):
    return np.angle(x) * x + np.angle(x, deg=True)


@case("numpy.angle", A(3, 4))
def angle_complex(x):
    return np.angle(x + 0.7j)


@case("numpy.arctan2", A(3, 4), A(4, lo=0.5, hi=2.0))
def arctan2_(y, x):
    return np.arctan2(y, x)


@case("numpy.arctan2", F(), A(3, lo=0.5, hi=2.0))
def arctan2_float(y, x):
    return np.arctan2(y, x)


@case("numpy.hypot", A(3, 4), A(3, 1))
def hypot_(x, y):
    return np.hypot(x, y)


@case("numpy.logaddexp", A(3, 4), A(4))
def logaddexp_(x, y):
    return np.logaddexp(x, y)


@case("numpy.logaddexp", F(), A(3))
def logaddexp_float(x, y):
    return np.logaddexp(x, y)


@case("numpy.logaddexp2", A(3, 4), A(3, 1))
def logaddexp2_(x, y):
    return np.logaddexp2(x, y)


@case("numpy.maximum", A(3, 4), A(4))
def maximum_(x, y):
    return np.maximum(x, y)


@case("numpy.maximum", A(5))
def maximum_ties(x):
    return np.maximum(x, x) + np.maximum(x, 0.0)


@case("numpy.minimum", A(3, 4), A(3, 1))
def minimum_(x, y):
    return np.minimum(x, y)


@case("numpy.minimum", A(5))
def minimum_ties(x):
    return np.minimum(x, x)


@case("numpy.fmax", A(3, 4), A(4))
def fmax_(x, y):
    return np.fmax(x, y) + np.fmax(x, x)


@case("numpy.fmax", A(4), A(4, lo=0.5, hi=2.0))
def fmax_nan(x, y):
    return np.fmax(x, np.log(y * np.array([1.0, -1.0, 1.0, -1.0])))


@case("numpy.fmin", A(3, 4), A(4))
def fmin_(x, y):
    return np.fmin(x, y) + np.fmin(x, x)


@case("numpy.fmin", A(4, lo=0.5, hi=2.0), A(4))
def fmin_nan(x, y):
    return np.fmin(np.log(x * np.array([-1.0, 1.0, 1.0, 1.0])), y)


@case("numpy.where", A(3, 4), A(3, 4), A(4))
def where_(c, x, y):
    return np.where(c > 0, x, y)


@case("numpy.where", A(3, 4), F())
def where_float(x, y):
    return np.where(x > 0, x, y)


@case("numpy.clip", A(3, 4))
def clip_(x):
    return np.clip(x, -0.5, 0.5)


@case("numpy.clip", A(3, 4), F(-0.5, -0.1), F(0.1, 0.5))
def clip_bounds(x, lo, hi):
    return np.clip(x, lo, hi) + x.clip(lo, hi)


@case("numpy.clip", A(3, 4), A(4, lo=-0.5, hi=-0.1))
def clip_lower_only(x, lo):
    return np.clip(x, lo, None)


@case("numpy.copysign", A(3, 4), A(4), complex=False)  # real only (NumPy refuses complex)
def copysign_(x, y):
    return np.copysign(x, y) * y + np.copysign(x * x, -1.5)


@case("numpy.copysign", F(), F(), complex=False)
def copysign_floats(x, y):
    return np.copysign(x, y) + np.copysign(2.0, x) * x


@case("numpy.ldexp", A(3, 4), complex=False)
def ldexp_(x):
    return np.ldexp(x, np.array([1, -2, 3, 0])) + np.ldexp(x * x, 2)


@case("numpy.ldexp", F(), complex=False)
def ldexp_float(x):
    return np.ldexp(x, -3) * x


@case("numpy.float_power", A(3, 4, lo=0.5, hi=2.0), A(4))
def float_power_(x, y):
    return np.float_power(x, y)


@case("numpy.float_power", A(3, 4))  # integer exponents: any base, and the base 0 (x ** 1 and x ** 0 there)
def float_power_int(x):
    return np.float_power(x, 3.0) + np.float_power(x, 2) + np.float_power(x * 0.0, 1) * x + np.float_power(x * 0.0, 0)


@case("numpy.float_power", F(0.5, 2.0), F())
def float_power_floats(x, y):
    return np.float_power(x, y) * x


@case("numpy.heaviside", A(3, 4), A(4), complex=False)  # x away from 0: flat in x, y never read
def heaviside_(x, y):
    return np.heaviside(x, y) * x + y


@case("numpy.heaviside", A(4), complex=False)  # y read where x1 == 0
def heaviside_at_zero(y):
    return np.heaviside(np.array([0.0, 1.0, -1.0, 0.0]), y) * y + np.heaviside(0.0, y[0])
