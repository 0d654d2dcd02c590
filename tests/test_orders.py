"""Issue 12 ("Trust II"): derivatives of every order at edge points, exact or refused.

The order-3 sweep of ``tests/test_rules.py`` runs the edge points where a third derivative exists
(``tests/rule_cases/edge_points.py``); here are the others: complex svd at a zero singular value (orders 1-2),
points where a derivative exists only to some order (``x ** 2.5`` and ``norm(x, 3)`` at a zero entry), points
where a rule's convention applies (ties of ``max`` and ``sort``), and np.std at one value or a constant slice."""

import numpy as np
import pytest
from exact_or_refused import check
from fd import assert_close

import s2sad


def _unitary(rng, n):
    q, _ = np.linalg.qr(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)))
    return q


def _rank_deficient_complex():
    """diag(3, 1, 0) (1 + 1j) turned by random unitaries: svd returns ~1e-16, not 0, for its last singular value."""
    rng = np.random.default_rng(0)
    a = _unitary(rng, 3) @ (np.diag([3.0, 1, 0]) * (1 + 1j)) @ _unitary(rng, 3)
    return np.concatenate([a.real.ravel(), a.imag.ravel()])


def _matrix(p):
    return (p[:9] + 1j * p[9:]).reshape(3, 3)


def svd_sum_squares(p):
    return np.sum(np.linalg.svd(_matrix(p), compute_uv=False) ** 2)


def svd_largest(p):
    return np.linalg.svd(_matrix(p), compute_uv=False)[0]


def svd_reconstruction(p):
    u, s, vh = np.linalg.svd(_matrix(p))
    return np.sum(np.abs((u * s) @ vh) ** 2)


def svd_top_projector(p):
    a = _matrix(p)
    u, s, vh = np.linalg.svd(a)
    return np.sum(np.real(np.outer(u[:, 0], vh[0]) * np.conj(a)))


def svd_zero_projector(p):
    u, s, vh = np.linalg.svd(_matrix(p))
    return np.sum(np.real(np.outer(u[:, 2], vh[2])))


def spectral_norm(p):
    return np.linalg.norm(_matrix(p), 2)


@pytest.mark.parametrize(
    "f", [svd_sum_squares, svd_largest, svd_reconstruction, svd_top_projector, svd_zero_projector, spectral_norm]
)
def test_complex_svd_at_a_numerically_zero_singular_value_is_exact_or_refused(f):
    # phase_over_s divided by s_2 ~ 1e-16: svd_zero_projector's gradient was ~1e15 (it jumps there) and
    # svd_top_projector's Hessian was off by 0.05; now a relative tolerance refuses them, as phase_moves does
    p = _rank_deficient_complex()
    assert np.linalg.svd(_matrix(p), compute_uv=False)[2] < 1e-14
    assert check(f, [p]) == []


def test_complex_svd_wrong_numbers_at_a_zero_singular_value_are_refused():
    p = _rank_deficient_complex()
    with pytest.raises(s2sad.DifferentiationError, match=r"test_orders.py:\d+:\d+: .*zero singular value"):
        s2sad.grad(svd_zero_projector)(p)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_orders.py:\d+:\d+: .*zero singular value"):
        s2sad.hessian(svd_top_projector)(p)
    assert_close(s2sad.grad(svd_sum_squares)(p), 2 * p, rtol=1e-10, atol=1e-10)


def std_squared(x):
    return np.std(x) ** 2


def test_std_of_one_value_squared_has_exact_zero_derivatives_at_every_order():
    # std of one value is identically 0: every derivative is 0 (the forward rule divided 0 by std = 0)
    x = np.array([1.5])
    assert np.array_equal(s2sad.hessian(std_squared)(x), [[0.0]])
    assert np.array_equal(s2sad.jacobian(s2sad.grad(std_squared))(x), [[0.0]])
    assert np.array_equal(s2sad.jacobian(s2sad.grad(std_squared), mode="reverse")(x), [[0.0]])
    assert s2sad.jvp(std_squared)(x, np.array([1.0])) == (0.0, 0.0)
    assert np.array_equal(s2sad.jacobian(s2sad.hessian(std_squared))(x), [[[0.0]]])
    assert check(std_squared, [x]) == []


def test_std_at_a_constant_slice_is_exact_at_first_order_and_refused_after():
    x = np.array([1.5, 1.5, 1.5])
    assert np.array_equal(s2sad.grad(std_squared)(x), np.zeros(3))  # std**2 = var: exact
    assert s2sad.jvp(std_squared)(x, np.array([1.0, -2.0, 0.5]))[1] == 0.0
    for second in (s2sad.hessian(std_squared), s2sad.jacobian(s2sad.grad(std_squared), mode="reverse")):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_orders.py:\d+:\d+: np.std has no second"):
            second(x)
    assert check(std_squared, [x]) == []


def power_2_5(x):
    return np.sum(x**2.5)


def test_power_at_zero_up_to_the_orders_that_exist():
    x = np.array([0.0, 1.0])
    assert np.array_equal(s2sad.grad(power_2_5)(x), [0.0, 2.5])
    assert_close(s2sad.hessian(power_2_5)(x), np.diag([0.0, 3.75]), rtol=1e-12, atol=0)
    assert_close(s2sad.jacobian(s2sad.grad(power_2_5))(x), np.diag([0.0, 3.75]), rtol=1e-12, atol=0)


