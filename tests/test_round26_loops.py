"""Round 26: a for loop whose variable, range bound or iterable the body rebinds (blind tester adv26b).

Python evaluates a loop's iterable (and range's arguments) once, before the loop, and binds the loop variable
afresh from the iterator at each iteration; the adjoint sweep must replay exactly those iterations."""

import re
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from exact_or_refused import assert_exact  # noqa: E402

A = np.array([2.0, 3.0, 5.0])
A4 = np.array([2.0, 3.0, 5.0, 7.0])


# ---- the loop variable rebound in the body --------------------------------------------------------------


def loopvar_plus_one(a):
    s = 1.0
    for i in range(2):
        i = i + 1
        s = s * a[i]
    return s


def loopvar_augmented(a):
    s = 1.0
    for i in range(2):
        i += 1
        s = s * a[i]
    return s


def loopvar_in_a_branch(a):
    s = 1.0
    for i in range(3):
        if i == 1:
            i = 2
        s = s * a[i] + a[0] * i
    return s


def loopvar_min(a):
    s = 1.0
    for i in range(3):
        i = min(i + 1, 2)
        s = s * a[i]
    return s


def loopvar_enumerate(a):
    s = 0.0
    for i, v in enumerate(a[:1]):
        i = i + 2
        s = s + v * a[i]
    return s


def _helper(a):
    s = 1.0
    for i in range(2):
        i = i + 1
        s = s * a[i]
    return s


def loopvar_in_a_helper(a):
    return _helper(a) * a[0]


def loopvar_for_else(a):
    s = 0.0
    for i in range(2):
        i = i + 1
        s = s + a[i] ** 2
    else:
        s = s * a[i]
    return s


def loopvar_walrus(a):
    s = 1.0
    for i in range(2):
        s = s * a[(i := i + 1)]
    return s


def loopvar_dead_store(a):
    s = 1.0
    for i in range(3):
        s = s * np.sum(a[i : i + 2] ** 2)
        i = 0
    return s


def loopvar_read_after(a):
    s = 0.0
    for i in range(3):
        s = s + a[i] * a[0]
        i = i - 1
    return s * a[i + 1]


def loopvar_becomes_a_float(a):
    s = 0.0
    for i in range(2):
        i = a[i] * 2.0
        s = s + i * a[2]
    return s


def loopvar_of_a_list(a):
    s = 0.0
    for v in [a[0], a[1], a[2]]:
        v = v * 2.0
        s = s + v * a[0]
    return s


def loopvar_in_a_while(a):
    s = 1.0
    j = 0
    while j < 2:
        for i in range(2):
            i = i + j
            s = s * a[i] + a[2]
        j = j + 1
    return s


def loopvar_checkpointed(a):
    s = 1.0
    for i in s2sad.checkpoint(range(3), every=2):
        i = 2 - i
        s = np.sin(s * a[i])
    return s


# ---- an inner loop reusing the outer loop's name -----------------------------------------------------------


def inner_loop_reuses_name(a):
    tot = 0.0
    for k in range(2):
        for k in range(k, 3):  # noqa: B020 -- the inner loop reuses the outer name on purpose
            tot = tot + a[k] ** 2
        tot = tot * a[k]
    return tot


def inner_loop_rebinds_outer(a):
    s = 1.0
    for i in range(3):
        for _ in range(1):
            i = 2
        s = s * a[i] + a[0]
    return s


def inner_loop_over_the_outer_items(a):
    s = 0.0
    for v in a:
        for v in [v, v * 2.0]:  # noqa: B020
            s = s + v * a[1]
        s = s * v
    return s


# ---- the range bound rebound ---------------------------------------------------------------------------------


def range_bound_rebound(a):
    s = 0.0
    n = 3
    for i in range(n):
        n = 1
        s = s + a[i] ** 2
    return s * n


def range_bounds_rebound_in_a_branch(a):
    s = 0.0
    lo, hi = 0, 3
    for i in range(lo, hi):
        if i == 0:
            lo = 2
            hi = 1
        s = s + a[i] ** 2 * (lo + hi)
    return s


def range_bound_rebound_nested(a):
    s = 0.0
    for j in range(2):
        n = 3
        for i in range(n):
            n = j
            s = s + a[i] ** 2 * a[j]
    return s


def outer_bound_rebound_in_the_inner_loop(a):
    s = 0.0
    n = 3
    for i in range(n):
        for j in range(2):
            n = j
            s = s + a[i] * a[j] * (n + 1)
    return s * n


def loopvar_kept_when_the_loop_does_not_run(a):
    i = 2
    s = a[0]
    for i in range(len(a) - 3):
        i = i + 1
        s = s * a[i]
    return s * a[i]


def loopvar_read_after_a_loop_that_may_not_run(a):
    i = 2
    s = a[0]
    for i in range(len(a) - 3):
        s = s * a[i]
    return s * a[i]


def range_bound_rebound_checkpointed(a):
    s = 1.0
    n = 3
    for i in s2sad.checkpoint(range(n)):
        n = 1
        s = np.cos(s * a[i])
    return s


# ---- the iterable rebound ------------------------------------------------------------------------------------


