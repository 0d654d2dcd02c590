"""np.linalg.eig gives real eigenvalues as float arrays up to NumPy 2.4 and as complex arrays with zero
imaginary parts from NumPy 2.5 on: the helpers of the eig derivatives must give the same for both."""

import numpy as np
import pytest
from fd import assert_close

from s2sad.runtime import eigengaps, eigenvalue_adjoint, gap_weighted


def _eigenvalue_adjoint(n, rng):
    q = rng.normal(size=(n, n)) + 2 * n**0.5 * np.eye(n)
    return q @ np.diag(np.arange(1.0, n + 1) * 1.5) @ np.linalg.inv(q)


def test_eig_helpers_are_the_same_for_complex_typed_real_eigenpairs():
    rng = np.random.default_rng(0)
    w, v = np.linalg.eig(_eigenvalue_adjoint(4, rng))
    w = np.real(w)
    gw, m = rng.normal(size=4), rng.normal(size=(4, 4))
    got = eigenvalue_adjoint(gw.astype(complex), w.astype(complex))
    assert not np.iscomplexobj(got)
    assert_close(got, gw, rtol=0, atol=0)
    assert_close(gap_weighted(w.astype(complex), m), gap_weighted(w, m), rtol=1e-12, atol=0)
    assert_close(eigengaps(w.astype(complex)), eigengaps(w), rtol=1e-12, atol=0)


def test_eig_of_complex_eigenvalues_is_refused():
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    w, v = np.linalg.eig(rotation)
    with pytest.raises(ValueError, match="only for real eigenvalues"):
        eigenvalue_adjoint(np.ones(2), w)