def cube_norm(x):
    return np.linalg.norm(x, 3) ** 2 + np.sum(x)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_norm_3_at_a_zero_entry_is_twice_differentiable_and_refused_after(mode):
    # |x|**3 has a second derivative at 0 but no third (6 sign(x) jumps): refused, not a number
    x = np.array([0.0, 1.0, -2.0])
    assert check(cube_norm, [x], hessian=False) == []
    h = s2sad.hessian(cube_norm)
    g = s2sad.grad(cube_norm)
    expected = np.stack([(g(x + 1e-6 * e) - g(x - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    assert_close(h(x), expected, rtol=1e-6, atol=1e-6)
    assert h(x)[0, 0] == 0.0
    third = s2sad.jacobian(s2sad.hessian(cube_norm), mode=mode)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_orders.py:\d+:\d+: np.linalg.norm\(x, ord=3\)"):
        third(x)
    away = np.array([0.5, 1.0, -2.0])
    expected = np.stack([(h(away + 1e-5 * e) - h(away - 1e-5 * e)) / 2e-5 for e in np.eye(3)])
    assert_close(third(away), expected, rtol=1e-5, atol=1e-6)


def complex_p_norm(p):
    z = p[:3] + 1j * p[3:]
    return np.linalg.norm(z, 3) + np.linalg.norm(z, 1.5) * np.linalg.norm(z, np.inf)


def test_complex_p_norms_third_derivative_is_exact():
    p = np.array([0.5, -1.5, 2.0, 0.3, 0.7, -1.1])
    h = s2sad.hessian(complex_p_norm)
    expected = np.stack([(h(p + 1e-5 * e) - h(p - 1e-5 * e)) / 2e-5 for e in np.eye(6)])
    for mode in ("forward", "reverse"):
        assert_close(s2sad.jacobian(h, mode=mode)(p), expected, rtol=1e-5, atol=1e-6)


def max_times_sum(x):
    return np.max(x) * np.sum(x)


def sorted_weighted(x):
    return np.sum(np.sort(x) ** 2 * np.array([1.0, 2.0, 3.0]))


def test_max_and_sort_at_ties_follow_their_convention_at_every_order():
    # max splits its adjoint among tied entries; sort's derivative is the permutation's, at every order
    x = np.array([2.0, 2.0, 1.0])
    w = np.array([0.5, 0.5, 0.0])
    assert_close(s2sad.grad(max_times_sum)(x), w * 5.0 + 2.0, rtol=1e-12, atol=0)
    assert_close(s2sad.hessian(max_times_sum)(x), np.add.outer(w, w), rtol=1e-12, atol=0)
    assert np.array_equal(s2sad.jacobian(s2sad.hessian(max_times_sum))(x), np.zeros((3, 3, 3)))
    g = s2sad.grad(sorted_weighted)(x)
    assert sorted(g.tolist()) == sorted([2 * 1.0 * 1, 2 * 2.0 * 2, 2 * 2.0 * 3])
    h = s2sad.hessian(sorted_weighted)(x)
    assert np.all(np.isfinite(h)) and sorted(np.diag(h).tolist()) == [2.0, 4.0, 6.0]
    assert np.array_equal(s2sad.jacobian(s2sad.hessian(sorted_weighted))(x), np.zeros((3, 3, 3)))


def logabsdet(x):
    return np.linalg.slogdet(x.reshape(2, 2))[1]


def test_slogdet_at_a_singular_matrix_is_refused_at_every_order():
    x = np.array([1.0, 2.0, 2.0, 4.0])
    for d in (s2sad.grad(logabsdet), s2sad.hessian(logabsdet), s2sad.jacobian(s2sad.hessian(logabsdet))):
        with pytest.raises(s2sad.DifferentiationError, match="slogdet of a singular matrix"):
            d(x)


def spectral_real(x):
    return np.linalg.norm(x.reshape(2, 2), 2)


def test_spectral_norm_at_a_zero_singular_value_is_exact_twice_and_refused_after():
    x = np.array([1.0, 2.0, 2.0, 4.0])
    assert check(spectral_real, [x]) == []
    with pytest.raises(s2sad.DifferentiationError, match=r"test_orders.py:\d+:\d+: .*at most twice"):
        s2sad.jacobian(s2sad.hessian(spectral_real))(x)


_B = np.array([[1.0, 0.3], [0.5, -1.0]])


def global_quadratic_form(p):
    return p @ _B @ p


def test_third_order_reverse_with_a_global_array():
    # building vjp(vjp(grad)) crashed inside s2sad (aliases: ``obj in (int, float, ...)`` with obj the array _B)
    p = np.array([0.5, -1.0])
    hv = s2sad.vjp(s2sad.grad(global_quadratic_form))
    assert_close(hv(p, p), (_B + _B.T) @ p)
    assert_close(s2sad.vjp(hv, wrt=(0,))(p, p, bout1=p)[0], np.zeros(2))