def iterated_array_rebound(a):
    s = 0.0
    xs = a
    for v in xs:
        xs = xs * 2
        s = s + v * np.sum(xs)
    return s


def iterated_list_rebound(a):
    s = 0.0
    xs = [a[0], a[1], a[2]]
    for v in xs:
        xs = [x * 2 for x in xs]
        s = s + v * xs[0]
    return s


def iterated_parameter_rebound(x):
    s = 0.0
    for v in x:
        x = x + 1
        s = s + v * x[0]
    return s


def zip_rebound(x):
    s = 0.0
    for v, w in zip(x, x[1:]):
        x = x + 1
        s = s + v * w * x[0]
    return s


def enumerate_rebound(x):
    s = 0.0
    for i, v in enumerate(x):
        x = x * 3
        s = s + v * x[i]
    return s


def enumerate_start_rebound(x):
    s = 0.0
    k = 1
    for i, v in enumerate(x[:2], start=k):
        k = 5
        s = s + v * x[i]
    return s


def reversed_rebound(x):
    s = 1.0
    for v in reversed(x):
        x = x[:1]
        s = s * v + np.sum(x)
    return s


def iterable_rebound_in_a_branch(x):
    s = 0.0
    for v in x:
        if v > 2.5:
            x = x**2
        s = s + v * np.sum(x)
    return s


def iterable_rebound_nested(x):
    s = 0.0
    for j in range(2):
        ys = x * (j + 1)
        for v in ys:
            ys = ys + v
            s = s + v * ys[0]
    return s


def iterable_rebound_checkpointed(x):
    s = 0.0
    xs = x
    for v in s2sad.checkpoint(xs):
        xs = xs * 2
        s = np.sin(s + v * np.sum(xs))
    return s


def items_rebound(x):
    d = {"a": x[0], "b": x[1]}
    s = 0.0
    for k, v in d.items():
        d = {"a": x[2], "b": x[2]}
        s = s + v * d[k]
    return s


def sliced_into_itself(x):
    s = 1.0
    for _ in range(3):
        x = x[:2]
        s = s * x[0] + np.sum(x)
    return s


def written_after_rebinding(x):
    xs = x * 1.0
    s = 0.0
    for v in xs:
        xs = xs * 2.0
        xs[0] = v  # a new array each iteration, never the one iterated
        s = s + np.sum(xs) * v
    return s


def list_written_after_rebinding(x):
    xs = [x[0], x[1]]
    s = 0.0
    for v in xs:
        xs = [xs[0], v]
        xs[0] = v * 3.0
        s = s + xs[0] * xs[-1]
    return s


def rebound_after_an_in_place_write(x):
    xs = x * 1.0
    s = 0.0
    for v in xs:
        xs[2] = xs[2] * v  # the first iteration writes into the array iterated
        s = s + v
        xs = xs * 1.0
    return s


