"""Reverse mode through Python control flow, against central finite differences."""

import math

import numpy as np
import pytest
from fd import assert_close, check_grad

import s2sad

rng = np.random.default_rng(42)


# ---- if / elif / else ------------------------------------------------------------------------


def branchy(x, y):
    if x > 0:
        z = x * y
    elif y > 1:
        z = math.sin(x) * y
        w = z * 2
        z = z + w
    else:
        z = x - y
    return z * x


@pytest.mark.parametrize("x, y", [(0.7, 2.0), (-0.5, 3.0), (-0.5, 0.2)])
def test_if_elif_else(x, y):
    check_grad(branchy, [x, y])


def different_vars(x):
    a = x * 2
    if np.sum(x) > 0:
        b = np.sin(x)
        c = b * a
    else:
        c = np.cos(x)
    return np.sum(c * x)


def test_branches_assign_different_variables():
    x = rng.normal(size=4)
    check_grad(different_vars, [np.abs(x)])
    check_grad(different_vars, [-np.abs(x)])


def conditional_expression(x, y):
    z = x * y if x > y else x + y * y
    return z * z


def test_conditional_expression():
    check_grad(conditional_expression, [1.5, 0.5])
    check_grad(conditional_expression, [0.5, 1.5])


def early_return(x, y):
    if x > 1:
        return x * y
    z = math.exp(x)
    if z > 2:
        return z * y * y
    return z + y


@pytest.mark.parametrize("x", [2.0, 0.9, 0.1])
def test_early_return(x):
    check_grad(early_return, [x, 1.7])


def nested_if(x):
    y = x
    if x > 0:
        if x > 1:
            y = y * y
        else:
            y = y * 3
    return y * x


@pytest.mark.parametrize("x", [2.0, 0.5, -1.0])
def test_nested_if(x):
    check_grad(nested_if, [x])


# ---- for loops --------------------------------------------------------------------------------


def scalar_loop(x, y):
    z = 1.0
    s = 0.0
    for i in range(100):
        z = 0.5 * z * x + math.sin(y * z)
        s = s + z * z
    return s


def test_scalar_loop_100():
    check_grad(scalar_loop, [0.7, 1.3])


def runtime_range(x, n, start, step):
    s = 0.0
    for i in range(start, n, step):
        s += x * i + s * 0.1
    return s


def test_range_bounds_at_run_time():
    check_grad(runtime_range, [1.3, 11, 2, 3], wrt=[0])


def over_array(xs, w):
    s = 0.0
    for x in xs:
        s = s + np.tanh(x * w)
    return np.sum(s)


def test_for_over_array_rows():
    check_grad(over_array, [rng.normal(size=(5, 3)), rng.normal(size=3)])


def with_enumerate(xs, w):
    s = 0.0
    for i, x in enumerate(xs):
        s = s + x * w**i
    return s


def test_enumerate():
    check_grad(with_enumerate, [rng.normal(size=6), 0.9])


def with_zip(xs, ys):
    s = 0.0
    for a, b in zip(xs, ys):
        s += a * b * a
    return s


def test_zip():
    check_grad(with_zip, [rng.normal(size=5), rng.normal(size=7)])


def nested_loops(A, x):
    s = 0.0
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            s = s + A[i, j] * x[j] * x[i % 3]
    return s


def test_nested_loops_over_matrix_elements():
    check_grad(nested_loops, [rng.normal(size=(3, 4)), rng.normal(size=4)])


def helper(a, b):
    return a * math.cos(b)


def loop_calls_user_function(x, y):
    s = 0.0
    for i in range(5):
        s = s + helper(x, y * i) + helper(s, 0.1)
    return s


def test_loop_calls_user_function():
    check_grad(loop_calls_user_function, [0.6, 1.1])


def subscripts_in_loop(x):
    s = 0.0
    for i in range(1, len(x)):
        s = s + x[i] * x[i - 1] + x[-1]
    return s


def test_subscripts_in_loop():
    check_grad(subscripts_in_loop, [rng.normal(size=6)])


def accumulate_augmented(x):
    s = 0.0
    p = 1.0
    for i in range(4):
        s += x * i
        p *= x + s
    return s + p


def test_augmented_accumulation():
    check_grad(accumulate_augmented, [0.8])


# ---- while, break, continue -----------------------------------------------------------------


def data_dependent_while(x):
    z = x
    while z < 10.0:
        z = z * 1.5 + x
    return z


@pytest.mark.parametrize("x", [0.3, 2.0, 11.0])
def test_while_trip_count_depends_on_x(x):
    check_grad(data_dependent_while, [x])


def newton_sqrt(a):
    x = a
    for i in range(10):
        x = 0.5 * (x + a / x)
    return x


def test_newton_sqrt_matches_analytic():
    got = s2sad.grad(newton_sqrt)(2.0)
    assert abs(got - 1 / (2 * math.sqrt(2.0))) < 1e-12


def breaks(x):
    s = 0.0
    for i in range(20):
        s = s + math.sin(x * i)
        if s > 1.5:
            break
        s = s * 1.1
    return s * x


@pytest.mark.parametrize("x", [0.1, 0.4, 1.2])
def test_break_on_data_condition(x):
    check_grad(breaks, [x])


def continues(x):
    s = 0.0
    for i in range(10):
        t = x * i
        if math.sin(t) < 0:
            continue
        s = s + t * t
    return s


def test_continue():
    check_grad(continues, [0.7])


