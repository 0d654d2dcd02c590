"""grad skips computing f's output where it is proved a real number for real arguments (real_output):
the skipped code runs, and refuses, for every other argument; the gradient is the same either way."""

import math

import numpy as np
import pytest
from fd import assert_close, numeric_grad

import s2sad


def loop(x, y):
    z = 1.0
    s = 0.0
    for _ in range(5):
        z = 0.5 * z * x + math.sin(y * z)
        s = s + z * z
    return s


def loss(w, X):
    return np.sum(np.tanh(X @ w) ** 2) / X.shape[0]


def test_the_output_is_not_computed_for_real_arguments():
    text = s2sad.source(s2sad.grad(loop, wrt=(0, 1)))
    assert "check_output = not real_numbers(x)" in text
    assert "if check_output:\n            t1 = z * z" in text
    assert "if check_output:\n        t1 = np.sum(v)\n        out = t1 / v1" in s2sad.source(s2sad.grad(loss))


def test_same_gradient_for_numbers_of_every_type():
    g = s2sad.grad(loop, wrt=(0, 1))
    for x in (0.3, np.float64(0.3), np.float32(0.3)):
        got = g(x, 0.7)
        want = numeric_grad(loop, [0.3, 0.7], 0)
        assert_close(got[0], want, rtol=1e-4)


def test_a_complex_argument_is_still_refused():
    def f(x):
        return np.sum(x * x)

    g = s2sad.grad(f)
    assert "real_arrays(x)" in s2sad.source(g)
    with pytest.raises(s2sad.DifferentiationError, match="complex"):
        g(np.array([1.0 + 1j, 2.0]))
    with pytest.raises(s2sad.DifferentiationError, match="complex"):
        g(1.0 + 2j)


def test_a_complex_global_is_not_proved():
    C = np.array([1j, 2.0])

    def f(x):
        return np.sum(C * x)

    with pytest.raises(s2sad.DifferentiationError, match="complex"):
        s2sad.grad(f)(np.ones(2))


def test_an_array_output_through_a_number_argument_is_refused():
    def f(x, a):
        return x * a  # an array when a is an array

    g = s2sad.grad(f)
    assert_close(g(2.0, 3.0), 3.0)
    with pytest.raises(s2sad.DifferentiationError, match="shape"):
        g(2.0, np.ones(3))


def test_other_arguments_take_the_checked_path():
    g = s2sad.grad(loss)
    w, X = np.ones(3) * 0.1, np.arange(6.0).reshape(2, 3)
    want = g(w, X)
    assert_close(g(w, X.tolist() and np.asarray(X, np.float32)), want, rtol=1e-5)

    class Wrapped(np.ndarray):
        pass

    assert_close(g(w, X.view(Wrapped)), want)


def test_a_power_of_a_python_number_is_not_proved():
    def f(x, p):
        return x**p + x  # (-2.0) ** 0.5 is complex

    assert "real_numbers(" not in s2sad.source(s2sad.grad(f))
    with pytest.raises(s2sad.DifferentiationError, match="complex"):
        s2sad.grad(f)(-2.0, 0.5)


def test_a_division_f_raises_on_is_kept():
    def f(x, c):
        return np.sum(x * x) + 1.0 / c

    g = s2sad.grad(f)
    with pytest.raises(ZeroDivisionError):
        g(np.ones(2), 0.0)


def test_none_is_still_refused():
    def f(x):
        if x > 0:
            return x * 2.0
        return None

    with pytest.raises(s2sad.DifferentiationError, match="None"):
        s2sad.grad(f)(-1.0)


@pytest.mark.parametrize("kind", ["value_and_grad", "hessian"])
def test_other_modes(kind):
    fn = getattr(s2sad, kind)(loss)
    w, X = np.ones(3) * 0.1, np.arange(6.0).reshape(2, 3)
    got = fn(w, X)
    if kind == "value_and_grad":
        assert_close(got[0], loss(w, X))
        assert_close(got[1], s2sad.grad(loss)(w, X))
    else:
        g = s2sad.grad(loss)
        for i in range(3):
            assert_close(got[:, i], numeric_grad(lambda v, i=i: g(v, X)[i], [w], 0), rtol=1e-4)
