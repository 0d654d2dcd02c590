"""Issue 13: second and third derivatives of element writes in loops that read other elements of the same
array (a symplectic Euler step, row swaps), of lists written in place, and of append loops.  Each program is
checked in every mode against finite differences (exact_or_refused.check), and its Hessian must be computed,
not refused; the third derivative ``jacobian(hessian(f))`` is compared with finite differences of the Hessian."""

import numpy as np
import pytest
from exact_or_refused import check

import s2sad


def euler(q0, k):
    y = np.array([q0, 0.0])
    for _ in range(5):
        y[1] = y[1] - k * y[0]
        y[0] = y[0] + y[1]
    return y[0] ** 2 + y[1]


def euler_copy(x, k):
    y = x.copy()
    for _ in range(5):
        y[1] = y[1] - k * y[0]
        y[0] = y[0] + y[1]
    return y[0] ** 2 + y[1]


def euler_while(q0, k):
    y = np.array([q0, 0.0])
    n = 0
    while n < 4:
        y[1] = y[1] - k * y[0]
        y[0] = y[0] + y[1]
        n += 1
    return y[0] ** 2 + y[1]


def euler_if(q0, k):
    y = np.array([q0, 0.2])
    for i in range(4):
        if i % 2 == 0:
            y[1] = y[1] - k * y[0]
        else:
            y[0] = y[0] * y[1]
    return y[0] ** 2 + y[1]


def euler_zeros(q0, k):
    y = np.zeros(2)
    y[0] = q0
    for _ in range(5):
        y[1] = y[1] - k * y[0]
        y[0] = y[0] + y[1]
    return y[0] ** 2 + y[1]


def row_swaps(A):
    A = A.copy()
    for k in range(2):
        A[[k, k + 1]] = A[[k + 1, k]]
        A[k] = A[k] * A[k + 1]
    return np.sum(A**2)


def row_swaps_outer(x):
    A = np.outer(x, x)
    for k in range(2):
        A[[k, k + 1]] = A[[k + 1, k]]
    return np.sum(np.tanh(A) * np.arange(9.0).reshape(3, 3))


def scaled_swaps(x):
    A = x.copy()
    for k in range(2):
        A[[k, k + 1]] = A[[k + 1, k]] * x[k]
    return np.sum(A**3)


def swap_in_loop(q0, k):
    y = np.array([q0, 0.5])
    for _ in range(4):
        y[0], y[1] = y[1], y[0] * k
    return y[0] ** 2 + y[1] * y[0]


def row_swap_pitfall(x):
    # A[k + 1] on the right is a view: after A[k] = it, both rows hold the old row k + 1 (NumPy's semantics)
    A = np.outer(x, x) + np.eye(3)
    for k in range(2):
        A[k], A[k + 1] = A[k + 1], A[k] * x[k]
    return np.sum(A**2 * np.arange(9.0).reshape(3, 3))


def rows_2d(x):
    Y = np.outer(x, x)
    for i in range(1, 3):
        Y[i] = Y[i] + np.sin(Y[i - 1])
    return np.sum(Y**2)


def list_of_array(x):
    vals = list(x)
    for i in range(1, len(x)):
        vals[i] += vals[i - 1] * x[i]
    return vals[-1]


def list_display(x):
    vals = [x[0], x[1], x[2], x[3]]
    for i in range(1, len(x)):
        vals[i] += vals[i - 1] * x[i]
    return vals[-1]


def list_of_zeros(x):
    vals = [0.0] * len(x)
    vals[0] = x[0]
    for i in range(1, len(x)):
        vals[i] += vals[i - 1] * x[i]
    return vals[-1] + vals[1] ** 2


def list_tolist(x):
    vals = x.tolist()
    for i in range(1, len(vals)):
        vals[i] += vals[i - 1] * x[i]
    return vals[-1]


def list_of_rows(X):
    X = X * 1.0
    rows = list(X)
    for i in range(1, len(rows)):
        rows[i] = rows[i] + rows[i - 1] * X[i]  # a new row: X unchanged
    return np.sum(X**2) + np.sum(rows[-1] ** 2)


def list_comprehension(x):
    vals = [x[i] for i in range(len(x))]
    for i in range(1, len(x)):
        vals[i] = vals[i] + vals[i - 1] * x[i]
    return vals[-1] ** 2


def list_appended(x):
    vals = []
    for i in range(len(x)):
        vals.append(x[i] * 1.0)
    for i in range(1, len(x)):
        vals[i] += vals[i - 1] * x[i]
    return vals[-1]


