"""The ``math`` module: scalar functions of Python floats.  Derivatives use ``math`` too, so
scalar code stays plain float arithmetic."""

import math

from .registry import SCALAR, forward_rule, reverse_rule

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


@reverse_rule(math.sqrt, kind=SCALAR)
def sqrt(y, x):
    bx += by / (2 * y)


@forward_rule(math.sqrt, kind=SCALAR)
def sqrt(y, x):
    dy = dx / (2 * y)


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
    bx += by / math.sqrt(1 - x * x)


@forward_rule(math.asin, kind=SCALAR)
def asin(y, x):
    dy = dx / math.sqrt(1 - x * x)


@reverse_rule(math.acos, kind=SCALAR)
def acos(y, x):
    bx -= by / math.sqrt(1 - x * x)


@forward_rule(math.acos, kind=SCALAR)
def acos(y, x):
    dy = -dx / math.sqrt(1 - x * x)


@reverse_rule(math.atan, kind=SCALAR)
def atan(y, x):
    bx += by / (1 + x * x)


@forward_rule(math.atan, kind=SCALAR)
def atan(y, x):
    dy = dx / (1 + x * x)


@reverse_rule(math.atan2, kind=SCALAR)
def atan2(z, y, x):
    by += bz * x / (x * x + y * y)
    bx -= bz * y / (x * x + y * y)


@forward_rule(math.atan2, kind=SCALAR)
def atan2(z, y, x):
    dz = (dy * x - dx * y) / (x * x + y * y)


@reverse_rule(math.pow, kind=SCALAR)
def pow(z, x, y):
    bx += bz * y * math.pow(x, y - 1)
    by += bz * z * math.log(x)


@forward_rule(math.pow, kind=SCALAR)
def pow(z, x, y):
    dz = dx * y * math.pow(x, y - 1) + dy * z * math.log(x)


@reverse_rule(math.fabs, kind=SCALAR)
def fabs(y, x):
    bx += by * math.copysign(1.0, x)


@forward_rule(math.fabs, kind=SCALAR)
def fabs(y, x):
    dy = dx * math.copysign(1.0, x)


# copysign(x, y) = |x| sign(y): d/dx = sign(x) sign(y) (x != 0); locally constant in y (y != 0)
@reverse_rule(math.copysign, kind=SCALAR)
def copysign(z, x, y):
    bx += bz * math.copysign(1.0, x) * math.copysign(1.0, y)


@forward_rule(math.copysign, kind=SCALAR)
def copysign(z, x, y):
    dz = dx * math.copysign(1.0, x) * math.copysign(1.0, y)


@reverse_rule(math.hypot, kind=SCALAR)
def hypot(z, x, y):
    bx += bz * x / z
    by += bz * y / z


@forward_rule(math.hypot, kind=SCALAR)
def hypot(z, x, y):
    dz = (dx * x + dy * y) / z


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
