"""Local functions as people write them: a local helper given a function (NumPy's, a lambda, another
local function), a local function as another local function's default argument, lambdas taking ``*ts``
or ``**kw`` (inside f and given to grad directly).

Every mode (grad, value_and_grad, vjp, jvp, forward and reverse Jacobians, Hessian) against central
finite differences; the caller's data is unchanged after each call; what cannot be done exactly is
refused at the user's ``file:line:col``."""

import inspect
import re

import numpy as np
import pytest
from fd import assert_close
from test_nested_functions import check_all  # every mode against finite differences, inputs unchanged

import s2sad


# ---- a local helper given a function ----------------------------------------------------------------
def local_apply(x):
    def apply(fn, v):
        return fn(v) * 2

    return apply(np.sin, x) + apply(lambda t: t * t, x)


def local_apply_local(x):
    def h(v):
        return np.sin(v) * 3

    def apply(fn, v):
        return fn(v) + v

    return apply(h, x)


def local_apply_closure(x):
    y = x**2

    def h(v):
        return np.cos(v) * y  # closes over a differentiated value

    def apply(fn, v, k=2.0):
        return fn(v) * k + fn(v * 0.5)

    return apply(h, x) + apply(fn=h, v=x, k=3.0)


def local_passes_on(x):
    def h(v):
        return np.tanh(v) * x

    def inner(fn, v):
        return fn(v) * v

    def outer(fn, v):
        return inner(fn, v) + fn(v)

    return outer(h, x) + outer(np.exp, x)


def local_default_function(x):
    def h(v):
        return np.sin(v) * x

    def g(v, act=h):
        return act(v)

    return g(x) + g(x, act=np.cos) + g(2 * x)


def local_default_from_another_local(x):
    def h(v):
        return v**3

    def g(v, act=h):
        return act(v) * 2

    def k(v):
        return g(v) + g(v, lambda t: t * v)

    return k(x)


def module_apply(fn, v):
    return fn(v) * v


def local_given_to_module_helper_and_local(x):
    def h(v):
        return np.exp(-v) * x

    def twice(fn, v):
        return module_apply(fn, v) + fn(v)

    return twice(h, x)


@pytest.mark.parametrize(
    "f",
    [
        local_apply,
        local_apply_local,
        local_apply_closure,
        local_passes_on,
        local_default_function,
        local_default_from_another_local,
        local_given_to_module_helper_and_local,
    ],
)
@pytest.mark.parametrize("x", [0.7, np.array([0.3, -1.1, 0.5])])
def test_local_helpers_given_functions(f, x):
    if np.ndim(x) == 0:
        check_all(f, [x])
    else:
        check_all(lambda v: np.sum(f(v)), [x])


def test_the_issue_example_has_its_value():
    x = 0.7
    g = s2sad.grad(local_apply)(x)
    assert_close(g, 2 * np.cos(x) + 4 * x)


# ---- lambdas with *ts and **kw ----------------------------------------------------------------------
def star_lambda(x):
    s = lambda *ts: sum(ts)  # noqa: E731
    return s(x, x * 2) * x


def star_lambda_product(x):
    s = lambda a, *ts: a * np.prod(np.array(ts))  # noqa: E731
    return s(x, x, 3.0) + s(2.0, x)


def kw_lambda(x):
    s = lambda v, **kw: v * kw["a"] + kw.get("b", 1.0)  # noqa: E731
    return s(x, a=x * 2) + s(x, a=3.0, b=x)


def star_def(x):
    def total(*vs, scale=1.0):
        out = 0.0
        for v in vs:
            out = out + np.sin(v)
        return out * scale

    return total(x, 2 * x) + total(x, scale=x)


@pytest.mark.parametrize("f", [star_lambda, star_lambda_product, kw_lambda, star_def])
def test_lambdas_with_star_arguments(f):
    check_all(f, [0.7])


