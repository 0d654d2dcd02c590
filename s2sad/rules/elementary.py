"""Rules of the runtime helpers for powers and ``sinc`` (``runtime/elementary.py``): each derivative
in ``x`` is the same helper one order higher, so derivatives of every order stay exact at edge points
(x ** 0 and x ** 1 at 0, sinc near 0)."""

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import abs_sign, falling, float_zeros, pow_deriv, sinc_deriv, tangent_over, tangent_times  # noqa: F401  (names used in templates)
from .registry import ELEMENTWISE, forward_rule, reverse_rule

# fmt: off


# s = falling(y, k) x ** (y - k): ds/dx = pow_deriv(x, y, k + 1); ds/dy = falling'(y, k) x ** (y - k) + s log x
# (log x taken as 0 where x == 0: a where(s == 0, ...) would drop ds/dy log x where s is 0 only at the point)
@reverse_rule(runtime.pow_deriv, name="s2sad.runtime.pow_deriv", kind=ELEMENTWISE)
def pow_deriv_(s, x, y, k):
    bx += bs * pow_deriv(x, y, k + 1)
    by += bs * (falling(y, k, 1) * pow_deriv(x, y - k, 0) + s * np.log(np.where(x == 0, 1.0, x)))


@forward_rule(runtime.pow_deriv, name="s2sad.runtime.pow_deriv", kind=ELEMENTWISE)
def pow_deriv_(s, x, y, k):
    ds = tangent_times(dx, pow_deriv(x, y, k + 1)) + tangent_times(dy, falling(y, k, 1) * pow_deriv(x, y - k, 0) + s * np.log(np.where(x == 0, 1.0, x)))


# the tangent of a constant (an int 0) times anything is 0 (``runtime.tangent_times``): a product otherwise
@reverse_rule(runtime.tangent_times, name="s2sad.runtime.tangent_times", kind=ELEMENTWISE)
def tangent_times_(z, d, c):
    bd += bz * c
    bc += tangent_times(d, bz)


@forward_rule(runtime.tangent_times, name="s2sad.runtime.tangent_times", kind=ELEMENTWISE)
def tangent_times_(z, d, c):
    dz = tangent_times(dd, c) + tangent_times(d, dc)


@reverse_rule(runtime.tangent_over, name="s2sad.runtime.tangent_over", kind=ELEMENTWISE)
def tangent_over_(z, d, c):
    bd += np.divide(bz, c)
    bc -= tangent_times(z, np.divide(bz, c))


@forward_rule(runtime.tangent_over, name="s2sad.runtime.tangent_over", kind=ELEMENTWISE)
def tangent_over_(z, d, c):
    dz = tangent_over(dd, c) - tangent_times(z, np.divide(dc, c))


@reverse_rule(runtime.float_zeros, name="s2sad.runtime.float_zeros")
def float_zeros_(z, t):
    bt += bz


@forward_rule(runtime.float_zeros, name="s2sad.runtime.float_zeros")
def float_zeros_(z, t):
    dz = float_zeros(dt)


@reverse_rule(runtime.falling, name="s2sad.runtime.falling", kind=ELEMENTWISE)
def falling_(c, y, k, m=0):
    by += bc * falling(y, k, m + 1)


@forward_rule(runtime.falling, name="s2sad.runtime.falling", kind=ELEMENTWISE)
def falling_(c, y, k, m=0):
    dc = dy * falling(y, k, m + 1)


@reverse_rule(runtime.sinc_deriv, name="s2sad.runtime.sinc_deriv", kind=ELEMENTWISE)
def sinc_deriv_(s, x, k):
    bx += bs * sinc_deriv(x, k + 1)


@forward_rule(runtime.sinc_deriv, name="s2sad.runtime.sinc_deriv", kind=ELEMENTWISE)
def sinc_deriv_(s, x, k):
    ds = dx * sinc_deriv(x, k + 1)


@reverse_rule(runtime.modulus_nonzero, name="s2sad.runtime.modulus_nonzero", kind=ELEMENTWISE)
def modulus_nonzero_(m, x):
    bx += np.real(bm) * abs_sign(x)


@forward_rule(runtime.modulus_nonzero, name="s2sad.runtime.modulus_nonzero", kind=ELEMENTWISE)
def modulus_nonzero_(m, x):
    dm = np.real(dx * abs_sign(x))
