"""Cases for the arithmetic rules: operators and their ufunc twins, with broadcasting shapes and
Python floats mixed with arrays."""

import operator

import numpy as np

from . import A, F, case

P = A(3, 4, lo=0.5, hi=2.0)  # positive


@case("operator.add", A(3, 4), A(4))
def add_broadcast(x, y):
    return x + y


@case("operator.add", A(3, 1), A(3, 4))
def add_kept_axis(x, y):
    return x + y


@case("operator.add", F(), A(3))
def add_float_array(x, y):
    return x + y


@case("operator.add", A(2, 3), A(2, 3))
def add_ufunc(x, y):
    return np.add(x, y) + operator.add(x, y)


@case("operator.sub", A(3, 4), A(3, 1))
def sub_broadcast(x, y):
    return x - y


@case("operator.sub", F(), F())
def sub_floats(x, y):
    return np.subtract(x, y) - (y - x)


@case("operator.mul", A(3, 4), A(4))
def mul_broadcast(x, y):
    return x * y


@case("operator.mul", A(3), F())
def mul_float(x, y):
    return np.multiply(x, y) * y


@case("operator.truediv", A(3, 4), A(4, lo=0.5, hi=2.0))
def truediv_broadcast(x, y):
    return x / y


@case("operator.truediv", F(0.5, 2.0), A(3, lo=0.5, hi=2.0))
def truediv_float(x, y):
    return x / y + y / x


@case("numpy.divide", F(0.5, 2.0), A(3, lo=0.5, hi=2.0))
def divide_float(x, y):
    return np.divide(x, y) + np.true_divide(y, x)


@case("numpy.divide", F(0.5, 2.0), F(0.5, 2.0))
def divide_python_floats(x, y):
    return np.divide(x, y) * np.true_divide(y, x * x)


@case("operator.pow", P, A(4))
def pow_broadcast(x, y):
    return x**y


@case("operator.pow", A(3, 4))
def pow_constant_exponent(x):
    return x**2 + np.power(x, 3.0)


@case("operator.pow", F(0.5, 2.0), F())
def pow_floats(x, y):
    return x**y


@case("operator.mod", A(3, 4, lo=0.1, hi=5.0), A(4, lo=0.7, hi=1.3))
def mod_broadcast(x, y):
    return x % y


@case("operator.mod", A(5, lo=-5.0, hi=5.0), F(0.7, 1.3))
def mod_ufunc(x, y):
    return np.remainder(x, y) + np.mod(x, y)


@case("numpy.fmod", A(3, 4, lo=-5.0, hi=5.0), A(4, lo=0.7, hi=1.3))
def fmod_(x, y):
    return np.fmod(x, y)


@case("operator.neg", A(3, 4))
def neg_(x):
    return -x + np.negative(x) * 2.0


@case("operator.neg", F())
def neg_float(x):
    return -x


@case("operator.pos", A(3))
def pos_(x):
    return +x * np.positive(x)


@case("operator.matmul", A(3, 4), A(4, 2))
def matmul_(x, y):
    return x @ y


@case("operator.matmul", A(4), A(4, 2))
def matmul_vector(x, y):
    return np.matmul(x, y)


@case("operator.matmul", A(2, 3, 4), A(4))
def matmul_batched(x, y):
    return x @ y
