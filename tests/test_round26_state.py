"""A Jacobian runs f's derivative once per column (and f once more to choose its mode): a method of an
argument object that changes its state (``c.tick()`` with ``self.n += 1``) would give each run another value.
Refused at the call's line, found from the call's objects (round 26: jacobian gave 2.0, true 1.0)."""

import numpy as np
import pytest

import s2sad


class Counter:
    def __init__(self):
        self.n = 0

    def tick(self):
        self.n += 1
        return float(self.n)


class Scale:
    def __init__(self, k):
        self.k = k

    def value(self):
        return self.k

    def __call__(self, x):
        return self.k * x


class Memo:
    def __init__(self):
        self.seen = []

    def __call__(self, x):
        self.seen.append(1)
        return 2.0 * x


def ticks(w, c):
    return w * c.tick()


def called(w, m):
    return np.sum(m(w) ** 2)


def reads(w, s):
    return np.sum(w * s.value() + s(w))


@pytest.mark.parametrize("make", [s2sad.jacobian, s2sad.hessian])
def test_a_method_changing_its_objects_state_is_refused(make):
    c = Counter()
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round26_state\.py:\d+:\d+: .*c\.tick\(\)"):
        make(ticks)(np.array([1.0, 2.0]), c)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round26_state\.py:\d+:\d+: .*m\.__call__\(\)"):
        make(called)(np.array([1.0, 2.0]), Memo())


def test_grad_runs_f_once_and_stays_exact():
    c = Counter()
    assert s2sad.grad(ticks)(1.0, c) == 1.0 and c.n == 1
    assert s2sad.value_and_grad(ticks)(3.0, c) == (6.0, 2.0) and c.n == 2


def test_methods_without_state_changes_keep_their_jacobian_and_hessian():
    w = np.array([0.5, -1.5])
    s = Scale(3.0)
    np.testing.assert_allclose(s2sad.jacobian(reads)(w, s), [6.0, 6.0])
    np.testing.assert_allclose(s2sad.hessian(lambda w, s: np.sum(s(w) ** 2))(w, s), 18.0 * np.eye(2))


def tick_of(c):
    return c.tick()


def through_a_helper(w, c):
    return w * tick_of(c)


def test_through_a_helper_too():
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round26_state\.py:\d+:\d+: .*c\.tick\(\).*tick_of"):
        s2sad.jacobian(through_a_helper)(np.array([1.0, 2.0]), Counter())


class Model:
    def __init__(self):
        self.counter = Counter()


def through_an_attribute(w, m):
    return w * m.counter.tick()


def test_through_an_attribute_too():
    with pytest.raises(s2sad.DifferentiationError, match=r"m\.counter\.tick\(\)"):
        s2sad.jacobian(through_an_attribute)(np.array([1.0, 2.0]), Model())