def while_break(x):
    z = x
    n = 0
    while True:
        z = z * z + 0.1
        n += 1
        if z > 5 or n > 50:
            break
    return z


def test_while_true_with_break():
    check_grad(while_break, [1.2])


# ---- NumPy in loops -----------------------------------------------------------------------


def rnn(Wx, Wh, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.sum(h * h)


def test_tanh_rnn_50_steps():
    Wx = rng.normal(size=(3, 4)) * 0.3
    Wh = rng.normal(size=(4, 4)) * 0.3
    xs = rng.normal(size=(50, 2, 3))
    h0 = np.zeros((2, 4))
    check_grad(rnn, [Wx, Wh, xs, h0], wrt=[0, 1])


def fill_elementwise(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * x[i] + 1.0
    return np.sum(np.sin(out))


def test_array_filled_element_by_element():
    check_grad(fill_elementwise, [rng.normal(size=5)])


def overwrite_then_read(x):
    a = np.copy(x)
    s = 0.0
    for i in range(len(x)):
        s = s + np.sum(a * a)
        a[i] = a[i] * 3.0
        a[0] += x[i]
    return s + np.sum(a)


def test_in_place_writes_restore_old_values():
    check_grad(overwrite_then_read, [rng.normal(size=4)])


def column_write(x):
    a = np.zeros((3, 2))
    a[:, 0] = x
    a[:, 1] = x * x
    return np.sum(a @ a.T)


def test_slice_write():
    check_grad(column_write, [rng.normal(size=3)])


def list_append_stack(x, W):
    hs = []
    h = x
    for i in range(4):
        h = np.tanh(h @ W)
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def test_list_append_then_stack():
    check_grad(list_append_stack, [rng.normal(size=3), rng.normal(size=(3, 3))])


def list_append_sum(x):
    terms = []
    for i in range(5):
        terms.append(x**i / (i + 1))
    return sum(terms)


def test_list_append_then_builtin_sum():
    check_grad(list_append_sum, [0.7])


# ---- what is saved ------------------------------------------------------------------------


def invariant_heavy(x, W):
    s = 0.0
    for i in range(30):
        s = s + np.sum(np.tanh(W) * x * i)
    return s


def test_loop_invariants_are_not_pushed():
    text = s2sad.source(s2sad.grad(invariant_heavy, wrt=(0, 1)))
    # np.tanh(W) and its product with x are the same at every iteration: computed, never saved
    assert "t = np.tanh(W)" in text and "t_stack" not in text and "u_stack" not in text, text
    assert text.count(".append(") == 1, text  # only the iteration-dependent u * i
    check_grad(invariant_heavy, [rng.normal(size=3), rng.normal(size=3)])


def count_pushes(fn, *args):
    """Run ``fn`` and count the list appends its own frame makes (the stack pushes)."""
    import sys

    code = fn.__s2sad_impl__.__code__  # the generated function (fn may be a guard around it)
    count = [0]

    def profile(frame, event, arg):
        if event == "c_call" and frame.f_code is code and getattr(arg, "__name__", "") == "append":
            count[0] += 1

    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return count[0]


def test_stack_holds_at_most_needed_values_per_iteration():
    g = s2sad.grad(scalar_loop, wrt=(0, 1))
    text = s2sad.source(g)
    # 100 iterations, one overwritten value the adjoint needs (the old z); x and y are loop invariants
    # and the cheap products of z are recomputed, not saved
    assert count_pushes(g, 0.7, 1.3) == 100, text
    assert "x_stack" not in text and "y_stack" not in text


def test_rnn_saves_one_state_per_step():
    g = s2sad.grad(rnn, wrt=(0, 1))
    Wx, Wh, xs, h0 = rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), rng.normal(size=(50, 2, 3)), np.zeros((2, 4))
    pushes = count_pushes(g, Wx, Wh, xs, h0)
    # per step: the old h, and the two matmul results whose shapes the sum's adjoint checks
    assert pushes <= 3 * 50, s2sad.source(g)


# ---- refusals ---------------------------------------------------------------------------


def over_generator(x):
    s = 0.0
    for v in (x * i for i in range(3)):
        s = s + v
    return s


@pytest.mark.parametrize(
    "fn, construct",
    [
        (over_generator, "generator"),
    ],
)
def test_unsupported_control_flow_is_refused(fn, construct):
    with pytest.raises(s2sad.DifferentiationError) as err:
        s2sad.grad(fn)
    message = str(err.value)
    assert message.startswith(f"{__file__}:"), message
    assert construct in message


def test_forward_and_loop_results_match_value():
    value, g = s2sad.value_and_grad(scalar_loop, wrt=(0, 1))(0.7, 1.3)
    assert value == scalar_loop(0.7, 1.3)
    assert_close(g[0], check_grad(scalar_loop, [0.7, 1.3])[0])


def branch_passes_adjoint_through(x, c):
    v = x * 0.5
    for i in range(1):
        v = v + np.cos(v) * np.tanh(x)
    if c > 0:
        v = v + x  # x's adjoint is v's adjoint itself on this branch, zeros on the other
    return np.sum(v)


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_adjoint_passed_through_a_branch_is_not_added_into_in_place(c):
    # the adjoint of x, the same array as v's on one branch, must not be added into in place later
    check_grad(branch_passes_adjoint_through, [np.array([0.3, -0.2, 0.5]), c], wrt=(0,))
