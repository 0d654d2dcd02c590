"""JAX's and autograd's complex convention: for real-valued f, grad(f)(z) = df/dRe - i df/dIm, vjp is the
transpose of the linearization, the jvp of a real-valued function is real.  (Every rule is also run with
complex inputs in tests/test_rules.py.)"""

import numpy as np
from fd import check_grad

import s2sad


def abs_squared(z):
    return np.sum(np.abs(z) ** 2)


def real_z_conj_z(z):
    return np.real(z * np.conj(z))


def fft_energy(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2)


def real_times_complex(x):
    return np.real(x * (1 + 2j))


def abs_of_mixed(x):
    return abs(x * (1 + 1j))


def eigenvalue_sum(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * w)


def mixed_products(x, z):
    return np.real(np.sum(np.dot(x, z)) + np.sum(np.outer(x, z)) + np.sum(np.kron(x, z)) + np.sum(x @ z))


def test_abs_squared_is_two_conj_z_both_ways():
    z = 1 + 2j
    assert s2sad.grad(abs_squared)(z) == 2 * np.conj(z)
    assert s2sad.grad(real_z_conj_z)(z) == 2 * np.conj(z)
    check_grad(abs_squared, [np.array([1 + 2j, -0.5 + 0.1j])])


def test_fft_energy():
    x = np.array([0.5, -1.5, 2.0, 0.25])
    np.testing.assert_allclose(s2sad.grad(fft_energy)(x), [4, -12, 16, 2])
    check_grad(fft_energy, [x])


def test_real_argument_gets_real_derivative():
    assert s2sad.grad(real_times_complex)(0.7) == 1.0
    assert np.isclose(s2sad.grad(abs_of_mixed)(0.7), 2**0.5)
    rng = np.random.default_rng(0)
    check_grad(mixed_products, [rng.normal(size=3), rng.normal(size=3) + 1j * rng.normal(size=3)])


def test_jvp_of_real_valued_function_is_real():
    _, d = s2sad.jvp(abs_squared)(1 + 2j, 1j)
    assert np.isreal(d) and d == 4.0


def test_hermitian_eigenvalues():
    a = np.array([[2.0, 1j], [-1j, 3.0]])
    check_grad(eigenvalue_sum, [a])
    _, d = s2sad.jvp(eigenvalue_sum)(a, np.array([[1.0, 1j], [-1j, 0.0]]))
    assert not np.iscomplexobj(d)


# ---- cholesky and slogdet of complex matrices (adv19a) -----------------------------------------------------

_W = np.arange(4.0).reshape(2, 2)
_H = np.array([[2.0, 0.5 - 0.3j], [0.5 + 0.3j, 3.0]])  # Hermitian positive definite


def cholesky_loss(h):
    return np.sum(np.abs(np.linalg.cholesky(h)) ** 2 * _W)


def cholesky_loss2(h):  # (|l|**2 at the zero upper triangle would need abs's refused second derivative at 0)
    f = np.linalg.cholesky(h)
    return np.sum(np.real(f * np.conj(f)) * _W) + np.sum(np.imag(f) * _W)


def _central(f, x, d, h=1e-6):
    return (f(x + h * d) - f(x - h * d)) / (2 * h)


def test_complex_cholesky_along_hermitian_and_other_directions():
    # Hermitian directions (real and imaginary off-diagonal parts), then directions NumPy reads only in part
    # (its lower triangle and the real part of the diagonal), compared with the FD of NumPy's own function
    g = s2sad.grad(cholesky_loss)(_H)
    for d in (
        np.array([[0.1, 0.2 + 0.4j], [0.2 - 0.4j, -0.3]]),
        np.array([[0.0, 1j], [-1j, 0.0]]),
        np.array([[0.0, 1.0], [1.0, 0.0]]),
        np.array([[0.3j, 0.7 - 2j], [1.5 + 0.2j, 0.1 - 0.4j]]),  # not Hermitian
        np.array([[0.0, 0.0], [1j, 0.0]]),
    ):
        fd = _central(cholesky_loss, _H, d)
        _, t = s2sad.jvp(cholesky_loss)(_H, d)
        assert not np.iscomplexobj(t)
        np.testing.assert_allclose(t, fd, rtol=1e-6)
        np.testing.assert_allclose(np.real(np.sum(g * d)), fd, rtol=1e-6)
    # the gradient lives on what NumPy reads: the lower triangle, a real diagonal
    assert np.all(np.triu(g, 1) == 0) and np.all(np.imag(np.diagonal(g)) == 0)
    check_grad(cholesky_loss, [_H])


