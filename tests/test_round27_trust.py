"""Round 27a: a call whose result nothing reads was dropped from generated code (``_ = rng.normal()``,
``skipped = next(it)``, a helper appending to a global): the value and the derivative were another draw's.
Calls that may have effects stay where f runs them.  And an in-place change made by a call given an alias
of a differentiated array (``b = a; rng.shuffle(b)``) is refused (it was ignored)."""

import numpy as np
import pytest

import s2sad

W = np.array([1.0, 10.0, 100.0, 1000.0])


def dead_draw(x, rng):
    _ = rng.normal()
    return x * rng.normal()


def dead_next(x, it):
    skipped = next(it)  # noqa: F841
    return x * next(it)


CALLS = []


def logged_log(v):
    CALLS.append(v)
    return np.log(v)


def dead_helper_call(x):
    r = logged_log(x * 1.0)  # noqa: F841
    return x * len(CALLS)


def test_a_draw_nothing_reads_still_runs():
    expected = np.random.default_rng(0)
    expected.normal()
    second = expected.normal()
    for make in (s2sad.grad, s2sad.value_and_grad):
        got = make(dead_draw)(2.0, np.random.default_rng(0))
        np.testing.assert_allclose(got, second if make is s2sad.grad else (2.0 * second, second))
    np.testing.assert_allclose(s2sad.jvp(dead_draw)(2.0, np.random.default_rng(0), 1.0), (2.0 * second, second))


def test_next_nothing_reads_still_runs():
    assert s2sad.grad(dead_next)(1.0, iter([10.0, 20.0])) == 20.0
    assert s2sad.value_and_grad(dead_next)(1.0, iter([10.0, 20.0])) == (20.0, 20.0)


def test_a_helper_nothing_reads_still_runs():
    CALLS.clear()
    assert s2sad.grad(dead_helper_call)(2.0) == 1.0 and len(CALLS) == 1


def shuffled_alias(x, rng):
    a = np.sin(x)
    b = a
    rng.shuffle(b)
    return np.sum(a * W)


def shuffled_view(x, rng):
    a = x * 1.0
    v = a[:]
    rng.shuffle(v)
    return np.sum(a * W)


@pytest.mark.parametrize("f", [shuffled_alias, shuffled_view], ids=lambda f: f.__name__)
def test_an_in_place_change_through_an_alias_is_refused(f):
    x = np.array([4.0, 3.0, 2.0, 1.0])
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round27_trust\.py:\d+:\d+: .*shuffle"):
        s2sad.grad(f)(x, np.random.default_rng(0))
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round27_trust\.py:\d+:\d+: .*shuffle"):
        s2sad.jvp(f)(x, np.random.default_rng(0), np.ones(4))


def fill_bound(x):
    a = x * 1.0
    r = a.fill(2.0)  # noqa: F841
    return np.sum(a * W)


def insert_bound(x):
    lst = [x[0], x[1], x[2], x[3]]
    n = lst.insert(0, x[3])  # noqa: F841
    return lst[0] * 1 + lst[1] * 10 + lst[2] * 100


def copyto_bound(x):
    a = x * 1.0
    r = np.copyto(a, 5.0)  # noqa: F841
    return np.sum(a * W)


def imul_bound(x):
    a = x * 1.0
    b = a.__imul__(x)  # noqa: F841
    return np.sum(a * W)


def reverse_in_a_conditional_expression(x):
    lst = [x[0], x[1], x[2], x[3]]
    lst.reverse() if True else None
    return lst[0] * 1 + lst[1] * 10 + lst[2] * 100 + lst[3] * 1000


@pytest.mark.parametrize(
    "f",
    [fill_bound, insert_bound, copyto_bound, imul_bound, reverse_in_a_conditional_expression],
    ids=lambda f: f.__name__,
)
def test_an_in_place_change_whose_none_is_assigned_is_refused(f):
    x = np.array([4.0, 3.0, 2.0, 1.0])
    for make in (s2sad.grad, s2sad.value_and_grad):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round27_trust\.py:\d+:\d+: "):
            make(f)(x)
