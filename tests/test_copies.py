"""The copies pass: merges, folds into updates and into sums where they are exact, nowhere else."""

import textwrap

import gast
import numpy as np
import pytest
from fd import check_grad

import s2sad
from s2sad.codegen import to_source
from s2sad.copies import fold_copies
from s2sad.naming import Names, Role
from s2sad.optimize import _dead_code


def folded(src: str, temps=()) -> list[str]:
    """The code after folding; ``temps``: the names a pass made as temporaries (the others are the user's)."""
    fn = gast.parse(textwrap.dedent(src)).body[0]
    names = Names()
    for t in temps:
        names.take(t, Role.TEMP)
    fold_copies(fn, names)
    _dead_code(fn)
    return to_source(fn).splitlines()[1:]


def test_copy_of_a_temporary_takes_the_adjoint_name():
    assert folded(
        """
        def f(bv1, u1, v, bout=1.0):
            w1 = bv1 / u1
            bw = w1
            return bw * v
        """,
        temps=["w1"],
    ) == ["    bw = bv1 / u1", "    return bw * v"]


def test_copy_folds_into_the_update_of_its_name():
    assert folded(
        """
        def f(bt1, bw, u):
            bv = bt1
            bv = bv + bw * u
            return bv
        """
    ) == ["    bv = bt1 + bw * u", "    return bv"]


def test_negation_read_once_folds_into_a_sum():
    assert folded(
        """
        def f(bw, v1, u, y):
            bu1 = -(bw * v1)
            bq = bw * y
            bv = bq + bu1
            return bv
        """
    ) == ["    bq = bw * y", "    bv = bq - bw * v1", "    return bv"]


def test_negation_on_the_left_of_a_sum_and_under_a_subtraction():
    assert folded(
        """
        def f(a, b, c):
            n = -a
            m = -b
            s = n + c
            r = s - m
            return r
        """
    ) == ["    s = c - a", "    r = s + b", "    return r"]


@pytest.mark.parametrize(
    "src",
    [
        # b changes between the copy and the update
        """
        def f(b, c):
            a = b
            b = b + 1
            a = a + c
            return a, b
        """,
        # the copy's value is read before the update
        """
        def f(b, c):
            a = b
            d = a * 2
            a = a + c
            return a, d
        """,
        # a helper writes into b in place
        """
        def f(b, c, i):
            a = b
            add_at(b, i, c)
            a = a + c
            return a
        """,
    ],
)
def test_copy_stays_where_folding_would_change_a_value(src):
    assert any(line.strip() == "a = b" for line in folded(src))


@pytest.mark.parametrize(
    "src",
    [
        # read twice
        """
        def f(e, y):
            a = -e
            s = y + a
            return s * a
        """,
        # what it negates changes between
        """
        def f(e, y):
            a = -e
            e = e * 2
            s = y + a
            return s, e
        """,
        # written into in place between
        """
        def f(e, y, i):
            a = -e
            e[i] = 0.0
            s = y + a
            return s
        """,
        # read by a product, not a sum
        """
        def f(e, y):
            a = -e
            s = y * a
            return s
        """,
    ],
)
def test_negation_stays_where_folding_would_change_a_value(src):
    assert any(line.strip() == "a = -e" for line in folded(src))


def test_names_bound_in_a_loop_are_not_merged():
    lines = folded(
        """
        def f(x, n):
            for i in range(n):
                t = x * i
            s = t
            return s * t
        """
    )
    assert "    s = t" in lines


def test_functions_with_inner_scopes_are_left_alone():
    lines = folded(
        """
        def f(x):
            t = x * 2
            bw = t
            g = lambda t: t + 1
            return g(bw)
        """
    )
    assert "    bw = t" in lines


def elementwise(x):
    return np.sum(np.exp(np.sin(x)) * x**2 / (1 + x**2))


def test_generated_gradient_has_no_copy_or_lone_negation():
    text = s2sad.source(s2sad.grad(elementwise))
    body = [line.strip() for line in text.splitlines() if " = " in line]
    assert not [line for line in body if line.split(" = ")[1].isidentifier()]  # no copies
    assert not [line for line in body if line.split(" = ")[1].startswith("-(")]  # negation folded
    check_grad(elementwise, (np.random.default_rng(0).standard_normal((3, 4)),))


def shared(x, y):
    d = x - y
    return np.sum(d * d) + np.sum(-d * y)


def test_gradients_through_folded_code():
    rng = np.random.default_rng(1)
    check_grad(shared, (rng.standard_normal(5), rng.standard_normal(5)))