def list_rebound_after_an_in_place_write(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for v in xs:
        xs[2] = xs[2] * v
        s = s + v
        xs = list(xs)
    return s


def written_through_an_alias_after_rebinding(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for v in xs:
        ys = xs
        xs = [1.0, 2.0, 3.0]
        ys[2] = ys[2] * v  # the first iteration writes into the list iterated
        s = s + v
    return s


def array_written_through_an_alias_after_rebinding(x):
    xs = x * 1.0
    s = 0.0
    for v in xs:
        ys = xs
        xs = xs * 2.0
        ys[2] = ys[2] * v
        s = s + v * xs[1]
    return s


WRITES_INTO_THE_ITERATED = [
    rebound_after_an_in_place_write,
    list_rebound_after_an_in_place_write,
    written_through_an_alias_after_rebinding,
    array_written_through_an_alias_after_rebinding,
]

CASES = [
    sliced_into_itself,
    list_written_after_rebinding,
    loopvar_plus_one,
    loopvar_augmented,
    loopvar_in_a_branch,
    loopvar_min,
    loopvar_enumerate,
    loopvar_in_a_helper,
    loopvar_for_else,
    loopvar_walrus,
    loopvar_read_after,
    loopvar_becomes_a_float,
    loopvar_of_a_list,
    loopvar_in_a_while,
    loopvar_checkpointed,
    inner_loop_reuses_name,
    inner_loop_rebinds_outer,
    inner_loop_over_the_outer_items,
    range_bound_rebound,
    range_bounds_rebound_in_a_branch,
    range_bound_rebound_nested,
    outer_bound_rebound_in_the_inner_loop,
    loopvar_kept_when_the_loop_does_not_run,
    loopvar_read_after_a_loop_that_may_not_run,
    range_bound_rebound_checkpointed,
    iterated_array_rebound,
    iterated_list_rebound,
    iterated_parameter_rebound,
    zip_rebound,
    enumerate_rebound,
    enumerate_start_rebound,
    reversed_rebound,
    iterable_rebound_in_a_branch,
    iterable_rebound_nested,
    iterable_rebound_checkpointed,
    items_rebound,
]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_exact_in_every_mode(f):
    assert_exact(f, [A.copy()])


@pytest.mark.parametrize("f", WRITES_INTO_THE_ITERATED, ids=lambda f: f.__name__)
def test_a_write_into_the_iterated_value_of_a_name_rebound_is_refused(f):
    """The first iteration writes into the array (list) the loop iterates, later ones into another: refused at
    the write in every mode (these gave wrong numbers), never a wrong number."""
    from exact_or_refused import check

    assert check(f, [A.copy()]) == []
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round26_loops.py:\d+:\d+: .*this loop iterates"):
        s2sad.grad(f)(A)


def test_a_write_after_rebinding():
    """(The hessian refuses a write into an array the derivative keeps, as it did before round 26.)"""
    assert_exact(written_after_rebinding, [A.copy()], hessian=False)


def test_a_dead_store_to_the_loop_variable():
    assert_exact(loopvar_dead_store, [A4.copy()])


def test_the_reported_numbers():
    np.testing.assert_allclose(s2sad.grad(loopvar_plus_one)(A), [0.0, 5.0, 3.0])
    np.testing.assert_allclose(s2sad.grad(inner_loop_reuses_name)(A), [100.0, 180.0, 714.0])
    np.testing.assert_allclose(s2sad.grad(range_bound_rebound)(A), [4.0, 6.0, 10.0])
    np.testing.assert_allclose(s2sad.grad(iterated_array_rebound)(A), [76.0, 96.0, 136.0])
    np.testing.assert_allclose(s2sad.grad(zip_rebound)(A), [30.0, 26.0, 12.0])
    jac = s2sad.jacobian(loopvar_plus_one, mode="reverse")(A)
    np.testing.assert_allclose(jac, [0.0, 5.0, 3.0])


def _generated(f, mode):
    from s2sad.pipeline import derive

    return derive(f, ("a",), mode, "df_da").source()


def common_loops(a):
    s = 0.0
    for v in a:
        s = s + v**2
    for i in range(len(a)):
        s = s * a[i]
    n = 2
    for j in range(n):
        s = s + a[j]
    return s


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_nothing_copied_when_nothing_is_rebound(mode):
    """The common loop keeps the user's variable as its counter and reads its sequence directly."""
    text = _generated(common_loops, mode)
    assert "for i in range(len(a))" in text and "for j in range(n)" in text
    assert not re.search(r"^ *\w+ = (a|n|i|j)$", text, re.M)  # no copy of a sequence, a bound or a counter


def test_the_copies_made_when_rebound():
    """for i in range(2): i = i + 1 counts with a fresh i1; for v in xs: xs = xs * 2 reads a copy xs1."""
    text = _generated(loopvar_plus_one, "grad")
    assert "for i1 in range(2):" in text and "i = i1" in text
    text = _generated(iterated_array_rebound, "jvp")
    assert "xs1 = xs" in text and "for i in range(len(xs1)):" in text


# ---- the list iterated made longer or shorter by the body --------------------------------------------------


def appends_to_the_list_iterated(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for v in xs:
        if len(xs) < 5:
            xs.append(v * 2.0)
        s = s + v
    return s


def pops_the_list_iterated(x):
    xs = [x[0], x[1], x[2], x[0] * x[1]]
    s = 0.0
    for v in xs:
        w = xs.pop()
        s = s + v * w
    return s


def pops_the_list_iterated_through_an_alias(x):
    xs = [x[0], x[1], x[2], x[0] * x[1]]
    ys = xs
    s = 0.0
    for v in xs:
        ys.pop()
        s = s + v * x[2]
    return s


def appends_then_rebinds(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for v in xs:
        if len(xs) < 5:
            xs.append(v * 1.0)
        s = s + v
        xs = xs[1:]
    return s


def extends_in_place(x):
    xs = [x[0], x[1]]
    s = 0.0
    for v in xs:
        if len(xs) < 4:
            xs += [v * 3.0]
        s = s + v**2
    return s


@pytest.mark.parametrize(
    "f",
    [
        appends_to_the_list_iterated,
        pops_the_list_iterated,
        pops_the_list_iterated_through_an_alias,
        appends_then_rebinds,
        extends_in_place,
    ],
    ids=lambda f: f.__name__,
)
def test_a_list_resized_while_iterated_is_refused(f):
    """Python's iterator reads the list's length at every step (these gave wrong numbers or crashed)."""
    from exact_or_refused import check

    assert check(f, [A.copy()]) == []
    refusal = (
        r"test_round26_loops.py:\d+:\d+: .*(longer or shorter|this loop iterates|another name shares|"
        r"concatenating|changes how many items|in place later)"
    )
    with pytest.raises(s2sad.DifferentiationError, match=refusal):
        s2sad.grad(f)(A)
    with pytest.raises(s2sad.DifferentiationError, match=refusal):
        s2sad.jvp(f)(A, np.ones(3))


def appends_elsewhere(a):
    out = []
    hs = [a[0]]
    for v in a:
        out.append(v * hs[-1])
        hs.append(v)
    return sum(out)


def test_appending_to_another_list_is_exact_and_unchecked():
    assert_exact(appends_elsewhere, [A.copy()])
    assert "expect_unresized" not in _generated(appends_elsewhere, "grad")
