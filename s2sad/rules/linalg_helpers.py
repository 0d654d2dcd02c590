"""Rules for the runtime helpers that the linear algebra rules call (``s2sad/runtime/linalg.py``), so
that derivatives of ``solve``, ``cholesky``, ``eigh``, ``det``, ``einsum`` ... can be differentiated again, to any
order.  Each rule is written like the math in the helper's docstring; a helper's rules call only
primitives and helpers that have rules themselves."""

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    as_columns,
    astype_of,
    cofactor,
    eigenvalue_adjoint,
    eigenvector_adjoint,
    from_columns,
    gap_weighted,
    norm_law,
    norm_power,
    ord_moves,
    over_s,
    phase_moves,
    phase_over_s,
    pick,
    pick_tangent,
    power_ka,
    power_kb,
    result_like,
    signed_minors,
    spectral_norm_again,
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
    unreduce,
    zeros_like,
)
from .registry import forward_rule, nondifferentiable, reverse_rule

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


# ---- z = unnorm_ord(g, x, y, ord, ...) = G W: linear in g.  For the elementwise norms W = norm_power(c, x, Y, m, q, r, 1)
# (c, m, q, r = norm_law(...), Y the norm spread over x), a closed family: its derivative is three norm_power
# terms, so every order is exact.  The spectral and nuclear norms' dW goes through svd (unnorm_ord_tangent and
# its transpose, twice at most: their own rules refuse, spectral_norm_again).


@forward_rule(runtime.unnorm_ord, name="s2sad.runtime.unnorm_ord")
def unnorm_ord_(z, g, x, y, ord=None, axis=None, keepdims=False):
    law = norm_law(x, y, ord, axis, keepdims)
    yx = unreduce(y, x, axis, keepdims)
    G = unreduce(np.real(g), x, axis, keepdims)
    dz = (unnorm_ord(dg, x, y, ord, axis, keepdims)
          + norm_power(power_ka(law[0], x, law[2]), x, yx, law[1] + 1, law[2] - 2, law[3],
                       G * ord_moves(dx, x, y, ord, axis, keepdims), ord)
          + norm_power(power_kb(law[0], x, law[1], law[2]), x, yx, law[1] - 1, law[2], law[3],
                       G * np.conj(ord_moves(dx, x, y, ord, axis, keepdims)), ord)
          + norm_power(law[0] * law[3], x, yx, law[1], law[2], law[3] - 1, G * unreduce(dy, x, axis, keepdims), ord)
          + unnorm_ord_tangent(g, x, y, dx, dy, ord, axis, keepdims))


@reverse_rule(runtime.unnorm_ord, name="s2sad.runtime.unnorm_ord")
def unnorm_ord_(z, g, x, y, ord=None, axis=None, keepdims=False):
    bg += unbroadcast(np.sum(np.real(bz * unnorm_ord(1.0, x, y, ord, axis, keepdims)), axis=axis, keepdims=keepdims), g)
    law = norm_law(x, y, ord, axis, keepdims)
    yx = unreduce(y, x, axis, keepdims)
    w = unreduce(np.real(g), x, axis, keepdims) * ord_moves(bz, x, y, ord, axis, keepdims)
    bx += astype_of(norm_power(power_ka(law[0], x, law[2]), x, yx, law[1] + 1, law[2] - 2, law[3], w, ord)
                    + np.conj(norm_power(power_kb(law[0], x, law[1], law[2]), x, yx, law[1] - 1, law[2], law[3], w, ord)), x)
    by += np.sum(np.real(norm_power(law[0] * law[3], x, yx, law[1], law[2], law[3] - 1, w, ord)), axis=axis, keepdims=keepdims)
    bx += unnorm_ord_cotangent(bz, g, x, y, ord, axis, keepdims)


# z = c conj(x)^m |x|^q Y^r t: linear in t; dT = q/2 T(m+1, q-2) dx + (m + q/2) T(m-1, q) conj(dx) + r T(m, q, r-1) dY
@forward_rule(runtime.norm_power, name="s2sad.runtime.norm_power")
def norm_power_(z, c, x, Y, m, q, r, t, ord=None):
    dz = (norm_power(c, x, Y, m, q, r, dt, ord)
          + norm_power(power_ka(c, x, q), x, Y, m + 1, q - 2, r, t * dx, ord)
          + norm_power(power_kb(c, x, m, q), x, Y, m - 1, q, r, t * np.conj(dx), ord)
          + norm_power(c * r, x, Y, m, q, r - 1, t * dY, ord))


@reverse_rule(runtime.norm_power, name="s2sad.runtime.norm_power")
def norm_power_(z, c, x, Y, m, q, r, t, ord=None):
    bt += astype_of(unbroadcast(norm_power(c, x, Y, m, q, r, bz, ord), t), t)
    bx += astype_of(unbroadcast(norm_power(power_ka(c, x, q), x, Y, m + 1, q - 2, r, t * bz, ord)
                                + np.conj(norm_power(power_kb(c, x, m, q), x, Y, m - 1, q, r, t * bz, ord)), x), x)
    bY += unbroadcast(np.real(norm_power(c * r, x, Y, m, q, r - 1, t * bz, ord)), Y)


