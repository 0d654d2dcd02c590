"""Cases for products and linear algebra: dot, inner, outer, trace, matmul, norm, tensordot,
einsum, kron, cross and ``numpy.linalg``.  Matrices come with structure where the primitive needs
it (well conditioned, positive definite, real distinct eigenvalues); stacked matrices where NumPy
allows them.  Functions of eigen- and singular vectors are invariant under each vector's sign."""

import numpy as np

from s2sad.runtime import (
    as_columns,
    cofactor,
    eigenvalue_adjoint,
    eigenvector_adjoint,
    from_columns,
    gap_weighted,
    lstsq_checked,
    mT,
    nonsingular,
    norm_law,
    norm_power,
    ord_moves,
    over_s,
    phase_moves,
    phase_over_s,
    phi,
    pick,
    pick_tangent,
    power_ka,
    power_kb,
    qr_checked,
    real_matrix,
    result_like,
    signed_minors,
    spectral_norm_again,
    svd_factors,
    svd_input,
    svd_seed,
    svd_unseed,
    symmetrize,
    uneinsum,
    unminors,
    unnorm_ord,
    unnorm_ord_cotangent,
    unnorm_ord_tangent,
    unsymmetrize,
    untrace,
)

from . import A, C, M, case, hpd, spd, wellcond, wellcond_c


def stacked(matrix, *lead):
    """Matrices ``matrix`` makes, stacked with leading shape ``lead``."""

    def make(rng):
        matrices = np.array([matrix.make(rng) for _ in np.ndindex(*lead)])
        return matrices.reshape(lead + matrices.shape[1:])

    return M(make)


def real_eigen(n):
    """A non-symmetric n x n matrix with real, well separated eigenvalues."""
    return M(
        lambda rng: (lambda q: q @ np.diag(np.arange(1.0, n + 1) * 1.5) @ np.linalg.inv(q))(
            rng.normal(size=(n, n)) + 2 * n**0.5 * np.eye(n)
        )
    )


# ---- products ------------------------------------------------------------------------------


@case("numpy.dot", A(4), A(4))
def dot_vectors(a, b):
    return np.dot(a, b)


@case("numpy.dot", A(3, 4), A(4))
def dot_matrix_vector(a, b):
    return np.dot(a, b)


@case("numpy.dot", A(3, 4), A(4, 2))
def dot_matrices(a, b):
    return np.dot(a, b)


@case("numpy.dot", A(2, 3, 4), A(5, 4, 2))
def dot_stacks(a, b):
    return np.dot(a, b)


@case("numpy.dot", A(3, 4), A())
def dot_scalar(a, b):
    return np.dot(a, b)


@case("numpy.dot", A(3, 4), A(4))
def dot_method(a, b):
    return a.dot(b)


@case("numpy.inner", A(4), A(4))
def inner_vectors(a, b):
    return np.inner(a, b)


@case("numpy.inner", A(3, 4), A(4))
def inner_matrix_vector(a, b):
    return np.inner(a, b)


@case("numpy.inner", A(2, 4), A(3, 5, 4))
def inner_tensors(a, b):
    return np.inner(a, b)


@case("numpy.vdot", A(4), A(4))
def vdot_vectors(a, b):
    return np.vdot(a, b)


@case("numpy.vdot", A(2, 3), A(3, 2))
def vdot_flattens(a, b):
    return np.vdot(a, b) * np.vdot(b, b)


@case("numpy.outer", A(3), A(4))
def outer_vectors(a, b):
    return np.outer(a, b)


@case("numpy.outer", A(2, 3), A(4))
def outer_flattens(a, b):
    return np.outer(a, b)


@case("numpy.trace", A(4, 4))
def trace_square(a):
    return np.trace(a)


@case("numpy.trace", A(3, 5))
def trace_offset(a):
    return np.trace(a, offset=1)


@case("numpy.trace", A(2, 4, 3))
def trace_axes(a):
    return np.trace(a, -1, 0, 2)


@case("operator.matmul", A(3, 4), A(4, 2))
def matmul_matrices(x, y):
    return x @ y


@case("operator.matmul", A(4), A(4, 2))
def matmul_vector_matrix(x, y):
    return x @ y


@case("operator.matmul", A(3, 4), A(4))
def matmul_matrix_vector(x, y):
    return x @ y


@case("operator.matmul", A(4), A(4))
def matmul_vectors(x, y):
    return x @ y


@case("operator.matmul", A(2, 1, 3, 4), A(5, 4, 2))
def matmul_broadcast_stacks(x, y):
    return x @ y


