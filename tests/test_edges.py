"""Edge points: exact or refused at 0 and at the ends of domains, in grad, jvp and second order.

Each test compares with the exact value (analytic) at a point where some factor of the chain rule is
0, inf or undefined (|x| and sinc at 0, x ** p with p in {0, 1}, sqrt at 0, empty arrays), or checks
that s2sad refuses with the user's ``file:line:col:``.  NaN or inf may appear only where the true
derivative or f has them, and never a Python exception (ZeroDivisionError, math domain error) where
f raises none."""

import math
import warnings

import mpmath
import numpy as np
import pytest
from fd import assert_close

import s2sad


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _third(f):
    return s2sad.grad(s2sad.grad(s2sad.grad(f)))


# ---- |x| at 0: d|x| = +1 there for reals (JAX's convention), so |x|**2 is exact at every order -----------


def abs_sq(x):
    return np.sum(np.abs(x) ** 2)


def abs_times_abs(x):
    return np.sum(np.abs(x) * np.abs(x))


def absolute_sq(x):
    return np.sum(np.absolute(x) ** 2 + np.fabs(x) ** 2)


def builtin_abs_sq(x):
    return abs(x) ** 2 + math.fabs(x) ** 2


def abs_cubed(x):
    return abs(x) ** 3


@pytest.mark.parametrize("f", [abs_sq, abs_times_abs, absolute_sq])
def test_abs_squared_hessian_at_zero(f):
    x = np.array([0.0, 1.0, -0.0, -2.0])
    scale = 2.0 if f is absolute_sq else 1.0
    assert_close(s2sad.hessian(f)(x), 2 * scale * np.eye(4))
    assert_close(s2sad.grad(f)(x), 2 * scale * x)
    assert_close(s2sad.hvp(f)(x, np.ones(4)), 2 * scale * np.ones(4))


def test_python_abs_at_zero_every_order():
    assert s2sad.grad(abs)(0.0) == 1.0 and s2sad.grad(math.fabs)(-0.0) == 1.0
    assert s2sad.grad(builtin_abs_sq)(0.0) == 0.0
    assert s2sad.hessian(builtin_abs_sq)(0.0) == 4.0
    assert s2sad.jvp(s2sad.grad(builtin_abs_sq))(0.0, 1.0)[1] == 4.0
    assert s2sad.hessian(abs_cubed)(0.0) == 0.0
    assert _third(abs_cubed)(0.0) == 6.0 and _third(abs_cubed)(-1.0) == -6.0


def abs_z_sq(z):
    return np.abs(z) ** 2


def test_complex_abs_second_derivative_at_zero_is_refused():
    assert s2sad.grad(abs_z_sq)(0j) == 0j
    assert s2sad.jvp(s2sad.grad(abs_z_sq))(1 + 1j, 1j)[1] == pytest.approx(2 * np.conj(1j))
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: the second derivative of abs"):
        s2sad.jvp(s2sad.grad(abs_z_sq))(0j, 1 + 0j)
    with pytest.raises(s2sad.DifferentiationError, match="complex 0"):
        s2sad.hessian(lambda z: np.sum(np.abs(z) ** 2))(np.array([0j, 1j]))


# ---- sinc: exact and stable near 0 at every order ---------------------------------------------------------


def _sinc_derivatives(x):
    """sinc's first three derivatives, exact (mpmath at 50 digits: its sincpi is sin(pi x) / (pi x))."""
    with mpmath.workdps(50):
        return tuple(float(mpmath.diff(mpmath.sincpi, x, n)) for n in (1, 2, 3))


@pytest.mark.parametrize("x", [0.0, -0.0, 1e-12, 1e-9, -1e-6, 1e-4, 3e-3, 0.1, 0.7, -2.5])
def test_sinc_derivatives_near_zero(x):
    d1, d2, d3 = _sinc_derivatives(x)
    assert s2sad.grad(np.sinc)(x) == pytest.approx(d1, rel=1e-9, abs=1e-12)
    assert s2sad.hessian(np.sinc)(x) == pytest.approx(d2, rel=1e-9, abs=1e-12)
    assert s2sad.jvp(s2sad.grad(np.sinc))(x, 1.0)[1] == pytest.approx(d2, rel=1e-9, abs=1e-12)
    assert _third(np.sinc)(x) == pytest.approx(d3, rel=1e-7, abs=1e-9)