def test_complex_cholesky_second_order():
    d = np.array([[0.1, 0.2 + 0.4j], [0.2 - 0.4j, -0.3]])
    e = np.array([[0.0, 0.0], [0.5 - 1j, 0.2]])
    hd = s2sad.jvp(s2sad.grad(cholesky_loss2))(_H, d)[1]  # d/dt grad(H + t d)
    fd = _central(s2sad.grad(cholesky_loss2), _H, d, h=1e-5)
    np.testing.assert_allclose(hd, fd, rtol=1e-5, atol=1e-7)
    # symmetric: Re<e, H d> == Re<d, H e>
    he = s2sad.jvp(s2sad.grad(cholesky_loss2))(_H, e)[1]
    assert np.isclose(np.real(np.sum(e * hd)), np.real(np.sum(d * he)), rtol=1e-9)


_A = np.array([[1 + 2j, 0.3 - 1j], [0.5 + 0.5j, -1 + 0.2j]])


def sign_real(a):
    return np.real(np.linalg.slogdet(a)[0])


def sign_imag(a):
    return np.imag(np.linalg.slogdet(a)[0])


def test_complex_slogdet_sign_is_smooth():
    for f in (sign_real, sign_imag):
        g = s2sad.grad(f)(_A)
        for d in (np.array([[0.1j, 0.0], [0.0, 0.0]]), np.array([[0.3, -1j], [0.2 + 0.1j, 0.5]])):
            fd = _central(f, _A, d)
            np.testing.assert_allclose(s2sad.jvp(f)(_A, d)[1], fd, rtol=1e-6, atol=1e-10)
            np.testing.assert_allclose(np.real(np.sum(g * d)), fd, rtol=1e-6, atol=1e-10)
        check_grad(f, [_A])
        fd2 = _central(s2sad.grad(f), _A, np.array([[0.3, -1j], [0.2 + 0.1j, 0.5]]), h=1e-5)
        np.testing.assert_allclose(
            s2sad.jvp(s2sad.grad(f))(_A, np.array([[0.3, -1j], [0.2 + 0.1j, 0.5]]))[1], fd2, rtol=1e-5, atol=1e-8
        )


def test_real_slogdet_sign_has_zero_derivative():
    a = np.array([[1.0, 2.0], [3.0, -1.0]])
    g = s2sad.grad(lambda a: np.linalg.slogdet(a)[0])(a)
    assert g.dtype == float and np.all(g == 0)
    _, t = s2sad.jvp(lambda a: np.linalg.slogdet(a)[0])(a, np.ones((2, 2)))
    assert not np.iscomplexobj(t) and t == 0


# ---- jacobian of complex functions: the same in every mode, or refused in the mode that cannot build it ----

import pytest  # noqa: E402


def real_to_complex(x):  # R^3 -> C^1
    return np.exp(1j * x[:1])


def complex_to_real_wide(z):  # C^2 -> R^3
    return np.abs(np.array([z[0], z[1], z[0]])) ** 2


def complex_to_real_narrow(z):  # C^2 -> R^1
    return np.abs(z[:1]) ** 2


def complex_to_complex(z):
    return z * z


def first_output(f, z):
    return f(z)[0]