def test_star_lambdas_given_to_grad_directly():
    s = lambda *ts: sum(ts) * ts[0]  # noqa: E731
    assert_close(s2sad.grad(s)(1.5, 2.0), 2 * 1.5 + 2.0)
    assert_close(s2sad.grad(s, wrt=1)(1.5, 2.0), 1.5)
    value, dv = s2sad.jvp(s)(1.5, 2.0, 1.0)
    assert_close((value, dv), (5.25, 5.0))
    k = lambda v, **kw: v * kw["a"]  # noqa: E731
    assert_close(s2sad.grad(k)(1.5, a=3.0), 3.0)
    assert_close(s2sad.hessian(s)(1.5, 2.0), 2.0)


# ---- what stays refused names the construct at the user's line --------------------------------------
def escaping_function_argument(x):
    def apply(fn, v):
        keep = [fn]
        return keep[0](v)

    return apply(np.sin, x)


def test_a_function_argument_kept_as_a_value_is_refused_at_its_line():
    with pytest.raises(s2sad.DifferentiationError) as e:
        s2sad.grad(escaping_function_argument)(0.3)
    line = inspect.getsourcelines(escaping_function_argument)[1] + 3  # return keep[0](v)
    assert re.match(rf".*test_lift_more\.py:{line}:\d+: .*computed function", str(e.value))


def star_edge_cases(x):
    y = np.sin(x)
    s = lambda a, b=2.0, *ts, **kw: (a * b + sum(ts) * y) * kw.get("k", 1.0)  # noqa: E731
    return s(x) + s(x, x) + s(x, 1.0, x, y, k=x) + module_apply(lambda *t: t[0] * y, x)


def star_called_where_written(x):
    return (lambda *ts: ts[0] * ts[1])(x, np.cos(x))


@pytest.mark.parametrize("f", [star_edge_cases, star_called_where_written])
def test_star_edge_cases(f):
    check_all(f, [0.7])
    check_all(lambda v: np.sum(f(v)), [np.array([0.2, -0.4])])


def starred_call_of_star_lambda(x):
    s = lambda *ts: sum(ts)  # noqa: E731
    xs = [x, x]
    return s(*xs)


def test_calls_that_stay_refused_name_their_line():
    with pytest.raises(s2sad.DifferentiationError) as e:
        s2sad.grad(starred_call_of_star_lambda)(0.3)
    line = inspect.getsourcelines(starred_call_of_star_lambda)[1] + 3
    assert re.match(rf".*test_lift_more\.py:{line}:\d+: ", str(e.value))


# ---- source and the command line of a function taking *args ------------------------------------------
def takes_star(*args):
    return np.sum(args[0] * np.sin(args[1]))


def test_source_of_a_star_derivative_names_the_function_until_called():
    g = s2sad.grad(takes_star)
    with pytest.raises(s2sad.DifferentiationError) as e:
        s2sad.source(g)
    line = inspect.getsourcelines(takes_star)[1]
    assert re.match(rf".*test_lift_more\.py:{line}:1: .*call it once", str(e.value))
    x, y = np.array([0.3, 0.4]), np.array([1.0, -2.0])
    assert_close(g(x, y), np.sin(y))
    text = s2sad.source(g)
    assert "args = args_0, args_1" in text or "args = (args_0, args_1)" in text


@pytest.mark.parametrize(
    "body",
    [
        "def f(*args):\n    return np.sum(args[0] * args[1])\n",
        "def f(x, **kw):\n    return x * kw['a']\n",
    ],
)
def test_the_command_line_refuses_a_star_function_at_its_line(tmp_path, body, capsys):
    from s2sad.cli import main

    path = tmp_path / "model.py"
    path.write_text("import numpy as np\n\n\n" + body)
    rc = main([f"{path}:f", "--mode", "reverse", "--wrt", "0", "-o", str(tmp_path / "out.py")])
    err = capsys.readouterr().err
    assert rc != 0
    assert f"{path}:4:1:" in err and "*args or **kwargs" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.py").exists()
