"""Rules for the runtime helpers of ``np.prod`` and ``np.cumprod``, so that their derivatives differentiate
again to any order, exactly where the factors have zeros.

A product's derivatives are products of the other factors.  With ``W`` the stack of rows ``m`` with
``m[i]`` replaced by 1 (``W[i, k] = 1`` for ``k == i``, else ``m[k]``), the products without ``m[i]`` and
``m[j]`` are the products of the others in ``W``'s rows: each order of derivative is the helper again on
an array one axis larger, never a division.  ``axes_last`` / ``axes_back`` move a reduction's axes last
(merged into one) and back; each is the other's transpose.
"""

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import axes_back, axes_last, cumprod_tangent, others_product, uncumprod  # noqa: F401  (names used in templates)
from .registry import forward_rule, reverse_rule

# fmt: off


@forward_rule(runtime.axes_last, name="s2sad.runtime.axes_last")
def axes_last_(z, x, axis=None):
    dz = axes_last(dx, axis)


@reverse_rule(runtime.axes_last, name="s2sad.runtime.axes_last")
def axes_last_(z, x, axis=None):
    bx += axes_back(bz, x, axis)


@forward_rule(runtime.axes_back, name="s2sad.runtime.axes_back")
def axes_back_(z, m, x, axis=None):
    dz = axes_back(dm, x, axis)


@reverse_rule(runtime.axes_back, name="s2sad.runtime.axes_back")
def axes_back_(z, m, x, axis=None):
    bm += axes_last(bz, axis)


# p[i] = prod(m[k], k != i):  dp[i] = sum over j != i of q[i, j] dm[j],  q[i, j] = prod(m[k], k != i, j)
# = others_product(W)[i, j]; q is symmetric, so the adjoint has the same form
@forward_rule(runtime.others_product, name="s2sad.runtime.others_product")
def others_product_(p, m):
    eye = np.eye(np.shape(m)[-1], dtype=bool)
    q = np.where(eye, 0.0, others_product(np.where(eye, 1.0, np.expand_dims(m, -2))))
    dp = np.sum(q * np.expand_dims(dm, -2), axis=-1)


@reverse_rule(runtime.others_product, name="s2sad.runtime.others_product")
def others_product_(p, m):
    eye = np.eye(np.shape(m)[-1], dtype=bool)
    q = np.where(eye, 0.0, others_product(np.where(eye, 1.0, np.expand_dims(m, -2))))
    bm += np.sum(q * np.expand_dims(bp, -2), axis=-1)


# y = cumprod(m):  J[i, j] = dy[j]/dm[i] = prod(m[k], k <= j, k != i) for i <= j, 0 below: the cumulative
# products of W's rows, upper triangle.  cumprod_tangent(t) = Jᵀ t and uncumprod(g) = J g are linear in
# t and g; along da, dJ = triu(cumprod_tangent(E, W)) with E[i] = da with da[i] replaced by 0.  (y is a's
# function: it only spares a division where a has no zeros, so its derivative all goes to a.)
@forward_rule(runtime.cumprod_tangent, name="s2sad.runtime.cumprod_tangent")
def cumprod_tangent_(z, t, a, y, axis=None):
    eye = np.eye(np.shape(axes_last(a, axis))[-1], dtype=bool)
    w = np.where(eye, 1.0, np.expand_dims(axes_last(a, axis), -2))
    dj = np.triu(cumprod_tangent(np.where(eye, 0.0, np.expand_dims(axes_last(da, axis), -2)), w, np.cumprod(w, axis=-1), -1))
    dz = cumprod_tangent(dt, a, y, axis) + axes_back(np.sum(dj * np.expand_dims(axes_last(t, axis), -1), axis=-2), y, axis)


@reverse_rule(runtime.cumprod_tangent, name="s2sad.runtime.cumprod_tangent")
def cumprod_tangent_(z, t, a, y, axis=None):
    eye = np.eye(np.shape(axes_last(a, axis))[-1], dtype=bool)
    w = np.where(eye, 1.0, np.expand_dims(axes_last(a, axis), -2))
    outer = np.triu(np.expand_dims(axes_last(t, axis), -1) * np.expand_dims(axes_last(bz, axis), -2))
    bt += uncumprod(bz, a, y, axis)
    ba += axes_back(np.sum(np.where(eye, 0.0, uncumprod(outer, w, np.cumprod(w, axis=-1), -1)), axis=-2), a, axis)


@forward_rule(runtime.uncumprod, name="s2sad.runtime.uncumprod")
def uncumprod_(z, g, a, y, axis=None):
    eye = np.eye(np.shape(axes_last(a, axis))[-1], dtype=bool)
    w = np.where(eye, 1.0, np.expand_dims(axes_last(a, axis), -2))
    dj = np.triu(cumprod_tangent(np.where(eye, 0.0, np.expand_dims(axes_last(da, axis), -2)), w, np.cumprod(w, axis=-1), -1))
    dz = uncumprod(dg, a, y, axis) + axes_back(np.sum(dj * np.expand_dims(axes_last(g, axis), -2), axis=-1), a, axis)


@reverse_rule(runtime.uncumprod, name="s2sad.runtime.uncumprod")
def uncumprod_(z, g, a, y, axis=None):
    eye = np.eye(np.shape(axes_last(a, axis))[-1], dtype=bool)
    w = np.where(eye, 1.0, np.expand_dims(axes_last(a, axis), -2))
    outer = np.triu(np.expand_dims(axes_last(bz, axis), -1) * np.expand_dims(axes_last(g, axis), -2))
    bg += cumprod_tangent(bz, a, y, axis)
    ba += axes_back(np.sum(np.where(eye, 0.0, uncumprod(outer, w, np.cumprod(w, axis=-1), -1)), axis=-2), a, axis)