@case("operator.matmul", A(2, 3, 4), A(4))
def matmul_stack_vector(x, y):
    return np.matmul(x, y)


@case("numpy.tensordot", A(2, 3, 4), A(3, 4, 5))
def tensordot_default(a, b):
    return np.tensordot(a, b)


@case("numpy.tensordot", A(2, 3), A(3, 4))
def tensordot_one(a, b):
    return np.tensordot(a, b, 1)


@case("numpy.tensordot", A(2, 3), A(4))
def tensordot_outer(a, b):
    return np.tensordot(a, b, axes=0)


@case("numpy.tensordot", A(3, 2, 4), A(4, 5, 3))
def tensordot_pairs(a, b):
    return np.tensordot(a, b, axes=([2, 0], [0, -1]))


@case("numpy.tensordot", A(3, 4), A(2, 3))
def tensordot_single_pair(a, b):
    return np.tensordot(a, b, axes=(0, 1))


@case("numpy.einsum", A(3, 4), A(4, 2))
def einsum_matmul(a, b):
    return np.einsum("ij,jk->ik", a, b)


@case("numpy.einsum", A(3, 4), A(4, 2))
def einsum_implicit(a, b):
    return np.einsum("ij,jk", a, b)


@case("numpy.einsum", A(3, 4))
def einsum_transpose_sum(a):
    return np.einsum("ij->i", a) + np.einsum("ij->ji", a)[0]


@case("numpy.einsum", A(3, 4))
def einsum_same_operand(a):
    return np.einsum("ij,ij->", a, a)


@case("numpy.einsum", A(2, 1, 3, 4), A(5, 4, 2))
def einsum_ellipsis_broadcast(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


@case("numpy.einsum", A(2, 3, 4), A(4))
def einsum_ellipsis_implicit(a, b):
    return np.einsum("...j,j", a, b)


@case("numpy.einsum", A(2, 3), A(3, 4), A(4, 5))
def einsum_chain(a, b, c):
    return np.einsum("ij,jk,kl->il", a, b, c)


@case("numpy.einsum", A(2), A(3), A(2), A(4))
def einsum_four(a, b, c, d):
    return np.einsum("i,j,i,k->jk", a, b, c, d)


@case("numpy.einsum", A(3, 4), A(4, 2))
def einsum_interleaved(a, b):
    return np.einsum(a, [0, 1], b, [1, 2], [2, 0])


@case("numpy.kron", A(2, 3), A(4, 2))
def kron_matrices(a, b):
    return np.kron(a, b)


@case("numpy.kron", A(3), A(2))
def kron_vectors(a, b):
    return np.kron(a, b)


@case("numpy.kron", A(3), A(2, 2))
def kron_mixed_rank(a, b):
    return np.kron(a, b)


@case("numpy.cross", A(3), A(3))
def cross_vectors(a, b):
    return np.cross(a, b)


@case("numpy.cross", A(4, 3), A(3))
def cross_broadcast(a, b):
    return np.cross(a, b)


@case("numpy.cross", A(3, 4), A(3, 1))
def cross_axis(a, b):
    return np.cross(a, b, axis=0)


# ---- norms ---------------------------------------------------------------------------------


@case("numpy.linalg.norm", A(5))
def norm_vector(x):
    return np.linalg.norm(x)


@case("numpy.linalg.norm", A(3, 4))
def norm_axis_keepdims(x):
    return np.linalg.norm(x, axis=1, keepdims=True)


@case("numpy.linalg.norm", A(5))
def norm_vector_1(x):
    return np.linalg.norm(x, 1)


@case("numpy.linalg.norm", A(5))
def norm_vector_inf(x):
    return np.linalg.norm(x, np.inf) + np.linalg.norm(x, -np.inf)


@case("numpy.linalg.norm", A(5))
def norm_vector_p(x):
    return np.linalg.norm(x, ord=3) + np.linalg.norm(x, ord=2)


@case("numpy.linalg.norm", A(3, 4))
def norm_vector_rows(x):
    return np.linalg.norm(x, ord=1, axis=0) + np.linalg.norm(x, np.inf, -1, True)[0]


@case("numpy.linalg.norm", A(5, lo=0.5, hi=2.0))
def norm_vector_fractional(x):
    return np.linalg.norm(x, ord=0.5) + np.linalg.norm(x, ord=1.5) + np.linalg.norm(x, ord=-2)


@case("numpy.linalg.norm", A(5))
def norm_vector_0_4(x):
    return np.linalg.norm(x, ord=0) * np.linalg.norm(x, ord=4)


@case("numpy.linalg.norm", A(3, 4))
def norm_rows_p_keepdims(x):
    return np.linalg.norm(x, ord=3, axis=1, keepdims=True) * x


@case("numpy.linalg.norm", A(3, 4))
def norm_fro(x):
    return np.linalg.norm(x, "fro")


@case("numpy.linalg.norm", A(3, 4))
def norm_matrix_1_inf(x):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x, -1) + np.linalg.norm(x, -np.inf)


