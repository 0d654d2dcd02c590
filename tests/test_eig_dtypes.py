"""np.linalg.eig gives real eigenvalues as float arrays up to NumPy 2.4 and as complex arrays with zero
imaginary parts from NumPy 2.5 on: the eig derivatives must be the same for both."""

import numpy as np
import pytest
from fd import assert_close

from s2sad.runtime import eigengaps, uneig


def _real_eigen(n, rng):
    q = rng.normal(size=(n, n)) + 2 * n**0.5 * np.eye(n)
    return q @ np.diag(np.arange(1.0, n + 1) * 1.5) @ np.linalg.inv(q)


def test_eig_adjoint_is_the_same_for_complex_typed_real_eigenpairs():
    rng = np.random.default_rng(0)
    w, v = np.linalg.eig(_real_eigen(4, rng))
    w, v = np.real(w), np.real(v)
    gw, gv = rng.normal(size=4), rng.normal(size=(4, 4))
    expected = uneig(gw, gv, w, v)
    got = uneig(gw.astype(complex), gv.astype(complex), w.astype(complex), v.astype(complex))
    assert not np.iscomplexobj(got)
    assert_close(got, expected, rtol=1e-12, atol=1e-12)
    assert_close(eigengaps(w.astype(complex)), eigengaps(w), rtol=1e-12, atol=0)


def test_eig_of_complex_eigenvalues_is_refused():
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    w, v = np.linalg.eig(rotation)
    with pytest.raises(ValueError, match="only for real eigenvalues"):
        uneig(np.ones(2), np.zeros((2, 2)), w, v)
