"""break, continue and return anywhere: inside nested ifs followed by more code, return inside loops
(for and while, nested), several returns, for ... else and while ... else, in the differentiated
function and in the user functions it calls.  Each is checked in reverse mode (grad, value_and_grad),
forward mode (jvp) and at second order (hessian) against central finite differences."""

import ast
import math
import textwrap

import gast
import numpy as np
import pytest
from fd import assert_close, call_jvp, check_grad, numeric_grad, numeric_jvp

import s2sad
from s2sad.lower_control import lower_control
from s2sad.parse import parse_function

rng = np.random.default_rng(11)


def check_all(f, args, wrt=0):
    """grad, value_and_grad, jvp and hessian of ``f`` w.r.t. ``args[wrt]`` against finite differences."""
    g = check_grad(f, args, wrt=(wrt,))[0]  # grad against FD, and jvp against grad
    value, g2 = s2sad.value_and_grad(f, wrt=wrt)(*args)
    assert value == f(*args)
    assert_close(g2, g, rtol=1e-12, atol=1e-12)
    tangent = rng.normal(size=np.shape(args[wrt])) if np.ndim(args[wrt]) else 0.7
    value, dout = call_jvp(f, args, (wrt,), [tangent])
    assert value == f(*args)
    assert_close(dout, numeric_jvp(f, args, (wrt,), [tangent]), rtol=1e-5, atol=1e-6)
    H = s2sad.hessian(f, wrt=wrt)(*args)
    assert_close(H, numeric_grad(s2sad.grad(f, wrt=wrt), list(args), wrt), rtol=1e-5, atol=1e-6)


# ---- break and continue inside nested ifs, followed by more code ------------------------------


def break_in_nested_ifs(x):
    s = 0.0
    for i in range(8):
        s = s + math.sin(x * i)
        if i > 1:
            if s > 1.2:
                break
            s = s * 1.1
        s = s + x * x
    return s * x


def continue_in_nested_ifs(x):
    s = 0.0
    for i in range(8):
        t = x * i
        if i % 2 == 0:
            if math.sin(t) < 0:
                continue
            t = t * t
        s = s + math.cos(t) * x
    return s


def both_in_nested_ifs(x):
    h = x * 0.5
    k = 0
    while k < 12:
        k += 1
        h = np.tanh(h + x)
        if np.sum(h) > -5.0:
            if k % 3 == 0:
                continue
            elif np.sum(h) > 2.5:
                break
            h = h * 1.2
        h = h + 0.1 * x
    return np.sum(h * h)


def break_deep_in_elif(x):
    s = x
    for i in range(10):
        if s > 100.0:
            s = s - 1.0
        elif i > 0:
            if s * s > 3.0:
                s = s * 0.5
                break
            else:
                s = s + 0.1
        s = s * x + 0.3
    return s


@pytest.mark.parametrize("x", [0.3, 0.8, 1.3])
def test_break_in_nested_ifs(x):
    check_all(break_in_nested_ifs, [x])


@pytest.mark.parametrize("x", [0.4, 0.9])
def test_continue_in_nested_ifs(x):
    check_all(continue_in_nested_ifs, [x])


@pytest.mark.parametrize("scale", [0.2, 0.6, 1.0])
def test_break_and_continue_in_a_while_loop(scale):
    check_all(both_in_nested_ifs, [rng.normal(size=3) * scale])


@pytest.mark.parametrize("x", [0.7, 1.1, 1.6])
def test_break_deep_in_elif(x):
    check_all(break_deep_in_elif, [x])


# ---- return ------------------------------------------------------------------------------------


def several_returns(x):
    y = x * x
    if x > 0.5:
        if y > 1.0:
            return y * x
        y = y + math.sin(x)
    elif x < -1.0:
        return -x
    z = y * 2.0
    if z > 1.5:
        return z + x
    return z * z


def return_in_for(x):
    s = 0.0
    for i in range(10):
        s = s + math.sin(x + i)
        if s > 1.0:
            return s * x
    return s


def return_in_while(x):
    s = x
    n = 0
    while n < 20:
        n += 1
        s = s * 1.3 + 0.1
        if n > 2:
            if s > 4.0:
                return s * s
            s = s - x * 0.1
    return s


def return_in_nested_loops(x):
    total = np.zeros(3)
    for i in range(4):
        for j in range(3):
            total = total + np.sin(x * (i + j))
            if np.sum(total) > 2.0:
                if j > 0:
                    return np.sum(total * x)
        total = total * 0.9
    return np.sum(total)


def returns_a_tuple_early(x):
    for i in range(5):
        x = x * 1.5
        if x > 2.0:
            return x, i
    return x, -1


def uses_tuple(x):
    a, k = returns_a_tuple_early(x)
    return a * (k + 1.0)


def return_in_a_loop_in_a_branch(x):
    if x > 0:
        for i in range(5):
            x = x * 1.2
            if x > 2:
                return x * 3
        x = x + 1
    y = x * x
    return y


