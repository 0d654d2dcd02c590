"""Issue 12: the eigenvectors of a complex Hermitian ``eigh``, exact or refused at every order.

A complex eigenvector has a free phase (``v_i -> e^{it} v_i``).  A loss that does not read it (``abs(v) ** 2``,
``v @ diag(c) @ v.conj().T``, ``v_iᴴ B v_i``, the eigenvalues) has a cotangent ``g`` with ``Im (vᵀ g)_ii = 0``
at every ``v``, and its derivatives of every order are exact in JAX's gauge (``v_iᴴ dv_i = 0``).  A loss that
reads it depends on LAPACK's phase choice: reverse mode refuses it at the order where the condition (or its
derivative) fails.  Matrices are built from a real parameter vector ``p`` (a Hessian w.r.t. a complex argument
is refused), so that every mode combination compares with finite differences of the gradient."""

import numpy as np
import pytest
from fd import assert_close, numeric_grad

import s2sad

_N = 3
_C = np.array([1.0, -2.0, 0.5])
_B = np.array([[1.0, 0.3 - 0.2j, 0.1j], [0.5, -1.0, 2.0 + 1j], [0.0, 0.7j, 0.4]])  # not Hermitian
_M = np.array([[0.2, 1.0 - 1j, 0.3], [0.5j, -0.4, 1.0], [1.0, 0.1 + 0.2j, -0.7j]])


def _hermitian(p):
    b = (p[: _N * _N] + 1j * p[_N * _N :]).reshape(_N, _N)
    return b + np.conj(b.T)


def _point(seed=0):
    return np.random.default_rng(seed).normal(size=2 * _N * _N)


# ---- losses that do not read the phase -------------------------------------------------------------------


def lowest_eigenvalue(p):
    return np.linalg.eigh(_hermitian(p))[0][0]


def eigenvalue_products(p):
    w = np.linalg.eigh(_hermitian(p))[0]
    return w[0] * w[2] + np.sum(w**3 * _C)


def eigenvalues_upper(p):
    w = np.linalg.eigh(_hermitian(p), UPLO="U")[0]
    return np.sum(w * _C) + w[1] ** 2


def first_vector_weighted(p):
    v = np.linalg.eigh(_hermitian(p))[1]
    return np.sum(np.abs(v[:, 0]) ** 2 * _C)


def all_vectors_weighted(p):
    v = np.linalg.eigh(_hermitian(p))[1]
    return np.sum(np.abs(v) ** 2 * np.outer(_C, _C + 1.0))


def spectral_projector(p):
    w, v = np.linalg.eigh(_hermitian(p))
    return np.sum(np.real(v @ np.diag(_C) @ v.conj().T * _M)) + np.sum(w * w)


def quadratic_form(p):
    v = np.linalg.eigh(_hermitian(p))[1]
    return np.real(np.conj(v[:, 1]) @ _B @ v[:, 1]) + np.abs(np.conj(v[:, 0]) @ _B @ v[:, 2]) ** 2


def upper_projector(p):
    w, v = np.linalg.eigh(_hermitian(p), UPLO="U")
    return np.sum(np.abs(v[:, 2]) ** 2 * _C) + np.real(np.conj(v[:, 0]) @ _M @ v[:, 0]) * w[0]


PHASE_FREE = [
    lowest_eigenvalue,
    eigenvalue_products,
    eigenvalues_upper,
    first_vector_weighted,
    all_vectors_weighted,
    spectral_projector,
    quadratic_form,
    upper_projector,
]

# ---- losses that read the phase ---------------------------------------------------------------------------


def second_component(p):
    v = np.linalg.eigh(_hermitian(p))[1]
    return np.real(v[1, 0])


def first_component(p):
    # LAPACK returns the first row real (UPLO="L"): the loss is |v[0, 0]| up to sign, exact at first order,
    # but its second derivative in JAX's gauge is not the one of |v[0, 0]|
    v = np.linalg.eigh(_hermitian(p))[1]
    return np.real(v[0, 0])


def vector_sum(p):
    v = np.linalg.eigh(_hermitian(p))[1]
    return np.real(np.sum(v * _M))


def last_component_upper(p):
    v = np.linalg.eigh(_hermitian(p), UPLO="U")[1]
    return np.real(v[-1, 1]) + np.imag(v[0, 1])


def _fd_hessian(f, p, eps=1e-5):
    g = s2sad.grad(f)
    cols = []
    for k in range(p.size):
        e = np.zeros_like(p)
        e[k] = eps
        cols.append((g(p + e) - g(p - e)) / (2 * eps))
    return np.stack(cols, axis=1)


def _second_orders(f, p, u, t):
    """``f``'s second derivative in each mode combination: ``H u`` (or ``uᵀ H t``) by name."""
    g = s2sad.grad(f)
    out = {"hessian": s2sad.hessian(f)(p)}
    out["jvp(grad)"] = s2sad.jvp(g)(p, u)[1]
    out["vjp(grad)"] = s2sad.vjp(g)(p, u)
    first = s2sad.jvp(f)
    out["jvp(jvp)"] = s2sad.jvp(first, wrt=(0,))(p, t, u)[1][1]
    out["vjp(jvp)"] = s2sad.vjp(first, wrt=(0,))(p, t, (0.0, 1.0))[0]
    return out