def append_tanh(x):
    w = 0.7
    hs = [x]
    for t in range(3):
        hs.append(np.tanh(hs[-1] * w))
    return np.sum(hs[-1])


def append_first(x):
    hs = [x]
    for t in range(3):
        hs.append(np.sin(hs[-1]) * hs[0])
    return np.sum(hs[-1] ** 2)


V3 = np.array([0.3, -0.5, 0.7])
V4 = np.array([0.3, 0.5, 0.7, 0.2])
M = np.array([[1.0, 0.5], [0.2, 0.3], [0.7, 0.1]])
EXACT = [
    (euler, (0.3, 0.8)),
    (euler_copy, (np.array([0.3, 0.1]), 0.8)),
    (euler_while, (0.3, 0.8)),
    (euler_if, (0.3, 0.8)),
    (euler_zeros, (0.3, 0.8)),
    (row_swaps, (M,)),
    (row_swaps_outer, (V3,)),
    (scaled_swaps, (V3,)),
    (swap_in_loop, (0.3, 0.8)),
    (row_swap_pitfall, (V3,)),
    (rows_2d, (V3,)),
    (list_of_array, (V4,)),
    (list_display, (V4,)),
    (list_of_zeros, (V4,)),
    (list_tolist, (V4,)),
    (list_of_rows, (M,)),
    (list_comprehension, (V4,)),
    (list_appended, (V4,)),
    (append_tanh, (np.array([0.3, -0.5]),)),
    (append_first, (np.array([0.3, -0.5]),)),
]


@pytest.mark.parametrize("f, args", EXACT, ids=[f.__name__ for f, _ in EXACT])
def test_second_derivatives_of_element_writes_are_exact(f, args):
    assert check(f, args) == []
    for i in range(len(args)):
        before = [np.copy(a) for a in args]
        s2sad.hessian(f, wrt=i)(*args)  # computed (check accepts a located refusal; this does not)
        assert all(np.array_equal(b, a) for b, a in zip(before, args))


def _fd_third(f, args, i, eps=1e-5):
    h = s2sad.hessian(f, wrt=i)
    x = np.array(args[i], dtype=float)
    cols = []
    for idx in np.ndindex(*x.shape) if x.shape else [()]:
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        ap, am = list(args), list(args)
        ap[i], am[i] = (xp, xm) if x.shape else (float(xp), float(xm))
        cols.append((np.asarray(h(*ap)) - np.asarray(h(*am))) / (2 * eps))
    return np.stack(cols, -1).reshape(cols[0].shape + x.shape) if x.shape else cols[0]


THIRD = [c for c in EXACT if c[0] is not row_swaps_outer]  # (its third derivative: see known_failures)


@pytest.mark.parametrize("f, args", THIRD, ids=[f.__name__ for f, _ in THIRD])
def test_third_derivatives_of_element_writes_are_exact(f, args):
    for i in range(len(args)):
        before = [np.copy(a) for a in args]
        got = s2sad.jacobian(s2sad.hessian(f, wrt=i), wrt=i)(*args)
        np.testing.assert_allclose(got, _fd_third(f, args, i), rtol=1e-4, atol=1e-5)
        assert all(np.array_equal(b, a) for b, a in zip(before, args))


def chained_names(x):
    a = b = np.zeros(3)
    for k in range(3):
        a[k] = x[k] ** 2
    return np.sum(b * x)


def aliased_write(q0, k):
    y = np.array([q0, 0.5])
    z = y
    for _ in range(3):
        z[1] = z[1] - k * y[0]
        y[0] = y[0] + z[1]
    return y[0] ** 2 + z[1]


@pytest.mark.parametrize("f, args", [(chained_names, (V3,)), (aliased_write, (0.3, 0.8))])
def test_refused_second_derivatives_name_the_users_line_and_variables(f, args):
    # still refused (known_failures): the message names the user's line and variables, never a temporary
    # of the generated gradient (was "may share memory with 'w1'" / "'t'")
    assert check(f, args) == []
    line = f.__code__.co_firstlineno + (3 if f is chained_names else 4)
    with pytest.raises(s2sad.DifferentiationError) as e:
        s2sad.hessian(f)(*args)
    message = str(e.value)
    assert message.startswith(f"{__file__}:{line}:9: cannot differentiate the derivative of")
    named = message.split("again: ")[1].split(" (used later)")[0]
    assert named in (
        "in-place write into 'a', which may share memory with a value the derivative keeps for its adjoint sweep",
        "in-place write into 'z', which may share memory with 'y'",
    ), message
