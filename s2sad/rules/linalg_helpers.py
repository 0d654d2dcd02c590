"""Rules for the runtime helpers that the linear algebra rules call (``s2sad/runtime/linalg.py``), so
that derivatives of ``solve``, ``cholesky``, ``eigh``, ``det``, ``einsum`` ... can be differentiated again, to any
order.  Each rule is written like the math in the helper's docstring; a helper's rules call only
primitives and helpers that have rules themselves."""

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    as_columns,
    cofactor,
    eigenvalue_adjoint,
    eigenvector_adjoint,
    from_columns,
    gap_weighted,
    pick,
    signed_minors,
    unbroadcast,
    uneinsum,
    unminors,
    zeros_like,
)
from .registry import forward_rule, reverse_rule

# fmt: off
# ---- as_columns / from_columns: a trailing axis added or dropped; each the other's transpose ------


@forward_rule(runtime.as_columns, name="s2sad.runtime.as_columns")
def as_columns_(z, v, b):
    dz = as_columns(dv, b)


@reverse_rule(runtime.as_columns, name="s2sad.runtime.as_columns")
def as_columns_(z, v, b):
    bv += from_columns(bz, b)


@forward_rule(runtime.from_columns, name="s2sad.runtime.from_columns")
def from_columns_(z, v, b):
    dz = from_columns(dv, b)


@reverse_rule(runtime.from_columns, name="s2sad.runtime.from_columns")
def from_columns_(z, v, b):
    bv += as_columns(bz, b)


# ---- z = F * m, F[i, j] = 1 / (w[j] - w[i]) off the diagonal:  dF = -F² (dw[j] - dw[i]) --------------


@forward_rule(runtime.gap_weighted, name="s2sad.runtime.gap_weighted")
def gap_weighted_(z, w, m):
    dz = gap_weighted(w, dm) - gap_weighted(w, gap_weighted(w, m * (np.expand_dims(dw, -2) - np.expand_dims(dw, -1))))


@reverse_rule(runtime.gap_weighted, name="s2sad.runtime.gap_weighted")
def gap_weighted_(z, w, m):
    bm += unbroadcast(gap_weighted(w, bz), m)
    f2 = gap_weighted(w, gap_weighted(w, m * bz))
    bw += unbroadcast(np.sum(f2, axis=-1) - np.sum(f2, axis=-2), w)


# ---- checks that pass the adjoint through (or raise): linear, their own rules ------------------------


@forward_rule(runtime.eigenvector_adjoint, name="s2sad.runtime.eigenvector_adjoint")
def eigenvector_adjoint_(z, g, v):
    dz = eigenvector_adjoint(dg, v)


@reverse_rule(runtime.eigenvector_adjoint, name="s2sad.runtime.eigenvector_adjoint")
def eigenvector_adjoint_(z, g, v):
    bg += eigenvector_adjoint(bz, v)


@forward_rule(runtime.eigenvalue_adjoint, name="s2sad.runtime.eigenvalue_adjoint")
def eigenvalue_adjoint_(z, g, w):
    dz = eigenvalue_adjoint(dg, w)


@reverse_rule(runtime.eigenvalue_adjoint, name="s2sad.runtime.eigenvalue_adjoint")
def eigenvalue_adjoint_(z, g, w):
    bg += eigenvalue_adjoint(bz, w)


# ---- c = cofactor(a): c[i, j] = det(m[i, j]), m = signed_minors(a) (a without row i and column j, signed):
# dc = sum(cofactor(m) * dm) over each minor, exact at singular matrices too; each order of derivative is
# cofactor again on matrices one row smaller, down to 0 x 0


@forward_rule(runtime.cofactor, name="s2sad.runtime.cofactor")
def cofactor_(c, a):
    dc = np.sum(cofactor(signed_minors(a)) * signed_minors(da), axis=(-2, -1))


@reverse_rule(runtime.cofactor, name="s2sad.runtime.cofactor")
def cofactor_(c, a):
    ba += unminors(np.expand_dims(bc, (-2, -1)) * cofactor(signed_minors(a)), a)


@forward_rule(runtime.signed_minors, name="s2sad.runtime.signed_minors")
def signed_minors_(m, a):
    dm = signed_minors(da)


@reverse_rule(runtime.signed_minors, name="s2sad.runtime.signed_minors")
def signed_minors_(m, a):
    ba += unminors(bm, a)


@forward_rule(runtime.unminors, name="s2sad.runtime.unminors")
def unminors_(z, g, a):
    dz = unminors(dg, a)


@reverse_rule(runtime.unminors, name="s2sad.runtime.unminors")
def unminors_(z, g, a):
    bg += signed_minors(bz)


# nonsingular(a, sign) is a with a check: the identity in a
@forward_rule(runtime.nonsingular, name="s2sad.runtime.nonsingular")
def nonsingular_(z, a, sign):
    dz = da


@reverse_rule(runtime.nonsingular, name="s2sad.runtime.nonsingular")
def nonsingular_(z, a, sign):
    ba += bz


