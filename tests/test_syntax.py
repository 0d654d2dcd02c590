"""Everyday Python syntax inside differentiated code: comprehensions, builtins over values, starred
unpacking, walrus, del, assert, print/logging, isinstance, with np.errstate, chained comparisons.
Each construct in grad, value_and_grad, jvp and hessian, against central finite differences."""

import logging

import numpy as np
import pytest
from fd import assert_close, call_jvp, check_grad, numeric_grad, numeric_jvp

import s2sad
from s2sad import DifferentiationError

rng = np.random.default_rng(13)
X3 = np.array([0.7, -1.3, 0.4])
logger = logging.getLogger("s2sad.test_syntax")


def check_all(f, args, hessian=True):
    """grad (with forward mode agreeing), value_and_grad, jvp and hessian against finite differences."""
    args = list(args)
    got = check_grad(f, args, wrt=[0])[0]
    value, g = s2sad.value_and_grad(f)(*args)
    assert_close(value, f(*args), rtol=1e-12, atol=0)
    assert_close(g, got, rtol=1e-12, atol=0)
    tangent = rng.normal(size=np.shape(args[0]))
    tangent = float(tangent) if isinstance(args[0], float) else tangent
    value, dout = call_jvp(f, args, [0], [tangent])
    assert_close(value, f(*args), rtol=1e-12, atol=0)
    assert_close(dout, numeric_jvp(f, args, [0], [tangent]), rtol=1e-5, atol=1e-6)
    if hessian:
        H = s2sad.hessian(f)(*args)
        assert_close(H, numeric_grad(s2sad.grad(f), args, 0), rtol=1e-5, atol=1e-6)


# ---- comprehensions --------------------------------------------------------------------------


def list_comprehension(x):
    squares = [x[i] * x[i] for i in range(len(x)) if i != 1]
    return sum(squares) * x[1]


def nested_comprehension(x):
    pairs = [x[i] * np.sin(x[j]) for i in range(3) for j in range(i, 3) if i + j > 0]
    return sum(pairs)


def generator_in_sum(x):
    return sum(np.sin(v) * v for v in x)


def generator_in_sum_with_start(x):
    return sum((v * v for v in x), 1.5)


def comprehension_in_np_array(x):
    return np.sum(np.array([x[0] * x[1], x[1] ** 2, np.exp(x[2])]) * np.array([v * v for v in x]))


def comprehension_in_np_stack(x):
    return np.sum(np.stack([x * k for k in range(1, 4)]) ** 2)


def comprehension_keeps_user_names(x):
    v = x[0] * 2.0  # the comprehension's own v must not change this one
    total = sum([v * w for v in x for w in x])
    return total * v


def comprehension_of_comprehension(x):
    sums = [sum([x[i] * np.cos(x[j]) for j in range(i, 3)]) for i in range(3)]
    return sum(s * s for s in sums)


def comprehension_over_zip(x):
    return sum([a * b for a, b in zip(x, x[::-1])])


def comprehension_inside_a_loop(x):
    s = 0.5
    for _ in range(3):
        s = s + sum([v * s + np.sin(v) for v in x])  # a new list at every iteration
    return s


@pytest.mark.parametrize(
    "f",
    [
        comprehension_inside_a_loop,
        list_comprehension,
        nested_comprehension,
        generator_in_sum,
        generator_in_sum_with_start,
        comprehension_in_np_array,
        comprehension_in_np_stack,
        comprehension_keeps_user_names,
        comprehension_of_comprehension,
        comprehension_over_zip,
    ],
)
def test_comprehensions(f):
    check_all(f, [X3.copy()])


def test_comprehension_variables_do_not_leak():
    def f(x):
        i = 2
        ys = [x[i] for i in range(2)]
        return ys[0] * ys[1] * x[i]

    src = s2sad.source(s2sad.grad(f))
    assert "def " in src
    check_all(f, [X3.copy()])


# ---- dict and set comprehensions ------------------------------------------------------------------

WEIGHTS = {"a": 1.5, "b": -0.5, "c": 2.0}


def dict_comprehension(x):
    scaled = {k: v * x[0] for k, v in WEIGHTS.items()}
    return scaled["a"] * scaled["b"] + np.sin(scaled["c"]) * x[1]


