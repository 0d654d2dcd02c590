"""Jacobians and Hessians print (and log) exactly as often as one run of ``f``: the first column (or the
primal run of reverse mode) keeps f's output calls, every other column or row calls a quiet copy of the
derivative (and of the derivatives of the helpers it calls)."""

import logging

import numpy as np
import pytest
from fd import assert_close, numeric_grad

import s2sad

log = logging.getLogger("s2sad_print_once")


def noisy_helper(v):
    print("helper ran")
    log.warning("helper logged")
    return np.sin(v)


def vector_f(x):
    print("f ran")
    log.warning("f logged")
    return noisy_helper(x) * x[::-1]


def scalar_f(x):
    print("f ran")
    log.warning("f logged")
    return np.sum(noisy_helper(x) * x**2)


class Count(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def logged():
    handler = Count()
    log.addHandler(handler)
    try:
        yield handler.messages
    finally:
        log.removeHandler(handler)


def _once(capsys, logged, f, x):
    """What one run of ``f`` prints and logs."""
    capsys.readouterr()
    logged.clear()
    f(x)
    printed = capsys.readouterr().out
    messages = list(logged)
    logged.clear()
    return printed, messages


@pytest.mark.parametrize("mode", [None, "forward", "reverse"])
def test_jacobian_prints_as_often_as_f(mode, capsys, logged):
    x = np.array([0.3, -1.2, 0.8])
    expected = _once(capsys, logged, vector_f, x)
    assert expected == ("f ran\nhelper ran\n", ["f logged", "helper logged"])
    before = x.copy()
    jac = s2sad.jacobian(vector_f, mode=mode)(x)
    assert (capsys.readouterr().out, list(logged)) == expected
    np.testing.assert_array_equal(x, before)
    assert_close(jac, numeric_grad(vector_f, [x], 0))


def test_hessian_prints_as_often_as_f(capsys, logged):
    x = np.array([0.3, -1.2, 0.8])
    expected = _once(capsys, logged, scalar_f, x)
    hess = s2sad.hessian(scalar_f)(x)
    assert (capsys.readouterr().out, list(logged)) == expected
    assert_close(hess, numeric_grad(s2sad.grad(scalar_f), [x], 0))


def test_hessian_of_a_matrix_argument_prints_once(capsys, logged):
    x = np.array([[0.3, -1.2], [0.8, 0.1]])
    expected = _once(capsys, logged, scalar_f, x)
    hess = s2sad.hessian(scalar_f)(x)
    assert (capsys.readouterr().out, list(logged)) == expected
    assert hess.shape == (2, 2, 2, 2)


def test_jacobian_of_several_arguments_prints_once(capsys, logged):
    def two(x, y):
        print("two ran")
        return noisy_helper(x) * y

    x, y = np.array([0.3, -1.2]), np.array([0.5, 2.0])
    capsys.readouterr()
    two(x, y)
    expected = capsys.readouterr().out
    logged.clear()
    for mode in (None, "forward", "reverse"):
        jx, jy = s2sad.jacobian(two, wrt=(0, 1), mode=mode)(x, y)
        assert capsys.readouterr().out == expected
        assert logged == ["helper logged"]
        logged.clear()
        assert_close(jx, numeric_grad(two, [x, y], 0))
        assert_close(jy, numeric_grad(two, [x, y], 1))
        capsys.readouterr()  # (finite differences run f)
        logged.clear()


def test_jacobian_of_an_empty_argument_prints_once(capsys):
    def f(x):
        print("f ran")
        return np.sum(x) * np.ones(2)

    capsys.readouterr()
    jac = s2sad.jacobian(f, mode="forward")(np.zeros(0))
    assert capsys.readouterr().out == "f ran\n"
    assert jac.shape == (2, 0)


def test_derivatives_that_printed_once_still_do(capsys, logged):
    x = np.array([0.3, -1.2, 0.8])
    expected = _once(capsys, logged, scalar_f, x)
    for make in (s2sad.grad, s2sad.value_and_grad, s2sad.hvp):
        g = make(scalar_f)
        g(x, x) if make is s2sad.hvp else g(x)
        assert (capsys.readouterr().out, list(logged)) == expected
        logged.clear()
