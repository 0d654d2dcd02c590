"""Products and linear algebra: dot, vdot, inner, outer, trace, norm, tensordot, einsum, kron, cross and
``numpy.linalg`` (inv, matrix_power, det, slogdet, solve, cholesky, qr, eigh, eigvalsh, eig, svd, pinv).

Matrices may be stacked wherever NumPy allows it: ``mT`` transposes each matrix of a stack.
Primitives returning several arrays (slogdet, qr, eigh, eig, svd) have a tuple adjoint ``by`` (zeros
for the parts the code does not use) and a tuple tangent ``dy``.  The longer derivations (svd, eig,
norms) live in ``s2sad/runtime/linalg.py``, one helper each with its formula.
"""

import numpy as np

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    as_columns,
    cofactor,
    eigengaps,
    eigenvalue_adjoint,
    eigenvector_adjoint,
    from_columns,
    gap_weighted,
    lstsq_checked,
    match_complex,
    mT,
    nonsingular,
    over_s,
    phase_over_s,
    phi,
    pick,
    qr_checked,
    real_matrix,
    result_like,
    svd_factors,
    svd_input,
    svd_seed,
    svd_unseed,
    symmetrize,
    unbroadcast,
    undot_x,
    undot_y,
    uneinsum,
    unkron_a,
    unkron_b,
    unnorm,
    unnorm_ord,
    unsymmetrize,
    untensordot_a,
    untensordot_b,
    untrace,
    zeros_like,
)
from .registry import ELEMENTWISE, REDUCTION, forward_rule, reverse_rule

# fmt: off
# ---- products ------------------------------------------------------------------------------


@reverse_rule(np.dot)
def dot(z, a, b):
    ba += undot_x(bz, a, b)
    bb += undot_y(bz, a, b)


@forward_rule(np.dot)
def dot(z, a, b):
    dz = np.dot(da, b) + np.dot(a, db)


# z = Σ conj(a) b over the flattened inputs:  ā = conj(z̄ b),  b̄ = z̄ conj(a)
@reverse_rule(np.vdot)
def vdot(z, a, b):
    ba += match_complex(np.reshape(np.conj(bz * np.ravel(b)), np.shape(a)), a)
    bb += match_complex(np.reshape(bz * np.conj(np.ravel(a)), np.shape(b)), b)


@forward_rule(np.vdot)
def vdot(z, a, b):
    dz = np.vdot(da, b) + np.vdot(a, db)


@reverse_rule(np.outer)
def outer(z, a, b):
    ba += match_complex(np.reshape(bz @ np.ravel(b), np.shape(a)), a)
    bb += match_complex(np.reshape(np.ravel(a) @ bz, np.shape(b)), b)


@forward_rule(np.outer)
def outer(z, a, b):
    dz = np.outer(da, b) + np.outer(a, db)


@reverse_rule(np.inner)
def inner(z, a, b):
    ba += match_complex(np.tensordot(bz, b, axes=(list(range(np.ndim(a) - 1, np.ndim(bz))), list(range(np.ndim(b) - 1)))), a)
    bb += match_complex(np.tensordot(bz, a, axes=(list(range(np.ndim(a) - 1)), list(range(np.ndim(a) - 1)))), b)


@forward_rule(np.inner)
def inner(z, a, b):
    dz = np.inner(da, b) + np.inner(a, db)


@reverse_rule(np.tensordot)
def tensordot(z, a, b, axes=2):
    ba += untensordot_a(bz, a, b, axes)
    bb += untensordot_b(bz, a, b, axes)


@forward_rule(np.tensordot)
def tensordot(z, a, b, axes=2):
    dz = np.tensordot(da, b, axes) + np.tensordot(a, db, axes)


# einsum: the adjoint of an operand is the einsum of the seed with the other operands into that
# operand's subscripts.  One template per number of operands; in the interleaved form
# einsum(x, [0, 1], y, [1, 2]) the first operand comes first, so `subscripts` may be an operand too.
@reverse_rule(np.einsum)
def einsum(y, subscripts, a, *, optimize=False):
    bsubscripts += uneinsum(by, 0, subscripts, a)
    ba += uneinsum(by, 1, subscripts, a)


@reverse_rule(np.einsum)
def einsum(y, subscripts, a, b, *, optimize=False):
    bsubscripts += uneinsum(by, 0, subscripts, a, b)
    ba += uneinsum(by, 1, subscripts, a, b)
    bb += uneinsum(by, 2, subscripts, a, b)


