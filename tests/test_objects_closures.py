"""Issue 13: methods and objects as people write them -- objects held by closures, ``super()`` in
methods of global objects and of objects built inside f, optional arguments given a literal None, and
items of arrays appended to lists."""

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError
from tests.fd import numeric_grad
from tests.test_round21_cli import PARAMS, X, Dense, Net, Residual, check_all_modes


# ---- 1. a model object captured by a closure ----------------------------------------------------------
def test_a_closure_over_a_local_model_object_def():
    net = Net()
    before = {k: v.copy() for k, v in PARAMS.items()}

    def by_t(t):
        return net.loss(PARAMS, X, t)

    check_all_modes(by_t, [0.7], 0)
    assert all(np.array_equal(PARAMS[k], before[k]) for k in PARAMS)


def test_a_lambda_over_a_local_model_object():
    net = Net()
    f = lambda t: net.loss(PARAMS, X, t)  # noqa: E731
    check_all_modes(f, [0.7], 0)


def test_a_closure_over_a_local_model_object_wrt_the_input():
    net = Net()

    def by_x(x):
        return net.loss(PARAMS, x, 0.7)

    check_all_modes(by_x, [X.copy()], 0)


def test_a_closure_over_a_local_model_object_seen_rebound():
    net = Net()

    def by_t(t):
        return net.loss(PARAMS, X, t)

    g = s2sad.grad(by_t)
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)
    net.blocks = {"r": Residual("r"), "a": Dense("a")}  # another order of the layers
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)
    net.blocks = {"a": Dense("a")}
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)
    net = Net()  # the cell rebound  # noqa: F841
    net.blocks = {"r": Residual("r")}
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)


def test_a_closure_over_a_local_object_hiding_a_method_is_refused():
    net = Net()

    def by_t(t):
        return net.loss(PARAMS, X, t)

    g = s2sad.grad(by_t)
    g(0.7)
    net.blocks["a"].forward = lambda params, x: x
    with pytest.raises(DifferentiationError, match="hides the method"):
        g(0.7)
