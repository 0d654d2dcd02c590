"""Exact or refused: the programs that once gave silently wrong numbers (issue "Trust I").

Each program is run through value_and_grad, jvp and hessian.  The outcome must be the exact value
and derivatives (against f itself and central finite differences) with the caller's arrays and
tangents unchanged, or a DifferentiationError naming the user's file:line:col.  Anything else (a
wrong number, a changed input, another exception) fails.
"""

import re

import numpy as np
import pytest
from fd import numeric_grad as _numeric_grad

import s2sad

FILE = re.escape(__file__.rstrip("c"))


def numeric_grad(f, x):
    return _numeric_grad(f, [x], 0)


# ---- the examples of the issue, with their exact answers ------------------------------------------


def power_loop(x):
    y = x
    for i in range(3):
        y = y * x
    return y


def swap(x, y):
    for _ in range(3):
        x, y = y, x
    return x * y * y


def views(x):
    a = x * 1.0
    v = a[1:]
    v *= 2
    return np.sum(a * a)


def test_value_returned_when_the_output_is_reassigned_in_a_loop():
    assert s2sad.value_and_grad(power_loop)(2.0) == (16.0, 32.0)
    assert s2sad.jvp(power_loop)(2.0, 1.0) == (16.0, 32.0)


def test_swap_in_a_loop():
    value, (gx, gy) = s2sad.value_and_grad(swap, wrt=(0, 1))(0.4, 0.9)
    # after an odd number of swaps f is y * x * x: 0.144, d/dx = 2xy = 0.72, d/dy = x * x = 0.16
    assert np.isclose(value, 0.144) and np.isclose(gx, 0.72) and np.isclose(gy, 0.16)


def test_write_through_a_view():
    x = np.array([0.5, -1.5, 2.0, 0.25])
    assert np.allclose(s2sad.grad(views)(x), [1.0, -12.0, 16.0, 2.0])


# ---- the adversarial programs --------------------------------------------------------------------


def branches_rebind_output(x):
    y = x * 2
    if x > 0:
        y = y * x
    if x > 1:
        y = y + x
    else:
        y = y - 1
    return y


def fib_pairs(a, b):
    for _ in range(4):
        a, b = a + b, a
    return a * b


def rotate_in_branch(x, y, z):
    if x > 0:
        x, y, z = y, z, x * 2
    return x * y + z


def copy_write(x):
    a = x * 1.0
    b = a
    b[0] = 5.0 * x[1]
    return np.sum(a * x)


def row_write(x):
    a = np.outer(x, x)
    row = a[0]
    row += x
    return np.sum(a * a)


def for_rows(x):
    a = np.outer(x, x)
    for row in a:
        row += x
    return np.sum(a * a)


def alias_augmented(x):
    a = x * 2.0
    b = a
    b += 1
    return np.sum(a * b)


def scalar_alias_augmented(x):
    s = x[0] * 1.0
    t = s
    t += 1.0
    return s * t


def list_alias(x):
    a = [x[0], x[1]]
    b = a
    b.append(x[2] * 2)
    return a[2] * a[0]


def input_write(x):
    x[0] = x[1] * x[2]
    return np.sum(x * x)


def nested_write(x):
    a = np.outer(x, x)
    a[0][1] = x[2] * 5
    return np.sum(a * a)


def view_of_view(x):
    a = x * 1.0
    v = a[1:]
    w = v[1:]
    w[0] = x[0] ** 3
    return np.sum(a[1:] * v)


def write_base_read_view(x):
    a = x * 1.0
    v = a[:2]
    a[0] = x[3] * 4
    return np.sum(v * v)


def view_made_in_loop(x):
    a = x * 1.0
    for i in range(3):
        v = a[i:]
        v *= x[i]
    return np.sum(a * a)


def swap_arrays_in_loop(x):
    a = x * 1.0
    b = x * 2.0
    for i in range(3):
        a, b = b, a
        a[0] = a[0] * x[i]
    return np.sum(a * b)


def repeated_fancy_index(x):
    a = np.zeros(4)
    a[[0, 0, 1]] += x[:3]
    return np.sum(a * a)


def named_like_an_adjoint(x):
    buf = x * 1.0
    t = np.sin(buf)
    buf[0] = 3.0
    u = np.sin(buf)
    return np.sum(t * u)


def times_one_then_write(x):
    a = x * 1.0
    a[0] = 0.0
    return np.sum(a * x)


def plus_zero_then_write(x):
    a = x + 0.0
    a[1] = 0.0
    return np.sum(a * x)


def power_one_then_write(x):
    a = x**1
    a[1] = 2.0
    return np.sum(a * x)


def transpose_write(x):
    a = x.reshape(2, 2) * 1.0
    a.T[0, 1] = x[0] * 3
    return np.sum(a * a)


def reshape_write(x):
    a = x * 1.0
    a.reshape(2, 2)[0, 0] = x[1] ** 2
    return np.sum(a * x)


def helper_view(a):
    return a[1:]


def write_into_helper_view(x):
    a = x * 2.0
    v = helper_view(a)
    v[0] = 7.0 * x[0]
    return np.sum(a * a)


