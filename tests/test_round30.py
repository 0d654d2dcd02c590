"""Round 30: a parameter rebound to its copy inside a branch or a loop (``u = u.copy()``), then written from
itself (``u[0] = u[0] ** 2``), lost the derivative of the written value in every mode ([0, 4, 6] for [4, 4, 6];
an upwind solver step gave a zero gradient).  The dtype analysis took ``u = np.copy(u)`` for every binding of
``u``, and, the copy's kind following ``u``'s own, found it a known integer array (whose writes store no
derivative): a parameter's value at entry is a binding of no known kind."""

import numpy as np
import pytest
from exact_or_refused import assert_exact_or_refused
from fd import numeric_grad

import s2sad


def copy_in_branch(u):
    if u[0] > 0:
        u = u.copy()
        u[0] = u[0] ** 2
    return np.sum(u**2)


def copy_in_branch_other_argument(u, v):
    if v > 0:
        u = u.copy()
        u[0] = u[2] * v
    return np.sum(u**2)


def upwind(u):
    for _ in range(3):
        un = u.copy()
        un[1:] = u[1:] - 0.4 * (u[1:] - u[:-1])
        un[0] = un[-1]
        u = un
    return np.sum(u**2 * np.arange(1, 5))


def boundary_in_loop(u):
    for _ in range(2):
        un = u.copy()
        un[0] = un[-1] * 2
        u = un
    return np.sum(u**2)


def while_np_array(u):
    k = 0
    while k < 2:
        u = np.array(u)
        u[0] = np.sin(u[1]) + u[0]
        k += 1
    return np.sum(u**2)


def augmented_in_branch(u):
    if u[0] > -10:
        u = u.copy()
        u[0] += u[1]
    else:
        u = u * 2
    return np.sum(u**3)


def np_copy_indexed(u):
    for i in range(2):
        u = np.copy(u)
        u[i] = u[i + 1] ** 2
    return np.sum(u * np.arange(1.0, 5.0))


def plus_zero_copy(u):
    if u[1] < 10:
        u = u + 0
        u[0] = u[0] * u[3]
    return np.sum(u**2)


PROGRAMS = [copy_in_branch, upwind, boundary_in_loop, while_np_array, augmented_in_branch, np_copy_indexed]
PROGRAMS.append(plus_zero_copy)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_exact_or_refused(f):
    x = np.array([0.3, -0.2, 0.5, 0.1]) if f is not copy_in_branch else np.array([1.0, 2.0, 3.0])
    assert_exact_or_refused(f, [x])
    np.testing.assert_allclose(s2sad.grad(f)(x.copy()), numeric_grad(f, [x.copy()], 0), rtol=1e-6, atol=1e-8)


def test_the_reported_numbers():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(s2sad.grad(copy_in_branch)(x), [4.0, 4.0, 6.0])
    assert s2sad.jvp(copy_in_branch)(x, np.array([1.0, 0.0, 0.0]))[1] == 4.0
    assert s2sad.grad(copy_in_branch_other_argument, wrt=1)(x, 2.0) == 36.0
    np.testing.assert_allclose(
        s2sad.grad(upwind)(np.array([0.3, -0.2, 0.5, 0.1])), [0.3588096, 1.0660096, 1.247808, 0.6841728]
    )


def out_into_an_item(x):
    b = np.zeros(3)
    np.sin(x[0], out=b[1])
    return np.sum(b * x)


def out_into_a_row(x):
    b = np.zeros((3, 2))
    np.sin(x[:2], out=b[1])
    return np.sum(b[1] * x[:2])


def test_out_into_a_numpy_scalar_is_refused_as_numpy_raises():
    x = np.array([0.3, 0.5, 0.7])
    with pytest.raises(TypeError):
        out_into_an_item(x)
    for call in (lambda: s2sad.grad(out_into_an_item)(x), lambda: s2sad.jvp(out_into_an_item)(x, np.ones(3))):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round30.py:\d+:\d+: out= is given a value"):
            call()
    assert_exact_or_refused(out_into_a_row, [x])
    np.testing.assert_allclose(s2sad.grad(out_into_a_row)(x), numeric_grad(out_into_a_row, [x.copy()], 0), rtol=1e-6)