@reverse_rule(np.einsum)
def einsum(y, subscripts, a, b, c, *, optimize=False):
    bsubscripts += uneinsum(by, 0, subscripts, a, b, c)
    ba += uneinsum(by, 1, subscripts, a, b, c)
    bb += uneinsum(by, 2, subscripts, a, b, c)
    bc += uneinsum(by, 3, subscripts, a, b, c)


@reverse_rule(np.einsum)
def einsum(y, subscripts, a, b, c, d, *, optimize=False):
    bsubscripts += uneinsum(by, 0, subscripts, a, b, c, d)
    ba += uneinsum(by, 1, subscripts, a, b, c, d)
    bb += uneinsum(by, 2, subscripts, a, b, c, d)
    bc += uneinsum(by, 3, subscripts, a, b, c, d)
    bd += uneinsum(by, 4, subscripts, a, b, c, d)


@forward_rule(np.einsum)
def einsum(y, subscripts, a, *, optimize=False):
    dy = np.einsum(dsubscripts, a) + np.einsum(subscripts, da)


@forward_rule(np.einsum)
def einsum(y, subscripts, a, b, *, optimize=False):
    dy = np.einsum(dsubscripts, a, b) + np.einsum(subscripts, da, b) + np.einsum(subscripts, a, db)


@forward_rule(np.einsum)
def einsum(y, subscripts, a, b, c, *, optimize=False):
    dy = (np.einsum(dsubscripts, a, b, c) + np.einsum(subscripts, da, b, c) + np.einsum(subscripts, a, db, c)
          + np.einsum(subscripts, a, b, dc))


@forward_rule(np.einsum)
def einsum(y, subscripts, a, b, c, d, *, optimize=False):
    dy = (np.einsum(dsubscripts, a, b, c, d) + np.einsum(subscripts, da, b, c, d) + np.einsum(subscripts, a, db, c, d)
          + np.einsum(subscripts, a, b, dc, d) + np.einsum(subscripts, a, b, c, dd))


@reverse_rule(np.kron)
def kron(z, a, b):
    ba += unkron_a(bz, a, b)
    bb += unkron_b(bz, a, b)


@forward_rule(np.kron)
def kron(z, a, b):
    dz = np.kron(da, b) + np.kron(a, db)


# <g, a x b> = <a, b x g> = <b, g x a>; 3-vectors along `axis`, broadcasting over the others
@reverse_rule(np.cross, kind=ELEMENTWISE)
def cross(c, a, b, *, axis=-1):
    ba += np.cross(b, bc, axis=axis)
    bb += np.cross(bc, a, axis=axis)


@forward_rule(np.cross, kind=ELEMENTWISE)
def cross(c, a, b, *, axis=-1):
    dc = np.cross(da, b, axis=axis) + np.cross(a, db, axis=axis)


@reverse_rule(np.trace)
def trace(y, a, offset=0, axis1=0, axis2=1):
    ba += untrace(by, a, offset, axis1, axis2)


@forward_rule(np.trace)
def trace(y, a, offset=0, axis1=0, axis2=1):
    dy = np.trace(da, offset, axis1, axis2)


# ---- norms: the 2-norm (any axis) first, then every other ord ----------------------------


@reverse_rule(np.linalg.norm, kind=REDUCTION)
def norm(y, x, *, axis=None, keepdims=False):
    bx += unnorm(by, x, y, axis, keepdims)


@reverse_rule(np.linalg.norm, kind=REDUCTION)
def norm(y, x, ord=None, axis=None, keepdims=False):
    bx += unnorm_ord(by, x, y, ord, axis, keepdims)


@forward_rule(np.linalg.norm, kind=REDUCTION)
def norm(y, x, *, axis=None, keepdims=False):
    dy = np.real(np.sum(unnorm(1.0, x, y, axis, keepdims) * dx, axis=axis, keepdims=keepdims))


@forward_rule(np.linalg.norm, kind=REDUCTION)
def norm(y, x, ord=None, axis=None, keepdims=False):
    dy = np.real(np.sum(unnorm_ord(1.0, x, y, ord, axis, keepdims) * dx, axis=axis, keepdims=keepdims))


# ---- inverses, determinants, solving -------------------------------------------------------


@reverse_rule(np.linalg.inv)
def inv(y, a):
    ba -= mT(y) @ by @ mT(y)


@forward_rule(np.linalg.inv)
def inv(y, a):
    dy = -(y @ da @ y)


