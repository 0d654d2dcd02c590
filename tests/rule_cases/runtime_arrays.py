"""Cases for the rules of the runtime helpers in s2sad/runtime/arrays.py (what derivative code of
the NumPy rules calls), so derivatives of derivatives are checked helper by helper.  Arrays
passed for their shape or positions are constants."""

import numpy as np

import s2sad
from s2sad.runtime import (
    abs_sign,
    cast_part,
    is_inexact,
    match_complex,
    rollaxis_axes,
    spread_weights,
    unarray,
    uncolumn_stack,
    undiag,
    undiagonal,
    undiff,
    undstack,
    ungradient,
    unhstack,
    unpad_array,
    unrepeat,
    unspread_weights,
    untake,
    untake_along_axis,
    untile,
    unvstack,
)

from . import A, C, F, case

Z34 = np.zeros((3, 4))
Z5 = np.zeros(5)


@case("s2sad.runtime.match_complex", A(3, 4))
def match_complex_(g):
    return match_complex(g, Z34) * g


@case("s2sad.runtime.cast_part", A(3))
def cast_part_(g):
    return cast_part(g * g, float) + cast_part(g, complex) * g + cast_part(g, int) + cast_part(g, None)


@case("s2sad.runtime.is_inexact", A(3))
@case("s2sad.runtime.rollaxis_axes", A(3))
def constant_helpers(g):
    return g * is_inexact(float) + g * len(rollaxis_axes(3, 2, 0))


@case("s2sad.runtime.unarray", A(3, 4))
def unarray_array(g):
    return unarray(g, Z34) * g


@case("s2sad.runtime.unarray", A(2, 3), F())
def unarray_list(g, y):
    parts = unarray(g * y, [np.zeros(3), np.zeros(3)])
    return parts[0] * parts[1]


@case("s2sad.runtime.untake", A(4))
def untake_(g):
    return untake(g, Z5, np.array([0, 2, 2, -1])) * untake(g[:2] * np.ones((3, 1)), Z34, [3, 1], 1)[0].sum()


@case("s2sad.runtime.untake_along_axis", A(3, 2))
def untake_along_axis_(g):
    return untake_along_axis(g * g, Z34, np.array([[0, 3], [1, 1], [2, 0]]), 1)


@case("s2sad.runtime.unrepeat", A(10))
def unrepeat_(g):
    return unrepeat(g, Z5, 2) * unrepeat(g[:6], Z5[:3], [1, 3, 2], 0).sum()


@case("s2sad.runtime.untile", A(2, 6))
def untile_(g):
    return untile(g * g, np.zeros(3), (2, 2))


@case("s2sad.runtime.undiag", A(4, 4))
def undiag_vector(g):
    return undiag(g * g, np.zeros(3), 1)


@case("s2sad.runtime.undiag", A(3))
def undiag_matrix(g):
    return undiag(g, Z34, 1) * np.sum(undiag(g, Z34[:, :3], 0))


@case("s2sad.runtime.undiagonal", A(3))
def undiagonal_(g):
    return undiagonal(g * g, Z34, 0, 1, 0)


@case("s2sad.runtime.unpad_array", A(5, 6))
def unpad_array_(g):
    return unpad_array(g, Z34[:, :3], ((1, 1), (1, 2))) * unpad_array(g, Z34[:, :3], ((1, 1), (2, 1)), "reflect")


@case("s2sad.runtime.undiff", A(3, 3))
def undiff_(g):
    return undiff(g * g, Z34, 1, -1)


@case("s2sad.runtime.ungradient", A(3, 4))
def ungradient_(g):
    return ungradient(g * g, Z34, 1) + ungradient([g, g * 2.0], Z34)


@case("s2sad.runtime.unhstack", A(3, 4))
def unhstack_(g):
    a, b = unhstack(g * g, [np.zeros((3, 1)), np.zeros((3, 3))])
    return a * b


@case("s2sad.runtime.unvstack", A(3, 4))
def unvstack_(g):
    a, b = unvstack(g * g, [np.zeros(4), np.zeros((2, 4))])
    return a * b


@case("s2sad.runtime.undstack", A(3, 4, 2))
def undstack_(g):
    a, b = undstack(g * g, [Z34, Z34])
    return a * b


@case("s2sad.runtime.uncolumn_stack", A(3, 3))
def uncolumn_stack_(g):
    a, b = uncolumn_stack(g * g, [np.zeros(3), np.zeros((3, 2))])
    return a * b[:, 1]


@case("s2sad.runtime.spread_weights", A(4))
def spread_weights_(w):
    return spread_weights(Z34, w * w, 1) + spread_weights(Z34, w, None)


@case("s2sad.runtime.unspread_weights", A(3, 4))
def unspread_weights_(g):
    return unspread_weights(g * g, Z34, np.zeros(4), 1) * unspread_weights(g, Z34, np.zeros((1, 4)))


# ---- second derivatives: the gradient s2sad generates, differentiated again ---------------------


def _moves(x):
    y = np.sort(x) * np.take(x, [4, 0, 0, 2, 1]) + np.cumsum(x) * np.roll(x, 1)
    z = np.sum(np.pad(x, 1) ** 3) + np.sum(np.repeat(x, 2) ** 3) + np.sum(np.tile(x, 2) ** 3)
    return np.sum(y**3) + z + np.sum((np.diag(x) * np.flip(x)) ** 2) + np.sum(np.hstack([x, x * x]) ** 2)


def _weights(x, w):
    return np.sum(np.average(x**2, axis=1, weights=w) ** 2) + np.sum(np.gradient(x * x, axis=1) ** 2)


_dmoves = s2sad.grad(_moves)
_dweights = s2sad.grad(_weights, wrt=(0, 1))


@case("s2sad.runtime.untake_along_axis", A(5))
@case("s2sad.runtime.unpad_array", A(5))
@case("s2sad.runtime.untake", A(5))
@case("s2sad.runtime.unrepeat", A(5))
@case("s2sad.runtime.untile", A(5))
@case("s2sad.runtime.undiag", A(5))
@case("s2sad.runtime.unhstack", A(5))
def second_derivative_of_moves(x):
    return _dmoves(x)


@case("s2sad.runtime.spread_weights", A(3, 4), A(4, lo=0.5, hi=2.0))
@case("s2sad.runtime.unspread_weights", A(3, 4), A(4, lo=0.5, hi=2.0))
@case("s2sad.runtime.ungradient", A(3, 4), A(4, lo=0.5, hi=2.0))
def second_derivative_of_weights(x, w):
    dx, dw = _dweights(x, w)
    return np.sum(dx * dx) + np.sum(dw * dw)


@case("s2sad.runtime.abs_sign", A(3, 4))
def abs_sign_real(x):
    return abs_sign(x) * x


@case("s2sad.runtime.abs_sign", C(3, 4))
def abs_sign_complex(x):
    return abs_sign(x) * x * x
