"""Cases for the rules of the helpers of ``np.prod`` and ``np.cumprod`` (``s2sad/rules/product_helpers.py``),
zeros among the factors included: their derivatives are products of the other factors, never divisions."""

import numpy as np

from s2sad.runtime import axes_back, axes_last, cumprod_tangent, others_product, uncumprod

from . import A, case

SHAPE_243 = np.zeros((2, 4, 3))


@case("s2sad.runtime.axes_last", A(2, 4, 3))
def axes_last_tuple(x):
    return axes_last(x, (0, 2)) * axes_last(x, -1)[0, 0, 0]


@case("s2sad.runtime.axes_last", A(2, 3))
def axes_last_all(x):
    return axes_last(x) * axes_last(x, 0)[1, 1]


@case("s2sad.runtime.axes_back", A(4, 6))
def axes_back_tuple(m):
    return axes_back(m, SHAPE_243, (2, 0))


@case("s2sad.runtime.axes_back", A(24))
def axes_back_all(m):
    return axes_back(m, SHAPE_243) * axes_back(m, SHAPE_243)


@case("s2sad.runtime.others_product", A(3, 4))
def others_product_(m):
    return others_product(m)


@case("s2sad.runtime.others_product", A(2, 4))
def others_product_zeros(m):  # one zero in the first row, two in the second
    return others_product(m * np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]]))


@case("s2sad.runtime.others_product", A(5))
def others_product_zeros_squared(m):
    return others_product(m * m * np.array([0.0, 1.0, 1.0, 0.0, 1.0]))


@case("s2sad.runtime.cumprod_tangent", A(3, 4), A(3, 4))
def cumprod_tangent_axis(t, a):
    return cumprod_tangent(t, a, np.cumprod(a, axis=1), 1)


@case("s2sad.runtime.cumprod_tangent", A(2, 3), A(2, 3))
def cumprod_tangent_flat_zeros(t, a):
    z = a * np.array([1.0, 0.0, 1.0])
    return cumprod_tangent(t, z, np.cumprod(z), None)


@case("s2sad.runtime.uncumprod", A(3, 4), A(3, 4))
def uncumprod_axis(g, a):
    return uncumprod(g, a, np.cumprod(a, axis=0), 0)


@case("s2sad.runtime.uncumprod", A(6), A(2, 3))
def uncumprod_flat_zeros(g, a):
    z = a * np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    return uncumprod(g, z, np.cumprod(z), None)
