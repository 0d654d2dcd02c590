"""Findings of the round-20 blind testers, each now exact or refused at the user's line."""

import numpy as np
import pytest

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