def test_sinc_arrays():
    x = np.array([0.0, 1e-9, 0.5])
    expected = np.array([_sinc_derivatives(v)[1] for v in x])
    assert_close(s2sad.hessian(lambda v: np.sum(np.sinc(v)))(x), np.diag(expected), rtol=1e-9, atol=1e-12)


# ---- powers with constant exponents: p * x ** (p - 1) is 0 when p == 0, never 0 * inf ------------------


def test_constant_powers_at_zero():
    zeros = np.zeros(2)
    assert_close(s2sad.grad(lambda x: np.sum(x**0))(zeros), zeros)
    assert_close(s2sad.hessian(lambda x: np.sum(x**0))(zeros), np.zeros((2, 2)))
    assert_close(s2sad.hessian(lambda x: np.sum((x**2) ** 1.0))(np.zeros(1)), [[2.0]])
    assert_close(s2sad.hessian(lambda x: np.sum(np.power(x, 1)))(zeros), np.zeros((2, 2)))
    assert_close(s2sad.hessian(lambda x: np.sum(x**3))(zeros), np.zeros((2, 2)))
    assert _third(lambda x: x**3.0)(0.0) == 6.0
    assert _third(lambda x: x**2)(0.0) == 0.0
    assert s2sad.grad(lambda x: x**0)(0.0) == 0.0
    assert s2sad.grad(lambda x: x**1)(0.0) == 1.0
    assert s2sad.hessian(lambda x: x**1)(0.0) == 0.0
    assert s2sad.hessian(lambda x: x**2.0)(0.0) == 2.0
    assert s2sad.jvp(s2sad.grad(lambda x: x**1))(0.0, 1.0)[1] == 0.0
    assert s2sad.grad(lambda x: math.pow(x, 0))(0.0) == 0.0
    assert s2sad.hessian(lambda x: math.pow(x, 1))(0.0) == 0.0
    assert s2sad.hessian(lambda x: math.pow(x, 2))(0.0) == 2.0


def test_powers_with_infinite_derivative_give_numpy_values_not_exceptions():
    assert _quiet(s2sad.grad(lambda x: x**0.5), 0.0) == np.inf
    assert _quiet(s2sad.grad(lambda x: math.sqrt(x)), 0.0) == np.inf
    assert _quiet(s2sad.grad(lambda x: math.pow(x, 0.5)), 0.0) == np.inf
    assert _quiet(s2sad.hessian(lambda x: x**1.5), 0.0) == np.inf
    # 0 * inf: the product rule at a point where one factor's derivative is infinite (JAX gives nan too)
    assert np.isnan(_quiet(s2sad.grad(lambda x: 0.0 * math.sqrt(x)), 0.0))
    assert np.isnan(_quiet(s2sad.grad(lambda x: x * math.sqrt(x)), 0.0))


def test_power_exponent_derivatives_still_exact():
    x, y = 1.3, 2.2
    assert s2sad.grad(lambda a, b: a**b, wrt=1)(x, y) == pytest.approx(x**y * math.log(x))
    h = s2sad.hessian(lambda v: v[0] ** v[1])(np.array([x, y]))
    lx = math.log(x)
    exact = [[y * (y - 1) * x ** (y - 2), x ** (y - 1) * (1 + y * lx)], [x ** (y - 1) * (1 + y * lx), x**y * lx**2]]
    assert_close(h, np.array(exact), rtol=1e-12)
    assert s2sad.grad(lambda a, b: a**b, wrt=1)(0.0, 2.0) == 0.0


# ---- empty arrays, refusals at run time -------------------------------------------------------------------


