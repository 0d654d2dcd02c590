"""Cases for the rules of the helpers in s2sad/runtime/elementary.py: derivatives of powers
(``pow_deriv``, ``falling``) and of ``np.sinc`` (``sinc_deriv``), near 0 included, where a Taylor
series replaces sinc's closed form.  Orders (k, m) are constants."""

import numpy as np

from s2sad.runtime import falling, float_zeros, modulus_nonzero, pow_deriv, sinc_deriv, tangent_over, tangent_times

from . import A, F, case

P = A(3, 4, lo=0.5, hi=2.0)  # positive


@case("s2sad.runtime.pow_deriv", P, A(3, 4, lo=-1.0, hi=3.0))
def pow_deriv_both(x, y):
    return pow_deriv(x, y, 2)


@case("s2sad.runtime.pow_deriv", A(3, 4))
def pow_deriv_integer_exponents(x):
    return pow_deriv(x, 3, 1) + pow_deriv(x, 1, 1) + pow_deriv(x, 0, 1) + pow_deriv(x, 2.0, 2)


@case("s2sad.runtime.pow_deriv", F(0.5, 2.0), F())
def pow_deriv_floats(x, y):
    return pow_deriv(x, y, 1)


@case("s2sad.runtime.falling", A(3, 4))
def falling_(y):
    return falling(y, 3) + falling(y, 4, 1) * y


@case("s2sad.runtime.sinc_deriv", A(3, 4))
def sinc_deriv_(x):
    return sinc_deriv(x, 1) + sinc_deriv(x, 2)


@case("s2sad.runtime.sinc_deriv", A(3, lo=-1e-3, hi=1e-3))
def sinc_deriv_near_zero(x):
    return sinc_deriv(x * np.array([1.0, 1e-6, 0.0]), 2) + sinc_deriv(x, 3)


@case("s2sad.runtime.modulus_nonzero", A(3, 4))
def modulus_nonzero_(x):
    return modulus_nonzero(x) * x


# the tangent of a constant is the int 0, whatever the coefficient: a product or quotient otherwise
@case("s2sad.runtime.tangent_times", A(3, 4), A(3, 4))
def tangent_times_(d, c):
    return tangent_times(d, c) + tangent_times(0, np.inf) + tangent_times(d, np.sin(c))


@case("s2sad.runtime.tangent_over", A(3, 4), P)
def tangent_over_(d, c):
    return tangent_over(d, c) + tangent_over(0, 0.0) + tangent_over(d * d, c * c)


@case("s2sad.runtime.float_zeros", A(3), F())
def float_zeros_(t, s):
    pair = float_zeros((0, t * s))
    return pair[0] + pair[1] + float_zeros({"a": s})["a"] * t