@case("numpy.linalg.norm", A(3, 4))
def norm_spectral(x):
    return np.linalg.norm(x, 2) + np.linalg.norm(x, -2)


@case("numpy.linalg.norm", A(4, 3))
def norm_nuclear(x):
    return np.linalg.norm(x, "nuc")


@case("numpy.linalg.norm", A(3, 2, 4))
def norm_matrix_axes(x):
    return np.linalg.norm(x, "fro", axis=(0, 2)) + np.linalg.norm(x, 2, axis=(2, 0))


@case("numpy.linalg.norm", A(2, 3, 4))
def norm_stacked_matrices(x):
    return np.linalg.norm(x, "nuc", axis=(1, 2), keepdims=True) + np.linalg.norm(x, 1, axis=(-2, -1), keepdims=True)


# ---- inverses, determinants, solving -------------------------------------------------------


@case("numpy.linalg.inv", wellcond(3))
def inv_(a):
    return np.linalg.inv(a)


@case("numpy.linalg.inv", stacked(wellcond(3), 2, 2))
def inv_stacked(a):
    return np.linalg.inv(a)


@case("numpy.linalg.det", wellcond(3))
def det_(a):
    return np.linalg.det(a)


@case("numpy.linalg.det", stacked(wellcond(3), 4))
def det_stacked(a):
    return np.linalg.det(a)


def singular(n, rank):
    """A random n x n matrix of the given rank (singular when rank < n)."""
    return M(lambda rng: rng.normal(size=(n, rank)) @ rng.normal(size=(rank, n)))


# the cofactor matrix exists at singular matrices (zero at rank n - 2 and below)
@case("numpy.linalg.det", singular(3, 2))
def det_singular(a):
    return np.linalg.det(a)


@case("numpy.linalg.det", singular(3, 1))
def det_rank_one(a):
    return np.linalg.det(a)


@case("numpy.linalg.det", M(lambda rng: np.stack([np.zeros((3, 3)), np.eye(3)])))
def det_zero_and_identity(a):
    return np.linalg.det(a)


