"""Findings of the round-20 blind testers, each now exact or refused at the user's line."""

import math
import warnings

import numpy as np
import pytest
from exact_or_refused import assert_exact_or_refused

import s2sad


def smallest_singular(a):
    return np.linalg.norm(a, -2)


@pytest.mark.parametrize(
    "a",
    [np.outer([1.0, 2], [1.0, -1, 0.5]), np.array([[1.0, 2], [2, 4]])],
    ids=["rank_one_2x3", "singular_2x2"],
)
def test_the_min_singular_value_norm_of_a_rank_deficient_matrix_is_refused(a):
    # norm(a, -2) = s_min moves like |t| there (f(A + t g) - f(A) = |t| |g|): no derivative; it gave u v^T
    where = r"test_round20.py:\d+:\d+: the ord=-2 matrix norm of a rank-deficient matrix has no derivative"
    with pytest.raises(s2sad.DifferentiationError, match=where):
        s2sad.grad(smallest_singular)(a)
    with pytest.raises(s2sad.DifferentiationError, match=where):
        s2sad.jvp(smallest_singular)(a, np.ones_like(a))


def test_the_min_singular_value_norm_of_a_full_rank_matrix_is_exact():
    a = np.array([[1.0, 2], [3, 4]])
    g = s2sad.grad(smallest_singular)(a)
    eps, fd = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = eps
        fd[i] = (smallest_singular(a + e) - smallest_singular(a - e)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.jvp(smallest_singular)(a, np.ones_like(a))[1], np.sum(fd), rtol=1e-6)


def test_a_complex_p_norm_below_one_at_a_zero_entry_is_refused_and_real_is_inf():
    def f(z):
        return np.linalg.norm(z, 0.5)

    where = r"test_round20.py:\d+:\d+: the ord=0.5 norm at a zero entry of a complex vector has no derivative"
    with pytest.raises(s2sad.DifferentiationError, match=where):
        s2sad.grad(f)(np.array([0j, -0.5 + 0.3j]))  # was nan+nanj
    g = s2sad.grad(f)(np.array([0.0, -0.5]))
    assert g[0] == np.inf and np.isclose(g[1], -1.0)


# ---- 1. the hypot family at the zero vector: gradient 0 (np.linalg.norm's convention), no nan ----


def hypot_of_x_and_zero(x):
    return math.hypot(x, 0.0)


def hypot_of_x(x):
    return math.hypot(x)


def dist_of_equal_points(x):
    return math.dist([x, 1.0], [x, 1.0])


def dist_to_zero(x):
    return math.dist([x], [0.0])


def hypot_of_a_zero_difference(x):
    return math.hypot(x - x, 0.0) + x


def np_hypot_of_a_zero_difference(x):
    return np.sum(np.hypot(x - x, 0.0) + x)


def hypot_of_three(x):
    return math.hypot(x, 0.0, x * 0.0)


def hypot_of_squares(x):
    return math.hypot(x * x, x * x)  # sqrt(2) x**2: zero tangent at 0 but curvature 2 sqrt(2)


ZERO_LENGTHS = [
    (hypot_of_x_and_zero, 0.0, 0.0),
    (hypot_of_x, 0.0, 0.0),
    (dist_of_equal_points, 0.0, 0.0),
    (dist_to_zero, 0.0, 0.0),
    (hypot_of_a_zero_difference, 0.0, 1.0),
    (hypot_of_three, 0.0, 0.0),
    (np_hypot_of_a_zero_difference, np.zeros(2), np.ones(2)),
    (hypot_of_squares, 0.0, 0.0),
]


@pytest.mark.parametrize("f,x,slope", ZERO_LENGTHS, ids=[c[0].__name__ for c in ZERO_LENGTHS])
def test_a_length_at_the_zero_vector_has_gradient_zero_and_no_second_derivative(f, x, slope):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0/0 anywhere
        np.testing.assert_array_equal(s2sad.grad(f)(x), slope)
        np.testing.assert_array_equal(s2sad.value_and_grad(f)(x)[1], slope)
        np.testing.assert_array_equal(s2sad.jvp(f)(x, np.ones_like(x))[1], np.sum(slope))
        with pytest.raises(
            s2sad.DifferentiationError, match=r"test_round20.py:\d+:\d+: a length .* at the zero vector"
        ):
            s2sad.hessian(f)(x)


@pytest.mark.parametrize("f", [c[0] for c in ZERO_LENGTHS], ids=[c[0].__name__ for c in ZERO_LENGTHS])
def test_the_hypot_family_away_from_zero_is_exact_in_every_mode(f):
    x = np.array([0.7, -0.4]) if f is np_hypot_of_a_zero_difference else 0.7
    assert_exact_or_refused(f, [x])


def np_hypot_broadcast(x, y):
    return np.sum(np.hypot(x, y) ** 3)


def test_np_hypot_broadcasting_is_exact_in_every_mode():
    assert_exact_or_refused(np_hypot_broadcast, [np.array([0.5, -1.0, 2.0]), np.array([[0.3], [-0.2]])])
