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
