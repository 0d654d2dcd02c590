"""Second derivatives of ordinary in-place code (round 25, hess2 branch): writes through views (README's own
``v = x[1:]; v *= 2``), a name that is the argument itself (``y = x; y *= x[0]``), rows of a loop written in
place (``for row in m: row *= row[0]``), element writes reading other elements in a loop.  Their gradients
were exact and their Hessians refused ("cannot differentiate the derivative of ... again").  Each is checked
in every second-order mode against finite differences of f (hessian, hvp, jvp of grad, jacobian of grad in
forward and reverse mode: grad of grad), with the caller's inputs unchanged."""

import numpy as np
import pytest
from exact_or_refused import check, numeric_hessian

import s2sad


def view_write(x):
    v = x[1:]
    v *= 2
    return np.sum(x**2)


def view_write_sin(x):
    v = x[1:]
    v *= x[0]
    return np.sum(np.sin(x) * x)


def view_setitem(x):
    v = x[:2]
    v[1] = v[0] * x[2]
    return np.sum(x**3)


def argument_alias(x):
    y = x
    y *= x[0]
    return np.sum(y * x)


def rows_of_argument(m):
    for row in m:
        row *= row[0]
    return np.sum(m**2)


def rows_of_copy(m):
    m = m.copy()
    for row in m:
        row *= row[0]
    return np.sum(m**2)


def rows_two_writes(m):
    m = m * 1.0
    for row in m:
        row *= row[0]
        row[1] = row[1] * row[2]
    return np.sum(np.sin(m) * m)


def rows_of_product(m):
    a = m * 1.5
    for row in a:
        row *= row[1]
    return np.sum(np.sin(a))


def element_loop(x):
    h = x.copy()
    for _ in range(3):
        h[1] = h[1] * h[2]
    return np.sum(h**2)


def element_loop_i(x):
    h = x.copy()
    for i in range(len(x) - 1):
        h[i] = h[i] * h[i + 1]
    return np.sum(h**2) + h[0]


def element_loop_result(x):
    h = x.copy()
    for i in range(2):
        h[i] = h[i] * h[i + 1]
    return h[0] * h[1]


V3 = np.array([1.3, 0.7, -0.4])
V4 = np.array([0.9, -0.6, 1.2, 0.5])
M = np.array([[1.1, 0.5, -0.3], [0.3, -0.8, 0.6]])

CASES = [
    (view_write, V3),
    (view_write_sin, V4),
    (view_setitem, V3),
    (argument_alias, V3),
    (rows_of_argument, M),
    (rows_of_copy, M),
    (rows_of_product, M),
    (element_loop, V3),
    (element_loop_i, V4),
    (element_loop_result, V3),
]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_second_derivatives_of_in_place_code_are_exact_in_every_mode(f, x):
    assert check(f, [x]) == []
    x0 = x.copy()
    H = numeric_hessian(f, [x], 0)
    n = x.size
    v = np.random.default_rng(1).normal(size=x.shape)
    Hv = (H.reshape(n, n) @ v.ravel()).reshape(x.shape)
    g = s2sad.grad(f)
    results = {
        "hessian": s2sad.hessian(f)(x),
        "jacobian(grad) forward": s2sad.jacobian(g, mode="forward")(x),
        "jacobian(grad) reverse": s2sad.jacobian(g, mode="reverse")(x),
    }
    for mode, got in results.items():
        np.testing.assert_allclose(got, H, rtol=1e-4, atol=1e-5, err_msg=mode)
    np.testing.assert_allclose(s2sad.hvp(f)(x, v), Hv, rtol=1e-4, atol=1e-5, err_msg="hvp")
    np.testing.assert_allclose(s2sad.jvp(g)(x, v)[1], Hv, rtol=1e-4, atol=1e-5, err_msg="jvp(grad)")
    assert np.array_equal(x, x0)


# A name that is a view (or item) of an array on some paths only (aliases.join keeps the relation as
# ``maybe``: re-derived and written back where ``is_view`` says so when the code runs)


def view_then_parent_written(x):
    v = x[1:]
    v *= 2
    x[0] = 5.0 * x[2]
    return np.sum(v * x[1:]) + np.sum(v**2)


def view_written_after_branch(x):
    v = x[1:]
    v *= x[0]
    v[0] = x[0] * 3.0
    return np.sum(x**2) + np.sum(np.sin(v))