# ord_moves(t, x, y, ...) is t after a check (a zero norm that moves is refused): linear in t
@forward_rule(runtime.ord_moves, name="s2sad.runtime.ord_moves")
def ord_moves_(z, t, x, y, ord=None, axis=None, keepdims=False):
    dz = ord_moves(dt, x, y, ord, axis, keepdims)


@reverse_rule(runtime.ord_moves, name="s2sad.runtime.ord_moves")
def ord_moves_(z, t, x, y, ord=None, axis=None, keepdims=False):
    bt += ord_moves(bz, x, y, ord, axis, keepdims)


# the spectral and nuclear norms' dW (0 for the other norms): a third derivative is refused there
@forward_rule(runtime.unnorm_ord_tangent, name="s2sad.runtime.unnorm_ord_tangent")
def unnorm_ord_tangent_(z, g, x, y, tx, ty, ord=None, axis=None, keepdims=False):
    dz = (spectral_norm_again(x, x, ord, axis) * np.sum(dg) + spectral_norm_again(x, x, ord, axis) * np.sum(dx)
          + spectral_norm_again(x, x, ord, axis) * np.sum(dtx))


@reverse_rule(runtime.unnorm_ord_tangent, name="s2sad.runtime.unnorm_ord_tangent")
def unnorm_ord_tangent_(z, g, x, y, tx, ty, ord=None, axis=None, keepdims=False):
    bg += spectral_norm_again(g, x, ord, axis)
    bx += spectral_norm_again(x, x, ord, axis)
    btx += spectral_norm_again(tx, x, ord, axis)


@forward_rule(runtime.unnorm_ord_cotangent, name="s2sad.runtime.unnorm_ord_cotangent")
def unnorm_ord_cotangent_(z, t, g, x, y, ord=None, axis=None, keepdims=False):
    dz = (spectral_norm_again(x, x, ord, axis) * np.sum(dt) + spectral_norm_again(x, x, ord, axis) * np.sum(dg)
          + spectral_norm_again(x, x, ord, axis) * np.sum(dx))


@reverse_rule(runtime.unnorm_ord_cotangent, name="s2sad.runtime.unnorm_ord_cotangent")
def unnorm_ord_cotangent_(z, t, g, x, y, ord=None, axis=None, keepdims=False):
    bt += spectral_norm_again(t, x, ord, axis)
    bg += spectral_norm_again(g, x, ord, axis)
    bx += spectral_norm_again(x, x, ord, axis)


# ---- checks that pass the adjoint through (or raise): linear, their own rules ------------------------


# z = eigenvector_adjoint(g, v, c) is g where c = Im diag(vᵀ g) is 0; its derivatives check the derivative of c,
# dc = Im diag(dvᵀ g + vᵀ dg), passed by the rule of eigh (c is computed there), to any order
@forward_rule(runtime.eigenvector_adjoint, name="s2sad.runtime.eigenvector_adjoint")
def eigenvector_adjoint_(z, g, v, c, u=0.0, h=0.0):
    dz = eigenvector_adjoint(dg, v, dc, dv, g)


@reverse_rule(runtime.eigenvector_adjoint, name="s2sad.runtime.eigenvector_adjoint")
def eigenvector_adjoint_(z, g, v, c, u=0.0, h=0.0):
    bg += bz


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


@forward_rule(runtime.lstsq_checked, name="s2sad.runtime.lstsq_checked")
def lstsq_checked_(z, x, y, a, b):
    dz = dx


@reverse_rule(runtime.lstsq_checked, name="s2sad.runtime.lstsq_checked")
def lstsq_checked_(z, x, y, a, b):
    bx += bz


@forward_rule(runtime.qr_checked, name="s2sad.runtime.qr_checked")
def qr_checked_(z, x, y, a, mode="reduced"):
    dz = dx


@reverse_rule(runtime.qr_checked, name="s2sad.runtime.qr_checked")
def qr_checked_(z, x, y, a, mode="reduced"):
    bx += bz


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


# z = x if cond else y; x and y may be containers (tuples of arrays): tangents added leaf by leaf
@forward_rule(runtime.pick, name="s2sad.runtime.pick")
def pick_(z, cond, x, y):
    dz = pick_tangent(cond, dx, dy, x, y)


@reverse_rule(runtime.pick, name="s2sad.runtime.pick")
def pick_(z, cond, x, y):
    bx += pick(cond, bz, zeros_like(x))
    by += pick(cond, zeros_like(y), bz)


# pick_tangent(cond, tx, ty, x, y) is tx if cond else ty (x and y give the zeros' structure): linear in tx, ty
@forward_rule(runtime.pick_tangent, name="s2sad.runtime.pick_tangent")
def pick_tangent_(z, cond, tx, ty, x, y):
    dz = pick_tangent(cond, dtx, dty, x, y)


@reverse_rule(runtime.pick_tangent, name="s2sad.runtime.pick_tangent")
def pick_tangent_(z, cond, tx, ty, x, y):
    btx += pick(cond, bz, zeros_like(tx))
    bty += pick(cond, zeros_like(ty), bz)


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


nondifferentiable(runtime.norm_law, name="s2sad.runtime.norm_law")
nondifferentiable(runtime.power_ka, name="s2sad.runtime.power_ka")
nondifferentiable(runtime.power_kb, name="s2sad.runtime.power_kb")
nondifferentiable(runtime.spectral_norm_again, name="s2sad.runtime.spectral_norm_again")
