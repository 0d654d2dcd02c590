"""Arithmetic: the operators ``+ - * / ** % @`` and unary ``-``/``+``, with their NumPy ufunc twins.

Floor division (``//``, ``np.floor_divide``) is piecewise constant: it is registered as
nondifferentiable in ``nondifferentiable.py``."""

import builtins
import operator

import numpy as np

from ..runtime import pow_deriv, tangent_times, unmatmul_x, unmatmul_y  # noqa: F401  (names used in templates)
from .registry import ELEMENTWISE, forward_rule, reverse_rule

# fmt: off
# ---- binary elementwise ------------------------------------------------------------------


@reverse_rule(operator.add, np.add, kind=ELEMENTWISE)
def add(z, x, y):
    bx += bz
    by += bz


@forward_rule(operator.add, np.add, kind=ELEMENTWISE)
def add(z, x, y):
    dz = dx + dy


@reverse_rule(operator.sub, np.subtract, kind=ELEMENTWISE)
def sub(z, x, y):
    bx += bz
    by -= bz


@forward_rule(operator.sub, np.subtract, kind=ELEMENTWISE)
def sub(z, x, y):
    dz = dx - dy


@reverse_rule(operator.mul, np.multiply, kind=ELEMENTWISE)
def mul(z, x, y):
    bx += bz * y
    by += bz * x


@forward_rule(operator.mul, np.multiply, kind=ELEMENTWISE)
def mul(z, x, y):
    dz = dx * y + x * dy


@reverse_rule(operator.truediv, kind=ELEMENTWISE)
def truediv(z, x, y):
    g = bz / y
    bx += g
    by -= g * z


@forward_rule(operator.truediv, kind=ELEMENTWISE)
def truediv(z, x, y):
    dz = dx / y - dy * z / y


# np.divide of Python floats is inf or nan where y == 0, never ZeroDivisionError: its derivatives too
@reverse_rule(np.divide, np.true_divide, kind=ELEMENTWISE)
def divide(z, x, y):
    g = np.divide(bz, y)
    bx += g
    by -= g * z


@forward_rule(np.divide, np.true_divide, kind=ELEMENTWISE)
def divide(z, x, y):
    dz = np.divide(dx, y) - np.divide(dy * z, y)


@reverse_rule(operator.pow, np.power, builtins.pow, kind=ELEMENTWISE)
def pow(z, x, y):
    bx += bz * pow_deriv(x, y, 1)
    by += bz * z * np.log(np.where(x == 0, 1.0, x))  # 0 where x == 0 (z is 0 there), at every order


@forward_rule(operator.pow, np.power, builtins.pow, kind=ELEMENTWISE)
def pow(z, x, y):
    dz = tangent_times(dx, pow_deriv(x, y, 1)) + tangent_times(dy, z * np.log(np.where(x == 0, 1.0, x)))


@reverse_rule(operator.mod, np.remainder, kind=ELEMENTWISE)
def mod(z, x, y):
    """x % y = x - floor(x / y) * y, with floor(x / y) locally constant (np.divide: nan where y == 0, as
    np.mod gives, never ZeroDivisionError)."""
    bx += bz
    by -= bz * np.floor(np.divide(x, y))


@forward_rule(operator.mod, np.remainder, kind=ELEMENTWISE)
def mod(z, x, y):
    dz = dx - dy * np.floor(np.divide(x, y))


@reverse_rule(np.fmod, kind=ELEMENTWISE)
def fmod(z, x, y):
    """fmod(x, y) = x - trunc(x / y) * y, with trunc(x / y) locally constant."""
    bx += bz
    by -= bz * np.trunc(np.divide(x, y))


@forward_rule(np.fmod, kind=ELEMENTWISE)
def fmod(z, x, y):
    dz = dx - dy * np.trunc(np.divide(x, y))


# ---- unary -------------------------------------------------------------------------------


@reverse_rule(operator.neg, np.negative, kind=ELEMENTWISE)
def neg(y, x):
    bx -= by


@forward_rule(operator.neg, np.negative, kind=ELEMENTWISE)
def neg(y, x):
    dy = -dx


@reverse_rule(operator.pos, np.positive, kind=ELEMENTWISE)
def pos(y, x):
    bx += by


@forward_rule(operator.pos, np.positive, kind=ELEMENTWISE)
def pos(y, x):
    dy = dx


# ---- matrix product ----------------------------------------------------------------------


@reverse_rule(operator.matmul, np.matmul)
def matmul(z, x, y):
    bx += unmatmul_x(bz, x, y)
    by += unmatmul_y(bz, x, y)


@forward_rule(operator.matmul, np.matmul)
def matmul(z, x, y):
    dz = dx @ y + x @ dy