def dict_comprehension_with_filter_and_computed_keys(x):
    d = {i: x[i] ** 2 * np.cos(x[i]) for i in range(3) if i != 1}
    e = {(k, j): d[k] * x[j] for k in d for j in range(2)}
    return sum(v for v in e.values()) + d[0] * d[2]


def dict_comprehension_inside_a_loop(x):
    s = 0.5
    for t in range(2):
        d = {j: x[j] * s + t for j in range(3)}
        s = s + d[0] * d[2] - d[1]
    return s


def dict_comprehension_of_dict_comprehensions(x):
    nested = {i: {j: x[i] * x[j] for j in range(i + 1)} for i in range(3)}
    return nested[2][1] * nested[1][0] + nested[2][2] ** 2


@pytest.mark.parametrize(
    "f",
    [
        dict_comprehension,
        dict_comprehension_with_filter_and_computed_keys,
        dict_comprehension_inside_a_loop,
        dict_comprehension_of_dict_comprehensions,
    ],
)
def test_dict_comprehensions(f):
    check_all(f, [X3.copy()])


def set_comprehension_of_constants(x):
    kinds = {i % 2 for i in range(5)}  # no derivative flows through the set: kept as it is
    return x[0] * len(kinds) + x[1] * sum(kinds)


def test_set_comprehension_that_holds_no_differentiated_value():
    check_all(set_comprehension_of_constants, [X3.copy()])


def set_comprehension_of_values(x):
    return sum({v * v for v in x})


def test_set_comprehension_over_differentiated_values_is_refused_by_name():
    for make in (s2sad.grad, s2sad.jvp):
        with pytest.raises(DifferentiationError, match=r"test_syntax\.py:\d+:\d+: set comprehension .*list"):
            make(set_comprehension_of_values)


# ---- builtins over values ----------------------------------------------------------------------


def builtin_min_max(x, y):
    return min(x, y) * max(x, y, 0.5) + max([x * y, y]) - min(x * x, y)


def builtin_max_over_array(x):
    return max(x) * min(x * x) + max(v * v for v in x)


def builtin_abs_float(x):
    return abs(x) * float(x) + abs(-x * 3)


def item_and_tolist(x):
    return x[0].item() * x.tolist()[1] + np.sum(x).item() * x[2]


def tolist_of_matrix(x):
    rows = np.outer(x, x).tolist()
    return rows[0][1] * rows[2][2]


def lengths_and_ranges(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * i
    for j in range(x.shape[0] - 1):
        s = s * x[j]
    return s


def test_min_max_of_numbers():
    for x, y in [(0.7, 1.9), (1.9, 0.7), (0.3, 0.2)]:
        check_all(builtin_min_max, [x, y])
        check_grad(builtin_min_max, [x, y])


@pytest.mark.parametrize(
    "f, args",
    [
        (builtin_max_over_array, [X3.copy()]),
        (builtin_abs_float, [-0.8]),
        (item_and_tolist, [X3.copy()]),
        (tolist_of_matrix, [X3.copy()]),
        (lengths_and_ranges, [X3.copy()]),
    ],
)
def test_builtins(f, args):
    check_all(f, args)


def test_min_max_ties_take_the_item_python_returns():
    def f(x, y):
        return max(x, y) * 3.0 + min([y, x]) * 5.0

    bx, by = s2sad.grad(f, wrt=(0, 1))(1.0, 1.0)
    assert (bx, by) == (3.0, 5.0)  # max returns its first maximal argument, min too


# ---- unpacking, walrus, del ----------------------------------------------------------------------


def starred_unpacking(x):
    a, *rest = [x[0], x[1] * 2.0, x[2]]
    first, *middle, last = x
    return a * rest[0] * rest[1] + first * last * sum(middle)


def _two(a, b):
    return a * np.cos(b)


def starred_call(x):
    xs = [x[0], x[1] * x[2]]
    return _two(*xs) + _two(*[x[2], x[0]])


def walrus(x):
    if (y := np.sum(x * x)) > 0.5:
        z = y * x[0]
    else:
        z = y
    return z + (w := x[1] * 3.0) * w


def walrus_in_comprehension(x):
    return sum([y * y for v in x if (y := v * 2.0) > -1.0])


def walrus_in_while(x):
    n = 0
    s = x
    while (t := s * 0.5) > 0.1:
        s = t + 0.01 * x
        n += 1
    return s * n


def deleted(x):
    y = x * 2
    z = y * x
    del y
    return z


@pytest.mark.parametrize(
    "f, args",
    [
        (starred_unpacking, [X3.copy()]),
        (starred_call, [X3.copy()]),
        (walrus, [X3.copy()]),
        (walrus, [X3.copy() * 0.1]),
        (walrus_in_comprehension, [X3.copy()]),
        (walrus_in_while, [3.0]),
        (deleted, [0.9]),
    ],
)
def test_unpacking_walrus_del(f, args):
    check_all(f, args)


def unpack_rows(x, w):
    y = x * 2.0
    a, b = y
    return np.sum(a * b * w)


def test_unpacking_an_array_gives_array_adjoints():
    x = rng.normal(size=(2, 3))
    w = rng.normal(size=3)
    check_all(unpack_rows, [x, w])
    g = s2sad.grad(unpack_rows)(x, w)
    assert isinstance(g, np.ndarray) and g.shape == (2, 3)


# ---- statements that are kept: assert, print, logging, isinstance, with np.errstate -------------


def asserted(x):
    y = x * x
    assert y >= 0.0, "a square"
    assert 0 < y < 10
    return y * x


def printed(x):
    y = x * x
    print("y is", y)
    logging.info("y=%s", y)
    logger.debug("y=%s", y)
    return y * x


def _helper_that_prints(a):
    print("helper", a)
    return a * a


def calls_a_printing_helper(x):
    return _helper_that_prints(x) * x


def with_isinstance(x):
    if isinstance(x, float) and isinstance(x * 2, (int, float)):
        return x * 2.0
    return x * 3.0


def with_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x)  # nan for x < 0: masked below
        z = np.where(np.isfinite(y), y, 0.0)
    return np.sum(z * x)


