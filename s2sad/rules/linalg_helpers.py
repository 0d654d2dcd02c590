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
    over_s,
    phase_moves,
    phase_over_s,
    pick,
    result_like,
    signed_minors,
    svd_factors,
    svd_input,
    svd_seed,
    svd_unseed,
    unbroadcast,
    uneinsum,
    unminors,
    unnorm_ord,
    unnorm_ord_cotangent,
    unnorm_ord_tangent,
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


# phase_moves(t, m, s) is t (after a check that refuses a complex m with a zero s): linear in t
@forward_rule(runtime.phase_moves, name="s2sad.runtime.phase_moves")
def phase_moves_(z, t, m, s):
    dz = phase_moves(dt, m, s)


@reverse_rule(runtime.phase_moves, name="s2sad.runtime.phase_moves")
def phase_moves_(z, t, m, s):
    bt += phase_moves(bz, m, s)


# ---- svd: its rules select (u, s, vh) and the seeds at run time (compute_uv), and divide by s (over_s) ------------


@forward_rule(runtime.svd_input, name="s2sad.runtime.svd_input")
def svd_input_(z, a, full_matrices=True, compute_uv=True, hermitian=False):
    dz = svd_input(da, full_matrices, compute_uv, hermitian)


@reverse_rule(runtime.svd_input, name="s2sad.runtime.svd_input")
def svd_input_(z, a, full_matrices=True, compute_uv=True, hermitian=False):
    ba += pick(compute_uv, zeros_like(a), bz)


@forward_rule(runtime.result_like, name="s2sad.runtime.result_like")
def result_like_(z, parts, y):
    dz = result_like(dparts, y)


@reverse_rule(runtime.result_like, name="s2sad.runtime.result_like")
def result_like_(z, parts, y):
    bparts += bz


@forward_rule(runtime.svd_factors, name="s2sad.runtime.svd_factors")
def svd_factors_(z, y, again, compute_uv=True):
    dz = svd_factors(dy, dagain, compute_uv)


@reverse_rule(runtime.svd_factors, name="s2sad.runtime.svd_factors")
def svd_factors_(z, y, again, compute_uv=True):
    by += pick(compute_uv, bz, zeros_like(y))
    bagain += pick(compute_uv, zeros_like(again), bz)


@forward_rule(runtime.svd_seed, name="s2sad.runtime.svd_seed")
def svd_seed_(z, g, factors, compute_uv=True):
    dz = svd_seed(dg, factors, compute_uv)


@reverse_rule(runtime.svd_seed, name="s2sad.runtime.svd_seed")
def svd_seed_(z, g, factors, compute_uv=True):
    bg += svd_unseed(bz, compute_uv)


@forward_rule(runtime.svd_unseed, name="s2sad.runtime.svd_unseed")
def svd_unseed_(z, t, compute_uv=True):
    dz = svd_unseed(dt, compute_uv)


@reverse_rule(runtime.svd_unseed, name="s2sad.runtime.svd_unseed")
def svd_unseed_(z, t, compute_uv=True):
    bt += svd_seed(bz, t, compute_uv)


# z = m / s (columns) for a non-square a:  dz = dm / s - m ds / s²
@forward_rule(runtime.over_s, name="s2sad.runtime.over_s")
def over_s_(z, m, s, a):
    dz = over_s(dm, s, a) - over_s(over_s(m * np.expand_dims(ds, -2), s, a), s, a)


@reverse_rule(runtime.over_s, name="s2sad.runtime.over_s")
def over_s_(z, m, s, a):
    bm += unbroadcast(over_s(bz, s, a), m)
    bs -= unbroadcast(np.sum(over_s(over_s(m * bz, s, a), s, a), axis=-2), s)


# z = I * i Im(m) / s (the phase term of complex singular vectors): linear in m and self-adjoint;
# dz = phase_over_s(dm, s) - i Im(m) ds / s²,  s̄ = Re diag(conj(phase_over_s(m, s)) phase_over_s(z̄, s))
@forward_rule(runtime.phase_over_s, name="s2sad.runtime.phase_over_s")
def phase_over_s_(z, m, s):
    dz = phase_over_s(phase_moves(dm, m, s), s) - phase_over_s(phase_over_s(m, s) * np.expand_dims(phase_moves(ds, m, s), -2), s)


@reverse_rule(runtime.phase_over_s, name="s2sad.runtime.phase_over_s")
def phase_over_s_(z, m, s):
    bm += unbroadcast(phase_over_s(phase_moves(bz, m, s), s), m)
    bs += unbroadcast(np.sum(np.real(np.conj(phase_over_s(m, s)) * phase_over_s(phase_moves(bz, m, s), s)), axis=-2), s)


# ---- z = unnorm_ord(g, x, y, ord, ...) = G W: linear in g; W (the gradient of the norm) differentiated by
# unnorm_ord_tangent and its transpose (per ord, at run time; order 2: those two have no rules of their own)


@forward_rule(runtime.unnorm_ord, name="s2sad.runtime.unnorm_ord")
def unnorm_ord_(z, g, x, y, ord=None, axis=None, keepdims=False):
    dz = unnorm_ord(dg, x, y, ord, axis, keepdims) + unnorm_ord_tangent(g, x, y, dx, dy, ord, axis, keepdims)


@reverse_rule(runtime.unnorm_ord, name="s2sad.runtime.unnorm_ord")
def unnorm_ord_(z, g, x, y, ord=None, axis=None, keepdims=False):
    bg += unbroadcast(np.sum(np.real(bz * unnorm_ord(1.0, x, y, ord, axis, keepdims)), axis=axis, keepdims=keepdims), g)
    t = unnorm_ord_cotangent(bz, g, x, y, ord, axis, keepdims)
    bx += t[0]
    by += t[1]


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