# d det(a) = sum(cofactor(a) * da): the cofactor matrix exists at singular matrices too
@reverse_rule(np.linalg.det)
def det(y, a):
    ba += np.expand_dims(by, (-2, -1)) * cofactor(a)


@forward_rule(np.linalg.det)
def det(y, a):
    dy = np.sum(cofactor(a) * da, axis=(-2, -1))


# (sign, logabsdet), t = tr(a⁻¹ da):  d logabsdet = Re t;  d sign = sign i Im t (0 for real a: there the sign is
# locally constant); ā = (l̄ + i Im(sign s̄)) a⁻ᵀ.  At a singular matrix (sign 0, log|det| = -inf) neither has a
# derivative: nonsingular(a, sign) raises there
@reverse_rule(np.linalg.slogdet)
def slogdet(y, a):
    g = np.real(by[1]) + 1j * np.imag(y[0] * by[0])
    ba += match_complex(np.expand_dims(g, (-2, -1)) * mT(np.linalg.inv(nonsingular(a, y[0]))), a)


@forward_rule(np.linalg.slogdet)
def slogdet(y, a):
    t = np.trace(np.linalg.solve(nonsingular(a, y[0]), da), axis1=-2, axis2=-1)
    dy = result_like((match_complex(y[0] * 1j * np.imag(t), y[0]), np.real(t)), y)


# x = a^-1 b: b̄ = a^-T x̄, ā = -b̄ xᵀ;  dx = a^-1 (db - da x)  (a 1-d b is one column)
@reverse_rule(np.linalg.solve)
def solve(x, a, b):
    gb = np.linalg.solve(mT(a), as_columns(bx, b))
    ba -= unbroadcast(gb @ mT(as_columns(x, b)), a)
    bb += unbroadcast(from_columns(gb, b), b)


@forward_rule(np.linalg.solve)
def solve(x, a, b):
    dx = np.linalg.solve(a, db) - from_columns(np.linalg.solve(a, da @ as_columns(x, b)), b)


# exact where the rank is locally constant (Golub and Pereyra 1973); real matrices only
@reverse_rule(np.linalg.pinv)
def pinv(y, a, rcond=None, hermitian=False):
    ar = real_matrix(a)
    gt = mT(by)
    yt = mT(y)
    ba += -yt @ by @ yt + (gt - ar @ (y @ gt)) @ (y @ yt) + (yt @ y) @ (gt - (gt @ y) @ ar)


@forward_rule(np.linalg.pinv)
def pinv(y, a, rcond=None, hermitian=False):
    ar = real_matrix(a)
    yt = mT(y)
    dy = -y @ da @ y + (y @ yt) @ (mT(da) - (mT(da) @ ar) @ y) + (mT(da) - y @ (ar @ mT(da))) @ (yt @ y)


# y = aⁿ (any integer n; a⁻¹ for n < 0): the derivative in direction e is the upper right block of
# [[a, e], [0, a]]ⁿ (Mathias 1996); its adjoint is the same block with aᵀ for a: Σ (aᵀ)ᵏ ȳ (aᵀ)ⁿ⁻¹⁻ᵏ for n > 0
@reverse_rule(np.linalg.matrix_power)
def matrix_power(y, a, n):
    m = np.shape(a)[-1]
    at = mT(a)
    big = np.concatenate([np.concatenate([at, by], axis=-1), np.concatenate([np.zeros_like(at), at], axis=-1)], axis=-2)
    ba += match_complex(np.linalg.matrix_power(big, n)[..., :m, m:], a)


@forward_rule(np.linalg.matrix_power)
def matrix_power(y, a, n):
    m = np.shape(a)[-1]
    big = np.concatenate([np.concatenate([a, da], axis=-1), np.concatenate([np.zeros_like(a), a], axis=-1)], axis=-2)
    dy = np.linalg.matrix_power(big, n)[..., :m, m:]


# (x, res, rank, s) = lstsq(a, b), real a of full column rank, b as columns (1-d b: one):  r = b - a x,
#   dx = (aᵀa)⁻¹ (daᵀ r - aᵀ da x + aᵀ db),  dres = 2 Σᵢ r (db - da x) (aᵀ r = 0),  ds = diag(uᵀ da v) (svd's);
#   z = (aᵀa)⁻¹ x̄,  b̄ = a z + 2 r res̄,  ā = r zᵀ - b̄ xᵀ + u diag(s̄) vᵀ.  res is empty for a square a: e (k x 0 or
#   k x k, the identity) maps its seed and tangent to and from length k
@reverse_rule(np.linalg.lstsq)
def lstsq(y, a, b, rcond=None):
    xc = as_columns(lstsq_checked(y[0], y, a, b), b)
    r = as_columns(b, b) - a @ xc
    z = np.linalg.solve(mT(a) @ a, as_columns(by[0], b))
    gb = a @ z + 2.0 * r * (by[1] @ np.eye(np.size(y[1]), np.shape(r)[-1]))
    f = np.linalg.svd(a, full_matrices=False)
    ba += r @ mT(z) - gb @ mT(xc) + (f[0] * by[3]) @ f[2]
    bb += from_columns(gb, b)