@pytest.mark.parametrize("x", [-0.5, 0.3, 1.9])
def test_return_in_a_loop_in_a_branch_followed_by_code(x):
    check_all(return_in_a_loop_in_a_branch, [x])


@pytest.mark.parametrize("x", [0.3, 0.9, 1.4, -0.5, -1.3])
def test_several_returns(x):
    check_all(several_returns, [x])


@pytest.mark.parametrize("x", [-2.0, 0.1, 0.6])
def test_return_in_for(x):
    check_all(return_in_for, [x])


@pytest.mark.parametrize("x", [0.2, 1.0])
def test_return_in_while(x):
    check_all(return_in_while, [x])


@pytest.mark.parametrize("scale", [0.1, 0.5])
def test_return_in_nested_loops(scale):
    check_all(return_in_nested_loops, [rng.normal(size=3) * scale + 0.3])


@pytest.mark.parametrize("x", [0.1, 1.0, 1.9])
def test_return_in_a_loop_of_a_called_function(x):
    check_all(uses_tuple, [x])


def newton_until_converged(a):
    x = a
    while True:
        step = (x * x - a) / (2.0 * x)
        x = x - step
        if abs(step) < 1e-10:
            return x * 3.0


def while_true_two_returns(x):
    z = x
    k = 0
    while True:
        k += 1
        z = z * 1.5 + 0.1
        if k > 2:
            if z > 3.0:
                return z * x
            if z < -3.0:
                return -z
        z = z - 0.05 * x


def uses_names_the_flags_would_take(x, broke, returned):
    s = 0.0
    for i in range(5):
        s = s + x * broke
        if i > 0:
            if s > returned:
                break
            s = s * 1.1
        s = s + 0.1
    return s


@pytest.mark.parametrize("a", [0.5, 2.0, 7.0])
def test_while_true_left_by_return(a):
    assert s2sad.grad(newton_until_converged)(a) == pytest.approx(1.5 / math.sqrt(a), rel=1e-9)
    check_all(newton_until_converged, [a])
    assert "returned" not in lowered(newton_until_converged)  # the only way out needs no flag


@pytest.mark.parametrize("x", [0.5, -1.3])
def test_while_true_with_two_returns(x):
    check_all(while_true_two_returns, [x])


def test_flag_names_do_not_capture_the_users():
    args = [0.5, 1.0, 0.9]
    check_all(uses_names_the_flags_would_take, args)
    check_all(uses_names_the_flags_would_take, args, wrt=1)
    assert "broke1 = True" in lowered(uses_names_the_flags_would_take)


# ---- for ... else, while ... else --------------------------------------------------------------


def for_else(x):
    s = x
    for i in range(6):
        s = s * 1.2 + math.sin(i)
        if s > 3.0:
            s = s - 1.0
            break
    else:
        s = s * x
    return s * s


def for_else_without_break(x):
    s = 0.0
    for i in range(3):
        s = s + x * i
    else:
        s = s * x
    return s


def while_else(x):
    s = x
    while s < 5.0:
        s = s * 1.5 + 0.2
        if s * x > 6.0:
            break
    else:
        s = s + x * x
    return s


def nested_for_else(x):
    found = 0.0
    for i in range(3):
        for j in range(4):
            if x * (i + j) > 2.5:
                found = found + x * j
                break
        else:
            found = found + math.sin(x) * i
            continue
        found = found * 1.1
    return found


@pytest.mark.parametrize("x", [0.2, 0.6, 1.5])
def test_for_else(x):
    check_all(for_else, [x])


def test_for_else_without_break():
    check_all(for_else_without_break, [0.7])


@pytest.mark.parametrize("x", [0.3, 0.7, 1.8])
def test_while_else(x):
    check_all(while_else, [x])


@pytest.mark.parametrize("x", [0.3, 0.55, 1.0])
def test_nested_for_else_with_continue(x):
    check_all(nested_for_else, [x])


# ---- arrays, several inputs, loop counts -------------------------------------------------------


