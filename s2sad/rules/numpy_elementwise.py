"""NumPy elementwise functions (ufuncs and friends).  Inputs broadcast; the reverse pass sums
adjoints back to each input's shape where the shapes may differ."""

import builtins

import numpy as np

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
    bx += by / x


@forward_rule(np.log, kind=ELEMENTWISE)
def log(y, x):
    dy = dx / x


@reverse_rule(np.sqrt, kind=ELEMENTWISE)
def sqrt(y, x):
    bx += by / (2 * y)


@forward_rule(np.sqrt, kind=ELEMENTWISE)
def sqrt(y, x):
    dy = dx / (2 * y)


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
    dy = dx / np.sqrt(1 - x * x)


@reverse_rule(np.arccos, kind=ELEMENTWISE)
def arccos(y, x):
    bx -= by / np.sqrt(1 - x * x)


@forward_rule(np.arccos, kind=ELEMENTWISE)
def arccos(y, x):
    dy = -dx / np.sqrt(1 - x * x)


@reverse_rule(np.arctan, kind=ELEMENTWISE)
def arctan(y, x):
    bx += by / (1 + x * x)


@forward_rule(np.arctan, kind=ELEMENTWISE)
def arctan(y, x):
    dy = dx / (1 + x * x)


@reverse_rule(np.abs, builtins.abs, kind=ELEMENTWISE)
def absolute(y, x):
    bx += by * np.sign(x)


@forward_rule(np.abs, builtins.abs, kind=ELEMENTWISE)
def absolute(y, x):
    dy = dx * np.sign(x)


@reverse_rule(np.fabs, kind=ELEMENTWISE)
def fabs(y, x):
    bx += by * np.sign(x)


@forward_rule(np.fabs, kind=ELEMENTWISE)
def fabs(y, x):
    dy = dx * np.sign(x)


@reverse_rule(np.log1p, kind=ELEMENTWISE)
def log1p(y, x):
    bx += by / (1 + x)


@forward_rule(np.log1p, kind=ELEMENTWISE)
def log1p(y, x):
    dy = dx / (1 + x)


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


# ---- binary ------------------------------------------------------------------------------


@reverse_rule(np.arctan2, kind=ELEMENTWISE)
def arctan2(z, y, x):
    by += bz * x / (x * x + y * y)
    bx -= bz * y / (x * x + y * y)


@forward_rule(np.arctan2, kind=ELEMENTWISE)
def arctan2(z, y, x):
    dz = (dy * x - dx * y) / (x * x + y * y)


@reverse_rule(np.hypot, kind=ELEMENTWISE)
def hypot(z, x, y):
    bx += bz * x / z
    by += bz * y / z


@forward_rule(np.hypot, kind=ELEMENTWISE)
def hypot(z, x, y):
    dz = (dx * x + dy * y) / z


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