def errstate_return(x):
    with np.errstate(over="ignore"):
        return np.sum(np.exp(x))


def list_item_assignment(x):
    lst = [x, x * 2.0, 1.0]
    lst[0] = x * x
    lst[2] = lst[1] * x
    return lst[0] * lst[1] + lst[2]


def chained_comparison(x):
    if 0 < x < 1:
        return x * x
    return 0.5 < x <= 2.0 and x * 3.0 or x


@pytest.mark.parametrize(
    "f, args",
    [
        (asserted, [0.9]),
        (printed, [0.9]),
        (calls_a_printing_helper, [0.9]),
        (with_isinstance, [0.9]),
        (with_errstate, [np.array([0.5, -1.0, 2.0])]),
        (errstate_return, [X3.copy()]),
        (list_item_assignment, [0.9]),
        (chained_comparison, [0.5]),
        (chained_comparison, [1.5]),
    ],
)
def test_kept_statements(f, args, capsys):
    check_all(f, args)


def test_asserts_run_on_primal_values():
    with pytest.raises(AssertionError, match="a square"):
        s2sad.grad(asserted)(float("nan"))  # nan >= 0 is False


def test_print_runs_once_per_call_in_reverse_mode(capsys):
    for f in (s2sad.grad, s2sad.value_and_grad):
        capsys.readouterr()
        f(printed)(0.5)
        assert capsys.readouterr().out.count("y is") == 1
        f(calls_a_printing_helper)(0.5)
        assert capsys.readouterr().out.count("helper") == 1
    s2sad.jvp(calls_a_printing_helper)(0.5, 1.0)
    assert capsys.readouterr().out.count("helper") == 1


def _prints_deep(x):
    print("deep", x)
    return x * x


def _calls_deep(x):
    return _prints_deep(x) * x  # its VJP needs the value: it recomputes _prints_deep quietly


def _calls_calls_deep(x):
    return np.sin(_calls_deep(x))


def two_calls_deep(x):
    return _calls_deep(x) + 1.0


def three_calls_deep(x):
    return _calls_calls_deep(x) * x


@pytest.mark.parametrize("f", [two_calls_deep, three_calls_deep])
def test_print_in_a_helper_several_calls_deep_runs_once(f, capsys):
    for mode in (s2sad.grad, s2sad.value_and_grad):
        capsys.readouterr()
        mode(f)(0.7)
        assert capsys.readouterr().out.count("deep") == 1
    check_all(f, [0.7])
    assert "def quiet__prints_deep(x):" in s2sad.source(s2sad.grad(f))


