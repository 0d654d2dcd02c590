"""Round 37 (blind tester 37a, containers holding arrays written in place): wrong numbers that are now
refused or exact.  ``out=L[0]`` replaced the list's item instead of writing into its array; a helper writing
into an item of a list display passed to it (``h([a])``) lost the write to ``a``; one array stored twice in a
list (``L[0] = a; L[1] = a``) and written through its name updated only the first slot; an overwritten item of
a list argument had a 0-d zero gradient."""

import numpy as np
import pytest
from exact_or_refused import check

import s2sad

X0 = np.array([0.3, -0.7])


def out_into_a_list_item(x):
    a = x * 1.0
    L = [a]
    np.sin(x, out=L[0])  # a becomes sin(x)
    return np.sum(a)


def out_into_a_dict_item(x):
    y = x * 2.0
    d = {"k": x * 1.0}
    np.multiply(y, y, out=d["k"])
    return np.sum(d["k"] * x)


def out_into_a_row(x):
    m = np.zeros((2, 2))
    np.sin(x, out=m[1])
    return np.sum(m * x)


def bump_first(lst):
    lst[0] += 0.25


def helper_writes_an_item_of_a_display(x):
    a = x * 1.0
    bump_first([a])
    return np.sum(a * a)


def stored_twice_read_second(x):
    a = x * 1.0
    L = [None] * 2
    L[0] = a
    L[1] = a
    a *= 1.5
    return np.sum(L[1])


@pytest.mark.parametrize(
    "f",
    [
        out_into_a_list_item,
        out_into_a_dict_item,
        out_into_a_row,
        helper_writes_an_item_of_a_display,
        stored_twice_read_second,
    ],
)
def test_writes_into_arrays_containers_hold_are_exact_or_refused(f):
    assert check(f, (X0.copy(),)) == []


def test_out_into_a_row_is_exact():
    np.testing.assert_allclose(s2sad.grad(out_into_a_row)(X0), np.sin(X0) + X0 * np.cos(X0))


def replaces_an_item(x, ps):
    ps[1] = x
    return np.sum(ps[0] * ps[1])


def test_the_gradient_of_an_overwritten_item_of_a_list_argument_has_its_shape():
    g = s2sad.grad(replaces_an_item, wrt=1)(X0, [np.ones(2), np.ones(2)])
    np.testing.assert_array_equal(g[0], X0)
    assert g[1].shape == (2,) and not g[1].any()
    assert check(lambda ps, x: replaces_an_item(x, ps), ([np.ones(2), np.ones(2)], X0)) == []
