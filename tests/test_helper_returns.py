"""A user function whose every return value is a new object (``return w * v``) shares no memory with its
arguments: the caller may write into its result (``w = scale(w, x[i]); w[0] += 1``), in every mode and at
second order.  Helpers that may return an argument, a global or a view keep the caller's write refused or
exact (the exact-or-refused checker)."""

import numpy as np
import pytest
from exact_or_refused import assert_exact_or_refused, check

import s2sad

G = np.array([1.0, 2.0, 3.0])


def scale(w, v):
    return w * v


def fresh_local(w, v):
    r = np.zeros(3)
    r += w * v
    return r


def pair(w, v):
    return w * v, w + v


def first(w, v):
    return w


def maybe_same(w, v):
    r = w
    if v > 0:
        r = w * v
    return r


def view_of(w, v):
    return w[:]


def global_array(w, v):
    return G


def row_loop(w, v):
    for r in [w]:
        pass
    return r


def calls_user(w, v):
    return first(w, v)


mul = lambda w, v: w * v  # noqa: E731


def loop_scale(x):
    w = np.ones(3)
    for i in range(3):
        w = scale(w, x[i])
        w[0] += 1.0
    return np.sum(w * w)


def straight_scale(x):
    w = scale(x, 2.0)
    w[1] *= x[0]
    return np.sum(np.sin(w))


def local_result(x):
    w = fresh_local(x, x[2])
    w[0] = w[0] * x[1]
    return np.sum(w**2)


def tuple_result(x):
    a, b = pair(x, x[0])
    c = np.sum(b * b)
    a[0] += c
    return np.sum(a * a)


def tuple_cross(x):
    a, b = pair(x, x[0])
    a[0] += b[1]
    return np.sum(a * b)


def tuple_read_after_write(x):
    u = pair(x, x[0])
    a, b = u
    a[0] += b[1]
    return np.sum(u[0] * b) + np.sum(u[1])


def lambda_result(x):
    w = mul(x, 3.0)
    w[2] -= x[0] ** 2
    return np.sum(w**3)


def _writer(helper):
    def f(x):
        w = helper(x, 2.0)
        w[0] += 1.0
        return np.sum(w * x)

    f.__name__ = f"writes_into_{helper.__name__}"
    return f


X = np.array([0.5, 1.5, 2.0])


@pytest.mark.parametrize("f", [loop_scale, straight_scale, local_result, tuple_result, tuple_cross, lambda_result])
def test_writes_into_a_new_result_are_exact_in_every_mode(f):
    symptoms = check(f, [X.copy()])
    assert not symptoms, "\n".join(symptoms)
    # exact, not refused: every mode returns
    x = X.copy()
    s2sad.grad(f)(x), s2sad.value_and_grad(f)(x), s2sad.jvp(f)(x, np.ones(3)), s2sad.hessian(f)(x)
    assert np.array_equal(x, X)


@pytest.mark.parametrize("helper", [first, maybe_same, view_of, row_loop, calls_user])
def test_helpers_that_may_return_shared_memory_stay_exact_or_refused(helper):
    assert_exact_or_refused(_writer(helper), [X.copy()])


def test_a_helper_returning_a_global_never_changes_it_from_a_derivative():
    f = _writer(global_array)  # f itself writes into G: each run of f changes it
    for mode in (s2sad.grad, s2sad.value_and_grad, lambda f: lambda v: s2sad.jvp(f)(v, np.ones(3))):
        g0, x = G.copy(), X.copy()
        try:
            got = mode(f)(x)
        except s2sad.DifferentiationError as e:
            assert "test_helper_returns.py:" in str(e)
            continue
        assert np.array_equal(G, g0) and np.array_equal(x, X)
        expected = G.copy()
        expected[0] += 1.0
        grads = got[1] if isinstance(got, tuple) else got
        assert np.allclose(grads, expected) if grads.shape == (3,) else np.isclose(grads, np.sum(expected))


def test_the_tuple_read_after_a_write_into_its_item_is_exact_or_refused():
    assert_exact_or_refused(tuple_read_after_write, [X.copy()])


def test_a_helper_returning_an_argument_still_refuses_the_write():
    f = _writer(first)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_helper_returns\.py:\d+:\d+: .*share memory"):
        s2sad.grad(f)(X.copy())


def test_the_generated_gradient_calls_the_helper_and_writes_into_its_result():
    src = s2sad.source(s2sad.grad(loop_scale))
    assert "w = scale(w, t)" in src and "vjp_scale" in src