def test_hessian_and_jacobian_of_empty_arrays():
    h = s2sad.hessian(lambda x: np.sum(x**2))(np.zeros(0))
    assert h.shape == (0, 0)
    assert s2sad.jacobian(lambda x: np.sum(x) * np.ones(2), mode="forward")(np.zeros(0)).shape == (2, 0)
    assert s2sad.jacobian(lambda x: x * 2.0, mode="reverse")(np.zeros((0, 3))).shape == (0, 3, 0, 3)


def logdet_of(a):
    return np.linalg.slogdet(a)[1]


def test_det_is_exact_at_a_singular_matrix_and_slogdet_refused_at_the_users_line():
    # det's second derivative exists at a singular matrix: d2 det / (da_ij da_kl) for 2x2 is constant
    h = s2sad.hessian(det_of)(np.zeros((2, 2)))
    expected = np.zeros((2, 2, 2, 2))
    expected[0, 0, 1, 1] = expected[1, 1, 0, 0] = 1.0
    expected[0, 1, 1, 0] = expected[1, 0, 0, 1] = -1.0
    assert np.array_equal(h, expected)
    # log|det| has none there (it is -inf): refused at run time, naming the user's line
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: .*singular"):
        s2sad.grad(logdet_of)(np.zeros((2, 2)))


def det_of(a):
    return np.linalg.det(a)


def pair(x):
    return np.sum(x), x


@pytest.mark.parametrize("api", [s2sad.grad, s2sad.value_and_grad])
def test_grad_of_a_tuple_output_is_refused(api):
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: grad needs a scalar output; pair"):
        api(pair)(np.ones(2))


# ---- norms where their gradient x / |x| has no derivative: refused at the user's line, never nan ----------


def norm_squared(x):
    return np.linalg.norm(x) ** 2


def row_norms(x):
    return np.sum(np.linalg.norm(x, axis=1))


def norm_p(x, p):
    return np.linalg.norm(x, ord=p)


def test_norm_second_derivative_at_a_zero_norm_is_refused_at_the_users_line():
    # exact 2I is a limit (|x|**2 / |x|**2), not a local value of the chain rule: refused, never nan
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: np.linalg.norm has no second"):
        s2sad.hessian(norm_squared)(np.zeros(2))
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: np.linalg.norm has no second"):
        s2sad.vjp(s2sad.grad(norm_squared))(np.zeros(2), np.ones(2))
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: np.linalg.norm has no second"):
        s2sad.hessian(row_norms)(np.array([[1.0, 2.0], [0.0, 0.0]]))
    assert np.array_equal(s2sad.grad(norm_squared)(np.zeros(2)), np.zeros(2))
    assert_close(s2sad.hessian(norm_squared)(np.array([0.0, 1e-3])), 2 * np.eye(2), rtol=1e-12, atol=1e-12)


