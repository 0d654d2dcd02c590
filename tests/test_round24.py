"""Round 24 (blind testers adv24a/adv24b): breaks found in the final code, each exact now."""

import copy

import numpy as np
import pytest
from exact_or_refused import assert_exact, check

import s2sad

# ---- a write through a view of x.copy() (the method) was lost: x.copy() of a value of unknown type
# became copy_of(x), taken for a list's copy, whose slices are new lists -------------------------------

G = np.ones(4)


def view_of_method_copy(x):
    a = x.copy()
    v = a[1:]
    v *= 2
    return np.sum(a * x)


def view_read_after(x):
    a = x.copy()
    v = a[1:]
    v *= 2
    return np.sum(v) + np.sum(a)


def constant_through_view(x):
    a = x.copy()
    v = a[:2]
    v[:] = 0.0
    return np.sum(a * x)


def item_through_view(x):
    a = x.copy()
    v = a[:2]
    v[0] = x[3] ** 2
    return np.sum(a * x)


def copy_of_default(x, s=G):
    a = s.copy()
    v = a[1:]
    v *= x[1:]
    return np.sum(a * x)


def copy_of_a_written_copy(x):
    a = x.copy()
    a[1:] *= 2
    b = a.copy()
    w = b[:2]
    w[:] = 0
    return np.sum(a * b)


def view_of_copy_module(x):
    a = copy.copy(x)
    v = a[1:]
    v *= 2
    return np.sum(a * x)


def view_of_view_in_loop(x):
    a = x.T.copy()
    for i in range(2):
        v = a[i : i + 2]
        w = v[1:]
        w += x[i] ** 2
    return np.sum(a * x)


@pytest.mark.parametrize(
    "f",
    [
        view_of_method_copy,
        view_read_after,
        constant_through_view,
        item_through_view,
        copy_of_default,
        copy_of_a_written_copy,
        view_of_copy_module,
    ],
    ids=lambda f: f.__name__,
)
def test_writes_through_views_of_a_copy_are_followed(f):
    assert_exact(f, [np.array([1.0, 2.0, 3.0, 4.0])])