def stale_view_in_loop(x):
    a = x * 1.0
    v = a[0:2]
    for k in range(2):
        v *= 2
        v = a[k : k + 2]
    return np.sum(a * a)


def view_read_after_base_write(x):
    a = x * 1.0
    v = a[1:]
    a[1] = x[0] * 9
    return np.sum(v * x[1:])


def input_view_write(x):
    v = x[1:]
    v *= 3
    return np.sum(x * x)


ARRAY_PROGRAMS = [
    views,
    copy_write,
    row_write,
    for_rows,
    alias_augmented,
    scalar_alias_augmented,
    list_alias,
    input_write,
    nested_write,
    view_of_view,
    write_base_read_view,
    view_made_in_loop,
    swap_arrays_in_loop,
    repeated_fancy_index,
    named_like_an_adjoint,
    times_one_then_write,
    plus_zero_then_write,
    power_one_then_write,
    transpose_write,
    reshape_write,
    write_into_helper_view,
    stale_view_in_loop,
    view_read_after_base_write,
    input_view_write,
]
# programs s2sad may refuse (it cannot tell exactly what the write changes); every other one must be exact
MAY_REFUSE = {
    view_made_in_loop,
    swap_arrays_in_loop,
    transpose_write,
    reshape_write,
    write_into_helper_view,
    stale_view_in_loop,
    input_view_write,
}
MUST_WORK = set(ARRAY_PROGRAMS) - MAY_REFUSE


def _refused_at_users_line(err, fn):
    message = str(err)
    return bool(re.match(r"(<s2sad [^>]*>|" + FILE + r"):\d+:\d+: ", message)), message


def _exact_or_refused(run, fn):
    try:
        run()
    except s2sad.DifferentiationError as err:
        ok, message = _refused_at_users_line(err, fn)
        assert ok, message
        return False
    return True


@pytest.mark.parametrize("fn", ARRAY_PROGRAMS, ids=lambda f: f.__name__)
def test_reverse_value_and_grad(fn):
    x = np.random.default_rng(1).normal(size=4) + 1.5
    x0 = x.copy()
    want_value, want_grad = fn(x.copy()), numeric_grad(lambda z: fn(z.copy()), x)

    def run():
        value, grad = s2sad.value_and_grad(fn)(x)
        assert np.allclose(value, want_value), (value, want_value)
        assert np.allclose(grad, want_grad, atol=1e-6), (grad, want_grad)
        assert np.array_equal(x, x0), "the caller's array was changed"

    worked = _exact_or_refused(run, fn)
    assert worked or fn not in MUST_WORK


@pytest.mark.parametrize("fn", ARRAY_PROGRAMS, ids=lambda f: f.__name__)
def test_forward_jvp(fn):
    rng = np.random.default_rng(2)
    x, dx = rng.normal(size=4) + 1.5, rng.normal(size=4)
    x0, dx0 = x.copy(), dx.copy()
    want_value, want_grad = fn(x.copy()), numeric_grad(lambda z: fn(z.copy()), x)

    def run():
        value, tangent = s2sad.jvp(fn)(x, dx)
        assert np.allclose(value, want_value), (value, want_value)
        assert np.allclose(tangent, want_grad @ dx0, atol=1e-6), (tangent, want_grad @ dx0)
        assert np.array_equal(x, x0) and np.array_equal(dx, dx0), "the caller's data was changed"

    worked = _exact_or_refused(run, fn)
    assert worked or fn not in MUST_WORK


@pytest.mark.parametrize("fn", ARRAY_PROGRAMS, ids=lambda f: f.__name__)
def test_hessian(fn):
    x = np.random.default_rng(3).normal(size=4) + 1.5
    x0 = x.copy()

    def run():
        grad = s2sad.grad(fn)
        want = numeric_grad(lambda z: grad(z.copy()), x)
        hess = s2sad.hessian(fn)(x)
        assert np.allclose(hess, want, atol=1e-4), (hess, want)
        assert np.array_equal(x, x0)

    _exact_or_refused(run, fn)


SCALAR_PROGRAMS = [(power_loop, 1), (swap, 2), (branches_rebind_output, 1), (fib_pairs, 2), (rotate_in_branch, 3)]


@pytest.mark.parametrize("fn, n", SCALAR_PROGRAMS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_scalar_reassignments_all_modes(fn, n, sign):
    args = [sign * (0.5 + 0.4 * k) for k in range(n)]
    wrt = tuple(range(n))
    value, grads = s2sad.value_and_grad(fn, wrt=wrt)(*args)
    assert np.isclose(value, fn(*args))
    for i in range(n):
        h = 1e-6
        up, down = list(args), list(args)
        up[i] += h
        down[i] -= h
        want = (fn(*up) - fn(*down)) / (2 * h)
        assert np.isclose(grads[i], want, atol=1e-6)
        tangents = [float(k == i) for k in range(n)]
        jv, jt = s2sad.jvp(fn, wrt=wrt)(*args, *tangents)
        assert np.isclose(jv, fn(*args)) and np.isclose(jt, want, atol=1e-6)
