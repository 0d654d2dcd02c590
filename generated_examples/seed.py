"""The seed example of the design: f(x, y) = x * y + sin(x) on floats."""

import math


def f(x, y):
    z = x * y + math.sin(x)
    return z