@case("numpy.linalg.slogdet", wellcond(3))
def slogdet_(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


@case("numpy.linalg.slogdet", stacked(wellcond(3), 2, 3))
def slogdet_stacked(a):
    return np.linalg.slogdet(a)[1]


# complex a: the sign det/|det| is smooth, d sign = sign i Im tr(a⁻¹ da)
@case("numpy.linalg.slogdet", wellcond_c(3))
def slogdet_complex(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


@case("numpy.linalg.slogdet", stacked(wellcond_c(3), 2))
def slogdet_complex_sign(a):
    return np.linalg.slogdet(a)[0]


@case("numpy.linalg.solve", wellcond(3), A(3))
def solve_vector(a, b):
    return np.linalg.solve(a, b)


@case("numpy.linalg.solve", wellcond(3), A(3, 2))
def solve_matrix(a, b):
    return np.linalg.solve(a, b)


@case("numpy.linalg.solve", stacked(wellcond(3), 2), A(3))
def solve_stack_vector(a, b):
    return np.linalg.solve(a, b)


@case("numpy.linalg.solve", stacked(wellcond(3), 2), A(3, 4))
def solve_broadcast_rhs(a, b):
    return np.linalg.solve(a, b)


@case("numpy.linalg.solve", wellcond(3), A(2, 3, 1))
def solve_broadcast_matrix(a, b):
    return np.linalg.solve(a, b)


@case("numpy.linalg.pinv", A(4, 3))
def pinv_tall(a):
    return np.linalg.pinv(a)


@case("numpy.linalg.pinv", A(2, 5))
def pinv_wide(a):
    return np.linalg.pinv(a)


@case("numpy.linalg.pinv", stacked(wellcond(3), 2))
def pinv_stacked(a):
    return np.linalg.pinv(a)


# ---- factorizations ------------------------------------------------------------------------


@case("numpy.linalg.cholesky", spd(4))
def cholesky_(a):
    return np.linalg.cholesky(a)


@case("numpy.linalg.cholesky", stacked(spd(3), 2))
def cholesky_stacked(a):
    return np.linalg.cholesky(a)


# Hermitian a: read as eigh reads it (its lower triangle, a real diagonal); the sweep's directions are not
# Hermitian, so they check that too against NumPy's own reading
@case("numpy.linalg.cholesky", hpd(3))
def cholesky_complex(a):
    return np.linalg.cholesky(a)


@case("numpy.linalg.cholesky", stacked(hpd(3), 2))
def cholesky_complex_stacked(a):
    return np.linalg.cholesky(a) * np.array([1.0, 2.0 - 1j, 0.5j])


@case("numpy.linalg.cholesky", hpd(3))
def cholesky_upper_complex(a):
    return np.linalg.cholesky(a, upper=True) * np.array([1.0, 2.0 - 1j, 0.5j])


@case("numpy.linalg.cholesky", stacked(spd(3), 2))
def cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True)


@case("numpy.linalg.eigh", hpd(3))
def eigh_complex(a):
    return np.linalg.eigh(a)[0]


@case("numpy.linalg.eigh", hpd(3))
def eigh_vectors_complex(a):
    w, v = np.linalg.eigh(a)
    return np.abs(v) ** 2 * w + np.real(np.conj(v) @ np.diag(w) @ v.T)


@case("numpy.linalg.eigh", spd(4))
def eigh_values(a):
    return np.linalg.eigh(a)[0]


@case("numpy.linalg.eigh", spd(4))
def eigh_vectors(a):
    w, v = np.linalg.eigh(a)
    return v * v[1] + w


@case("numpy.linalg.eigh", spd(3))
def eigh_upper(a):
    w, v = np.linalg.eigh(a, "U")
    return v * v[0] * w


@case("numpy.linalg.eigh", stacked(spd(3), 2))
def eigh_stacked(a):
    w, v = np.linalg.eigh(a)
    return v[:, 0] * v[:, 2] + w[:, None, :]


@case("numpy.linalg.qr", A(4, 3), complex=False)
def qr_tall(a):
    q, r = np.linalg.qr(a)
    return q @ (r[:, :1] * r) + q * q[0]


@case("numpy.linalg.qr", wellcond(3), complex=False)
def qr_square(a):
    return np.linalg.qr(a, mode="complete")[0] * 2.0 + np.linalg.qr(a).R


@case("numpy.linalg.qr", stacked(M(lambda rng: rng.normal(size=(5, 2))), 2), complex=False)
def qr_stacked(a):
    q, r = np.linalg.qr(a)
    return q[..., :1] * r[..., :1, :]


@case("s2sad.runtime.qr_checked", A(4, 3), complex=False)
def qr_checked_(a):
    y = np.linalg.qr(a)
    return qr_checked(y[0], y, a) * qr_checked(y[1][0], y, a)


@case("numpy.linalg.lstsq", A(5, 3), A(5), complex=False)
def lstsq_vector(a, b):
    return np.linalg.lstsq(a, b, rcond=None)[0]


@case("numpy.linalg.lstsq", A(5, 2), A(5, 3), complex=False)
def lstsq_columns(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return x * res + s[0]


@case("numpy.linalg.lstsq", A(5, 2), A(5), complex=False)
def lstsq_residual(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return res * x + s * rank


@case("numpy.linalg.lstsq", wellcond(3), A(3, 2), complex=False)
def lstsq_square(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return x * s[1]


@case("s2sad.runtime.lstsq_checked", A(4, 2), A(4), complex=False)
def lstsq_checked_(a, b):
    y = np.linalg.lstsq(a, b)
    return lstsq_checked(y[0], y, a, b) * b[0]


@case("numpy.linalg.eigvalsh", spd(4))
def eigvalsh_(a):
    return np.linalg.eigvalsh(a)


@case("numpy.linalg.eigvalsh", hpd(3))
def eigvalsh_complex(a):
    return np.linalg.eigvalsh(a)


@case("numpy.linalg.eigvalsh", hpd(3))
def eigvalsh_upper_complex(a):
    return np.linalg.eigvalsh(a, UPLO="U")


@case("numpy.linalg.eigvalsh", stacked(spd(3), 2))
def eigvalsh_stacked(a):
    return np.linalg.eigvalsh(a, "U") * np.array([1.0, 2.0, -1.0])


@case("numpy.linalg.matrix_power", A(3, 3))
def matrix_power_three(a):
    return np.linalg.matrix_power(a, 3)


@case("numpy.linalg.matrix_power", A(2, 3, 3))
def matrix_power_stacked(a):
    return np.linalg.matrix_power(a, 2) + np.linalg.matrix_power(a, 1)


@case("numpy.linalg.matrix_power", A(3, 3))
def matrix_power_zero(a):
    return np.linalg.matrix_power(a, 0) * a


@case("numpy.linalg.matrix_power", wellcond(3))
def matrix_power_negative(a):
    return np.linalg.matrix_power(a, -2)


@case("numpy.linalg.matrix_power", stacked(wellcond(3), 2))
def matrix_power_inverse_stacked(a):
    return np.linalg.matrix_power(a, -1)


@case("numpy.linalg.eig", real_eigen(3))
def eig_values(a):
    return np.linalg.eig(a)[0]


@case("numpy.linalg.eig", real_eigen(4))
def eig_vectors(a):
    w, v = np.linalg.eig(a)
    return v * v[2] * w


@case("numpy.linalg.eig", stacked(real_eigen(3), 2))
def eig_stacked(a):
    w, v = np.linalg.eig(a)
    return v[:, 1] * v[:, 0] + w[:, None, :]


@case("numpy.linalg.svd", A(4, 3))
def svd_values(a):
    return np.linalg.svd(a, compute_uv=False)


# these losses read the phase of singular vectors (u * vh[:, 1]): real only; the complex cases below are
# gauge-invariant (functions of s, u s vᴴ, |u|, u uᴴ, v vᴴ)
@case("numpy.linalg.svd", A(4, 3), complex=False)
def svd_tall(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u * vh[:, 1] * s


@case("numpy.linalg.svd", A(3, 5), complex=False)
def svd_wide(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return vh * u[0][:, None] + s[:, None]


@case("numpy.linalg.svd", A(3, 3), complex=False)
def svd_square(a):
    u, s, vh = np.linalg.svd(a)
    return u * vh[:, 0] + s


@case("numpy.linalg.svd", A(2, 4, 3), complex=False)
def svd_stacked(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u * vh[:, :, 2][:, None, :] * s[:, None, :]


@case("numpy.linalg.svd", A(2, 3, 5))
def svd_values_wide_stacked(a):
    return np.linalg.svd(a, compute_uv=False) * np.linalg.svd(a, full_matrices=False, compute_uv=False)[..., :1]


@case("numpy.linalg.svd", A(3, 3), complex=False)
def svd_values_and_vectors(a):
    s = np.linalg.svd(a, compute_uv=False)
    u, s2, vh = np.linalg.svd(a, full_matrices=True)
    return s * s2[0] + np.sum(u * vh, axis=0)


# complex svd: JAX's gauge (the phase of each pair u_i, v_i goes into du); the losses are invariant under
# u_i, v_i -> e^{it} u_i, e^{it} v_i (a loss that reads that phase has no derivative)
@case("numpy.linalg.svd", C(4, 3))
def svd_complex_values(a):
    return np.linalg.svd(a, compute_uv=False)


@case("numpy.linalg.svd", C(4, 3))
def svd_complex_tall(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * s**2) @ vh + np.abs(u) @ np.abs(vh) * s[0]


@case("numpy.linalg.svd", C(3, 5))
def svd_complex_wide(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.conj(vh.T) @ (vh * s[:, None] ** 3) + np.abs(vh[1])


@case("numpy.linalg.svd", C(3, 3))
def svd_complex_square(a):
    u, s, vh = np.linalg.svd(a)
    return u @ np.diag(np.exp(-s)) @ vh + u @ np.conj(u.T) * s[2] + np.abs(u) ** 2


@case("numpy.linalg.svd", C(2, 4, 3))
def svd_complex_stacked(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    uu = np.real(u @ np.conj(np.swapaxes(u, -1, -2)))
    return uu * s[:, :1, None] + np.sum(np.abs(vh), axis=(1, 2))[:, None, None]


@case("numpy.linalg.svd", C(2, 3, 5))
def svd_complex_values_wide_stacked(a):
    return np.linalg.svd(a, compute_uv=False) ** 2


@case("numpy.linalg.svd", C(3, 3))
def svd_complex_values_and_vectors(a):
    s = np.linalg.svd(a, compute_uv=False)
    u, s2, vh = np.linalg.svd(a, full_matrices=True)
    return s * s2[0] + np.sum(np.abs(u * vh.T), axis=0) + np.sum(np.abs(u) ** 2 * np.abs(vh.T) ** 2, axis=0)


# ---- runtime helpers (what derivative code calls), for derivatives of derivatives -----------

SHAPE_243 = np.zeros((2, 4, 3))


@case("s2sad.runtime.mT", A(2, 3, 4))
def mT_(a):
    return mT(a)


@case("s2sad.runtime.phi", A(2, 3, 3))
def phi_(a):
    return phi(a)


@case("s2sad.runtime.symmetrize", A(3, 3))
def symmetrize_lower(a):
    return symmetrize(a)


@case("s2sad.runtime.symmetrize", A(2, 3, 3))
def symmetrize_upper(a):
    return symmetrize(a, "U")


@case("s2sad.runtime.unsymmetrize", A(3, 3))
def unsymmetrize_lower(g):
    return unsymmetrize(g)


@case("s2sad.runtime.unsymmetrize", A(2, 3, 3))
def unsymmetrize_upper(g):
    return unsymmetrize(g, "U")


@case("s2sad.runtime.untrace", A(3, 3))
def untrace_(g):
    return untrace(g, SHAPE_243, 1, 0, 2)


# ---- the runtime helpers of the rules above (derivatives of derivatives) ---------------------


@case("s2sad.runtime.as_columns", A(2, 3), np.zeros(3))
@case("s2sad.runtime.from_columns", A(2, 3), np.zeros(3))
def columns_vector(v, b):
    return from_columns(as_columns(v, b) * as_columns(v, b), b)


@case("s2sad.runtime.as_columns", A(3, 2), np.zeros((3, 2)))
@case("s2sad.runtime.from_columns", A(3, 2), np.zeros((3, 2)))
def columns_matrix(v, b):
    return from_columns(as_columns(v, b) * v, b)


@case("s2sad.runtime.gap_weighted", A(3, lo=0.0, hi=1.0), A(3, 3), complex=False)  # eigenvalues are real
def gap_weighted_(w, m):
    return gap_weighted(w + np.array([0.0, 2.0, 4.0]), m)


@case("s2sad.runtime.gap_weighted", A(2, 3, lo=0.0, hi=1.0), A(3, 3), complex=False)
def gap_weighted_stacked(w, m):
    return gap_weighted(w + np.array([0.0, 2.0, 4.0]), m * m)


# complex m (the gaps weigh uᴴ da v for complex svd), real w: the mixed case complex_variants does not make
@case("s2sad.runtime.gap_weighted", A(2, 3, lo=0.0, hi=1.0), C(3, 3), complex=False)
def gap_weighted_complex(w, m):
    return gap_weighted(w * w + np.array([0.0, 2.0, 4.0]), m * m) * m


@case("s2sad.runtime.eigenvector_adjoint", A(3, 3))
def eigenvector_adjoint_(g):
    v = np.array([[0.6, 0.8j, 0.0], [0.8, -0.6j, 0.0], [0.0, 0.0, 1.0 + 0.0j]])  # unitary
    gg = np.conj(v) * np.real(g * np.conj(g))  # a phase-free adjoint: Im diag(vᵀ gg) = 0 along any g
    return eigenvector_adjoint(gg, v, np.imag(np.sum(v * gg, axis=-2)))


@case("s2sad.runtime.eigenvalue_adjoint", A(3))
def eigenvalue_adjoint_(g):
    return eigenvalue_adjoint(g * g, np.arange(3.0))


@case("s2sad.runtime.cofactor", wellcond(3))
def cofactor_(a):
    return cofactor(a)


@case("s2sad.runtime.cofactor", stacked(wellcond(3), 2))
def cofactor_stacked(a):
    return cofactor(a) * a


@case("s2sad.runtime.real_matrix", A(3, 2), complex=False)  # refuses complex input
def real_matrix_(a):
    return real_matrix(a) * a


# uneinsum(g, k, *args): the contraction of every slot but the k-th (-1: the output's, g) into slot k
@case("s2sad.runtime.uneinsum", A(3, 2), A(3, 4), A(4, 2))
def uneinsum_first(g, a, b):
    return uneinsum(g, 1, "ij,jk->ik", a, b)


@case("s2sad.runtime.uneinsum", A(3, 2), A(3, 4), A(4, 2))
def uneinsum_second(g, a, b):
    return uneinsum(g, 2, "ij,jk", a, b) * b


@case("s2sad.runtime.uneinsum", A(3, 2), A(3, 4), A(4, 2))
def uneinsum_output(g, a, b):
    return uneinsum(g, -1, "ij,jk->ik", a, b) * g


@case("s2sad.runtime.uneinsum", A(5, 3), A(2, 1, 3, 4), A(5, 4, 2))
def uneinsum_broadcast(g, a, b):
    return uneinsum(g[None, :, :, None] * np.ones((2, 5, 3, 2)), 1, "...ij,...jk->...ik", a, b)


@case("s2sad.runtime.uneinsum", A(2, 5), A(2, 3), A(3, 4), A(4, 5))
def uneinsum_chain(g, a, b, c):
    return uneinsum(g, 2, "ij,jk,kl->il", a, b, c)


@case("s2sad.runtime.uneinsum", A(3), A(2), A(3), A(4))
def uneinsum_four(g, a, b, c):
    return uneinsum(g[:, None] * c, 4, "i,j,i,k->jk", a, b, a, c)


@case("s2sad.runtime.uneinsum", A(2, 3), A(3, 4), A(4, 2))
def uneinsum_interleaved(g, a, b):
    return uneinsum(g, 2, a, [0, 1], b, [1, 2], [2, 0])


@case("s2sad.runtime.pick", A(3), A(2))
def pick_(x, y):
    return np.sum(pick(True, x, y)) * pick(False, x, y)


@case("s2sad.runtime.pick", A(3), A(3))
def pick_tuples(x, y):
    t = pick(True, (x, y * x), (y, x))
    f = pick(x[0] > 10.0, (x, y), (y * y, x * 2.0))
    return t[0] * t[1] + f[0] - f[1]


@case("s2sad.runtime.pick_tangent", A(3), A(3))
def pick_tangent_(x, y):
    t = pick_tangent(True, (x, y * x), 0.0, (x, x), (y, y))
    f = pick_tangent(x[0] > 10.0, 0.0, y * y, x, y)
    return t[0] * t[1] + f * pick_tangent(False, x, 0.0, x, y)


@case("s2sad.runtime.cofactor", singular(3, 1))
def cofactor_rank_one(a):  # zero, with a nonzero derivative
    return cofactor(a)


@case("s2sad.runtime.signed_minors", A(2, 3, 3))
def signed_minors_(a):
    return signed_minors(a)


@case("s2sad.runtime.signed_minors", A(1, 1))
def signed_minors_one(a):
    return signed_minors(a) + a


@case("s2sad.runtime.unminors", A(3, 3, 2, 2))
def unminors_(g):
    return unminors(g, np.zeros((3, 3)))


@case("s2sad.runtime.nonsingular", wellcond(3))
def nonsingular_(a):
    return nonsingular(a, np.linalg.slogdet(a)[0]) * a


# svd's rules: (u, s, vh) chosen at run time (compute_uv), seeds as (gu, gs, gvh), columns over s (non-square)
@case("s2sad.runtime.svd_input", A(4, 3), complex=False)
def svd_input_(a):
    return svd_input(a, False, False, False) * 2.0 + np.sum(svd_input(a, False, True, False))


@case("s2sad.runtime.svd_factors", A(4, 3), A(3), complex=False)
def svd_factors_(u, s):
    f = svd_factors((u, s, u[:3]), (u[::-1], s * s, u[1:]), True)
    g = svd_factors(s, (u * 2.0, s, u[:3]), False)
    return f[0] * f[1] + f[2][0] + g[0] * g[1] + g[2][1]


@case("s2sad.runtime.svd_seed", A(3), A(4, 3), complex=False)
def svd_seed_(g, u):
    t = svd_seed(g * g, (u, g, u.T), False)
    k = svd_seed((u, g, u.T), (u, g, u.T), True)
    return t[0] + t[1] * k[0] + t[2].T + k[2].T * k[1]


@case("s2sad.runtime.svd_unseed", A(4, 3), A(3), complex=False)
def svd_unseed_(u, s):
    return svd_unseed((u, s * s, u.T), False) * svd_unseed((u, s, u.T), True)[0]


@case("s2sad.runtime.over_s", A(4, 3), A(3, lo=1.0, hi=2.0), complex=False)
def over_s_(m, s):
    return over_s(m * m, s, m) + over_s(m, s, np.zeros((3, 3)))


@case("s2sad.runtime.over_s", C(2, 4, 3), A(3, lo=1.0, hi=2.0), complex=False)
def over_s_complex(m, s):
    return over_s(m * m, s * s, m) * m


# phase_over_s(m, s) = I * i Im(m) / s: zero for real m, so its cases are complex (s real: singular values)
@case("s2sad.runtime.phase_over_s", C(3, 3), A(3, lo=1.0, hi=2.0), complex=False)
def phase_over_s_(m, s):
    return phase_over_s(m * m, s) + phase_over_s(m, s) * m


@case("s2sad.runtime.phase_over_s", C(2, 3, 3), A(3, lo=1.0, hi=2.0), complex=False)
def phase_over_s_stacked(m, s):
    return phase_over_s(m, s * s) * s


@case("s2sad.runtime.phase_over_s", A(3, 3), A(3, lo=1.0, hi=2.0), complex=False)
def phase_over_s_real(m, s):
    return phase_over_s(m, s) + m * s


# phase_moves(t, m, s) is t (a check that refuses a moving t at a zero singular value of a complex m)
@case("s2sad.runtime.phase_moves", C(3, 3), A(3, lo=1.0, hi=2.0), complex=False)
def phase_moves_(m, s):
    return phase_moves(m * m, m, s) + phase_moves(s * s, m, s)[..., None] * m


@case("s2sad.runtime.unnorm_ord", A(3, 4), A(3, 4))
def unnorm_ord_(g, x):
    vector = unnorm_ord(g[:, 0], x, np.linalg.norm(x, 3, axis=1), 3, 1)
    vector = vector + unnorm_ord(1.0, x, np.linalg.norm(x, "fro"), "fro")
    return vector + unnorm_ord(g[0, 0], x, np.linalg.norm(x, np.inf), np.inf) * g


@case("s2sad.runtime.unnorm_ord", A(4, 3), A(4, 3))
def unnorm_ord_spectral(g, x):
    return unnorm_ord(g[0, 0], x, np.linalg.norm(x, 2), 2) + unnorm_ord(g[0, 1], x, np.linalg.norm(x, "nuc"), "nuc")


# norm_power(c, x, Y, m, q, r, t) = c conj(x)^m |x|^q Y^r t: the family of the elementwise norms' gradients
@case("s2sad.runtime.norm_power", A(3, 4), A(3, 4, lo=0.5, hi=2.0), A(3, 4, lo=1.0, hi=2.0), complex=False)
def norm_power_real(t, x, y):
    return norm_power(1.0, x, y, 1, 1.0, -2.0, t) + norm_power(2.0, -x, y, 2, -0.5, 0.5, t * t) + x


@case("s2sad.runtime.norm_power", C(3, 4), C(3, 4, lo=0.5, hi=2.0), A(3, 4, lo=1.0, hi=2.0), complex=False)
def norm_power_complex(t, x, y):
    return norm_power(1.0, x, y, 1, -1.0, -2.0, t) + norm_power(2.0, x, y, -2, 2.5, 0.5, t * t) + x


# ord_moves(t, x, y, ...) is t (a check that refuses a t moving where the norm is 0)
@case("s2sad.runtime.ord_moves", A(3, 4), A(3, 4))
def ord_moves_(t, x):
    return ord_moves(t * t, x, np.linalg.norm(x, 3, axis=1), 3, 1) * x


# the spectral and nuclear norms' dW: zeros for the other norms (whose rules refuse a third derivative)
@case("s2sad.runtime.unnorm_ord_tangent", A(3, 4), A(3, 4), A(3, 4))
def unnorm_ord_tangent_(g, x, t):
    return unnorm_ord_tangent(g[:, 0], x, np.linalg.norm(x, 3, axis=1), t, 0.0, 3, 1) + x * t


@case("s2sad.runtime.unnorm_ord_cotangent", A(3, 4), A(3, 4), A(3, 4))
def unnorm_ord_cotangent_(g, x, t):
    return unnorm_ord_cotangent(t, g[0, 0], x, np.linalg.norm(x, 1), 1) + x * t


@case("s2sad.runtime.norm_law", A(4))
@case("s2sad.runtime.power_ka", A(4))
@case("s2sad.runtime.power_kb", A(4))
@case("s2sad.runtime.spectral_norm_again", A(4))
def norm_law_(x):
    c = norm_law(x, np.linalg.norm(x, 3), 3)[0]
    return x * (power_ka(c, x, 1.0) + power_kb(c, x, 1, 1.0) + spectral_norm_again(x, x, 3))


@case("s2sad.runtime.result_like", A(4, 3), A(3), complex=False)
def result_like_(u, s):
    r = result_like((u, s * s, u.T), np.linalg.svd(np.eye(3)))
    return np.sum(r.U * r.Vh.T) * r.S + result_like(s**3, s)