@forward_rule(np.linalg.lstsq)
def lstsq(y, a, b, rcond=None):
    xc = as_columns(lstsq_checked(y[0], y, a, b), b)
    r = as_columns(b, b) - a @ xc
    t = as_columns(db, b) - da @ xc
    dx = np.linalg.solve(mT(a) @ a, mT(da) @ r + mT(a) @ t)
    dres = np.sum(2.0 * r * t, axis=0) @ mT(np.eye(np.size(y[1]), np.shape(r)[-1]))
    f = np.linalg.svd(a, full_matrices=False)
    dy = (from_columns(dx, b), dres, 0.0 * y[2], zeros_like(y[3]) + np.diagonal(mT(f[0]) @ da @ mT(f[2])))


# ---- factorizations: NumPy reads one triangle of a symmetric input ------------------------


# l lᴴ = a:  dl = l Φ(l⁻¹ da l⁻ᴴ) with Φ the lower triangle, half diagonal (l⁻¹ da l⁻ᴴ is Hermitian: Φ's
# diagonal is real, as l's is); ā = unsymmetrize(S), S = l⁻ᵀ Φ(lᵀ l̄) conj(l)⁻¹ (Murray 2016; for complex a
# the transpose under Re(sum(ā * da))), the input read as eigh reads it: its lower triangle, a real diagonal
@reverse_rule(np.linalg.cholesky)
def cholesky(y, a):
    ba += unsymmetrize(np.linalg.solve(mT(y), mT(np.linalg.solve(np.conj(mT(y)), mT(phi(mT(y) @ by))))))


@forward_rule(np.linalg.cholesky)
def cholesky(y, a):
    dy = y @ phi(np.linalg.solve(y, np.conj(mT(np.linalg.solve(y, symmetrize(da))))))


# upper= given: with upper=True y = lᴴ, the input read from its upper triangle
@reverse_rule(np.linalg.cholesky)
def cholesky(y, a, *, upper):
    lo = pick(upper, np.conj(mT(y)), y)
    glo = pick(upper, np.conj(mT(by)), by)
    ba += unsymmetrize(np.linalg.solve(mT(lo), mT(np.linalg.solve(np.conj(mT(lo)), mT(phi(mT(lo) @ glo))))), pick(upper, "U", None))


@forward_rule(np.linalg.cholesky)
def cholesky(y, a, *, upper):
    lo = pick(upper, np.conj(mT(y)), y)
    tlo = lo @ phi(np.linalg.solve(lo, np.conj(mT(np.linalg.solve(lo, symmetrize(da, pick(upper, "U", None)))))))
    dy = pick(upper, np.conj(mT(tlo)), tlo)


# (w, v) = eigh(a), UPLO "L" (None) or "U":  dw = diag(vᴴ da v) (real),  dv = v (F * vᵀ da v),  F[i, j] = 1 / (w[j] - w[i])
#   ā = unsymmetrize(conj(v) (diag(w̄) + F * (vᵀ v̄)) vᵀ)
# Complex v: the phase of each v_i is free, dv takes JAX's gauge (v_iᴴ dv_i = 0), exact for a loss that does not
# read the phase: Im diag(vᵀ v̄) = 0, checked (with its derivatives, to any order) by eigenvector_adjoint
@reverse_rule(np.linalg.eigh)
def eigh(y, a, UPLO=None):
    inner = np.expand_dims(np.real(by[0]), -2) * np.eye(np.shape(y[0])[-1])
    gv = eigenvector_adjoint(by[1], y[1], np.imag(np.sum(y[1] * by[1], axis=-2)))
    inner = inner + gap_weighted(y[0], mT(y[1]) @ gv)
    ba += unsymmetrize(np.conj(y[1]) @ inner @ mT(y[1]), UPLO)


@forward_rule(np.linalg.eigh)
def eigh(y, a, UPLO=None):
    p = np.conj(mT(y[1])) @ symmetrize(da, UPLO) @ y[1]
    dy = result_like((np.real(np.diagonal(p, axis1=-2, axis2=-1)), y[1] @ gap_weighted(y[0], p)), y)