def test_jacobian_real_input_complex_output_is_forward_modes_exact_one():
    x = np.array([0.3, 1.1, 0.4])
    exact = np.zeros((1, 3), complex)
    exact[0, 0] = 1j * np.exp(0.3j)
    for jac in (s2sad.jacobian(real_to_complex), s2sad.jacobian(real_to_complex, mode="forward")):
        np.testing.assert_allclose(jac(x), exact, rtol=1e-14, atol=0)
    with pytest.raises(s2sad.DifferentiationError, match=r"reverse mode.*real output.*mode='forward'"):
        s2sad.jacobian(real_to_complex, mode="reverse")(x)


def test_jacobian_complex_input_real_output_is_grads_convention_per_row():
    z = np.array([1 + 1j, 2 - 1j])
    exact_wide = np.array([[2 * np.conj(z[0]), 0], [0, 2 * np.conj(z[1])], [2 * np.conj(z[0]), 0]])
    for f, exact in ((complex_to_real_wide, exact_wide), (complex_to_real_narrow, exact_wide[:1])):
        for jac in (s2sad.jacobian(f), s2sad.jacobian(f, mode="reverse")):
            np.testing.assert_allclose(jac(z), exact, rtol=1e-14, atol=0)
        # each row is grad of that output
        np.testing.assert_allclose(s2sad.jacobian(f)(z)[0], s2sad.grad(first_output, wrt=1)(f, z))
        with pytest.raises(s2sad.DifferentiationError, match=r"forward mode.*real arguments.*mode='reverse'"):
            s2sad.jacobian(f, mode="forward")(z)


def test_jacobian_complex_to_complex_is_refused_in_every_mode():
    z = np.array([1 + 1j, 2 - 1j])
    for mode in (None, "forward", "reverse"):
        with pytest.raises(s2sad.DifferentiationError, match="complex output with respect to a complex argument"):
            s2sad.jacobian(complex_to_complex, mode=mode)(z)
    with pytest.raises(s2sad.DifferentiationError, match="complex argument"):
        s2sad.hessian(abs_squared)(z)  # the Jacobian of its complex gradient


def test_jacobian_of_real_functions_of_complex_intermediates_is_unchanged():
    x = np.array([0.5, -1.5, 2.0, 0.25])

    def spectrum(x):
        return np.abs(np.fft.fft(x)) ** 2

    jf = s2sad.jacobian(spectrum, mode="forward")(x)
    np.testing.assert_allclose(jf, s2sad.jacobian(spectrum, mode="reverse")(x), rtol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(fft_energy)(x), 8 * np.eye(4), atol=1e-12)


# ---- grad needs a real scalar output ----------------------------------------------------------------------


def complex_sum(x):
    return np.sum(x * 1j)


def returns_nothing(x):
    np.sum(x)


def returns_none(x):
    y = np.sum(x)
    return None if y > 0 else None


def test_grad_of_complex_output_is_refused():
    for g in (s2sad.grad(complex_sum), s2sad.value_and_grad(complex_sum)):
        with pytest.raises(s2sad.DifferentiationError, match=r"real scalar.*complex_sum.*np\.real.*vjp"):
            g(np.ones(3))
    with pytest.raises(s2sad.DifferentiationError, match="real scalar"):
        s2sad.grad(lambda z: z * z)(1 + 1j)
    # vjp takes the complex seed
    assert np.allclose(s2sad.vjp(complex_sum)(np.ones(3), 1j), [-1, -1, -1])


def test_grad_of_none_is_refused():
    with pytest.raises(s2sad.DifferentiationError, match=r"returns_nothing.*must return a value"):
        s2sad.grad(returns_nothing)(np.ones(3))
    for g in (s2sad.grad(returns_none), s2sad.value_and_grad(returns_none), s2sad.grad(lambda x: None)):
        with pytest.raises(s2sad.DifferentiationError, match=r"real scalar.*(returns_none|lambda).* returns None"):
            g(np.ones(3))
