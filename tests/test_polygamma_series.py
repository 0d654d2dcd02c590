"""``polygamma_series``: digamma and its derivatives without SciPy (``math.lgamma`` and ``math.gamma``
differentiate through it when SciPy is missing), against SciPy and against finite differences."""

import math
import sys

import numpy as np
import pytest

import s2sad
from s2sad.runtime import polygamma, polygamma_series

X = np.concatenate([np.linspace(-20.3, 30.0, 5001), np.geomspace(1e-6, 1e6, 500), [-0.5, 0.5, 1.0, 2.0]])
X = X[~((X <= 0) & (X == np.floor(X)))]


@pytest.mark.parametrize("n", range(5))
def test_against_scipy(n):
    sp = pytest.importorskip("scipy.special")
    got, want = polygamma_series(n, X), sp.polygamma(n, X)
    # relative, but absolute below 1 (near the roots of psi_n the recurrence's terms cancel: the positive root
    # of digamma, 1.4616..., has errors of a few 1e-16 in digamma values of 1e-3)
    err = np.abs(got - want) / np.maximum(np.abs(want), 1.0)
    assert np.median(err) < 1e-15 and np.max(err[X > 0]) < 5e-15 and np.max(err) < 1e-12


def test_digamma_is_the_derivative_of_lgamma():
    for x in (0.1, 0.7, 1.0, 3.3, 12.5, 55.0, -0.5, -2.7):
        h = 1e-5 * max(1.0, abs(x))
        fd = (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)
        assert polygamma_series(0, x) == pytest.approx(fd, rel=1e-8, abs=1e-8)
        fd2 = (polygamma_series(0, x + h) - polygamma_series(0, x - h)) / (2 * h)
        assert polygamma_series(1, x) == pytest.approx(fd2, rel=1e-7)


def test_known_values_and_poles():
    euler = 0.57721566490153286
    assert polygamma_series(0, 1.0) == pytest.approx(-euler, rel=1e-15)
    assert polygamma_series(1, 1.0) == pytest.approx(math.pi**2 / 6, rel=1e-15)
    assert polygamma_series(0, 0.5) == pytest.approx(-euler - 2 * math.log(2), rel=1e-15)
    assert np.isnan(polygamma_series(0, [0.0, -1.0, -7.0])).all()


def test_lgamma_gradient_without_scipy(monkeypatch):
    """With SciPy missing, the runtime helper falls back to the series: the same derivatives."""

    def f(x):
        return math.lgamma(x) * math.gamma(x)

    with_scipy = s2sad.grad(f)(2.5)
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # import scipy.special raises ImportError
    assert type(polygamma(0, 2.5)) is float
    without = s2sad.grad(f)(2.5)
    assert without == pytest.approx(with_scipy, rel=1e-14)
    assert s2sad.hessian(f)(2.5) == pytest.approx((f(2.5 + 1e-4) - 2 * f(2.5) + f(2.5 - 1e-4)) / 1e-8, rel=1e-5)