def rnn_with_early_stop(W, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        if t > 0:
            if np.max(np.abs(h)) > 0.9:
                break
            h = h * 0.95
        h = h + 0.01
    return np.sum(h**2)


@pytest.mark.parametrize("scale", [0.3, 1.0, 3.0])
def test_rnn_with_early_stop_every_argument(scale):
    W = rng.normal(size=(3, 3)) * 0.5
    xs = rng.normal(size=(6, 3)) * scale
    check_all(rnn_with_early_stop, [W, xs], wrt=0)
    check_all(rnn_with_early_stop, [W, xs], wrt=1)


def count_steps(x):
    s = x
    n = 0
    for i in range(30):
        if i > 2:
            if s > 10.0:
                break
        s = s * 1.4
        n += 1
    return s + n


@pytest.mark.parametrize("x", [0.5, 2.0, 9.0, 30.0])
def test_the_reverse_sweep_runs_the_iterations_that_ran(x):
    # the derivative is 1.4 ** n: exact only if the adjoint replays exactly n multiplications
    n = 0
    s = x
    for i in range(30):
        if i > 2 and s > 10.0:
            break
        s, n = s * 1.4, n + 1
    assert s2sad.grad(count_steps)(x) == pytest.approx(1.4**n, rel=1e-12)
    assert s2sad.hessian(count_steps)(x) == 0.0
    check_all(count_steps, [x])


# ---- generated code --------------------------------------------------------------------------


def plain(x):
    s = 0.0
    for i in range(3):
        if x > i:
            s = s + x
            break
    return s


def test_functions_without_early_exits_are_left_alone():
    tree = parse_function(plain).tree
    assert lower_control(tree) is tree


def lowered(fn):
    return ast.unparse(gast.gast_to_ast(lower_control(parse_function(fn).tree)))


def test_early_exits_become_readable_flags():
    assert lowered(return_in_for) == textwrap.dedent(
        """\
        def return_in_for(x):
            s = 0.0
            returned = False
            for i in range(10):
                s = s + math.sin(x + i)
                if s > 1.0:
                    returned = True
                    break
            if returned:
                return s * x
            return s"""
    )
    assert lowered(break_in_nested_ifs) == textwrap.dedent(
        """\
        def break_in_nested_ifs(x):
            s = 0.0
            broke = False
            for i in range(8):
                s = s + math.sin(x * i)
                if i > 1:
                    if s > 1.2:
                        broke = True
                    if not broke:
                        s = s * 1.1
                if broke:
                    break
                s = s + x * x
            return s * x"""
    )
    assert lowered(continue_in_nested_ifs) == textwrap.dedent(
        """\
        def continue_in_nested_ifs(x):
            s = 0.0
            for i in range(8):
                skip = False
                t = x * i
                if i % 2 == 0:
                    if math.sin(t) < 0:
                        skip = True
                    if not skip:
                        t = t * t
                if not skip:
                    s = s + math.cos(t) * x
            return s"""
    )
    # several returns deferred: which one is recorded, the value is computed where Python returns it
    assert "returned = 2" in lowered(several_returns) and "if returned == 2:\n        return -x" in lowered(
        several_returns
    )


# ---- checkpointed loops ----------------------------------------------------------------------


def checkpointed_continue(x):
    s = 0.0
    for i in s2sad.checkpoint(range(8), every=3):
        t = x * i
        if i % 2 == 0:
            if math.sin(t) < 0:
                continue
            t = t * t
        s = s + math.cos(t) * x
    return s


def checkpointed_return(x):
    s = 0.0
    for i in s2sad.checkpoint(range(8)):
        s = s + x
        if s > 3:
            return s
    return s


def test_checkpointed_loop_with_continue_in_nested_ifs():
    check_all(checkpointed_continue, [0.4])


def test_checkpointed_loop_with_return_is_refused():
    with pytest.raises(s2sad.DifferentiationError, match="cannot break or return early") as err:
        s2sad.grad(checkpointed_return)(0.5)
    assert str(err.value).startswith(f"{__file__}:")


# ---- raise: kept as it is, on the paths where f raises ------------------------------------------------


def raise_after_a_loop_that_returns(x):
    for i in range(3):
        if x[i] > 0.5:
            return x[i] * np.sin(x[(i + 1) % 3]) ** 2
    raise ValueError("no item above 0.5")


def raise_ends_the_function(x):
    if x[0] > 0:
        return np.sum(x**3) * x[1]
    elif x[1] > 2:
        raise ValueError("x[1] too big")
    else:
        return x[2] * x[0]
    raise RuntimeError("unreachable")


def raise_then_more_code(x):
    if np.sum(x) > 10:
        raise ValueError("too big")
    y = x * x
    for v in y:
        if v > 100:
            raise ValueError("an item too big")
    return np.sum(y * x)


def helper_that_raises(v):
    for k in range(2):
        if v * k > 50:
            return v * k
    if v < -50:
        raise ValueError("too small")
    return v * v


def calls_a_helper_that_raises(x):
    return helper_that_raises(x[0]) * x[1] + helper_that_raises(x[2])


@pytest.mark.parametrize(
    "f", [raise_after_a_loop_that_returns, raise_ends_the_function, raise_then_more_code, calls_a_helper_that_raises]
)
@pytest.mark.parametrize("x", [np.array([0.2, 0.9, -0.4]), np.array([0.7, 0.3, 1.1])])
def test_raise_is_kept(f, x):
    check_all(f, [x])


def test_derivatives_raise_where_f_raises():
    x = np.array([0.1, 0.2, 0.3])
    for make in (s2sad.grad, s2sad.value_and_grad, s2sad.hessian):
        with pytest.raises(ValueError, match="no item above 0.5"):
            make(raise_after_a_loop_that_returns)(x)
    with pytest.raises(ValueError, match="no item above 0.5"):
        s2sad.jvp(raise_after_a_loop_that_returns)(x, x)
    with pytest.raises(ValueError, match="too small"):
        s2sad.grad(calls_a_helper_that_raises)(np.array([-60.0, 1.0, 1.0]))
