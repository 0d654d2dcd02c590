"""Round 27b: calls that change a value in place, used as values (``_ = a.sort()``, ``[hs.append(v) for v in
x]``, ``print(hs.append(v))``, ``assert np.copyto(a, b) is None``, ``map(hs.append, x)``), and a walrus
inside an ``assert``, were run on the primal values but never seen by the derivative: wrong numbers.  Used as
a value, such a call now runs as a statement of its own (as Python runs it) and its value is None; inside an
expression s2sad keeps whole (a condition, ``assert``), it is refused at its line."""

import logging

import numpy as np
import pytest
from exact_or_refused import assert_exact, check

import s2sad

X = np.array([1.5, 0.5, 2.0])


def comprehension_for_effect(x):
    hs = []
    [hs.append(v * v) for v in x]
    return sum(hs)


def append_bound_to_a_name(x):
    hs = [x[0]]
    _ = hs.append(x[1] * 3)
    return hs[-1] * x[2]


def append_inside_print(x):
    hs = [x]
    print("len", len(hs), hs.append(x * 2))
    return np.sum(hs[-1] * x)


def any_over_appends(x):
    hs = []
    any(hs.append(v * v) for v in x)
    return sum(hs)


def items_set_in_a_comprehension(x):
    d = {}
    [d.__setitem__(i, v * v) for i, v in enumerate(x)]
    return sum(d.values())


def update_bound_to_a_name(x):
    d = {"a": x[0]}
    _ = d.update(a=x[1] * 3)
    return d["a"] * x[2]


@pytest.mark.parametrize(
    "f",
    [
        comprehension_for_effect,
        append_bound_to_a_name,
        append_inside_print,
        any_over_appends,
        items_set_in_a_comprehension,
        update_bound_to_a_name,
    ],
    ids=lambda f: f.__name__,
)
def test_a_change_in_place_used_as_a_value_is_exact_or_refused(f):
    assert check(f, [X.copy()]) == []


def test_the_common_idiom_is_exact():
    assert_exact(comprehension_for_effect, [X.copy()])
    assert_exact(append_bound_to_a_name, [X.copy()])


def sort_bound_to_a_name(x):
    a = x * 1.0
    _ = a.sort()
    return a[0] * 10 + a[1]


def sort_in_a_condition(x):
    a = x * 1.0
    if a.sort() is None:
        pass
    return a[0] * 10 + a[1]


def sort_in_a_boolean(x):
    a = x * 1.0
    ok = a.sort() is None and True  # noqa: F841
    return a[0] * 10 + a[1]


def sort_in_a_loops_iterable(x):
    a = x * 1.0
    for _ in [a.sort()]:
        pass
    return a[0] * 10 + a[1]


def sort_in_logging(x):
    a = x * 1.0
    logging.debug("sorted %s", a.sort())
    return a[0] * 10 + a[1]


def copyto_in_an_assert(x):
    a = x * 1.0
    assert np.copyto(a, x**2) is None
    return np.sum(a)


def pop_in_an_assert(x):
    a = [x[0], x[1]]
    assert a.pop() is not None
    return sum(a) * x[1]


def fill_diagonal_bound_to_a_name(x):
    a = np.outer(x, x)
    _ = np.fill_diagonal(a, 0.0)
    return np.sum(a)


def put_bound_to_a_name(x):
    a = x * x
    r = np.put(a, [0], 0.0)  # noqa: F841
    return np.sum(a)


def map_of_append(x):
    hs = []
    list(map(hs.append, x))
    return sum(hs)


def walrus_in_an_assert(x):
    assert x > 0 and (x := x * 2) > 0
    return x


def walrus_in_an_assert_generator(x):
    assert all((x := x * 2) > 0 for _ in range(2))
    return x


REFUSED = [
    sort_bound_to_a_name,
    sort_in_a_condition,
    sort_in_a_boolean,
    sort_in_a_loops_iterable,
    sort_in_logging,
    copyto_in_an_assert,
    pop_in_an_assert,
    fill_diagonal_bound_to_a_name,
    put_bound_to_a_name,
    map_of_append,
]


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("make", [s2sad.grad, s2sad.value_and_grad])
def test_a_change_the_derivative_cannot_follow_is_refused_at_its_line(f, make):
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round27_python\.py:\d+:\d+: "):
        make(f)(X.copy())
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round27_python\.py:\d+:\d+: "):
        s2sad.jvp(f)(X.copy(), np.ones(3))


@pytest.mark.parametrize("f", [walrus_in_an_assert, walrus_in_an_assert_generator], ids=lambda f: f.__name__)
def test_a_walrus_in_an_assert_is_exact_or_refused(f):
    assert check(f, [1.5]) == []


def test_the_refusal_of_an_in_place_numpy_function_does_not_advise_assigning_its_result():
    with pytest.raises(s2sad.DifferentiationError) as e:
        s2sad.grad(fill_diagonal_bound_to_a_name)(X.copy())
    assert "assign its result" not in str(e.value) and "build a new value" in str(e.value)


def loop_that_may_not_run_then_another(x):
    s = x
    for i in range(0):
        s = s * 2.0
    for i in range(2):  # noqa: B007
        s = s * x
    return s + i


def test_a_loop_variable_of_a_loop_that_did_not_run_then_bound_by_another_loop():
    """The copy kept for a second loop that may not run read the first loop's unbound variable
    (UnboundLocalError in generated code; found by the random programs)."""
    assert_exact(loop_that_may_not_run_then_another, [0.7])