def row_or_product(A, c):
    B = A * 1.0
    if c > 0:
        r = B[0]
    else:
        r = B[1] * 2.0
    B[0, 0] = 5.0 * A[1, 1]
    return np.sum(r * B[0]) + np.sum(B**2)


def row_or_zeros(A, c):
    B = A * 1.0
    if c > 0:
        r = B[0]
    else:
        r = np.zeros(3)
    r[0] = 5.0 * A[1, 1]
    return np.sum(r * B[0]) + np.sum(B**2)


def slice_or_copy(x, c):
    y = x * 1.0
    if c > 0:
        v = y[1:]
    else:
        v = y[1:] * 1.0
    v[0] = x[0] ** 2
    y[2] = y[2] * x[1]
    return np.sum(y**2) + np.sum(v * x[1:])


A23 = np.array([[1.1, 0.5, -0.3], [0.3, -0.8, 0.6]])
PATHS = [
    (view_then_parent_written, [V3]),
    (view_written_after_branch, [V4]),
    (row_or_product, [A23, 1.0]),
    (row_or_product, [A23, -1.0]),
    (row_or_zeros, [A23, 1.0]),
    (row_or_zeros, [A23, -1.0]),
    (slice_or_copy, [V3, 1.0]),
    (slice_or_copy, [V3, -1.0]),
]


@pytest.mark.parametrize("f, args", PATHS, ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(PATHS)])
def test_views_on_some_paths_only_are_exact_or_refused(f, args):
    assert check(f, args, wrt=(0,)) == []


def swapped_pair(x, y):
    a = x.copy()
    b = y.copy()
    for _ in range(2):
        a, b = b, a
        a[0] = a[0] * b[1]
    return np.sum(a**2 + b)


def alias_then_add(x):
    y = x
    y *= x[0]
    y += x * x
    return np.sum(np.cos(y) * x)


def test_buffers_swapped_by_name_are_exact():
    """Refused before round 35 (a and b were one memory for the loop); two copies swapped by name are apart."""
    assert check(swapped_pair, [V3, V4[:3]]) == []
    s2sad.grad(swapped_pair)(V3, V4[:3])


REFUSED = [
    (rows_two_writes, [M], s2sad.hessian, 4, "in-place write into 'row'", "a value the derivative keeps"),
    (alias_then_add, [V3], s2sad.grad, 3, "in-place write into 'y'", "'x'"),
]


@pytest.mark.parametrize("f, args, mode, line, what, other", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_still_refused_at_the_users_line_naming_the_variables(f, args, mode, line, what, other):
    # known_failures: exact first-order gradients (rows) or refusals, never a wrong number
    assert check(f, args) == []
    with pytest.raises(s2sad.DifferentiationError) as e:
        mode(f)(*args)
    message = str(e.value)
    assert message.startswith(f"{__file__}:{f.__code__.co_firstlineno + line}:"), message
    assert what in message and other in message, message


def transposed_then_written(a):
    a = a * 1.0
    b = a.T
    a[0, 0] = a[1, 1] * 3.0
    return np.sum(b * a)


def test_a_name_sharing_memory_by_no_exact_relation_is_refused():
    with pytest.raises(s2sad.DifferentiationError) as e:
        s2sad.grad(transposed_then_written)(np.arange(4.0).reshape(2, 2) + 1)
    line = transposed_then_written.__code__.co_firstlineno + 3
    assert str(e.value).startswith(f"{__file__}:{line}:5: in-place write into 'a', which may share memory with 'b'")


def either(x, c):
    a = x * 1.0
    b = a if c > 0 else a * 2.0
    a[0] = a[1] * x[2]
    return np.sum(a * b)


def same_pair(x):
    a = x * 1.0
    b = a
    for _ in range(2):
        a, b = b, a
        a[0] = a[0] * b[1]
    return np.sum(a**2 + b)


def listed(x):
    a = x * 1.0
    lst = [a, x]
    for _ in range(2):
        lst = [lst[1], lst[0]]
        a[0] = a[1] * x[2]
    return np.sum(lst[0] * a)


@pytest.mark.parametrize(
    "f, args",
    [(either, [V3, 1.0]), (either, [V3, -1.0]), (same_pair, [V3]), (listed, [V3])],
    ids=["either-same", "either-apart", "same_pair", "listed"],
)
def test_names_sharing_memory_on_some_paths_are_exact_or_refused(f, args):
    assert check(f, args, wrt=(0,)) == []
