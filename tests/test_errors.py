"""Refusals: anything s2sad cannot differentiate exactly fails loudly at the user's file:line:col."""

import re

import numpy as np
import pytest

import s2sad

FILE = re.escape(__file__)
COUNTER = [0]


def unknown_function(x):
    return np.sum(np.frompyfunc(lambda v: v, 1, 1)(x))


def opaque(x):
    return x


vectorized = np.frompyfunc(opaque, 1, 1)  # a compiled function s2sad has no rule for


def calls_opaque_builtin(x):
    return np.sum(vectorized(x))


def generator(x):
    yield x


def uses_eval(x):
    return eval("x * 2")


def uses_exec(x):
    exec("y = x")
    return x


def try_except(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    return y


def writes_global(x):
    global COUNTER
    COUNTER = x
    return x


def nested_def(x):
    def inner(v):
        return v * x

    return inner


def in_place_on_input(x):
    x[0] = x[1] * 2
    return np.sum(x)


def method_mutation(x):
    y = np.sin(x)
    y.sort()
    return np.sum(y)


def with_block(x):
    with open(__file__):
        y = x * 2
    return y


def starred(x, args):
    return np.sum(np.maximum(*args) * x)


def set_comprehension(x):  # list comprehensions are differentiated (tests/test_syntax.py)
    return sum({v * v for v in x})


def no_return(x):
    y = x * 2  # noqa: F841


CASES = [
    (calls_opaque_builtin, "no derivative rule for `"),
    (generator, "generators"),
    (uses_eval, "eval()"),
    (uses_exec, "exec()"),
    (try_except, "try/except"),
    (writes_global, "global"),
    (nested_def, "local function 'inner' is used as a value"),
    (method_mutation, "method .sort()"),
    (with_block, "with blocks"),
    (starred, "*args"),
    (set_comprehension, "set comprehension"),
    (no_return, "must return"),
]


FORWARD_CASES = CASES


def _run(mode, fn):
    x = np.arange(3.0)
    if mode == "reverse":
        return s2sad.grad(fn)(x)
    return s2sad.jvp(fn)(x, np.ones(3))


@pytest.mark.parametrize(
    "mode, fn, construct",
    [("reverse", *c) for c in CASES] + [("forward", *c) for c in FORWARD_CASES],
    ids=[f"reverse-{c[0].__name__}" for c in CASES] + [f"forward-{c[0].__name__}" for c in FORWARD_CASES],
)
def test_refusal_names_file_line_col_and_construct(mode, fn, construct):
    with pytest.raises(s2sad.DifferentiationError) as err:
        _run(mode, fn)
    message = str(err.value)
    line = fn.__code__.co_firstlineno
    match = re.match(rf"{FILE}:(\d+):(\d+): ", message)
    assert match, message
    assert line <= int(match.group(1)) <= line + 6, message
    assert construct in message, message


def test_error_is_a_value_error():
    assert issubclass(s2sad.DifferentiationError, ValueError)


def test_inactive_code_needs_no_rule():
    def_ = s2sad.grad(inactive_unknown)
    assert def_(2.0) == 3.0
    assert s2sad.jvp(inactive_unknown)(2.0, 1.0) == (6.0, 3.0)


def test_writes_into_an_input_work_on_a_private_copy():
    x, dx = np.arange(3.0), np.ones(3)
    value, tangent = s2sad.jvp(in_place_on_input)(x, dx)
    assert (value, tangent) == (5.0, 4.0)  # d/dt sum([2 * x1, x1, x2]) along ones
    assert np.all(dx == 1.0) and np.all(x == np.arange(3.0))  # the caller's data is not written into
    value, gradient = s2sad.value_and_grad(in_place_on_input)(x)
    assert value == 5.0 and np.all(gradient == [0.0, 3.0, 1.0])
    assert np.all(x == np.arange(3.0))


def inactive_unknown(x):
    n = np.frompyfunc(lambda v: v, 1, 1)(np.arange(3.0)).size
    return x * n


def _bump(b, v):
    b += v
    return b


def helper_writes_argument(x):
    b = np.sin(x)
    c = _bump(b, x)
    return np.sum(b * c)


def writes_through_transpose(x):
    m = np.outer(x, x)
    w = m
    m.T[0, 1] = 5.0 * x[0]
    return np.sum(w * m)


def writes_into_conditional_alias(x):
    b = np.sin(x)
    c = b if x[0] > 0 else b.copy()
    c[0] = 5.0 * x[1]
    return np.sum(b * b)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize(
    "fn, offset, words",
    [
        (helper_writes_argument, 2, ["_bump()", "parameter 'b'", "passes 'b'"]),
        (writes_through_transpose, 3, ["'m.T'", "with 'm'"]),
        (writes_into_conditional_alias, 3, ["into 'c'", "with 'b'"]),
    ],
)
def test_aliasing_refusals_name_what_the_user_wrote(mode, fn, offset, words):
    with pytest.raises(s2sad.DifferentiationError) as err:
        _run(mode, fn)
    message = str(err.value)
    assert message.startswith(f"{__file__}:{fn.__code__.co_firstlineno + offset}:"), message
    for w in words:
        assert w in message, message


def takes_varargs(*xs):
    return xs[0] * xs[1]


def calls_varargs(x, y):
    return takes_varargs(x, y) + x


@pytest.mark.parametrize("fn, expected", [(takes_varargs, (3.0, 2.0)), (calls_varargs, (4.0, 2.0))])
def test_star_args_functions_are_differentiated(fn, expected):  # (refused before issue 13; tests/test_star_args.py)
    assert s2sad.grad(fn, wrt=(0, 1))(2.0, 3.0) == expected


def adds_at_into_a_version(x):
    y = x * 1.0
    y = y * 2.0
    np.add.at(y, [0], x[1])
    return np.sum(y)


def puts_into_a_version(x):
    y = x * 1.0
    y = y * 2.0
    np.put(y, [1], x[0] * x[2])  # (np.copyto(y, x * x) is a write s2sad follows since round 36)
    return np.sum(y)


@pytest.mark.parametrize("f", [adds_at_into_a_version, puts_into_a_version])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_discarded_call_refusal_names_the_users_variables(f, mode):
    # the message names y (the user's variable), never ANF's version y1 or a temporary t
    x = np.array([0.5, -1.0, 2.0])
    with pytest.raises(s2sad.DifferentiationError) as e:
        if mode == "grad":
            s2sad.grad(f)(x)
        else:
            s2sad.jvp(f)(x, x)
    assert re.match(FILE + r":\d+:\d+: ", str(e.value))
    assert "which may change y in place" in str(e.value)


def test_a_scipy_ufunc_without_a_rule_is_named_by_its_scipy_module():
    """scipy.special's ufuncs are numpy.ufunc objects (no __module__): the refusal names scipy.special, not numpy."""
    sp = pytest.importorskip("scipy.special")
    from s2sad.rules.registry import public_name

    assert public_name(sp.kolmogorov) == "scipy.special.kolmogorov"
    assert public_name(sp.xlog1py) == "scipy.special.xlog1py"
    assert public_name(np.log1p) == "numpy.log1p"

    def f(x):
        return np.sum(sp.kolmogorov(x))

    with pytest.raises(s2sad.DifferentiationError, match=r"no derivative rule for `scipy\.special\.kolmogorov`"):
        s2sad.grad(f)(np.array([0.5, 1.0]))