def _fd_hessian(f, x, eps=1e-6):
    g = s2sad.grad(f)
    cols = [(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


def test_norm_ord_second_derivative_at_a_zero_entry():
    x = np.array([0.0, 1.0, -2.0])
    h3 = s2sad.hessian(norm_p)(x, 3)  # |x|**3 is twice differentiable at 0
    assert np.all(np.isfinite(h3))
    assert_close(h3, _fd_hessian(lambda v: norm_p(v, 3), x), rtol=1e-6, atol=1e-6)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: np.linalg.norm\(x, ord=1.5\)"):
        s2sad.hessian(norm_p)(x, 1.5)  # |x|**1.5 is not: refused, not inf or nan
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: np.linalg.norm\(x, ord=2\)"):
        s2sad.hessian(norm_p)(np.zeros(3), 2)  # a zero norm


def norm_sq_ord(x, o):
    return np.linalg.norm(x, ord=o) ** 2


def fro_sq(x):
    return np.linalg.norm(x, "fro") ** 2


def test_norm_ord_squared_at_zero_is_refused_in_every_mode():
    # the ord= path (unnorm_ord) refuses a zero norm even where the adjoint G = 2 |x| reaching it is 0
    for f, x in [
        (lambda v: norm_sq_ord(v, None), np.zeros(3)),
        (lambda v: norm_sq_ord(v, 2), np.zeros(3)),
        (fro_sq, np.zeros((2, 2))),
    ]:
        for second in (s2sad.hessian(f), s2sad.jacobian(s2sad.grad(f)), s2sad.jacobian(s2sad.grad(f), mode="reverse")):
            with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: np.linalg.norm\(x, ord="):
                second(x)
        assert np.array_equal(s2sad.grad(f)(x), np.zeros_like(x))
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: np.linalg.norm\(x, ord=2\)"):
        s2sad.grad(s2sad.grad(lambda t: norm_sq_ord(np.array([t, 0.0]), 2)))(0.0)


def test_norm_1_at_a_zero_entry_follows_abs_convention():
    # norm(x, 1) = sum(|x|) with d|x| = +1 at 0 (the project's abs convention), at every order
    x = np.array([1.0, 0.0, -0.5])
    ref = lambda v: np.sum(np.abs(v)) ** 2
    assert_close(s2sad.grad(lambda v: norm_sq_ord(v, 1))(x), s2sad.grad(ref)(x))
    assert_close(s2sad.hessian(lambda v: norm_sq_ord(v, 1))(x), s2sad.hessian(ref)(x))


def spectral(x):
    return np.linalg.norm(x, 2)


def spectral_low(x):
    return np.linalg.norm(x, -2)


def nuclear(x):
    return np.linalg.norm(x, "nuc")


def top_singular(a):
    return np.linalg.svd(a, compute_uv=False)[0]


@pytest.mark.parametrize(
    "f, x",
    [
        (spectral, np.diag([2.0, 2.0, 1.0])),
        (spectral_low, np.diag([3.0, 1.0, 1.0])),
        (nuclear, np.diag([3.0, 2.0, 0.0])),
    ],
)
def test_matrix_norms_without_a_derivative_are_refused_at_the_users_line(f, x):
    for d in (s2sad.grad(f), s2sad.jacobian(f), lambda a: s2sad.jvp(f)(a, np.ones_like(a))):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: .*no derivative"):
            d(x)


def test_spectral_norm_squared_of_a_zero_matrix():
    f = lambda x: spectral(x) ** 2
    z = np.zeros((3, 3))
    assert np.array_equal(s2sad.grad(f)(z), z)
    assert np.array_equal(s2sad.jvp(f)(z, np.ones((3, 3)))[1], 0.0)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: "):
        s2sad.hessian(f)(z)


@pytest.mark.parametrize("f", [top_singular, spectral, nuclear])
def test_second_derivative_at_lower_repeated_singular_values(f):
    # first order is exact; the second is refused at the user's line (never a bare ValueError)
    x = np.diag([3.0, 2.0, 2.0])
    from fd import numeric_grad

    assert_close(s2sad.grad(f)(x), numeric_grad(f, [x], 0), rtol=1e-6, atol=1e-6)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_edges.py:\d+:\d+: .*repeated"):
        s2sad.hessian(f)(x)


def svd_fields(a):
    r = np.linalg.svd(a, full_matrices=False)
    return np.sum(r.S) + np.sum(r.U[:, 0] ** 2 * np.arange(a.shape[0])) + np.sum(r.Vh[0] ** 3)


def eigh_fields(a):
    r = np.linalg.eigh(a)
    return np.sum(r.eigenvalues**2) + np.sum(r.eigenvectors[:, 0] ** 4)


def slogdet_fields(a):
    r = np.linalg.slogdet(a)
    return r.logabsdet * r.sign


@pytest.mark.parametrize("f", [svd_fields, eigh_fields, slogdet_fields])
def test_linalg_named_tuple_fields_in_every_mode(f):
    from fd import numeric_grad

    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 3)) if f is svd_fields else np.diag([1.0, 2.0, 3.0]) + 0.1 * rng.standard_normal((3, 3))
    if f is eigh_fields:
        a = a + a.T
    g = numeric_grad(f, [a], 0)
    assert_close(s2sad.grad(f)(a), g, rtol=1e-5, atol=1e-6)
    assert_close(s2sad.jvp(f)(a, np.ones_like(a))[1], np.sum(g), rtol=1e-5, atol=1e-6)
    assert_close(s2sad.jacobian(f, mode="forward")(a), g, rtol=1e-5, atol=1e-6)
    h = numeric_grad(s2sad.grad(f), [a], 0)
    assert_close(s2sad.hessian(f)(a), h, rtol=1e-4, atol=1e-5)
    assert_close(s2sad.jacobian(s2sad.grad(f), mode="reverse")(a), h, rtol=1e-4, atol=1e-5)


def complex_svd_second_vector(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(np.abs(u @ np.diag(s) @ vh) ** 2) + np.abs(np.sum(u[:, 1])) ** 2


def complex_svd_last_pair(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(np.imag(np.outer(u[:, 2], vh[2])))  # u_2 v_2ᴴ: the phase of each is free where s_2 = 0


@pytest.mark.parametrize(
    "f, a, what",
    [
        (complex_svd_second_vector, np.diag([3.0, 2.0, 2.0]) * (1 + 1j), "repeated"),  # u[:, 1] at the tie
        (complex_svd_last_pair, np.diag([3.0, 1.0, 0.0]) * (1 + 1j), "zero singular value"),
    ],
)
def test_complex_svd_without_a_derivative_is_refused_at_the_users_line(f, a, what):
    g = 1j * np.ones_like(a)
    for d in (s2sad.grad(f), lambda x: s2sad.jvp(f)(x, g)):
        with pytest.raises(s2sad.DifferentiationError, match=rf"test_edges.py:\d+:\d+: .*{what}"):
            d(a)


def complex_svd_frobenius(p):
    a = (p[:4] + 1j * p[4:]).reshape(2, 2)
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 2)  # ||a||_F^2: its third derivative is exactly 0


def real_svd_frobenius(p):
    return np.sum(np.linalg.svd(p.reshape(2, 2), compute_uv=False) ** 2)


def test_complex_svd_third_derivative_at_a_zero_singular_value_is_refused_at_the_users_line():
    # s_2 of a complex matrix is |det|-like at 0 (svd returns ~1e-16 there): the first order is exact, the
    # second is refused (phase_over_s divides by s_2 ~ 1e-16; here s multiplies it again, elsewhere it does not),
    # the third too (it was 0.95, not 0); real matrices and generic complex ones stay exact
    import inspect

    line = inspect.getsourcelines(complex_svd_frobenius)[1] + 2
    p = np.array([1.0, 2, 2, 4, 0, 0, 0, 0])
    assert_close(s2sad.grad(complex_svd_frobenius)(p), 2 * p, rtol=1e-12, atol=1e-12)
    for second in (s2sad.hessian(complex_svd_frobenius), s2sad.jacobian(s2sad.grad(complex_svd_frobenius))):
        with pytest.raises(s2sad.DifferentiationError, match=rf"test_edges.py:{line}:\d+: .*zero singular value"):
            second(p)
    for third in (
        s2sad.jacobian(s2sad.hessian(complex_svd_frobenius)),
        s2sad.jacobian(s2sad.hessian(complex_svd_frobenius), mode="forward"),
    ):
        with pytest.raises(s2sad.DifferentiationError, match=rf"test_edges.py:{line}:\d+: .*zero singular value"):
            third(p)
    generic = np.array([1.0, 2, 3, 4, 0.5, -1, 0.3, 0.2])
    assert np.abs(s2sad.jacobian(s2sad.hessian(complex_svd_frobenius))(generic)).max() < 1e-9
    assert np.abs(s2sad.jacobian(s2sad.hessian(real_svd_frobenius))(p[:4])).max() < 1e-9
