"""Round 31: an array read out of a list argument (``v = xs[0]``, ``for v in xs``) and written in place more
than once (``v *= 2; v *= 3``): the later writes reached ``xs[0]``'s derivative only where ``is_view(v, xs)``,
which is false for a list (it asks about an array's memory): [24, 48] for [72, 144], in every mode.  A list's
item is now tested for sharing ``v``'s memory (``is_view(v, xs, 0)``, decided where the write runs); a tuple's
item is refused (``expect_mutable``: it crashed writing into the tuple); derivative code differentiated again
refuses such a write (a list's item is its own copy there: a wrong Hessian before)."""

import numpy as np
import pytest
from exact_or_refused import assert_exact_or_refused

import s2sad


def twice(xs):
    v = xs[0]
    v *= 2.0
    v *= 3.0
    return np.sum(xs[0] ** 2)


def loop_twice(xs):
    for v in xs:
        v *= 2.0
        v[0] = v[1] * v[0]
    return np.sum(np.stack(xs) ** 2)


def enumerate_items(xs):
    for i, v in enumerate(xs):
        v *= 2.0
        v[2] *= 0.5
    return np.sum(xs[0] ** 2 * np.arange(1.0, 4.0)) + np.sum(xs[1] ** 3)


def shift_then_scale(xs):
    v = xs[0]
    v += 1.5
    v[0] = v[1] * v[0]
    v[1:] *= v[:-1]
    return np.sum(xs[0] ** 2 * np.arange(1.0, 4.0)) + np.sum(xs[0] * xs[1])


def power_twice(xs):
    v = xs[0]
    v **= 2
    v **= 2
    return np.sum(xs[0] ** 2 * np.arange(1.0, 4.0)) + np.sum(xs[1] ** 3)


def branch_write(xs):
    for i, v in enumerate(xs):
        v **= 2
        if v[0] > 0:
            v -= v[0]
    return np.sum(xs[0] * xs[1])


PROGRAMS = [twice, loop_twice, enumerate_items, shift_then_scale, power_twice, branch_write]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_list_items_written_in_place_are_exact_or_refused(f):
    rs = np.random.RandomState(3)
    args = [[rs.randn(3), rs.randn(3)]] if f is not twice else [[np.array([1.0, 2.0])]]
    assert_exact_or_refused(f, args)


def test_the_reported_numbers():
    g = s2sad.grad(twice)([np.array([1.0, 2.0])])
    np.testing.assert_allclose(g[0], [72.0, 144.0])
    assert s2sad.jvp(twice)([np.array([1.0, 2.0])], [np.array([1.0, 0.0])])[1] == 72.0
    g = s2sad.grad(loop_twice)([np.array([0.5, 1.5]), np.array([-1.0, 2.0])])
    np.testing.assert_allclose(g[0], [36.0, 24.0])
    np.testing.assert_allclose(g[1], [-128.0, 80.0])


def test_second_order_through_a_twice_written_item_is_refused_not_wrong():
    args = [np.array([0.5, -1.2, 0.8]), np.array([0.3, 0.2, -0.4])]
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round31.py:\d+:\d+: cannot differentiate the deriv"):
        s2sad.hessian(power_twice)([a.copy() for a in args])


def test_an_item_of_a_tuple_written_in_place_is_refused():
    def g(xs):
        v = xs[0]
        v *= 2.0
        return np.sum(xs[0] ** 2)

    with pytest.raises(s2sad.DifferentiationError, match="an item of a tuple"):
        s2sad.grad(g)((np.array([1.0, 2.0]),))
    np.testing.assert_allclose(s2sad.grad(g)([np.array([1.0, 2.0])])[0], [8.0, 16.0])


class _Lookup:
    def __init__(self, d):
        self.__dict__["d"] = d

    def __getattr__(self, k):
        return self.d[k]


def test_jacobian_copies_an_argument_object_with_its_own_getattr():
    """``copy_input`` of an object whose ``__getattr__`` reads an attribute (``copy.copy`` recursed: a
    RecursionError from jacobian's first run, round 31)."""

    def f(x, o=_Lookup({"s": 5.0})):  # noqa: B008
        return o.s * x[0] ** 2

    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2sad.jacobian(f)(x), [10.0, 0.0])
    np.testing.assert_allclose(s2sad.jacobian(f, mode="reverse")(x), [10.0, 0.0])