# (q, r) = qr(a), a real m x n with m >= n of full column rank:  X = da r⁻¹,  C = qᵀ X,  Ω = L - Lᵀ, L = tril(C, -1):
#   dq = q Ω + X - q C,  dr = (C - Ω) r;   ā = (q̄ + q copyltu(r r̄ᵀ - q̄ᵀ q)) r⁻ᵀ, copyltu(M) = tril(M) + tril(M, -1)ᵀ
# (Walter and Lehmann 2018); qr_checked refuses the other modes, wide, complex and rank-deficient matrices
@reverse_rule(np.linalg.qr)
def qr(y, a, mode="reduced"):
    q = qr_checked(y[0], y, a, mode)
    m = y[1] @ mT(by[1]) - mT(by[0]) @ q
    b = by[0] + q @ (np.tril(m) + mT(np.tril(m, -1)))
    ba += mT(np.linalg.solve(y[1], mT(b)))


@forward_rule(np.linalg.qr)
def qr(y, a, mode="reduced"):
    q = qr_checked(y[0], y, a, mode)
    x = mT(np.linalg.solve(mT(y[1]), mT(da)))
    c = mT(q) @ x
    w = np.tril(c, -1) - mT(np.tril(c, -1))
    dy = result_like((q @ w + x - q @ c, (c - w) @ y[1]), y)


# w = eigvalsh(a): eigh's eigenvalues, dw = Re diag(vᴴ da v);  ā = unsymmetrize(conj(v) diag(w̄) vᵀ)
@reverse_rule(np.linalg.eigvalsh)
def eigvalsh(w, a, UPLO="L"):
    v = np.linalg.eigh(a, UPLO)[1]
    ba += unsymmetrize((np.conj(v) * np.expand_dims(np.real(bw), -2)) @ mT(v), UPLO)


@forward_rule(np.linalg.eigvalsh)
def eigvalsh(w, a, UPLO="L"):
    v = np.linalg.eigh(a, UPLO)[1]
    dw = np.real(np.sum(np.conj(v) * (symmetrize(da, UPLO) @ v), axis=-2))


# (w, v) = eig(a), real distinct eigenvalues: as eigh with v⁻¹ for vᵀ, then each column of dv
# loses its part along v (NumPy's eigenvectors have unit length)
# ā = v⁻ᵀ (diag(w̄) + F * (vᵀ ĝ)) vᵀ, ĝ = v̄ less its part along each v
@reverse_rule(np.linalg.eig)
def eig(y, a):
    gv = eigenvalue_adjoint(by[1], y[0])
    gv = gv - y[1] * np.sum(y[1] * gv, axis=-2, keepdims=True)
    inner = np.expand_dims(eigenvalue_adjoint(by[0], y[0]), -2) * np.eye(np.shape(y[0])[-1]) + gap_weighted(y[0], mT(y[1]) @ gv)
    ba += np.linalg.solve(mT(y[1]), inner @ mT(y[1]))


@forward_rule(np.linalg.eig)
def eig(y, a):
    p = np.linalg.solve(y[1], da @ y[1])
    dv = y[1] @ gap_weighted(y[0], p)
    dy = result_like((np.diagonal(p, axis1=-2, axis2=-1), dv - y[1] * np.sum(y[1] * dv, axis=-2, keepdims=True)), y)