@forward_rule(runtime.real_matrix, name="s2sad.runtime.real_matrix")
def real_matrix_(z, a, what=None):
    dz = da


@reverse_rule(runtime.real_matrix, name="s2sad.runtime.real_matrix")
def real_matrix_(z, a, what=None):
    ba += bz


# ---- einsum: z = uneinsum(g, k, s, a, ...) contracts every slot but the k-th (g is the output's slot, -1)
# into slot k.  It is linear in each other slot: its tangent is the sum over those slots; the adjoint of
# slot p is the contraction into p with slot k holding the adjoint bz.  One template per number of
# arguments, as for einsum; `* (k != p)` drops the term of the slot k itself (whose value is never read).


@forward_rule(runtime.pick, name="s2sad.runtime.pick")
def pick_(z, cond, x, y):
    dz = pick(cond, dx, zeros_like(y)) + pick(cond, zeros_like(x), dy)


@reverse_rule(runtime.pick, name="s2sad.runtime.pick")
def pick_(z, cond, x, y):
    bx += pick(cond, bz, zeros_like(x))
    by += pick(cond, zeros_like(y), bz)


@forward_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a):
    dz = (uneinsum(dg, k, s, a) * (k != -1)
          + uneinsum(g, k, ds, a) * (k != 0)
          + uneinsum(g, k, s, da) * (k != 1))


@reverse_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a):
    vg = pick(k == -1, bz, g)
    vs = pick(k == 0, bz, s)
    va = pick(k == 1, bz, a)
    bg += uneinsum(vg, -1, vs, va) * (k != -1)
    bs += uneinsum(vg, 0, vs, va) * (k != 0)
    ba += uneinsum(vg, 1, vs, va) * (k != 1)


@forward_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a, b):
    dz = (uneinsum(dg, k, s, a, b) * (k != -1)
          + uneinsum(g, k, ds, a, b) * (k != 0)
          + uneinsum(g, k, s, da, b) * (k != 1)
          + uneinsum(g, k, s, a, db) * (k != 2))


@reverse_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a, b):
    vg = pick(k == -1, bz, g)
    vs = pick(k == 0, bz, s)
    va = pick(k == 1, bz, a)
    vb = pick(k == 2, bz, b)
    bg += uneinsum(vg, -1, vs, va, vb) * (k != -1)
    bs += uneinsum(vg, 0, vs, va, vb) * (k != 0)
    ba += uneinsum(vg, 1, vs, va, vb) * (k != 1)
    bb += uneinsum(vg, 2, vs, va, vb) * (k != 2)


@forward_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a, b, c):
    dz = (uneinsum(dg, k, s, a, b, c) * (k != -1)
          + uneinsum(g, k, ds, a, b, c) * (k != 0)
          + uneinsum(g, k, s, da, b, c) * (k != 1)
          + uneinsum(g, k, s, a, db, c) * (k != 2)
          + uneinsum(g, k, s, a, b, dc) * (k != 3))


@reverse_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a, b, c):
    vg = pick(k == -1, bz, g)
    vs = pick(k == 0, bz, s)
    va = pick(k == 1, bz, a)
    vb = pick(k == 2, bz, b)
    vc = pick(k == 3, bz, c)
    bg += uneinsum(vg, -1, vs, va, vb, vc) * (k != -1)
    bs += uneinsum(vg, 0, vs, va, vb, vc) * (k != 0)
    ba += uneinsum(vg, 1, vs, va, vb, vc) * (k != 1)
    bb += uneinsum(vg, 2, vs, va, vb, vc) * (k != 2)
    bc += uneinsum(vg, 3, vs, va, vb, vc) * (k != 3)


@forward_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a, b, c, d):
    dz = (uneinsum(dg, k, s, a, b, c, d) * (k != -1)
          + uneinsum(g, k, ds, a, b, c, d) * (k != 0)
          + uneinsum(g, k, s, da, b, c, d) * (k != 1)
          + uneinsum(g, k, s, a, db, c, d) * (k != 2)
          + uneinsum(g, k, s, a, b, dc, d) * (k != 3)
          + uneinsum(g, k, s, a, b, c, dd) * (k != 4))


@reverse_rule(runtime.uneinsum, name="s2sad.runtime.uneinsum")
def uneinsum_(z, g, k, s, a, b, c, d):
    vg = pick(k == -1, bz, g)
    vs = pick(k == 0, bz, s)
    va = pick(k == 1, bz, a)
    vb = pick(k == 2, bz, b)
    vc = pick(k == 3, bz, c)
    vd = pick(k == 4, bz, d)
    bg += uneinsum(vg, -1, vs, va, vb, vc, vd) * (k != -1)
    bs += uneinsum(vg, 0, vs, va, vb, vc, vd) * (k != 0)
    ba += uneinsum(vg, 1, vs, va, vb, vc, vd) * (k != 1)
    bb += uneinsum(vg, 2, vs, va, vb, vc, vd) * (k != 2)
    bc += uneinsum(vg, 3, vs, va, vb, vc, vd) * (k != 3)
    bd += uneinsum(vg, 4, vs, va, vb, vc, vd) * (k != 4)