def _loud(v):
    print("loud called")
    return np.sin(v)


def unused_result_of_a_printing_helper(x):
    unused = _loud(x)  # noqa: F841  (its print is the point)
    return np.sum(x * x)


@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "jvp", "hessian"])
def test_a_printing_helper_whose_result_is_unused_still_prints(mode, capsys):
    x = np.array([0.5, -1.0])
    capsys.readouterr()
    if mode == "jvp":
        s2sad.jvp(unused_result_of_a_printing_helper)(x, np.ones(2))
    else:
        getattr(s2sad, mode)(unused_result_of_a_printing_helper)(x)
    assert capsys.readouterr().out.count("loud called") >= 1


def _logs_through_its_own_logger(t):
    logging.getLogger("s2sad.tests").warning("mid")
    return np.sin(t) * t


def logger_made_in_a_helper(x):
    return np.sum(_logs_through_its_own_logger(x))


@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "vjp", "hvp"])
def test_a_logger_made_in_a_helper_logs_once(mode, caplog):
    x = np.array([0.5, -1.0])
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="s2sad.tests"):
        derivative = getattr(s2sad, mode)(logger_made_in_a_helper)
        if mode == "vjp":
            derivative(x, 1.0)
        elif mode == "hvp":
            derivative(x, np.ones(2))
        else:
            derivative(x)
    assert [r.getMessage() for r in caplog.records if r.name == "s2sad.tests"] == ["mid"]


def test_errstate_is_kept_around_the_primal():
    before = np.geterr()
    src = s2sad.source(s2sad.grad(with_errstate))
    assert "__enter__" in src and "__exit__" in src
    with np.errstate(divide="raise", invalid="raise"):  # the block's own settings win inside it
        check_all(with_errstate, [np.array([0.5, -1.0, 2.0])])
    assert np.geterr() == before


# ---- still refused, with the user's file:line:col ----------------------------------------------


def refused_generator(x):
    yield x


def refused_try(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    return y


def refused_eval(x):
    return eval("x * 2")


def refused_del_item(x):
    lst = [x, x]
    del lst[0]
    return lst[0]


def refused_errstate_raise(x):
    with np.errstate(all="raise"):
        return x * 2


def refused_walrus_read_before(x):
    y = x
    return y * (y := x * 2)


@pytest.mark.parametrize(
    "f, words",
    [
        (refused_generator, "generator"),
        (refused_try, "try"),
        (refused_eval, "eval"),
        (refused_del_item, "del of an element"),
        (refused_walrus_read_before, "walrus"),
        (refused_errstate_raise, "errstate"),
    ],
)
def test_still_refused_with_a_location(f, words):
    with pytest.raises(DifferentiationError, match=rf"test_syntax\.py:\d+:\d+: .*{words}"):
        s2sad.grad(f)(0.5)


# ---- `a and b` / `or` values, and an `if` whose test name its branch rebinds ----------------


def and_gives_array(x):
    w = (x[0] > -10) and x  # Python: w is x
    return np.sum(w**2)


def or_gives_array(x):
    w = (x[0] > 10) or x * 3.0
    return np.sum(w**2)


def _present(w):
    return w is not None and w


def helper_and_gives_array(x):
    return np.sum(_present(x) ** 2)


def branch_rebinds_its_test(x):
    c = x[0] > 0
    y = x
    if c:
        c = x[1] > 5
        y = x * 3.0
    return np.sum(y**2)


def and_value_in_a_loop(x):
    total = 0.0
    for i in range(3):
        w = (x[i] > 0) and x * x[i]
        total = total + np.sum(w * x)
    return total


@pytest.mark.parametrize(
    "f", [and_gives_array, or_gives_array, helper_and_gives_array, branch_rebinds_its_test, and_value_in_a_loop]
)
def test_bool_values_and_rebound_tests(f):
    x = X3.copy()
    check_all(f, [x])
    expected = numeric_grad(f, [x], 0)
    assert_close(s2sad.vjp(f)(x, 1.0), expected)
    for mode in ("forward", "reverse"):
        assert_close(s2sad.jacobian(f, mode=mode)(x), expected)
    assert np.array_equal(x, X3)