# (u, s, vh) = svd(a), thin or square factors (Townsend 2016; complex a: Wan and Zhang 2019, JAX's svd_jvp_rule),
# F[i, j] = 1 / (s_j² - s_i²), v = vhᴴ:
#   P = uᴴ da v,  ds = Re diag(P),  du = u (F * (P s + s Pᴴ) + I * (P - Pᴴ)/2 s⁻¹) + (I - uuᴴ) da v s⁻¹,
#   dv = v (F * (s P + Pᴴ s)) + (I - vvᴴ) daᴴ u s⁻¹
# For complex a the phase of each pair (u_i, v_i) is free (u_i, v_i -> e^{it} u_i, v_i): du takes its change
# (the I * ... term, 0 for real a), as JAX's does; a loss that reads that phase has no derivative, and gets this one.
# The adjoint is the transpose (Gu = conj(ū), Gv = v̄hᵀ, J = uᴴ Gu, L = vᴴ Gv):
#   ā = conj(u [diag(s̄) + F*(J - Jᴴ) s + s F*(L - Lᴴ) + I*(J - Jᴴ)/2 s⁻¹] vᴴ + (I - uuᴴ) Gu s⁻¹ vᴴ + u s⁻¹ Gvᴴ (I - vvᴴ))
# f holds (u, s, vh) also when only s was computed (compute_uv=False: the thin svd of a again); the gaps weigh P
# before s multiplies it, so a tied pair of zero singular values is refused (P s is 0 there, its limit is not)
@reverse_rule(np.linalg.svd)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    f = svd_factors(y, np.linalg.svd(svd_input(a, full_matrices, compute_uv, hermitian), full_matrices=False), compute_uv)
    g = svd_seed(by, f, compute_uv)
    w = f[1] * f[1]
    sm = np.expand_dims(f[1], -2)
    gu = np.conj(g[0])
    gv = mT(g[2])
    j = np.conj(mT(f[0])) @ gu
    jj = j - np.conj(mT(j))
    kk = f[2] @ gv - np.conj(mT(f[2] @ gv))
    inner = (np.expand_dims(np.real(g[1]), -2) * np.eye(np.shape(f[1])[-1]) + gap_weighted(w, jj) * sm
             + mT(sm) * gap_weighted(w, kk) + phase_over_s(jj / 2, f[1]))
    ba += np.conj(f[0] @ inner @ f[2] + over_s(gu - f[0] @ j, f[1], a) @ f[2]
                  + f[0] @ np.conj(mT(over_s(gv - np.conj(mT(f[2])) @ (f[2] @ gv), f[1], a))))


@forward_rule(np.linalg.svd)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    f = svd_factors(y, np.linalg.svd(svd_input(a, full_matrices, compute_uv, hermitian), full_matrices=False), compute_uv)
    w = f[1] * f[1]
    sm = np.expand_dims(f[1], -2)
    v = np.conj(mT(f[2]))
    p = np.conj(mT(f[0])) @ da @ v
    pv = p * float(compute_uv)
    ph = np.conj(mT(pv))
    du = (f[0] @ (gap_weighted(w, pv) * sm + mT(sm) * gap_weighted(w, ph) + phase_over_s((pv - ph) / 2, f[1]))
          + over_s((da @ v - f[0] @ p) * float(compute_uv), f[1], a))
    dv = v @ (mT(sm) * gap_weighted(w, pv) + gap_weighted(w, ph) * sm) + over_s((np.conj(mT(da)) @ f[0] - v @ np.conj(mT(p))) * float(compute_uv), f[1], a)
    dy = result_like(svd_unseed((du, np.real(np.diagonal(p, axis1=-2, axis2=-1)), np.conj(mT(dv))), compute_uv), y)


# ---- the linear runtime helpers above, so derivative code can be differentiated again ---------


@reverse_rule(runtime.mT, name="s2sad.runtime.mT")
def matrix_transpose(y, a):
    ba += mT(by)


@forward_rule(runtime.mT, name="s2sad.runtime.mT")
def matrix_transpose(y, a):
    dy = mT(da)


@reverse_rule(runtime.phi, name="s2sad.runtime.phi")
def lower_half_diagonal(y, a):
    ba += phi(by)


@forward_rule(runtime.phi, name="s2sad.runtime.phi")
def lower_half_diagonal(y, a):
    dy = phi(da)


@reverse_rule(runtime.symmetrize, name="s2sad.runtime.symmetrize")
def symmetrize_(y, a, uplo=None):
    ba += unsymmetrize(by, uplo)


@forward_rule(runtime.symmetrize, name="s2sad.runtime.symmetrize")
def symmetrize_(y, a, uplo=None):
    dy = symmetrize(da, uplo)


@reverse_rule(runtime.unsymmetrize, name="s2sad.runtime.unsymmetrize")
def unsymmetrize_(y, g, uplo=None):
    bg += symmetrize(by, uplo)


@forward_rule(runtime.unsymmetrize, name="s2sad.runtime.unsymmetrize")
def unsymmetrize_(y, g, uplo=None):
    dy = unsymmetrize(dg, uplo)


@reverse_rule(runtime.untrace, name="s2sad.runtime.untrace")
def untrace_(y, g, a, offset=0, axis1=0, axis2=1):
    bg += np.trace(by, offset, axis1, axis2)


@forward_rule(runtime.untrace, name="s2sad.runtime.untrace")
def untrace_(y, g, a, offset=0, axis1=0, axis2=1):
    dy = untrace(dg, a, offset, axis1, axis2)