@pytest.mark.parametrize("f", PHASE_FREE, ids=lambda f: f.__name__)
def test_phase_free_losses_are_exact_in_every_mode(f):
    p = _point()
    rng = np.random.default_rng(3)
    u, t = rng.normal(size=p.size), rng.normal(size=p.size)
    assert_close(s2sad.grad(f)(p), numeric_grad(f, [p], 0), rtol=1e-6, atol=1e-7)
    _, d = s2sad.jvp(f)(p, t)
    assert_close(d, numeric_grad(f, [p], 0) @ t, rtol=1e-6, atol=1e-7)
    h = _fd_hessian(f, p)
    got = _second_orders(f, p, u, t)
    assert_close(got["hessian"], h, rtol=1e-5, atol=1e-6)
    assert_close(got["jvp(grad)"], h @ u, rtol=1e-5, atol=1e-6)
    assert_close(got["vjp(grad)"], h.T @ u, rtol=1e-5, atol=1e-6)
    assert_close(got["jvp(jvp)"], u @ h @ t, rtol=1e-5, atol=1e-6)
    assert_close(got["vjp(jvp)"], h.T @ t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [lowest_eigenvalue, first_vector_weighted, spectral_projector], ids=lambda f: f.__name__)
def test_phase_free_losses_third_order(f):
    p = _point(1)
    u = np.random.default_rng(4).normal(size=p.size)
    hessian = s2sad.hessian(f)
    got = s2sad.jvp(hessian)(p, u)[1]
    eps = 1e-5
    assert_close(got, (hessian(p + eps * u) - hessian(p - eps * u)) / (2 * eps), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f", [first_vector_weighted, quadratic_form], ids=lambda f: f.__name__)
def test_phase_free_losses_third_order_reverse(f):
    p = _point(1)
    rng = np.random.default_rng(4)
    u, t = rng.normal(size=p.size), rng.normal(size=p.size)
    hu = s2sad.vjp(s2sad.grad(f))  # (p, u) -> H u
    got = s2sad.vjp(hu, wrt=(0,))(p, u, bout1=t)[0]  # d <H u, t> / dp
    eps, eye = 1e-5, np.eye(p.size)
    fd = [(hu(p + eps * e, u) - hu(p - eps * e, u)) @ t / (2 * eps) for e in eye]
    assert_close(got, np.array(fd), rtol=1e-5, atol=1e-6)


def test_phase_read_where_lapack_fixes_it_refused_at_third_order():
    p = _point(1)
    u = np.ones_like(p)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_eigh_complex.py:\d+:\d+: .*phase"):
        s2sad.vjp(s2sad.vjp(s2sad.grad(first_component)), wrt=(0,))(p, u, bout1=u)


def test_complex_argument_eigenvector_gradient():
    a = _hermitian(_point(2))

    def loss(a):
        v = np.linalg.eigh(a)[1]
        return np.sum(np.abs(v[:, 0]) ** 2 * _C)

    # gradient w.r.t. a complex matrix: eigh reads the lower triangle, so FD moves it alone
    assert_close(s2sad.grad(loss)(a), numeric_grad(loss, [a], 0), rtol=1e-6, atol=1e-7)


REVERSE_MODES = {
    "grad": lambda f, p, u, t: s2sad.grad(f)(p),
    "hessian": lambda f, p, u, t: s2sad.hessian(f)(p),
    "jvp(grad)": lambda f, p, u, t: s2sad.jvp(s2sad.grad(f))(p, u),
    "vjp(grad)": lambda f, p, u, t: s2sad.vjp(s2sad.grad(f))(p, u),
    "vjp(jvp)": lambda f, p, u, t: s2sad.vjp(s2sad.jvp(f), wrt=(0,))(p, t, (0.0, 1.0)),
}


@pytest.mark.parametrize("mode", sorted(REVERSE_MODES))
@pytest.mark.parametrize("f", [second_component, vector_sum, last_component_upper], ids=lambda f: f.__name__)
def test_phase_reading_losses_are_refused_in_reverse_mode(f, mode):
    p = _point()
    rng = np.random.default_rng(3)
    u, t = rng.normal(size=p.size), rng.normal(size=p.size)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_eigh_complex.py:\d+:\d+: .*phase"):
        REVERSE_MODES[mode](f, p, u, t)


def test_phase_read_where_lapack_fixes_it_exact_at_first_order_refused_after():
    p = _point()
    assert np.imag(np.linalg.eigh(_hermitian(p))[1][0, 0]) == 0  # LAPACK's choice: the first row is real
    assert_close(s2sad.grad(first_component)(p), numeric_grad(first_component, [p], 0), rtol=1e-6, atol=1e-7)
    rng = np.random.default_rng(3)
    u, t = rng.normal(size=p.size), rng.normal(size=p.size)
    for mode in ("hessian", "jvp(grad)", "vjp(grad)", "vjp(jvp)"):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_eigh_complex.py:\d+:\d+: .*phase"):
            REVERSE_MODES[mode](first_component, p, u, t)


def test_forward_mode_of_a_phase_reading_loss_is_jax_gauge():
    """Forward mode cannot see the gauge (no cotangent to check): the JVP of a loss that reads the phase is
    JAX's gauge number (documented, as svd's), not LAPACK's finite differences."""
    p = _point()
    t = np.random.default_rng(3).normal(size=p.size)
    _, d = s2sad.jvp(second_component)(p, t)
    w, v = np.linalg.eigh(_hermitian(p))
    da = _hermitian(t) - _hermitian(np.zeros_like(t))
    pm = np.conj(v.T) @ da @ v
    f = np.where(np.eye(_N, dtype=bool), 0.0, 1.0 / (w[None, :] - w[:, None] + np.eye(_N)))
    assert np.isclose(d, np.real((v @ (f * pm))[1, 0]))


def test_inputs_unchanged():
    p = _point()
    keep = p.copy()
    s2sad.hessian(spectral_projector)(p)
    s2sad.vjp(s2sad.grad(quadratic_form))(p, np.ones_like(p))
    assert np.array_equal(p, keep)