def test_views_of_views_of_a_copy_in_a_loop():
    """First order exact in every mode; the Hessian is exact or refused at the user's line."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert_exact(view_of_view_in_loop, [x], hessian=False)
    assert not check(view_of_view_in_loop, [x])


def test_a_copy_of_a_list_written_in_place_is_refused_at_the_line():
    def f(xs):
        ys = xs.copy()
        v = ys[1:]
        v[0] = 5.0
        return ys[0] * ys[1]

    with pytest.raises(
        s2sad.DifferentiationError, match=r"test_round24.py:\d+:\d+: `xs.copy\(\)` of a value that is not"
    ):
        s2sad.grad(f)([1.0, 2.0, 3.0])
    assert s2sad.grad(f)(np.array([1.0, 2.0, 3.0]))[0] == 5.0


def list_copy_appended(xs):
    ys = xs.copy()
    ys.append(xs[0] * 3.0)
    return sum(y * y for y in ys)


def dict_copy_written(d):
    e = d.copy()
    e["a"] = e["a"] ** 2
    return e["a"] + d["a"]


def test_copies_used_as_lists_and_dicts_keep_their_type():
    assert s2sad.value_and_grad(list_copy_appended)([1.0, 2.0]) == (14.0, [20.0, 4.0])
    assert s2sad.value_and_grad(dict_copy_written)({"a": 1.5}) == (3.75, {"a": 4.0})


# ---- return in the else of a for/while loop that returns from its body (round 24: refused as "must
# return a value on every path") ----------------------------------------------------------------------


def for_else_returns(x):
    for v in x:
        if v > 1:
            return v * 2.0 + np.sum(x**2)
    else:
        return x[0] ** 2 * x[2]


def while_else_returns(x):
    i = 0
    while i < 3:
        if x[i] > 1:
            return x[i] * np.sin(x[0])
        i += 1
    else:
        return x[0] ** 3


def nested_for_else_returns(x):
    s = 0.0
    for k in range(2):
        for v in x:
            if v * k > 1:
                return v * s
        else:
            s = s + x[k] ** 2
    return s * x[1]


@pytest.mark.parametrize("f", [for_else_returns, while_else_returns, nested_for_else_returns], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [np.array([0.5, 2.0, 0.3]), np.array([0.5, 0.2, 0.3])], ids=["returns", "else"])
def test_return_in_a_loops_else(f, x):
    assert_exact(f, [x])


def test_in_place_methods_on_views_of_a_copy_are_refused_at_the_line():
    w = np.arange(1.0, 5.0)

    def filled(x):
        y = x.copy()
        y[:2].fill(1.0)
        return np.sum(y * w)

    def sorted_tail(x):
        y = x.copy()
        y[1:].sort()
        return np.sum(y * w)

    for f in (filled, sorted_tail):
        with pytest.raises(
            s2sad.DifferentiationError, match=r"test_round24.py:\d+:\d+: method .\w+\(\) changes a part"
        ):
            s2sad.grad(f)(np.array([0.3, -1.2, 2.0, 0.5]))


# ---- itertools' combinatoric iterators over differentiated values (round 24: no derivative rule) ------
import itertools  # noqa: E402


def product_of_values(x):
    s = 0.0
    for a, b in itertools.product(x, x[:2]):
        s = s + a * np.sin(b)
    return s


def product_repeat(x):
    return sum(a * b * c for a, b, c in itertools.product(x, repeat=3))


def combinations_of_values(x):
    return sum(a * b**2 for a, b in itertools.combinations(x, 2))


def permutations_of_values(x):
    total = 0.0
    for a, b in itertools.permutations(x, 2):
        total = total + a / (1.0 + b**2)
    return total


def combinations_with_replacement_of_values(x):
    return sum(np.tanh(a * b) for a, b in itertools.combinations_with_replacement(x, 2))


def product_of_ranges(x):  # positions: iterated as they are
    s = 0.0
    for i, j in itertools.product(range(3), range(2)):
        s = s + x[i] * x[j]
    return s


@pytest.mark.parametrize(
    "f",
    [
        product_of_values,
        product_repeat,
        combinations_of_values,
        permutations_of_values,
        combinations_with_replacement_of_values,
        product_of_ranges,
    ],
    ids=lambda f: f.__name__,
)
def test_itertools_combinatorics_over_values(f):
    assert_exact(f, [np.array([0.4, -1.3, 0.9])])


def values_of_a_built_dict(x):
    d = {"a": x[0], "b": x[1] ** 2}
    return max(d.values()) + sorted(d.values())[0] + sum(d.values()) * x[2]


def items_of_a_built_dict(x):
    d = dict(a=x[0], b=np.sin(x[1]))
    pairs = list(d.items())
    return sum(v * len(k) for k, v in pairs) + d.get("c", x[2]) ** 2


def test_values_and_items_of_a_dict_f_builds():
    assert_exact(values_of_a_built_dict, [np.array([1.0, 2.0, 3.0])])
    assert_exact(items_of_a_built_dict, [np.array([1.0, 2.0, 3.0])])


def test_standard_library_functions_are_primitives_refused_at_the_users_line():
    """statistics.mean, dataclasses.asdict: refused at a line of the library's own file before."""
    import dataclasses
    import statistics

    @dataclasses.dataclass
    class P:
        a: float
        b: float

    def mean_of(x):
        return statistics.mean([x[0], x[1]]) * x[2]

    def as_dict(x):
        return dataclasses.asdict(P(x[0], x[1]))["a"] * 2.0

    for f in (mean_of, as_dict):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round24.py:\d+:\d+: no derivative rule for"):
            s2sad.grad(f)(np.array([1.0, 2.0, 3.0]))
