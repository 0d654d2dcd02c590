"""User functions that change a parameter in place (``p += v``, ``p[0] = v``), called inside f.

Where nothing reads the argument after the call, the derivative is exact in every mode: generated code
passes the function a private copy (so the caller's data never changes) and the derivative reads the
argument's value from before the call.  Where the argument (or a name sharing its memory) is read after
the call, f sees the change and s2sad refuses at the user's line."""

import copy
import dataclasses
import typing

import numpy as np
import pytest

import s2sad
from tests.exact_or_refused import check
from tests.fd import numeric_grad


def _accumulate(total, x):
    total += x * x
    return total


def _step(w, g):
    w -= 0.1 * g
    return w


def _set_first(p, v):
    p[0] = v * p[1]
    return p


def float_accumulator(x):
    s = 0.0
    for i in range(3):
        s = _accumulate(s, x * i)
    return s


def array_accumulator(x):
    s = 0.0
    for i in range(3):
        s = _accumulate(s, x * i)  # a number, then an array changed in place
    return np.sum(s)


def sgd_loop(w):
    for _ in range(3):
        g = np.cos(w)
        w = _step(w, g)
    return np.sum(w**2)


def dead_temporary(x):
    return np.sum(_step(np.sin(x), x) ** 2)


def dead_local(x):
    y = np.sin(x)
    z = _set_first(y, x[1])
    return np.sum(z * x)


def parameter_of_f(x):
    return np.sum(_step(x, x * x) ** 3)


def through_two_calls(x):
    return np.sum(parameter_of_f_helper(x))


def parameter_of_f_helper(x):
    return _step(x, 2.0) * 3.0


X = np.array([0.3, -0.7, 1.1])
EXACT = [
    (float_accumulator, (0.7,)),
    (array_accumulator, (X,)),
    (sgd_loop, (X,)),
    (dead_temporary, (X,)),
    (dead_local, (X,)),
    (parameter_of_f, (X,)),
    (through_two_calls, (X,)),
]


@pytest.mark.parametrize("f, args", EXACT, ids=[f"{f.__name__}-{np.ndim(a[0])}" for f, a in EXACT])
def test_exact_in_every_mode(f, args):
    x = copy.deepcopy(args[0])
    before = copy.deepcopy(x)

    def pure(v):  # f itself may change its argument (as Python runs it)
        return f(copy.deepcopy(v))

    reference = numeric_grad(pure, [x], 0)
    np.testing.assert_allclose(s2sad.grad(f)(x), reference, rtol=1e-6, atol=1e-8)
    value, g = s2sad.value_and_grad(f)(x)
    assert value == pure(x)
    np.testing.assert_allclose(g, reference, rtol=1e-6, atol=1e-8)
    direction = np.ones_like(x)
    _, tangent = s2sad.jvp(f)(x, direction)
    np.testing.assert_allclose(tangent, np.sum(reference * direction), rtol=1e-6, atol=1e-8)
    hess = s2sad.hessian(f)(x)
    fd_hess = numeric_grad(s2sad.grad(f), [x], 0, eps=1e-5)
    np.testing.assert_allclose(hess, fd_hess, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x, before)  # the caller's data is unchanged
    assert check(f, [copy.deepcopy(x)]) == []


def read_after_call(x):
    y = np.sin(x)
    z = _step(y, x)
    return np.sum(z * y)  # y was changed by _step: f reads the new values


def alias_read_after_call(x):
    y = np.sin(x)
    v = y[1:]
    z = _step(y, x)
    return np.sum(z) + np.sum(v)


def read_later_in_statement(x):
    y = np.sin(x)
    return np.sum(_step(y, x) * y)


def helper_reads_changed_parameter(x):
    return np.sum(_changed_then_read(x))


def _changed_then_read(x):
    return _step(x, 2.0) * x[0]  # x[0] is read after _step changed x


def view_of_live_array(x):
    y = np.sin(x)
    _step(y[1:], 1.0)
    return np.sum(y * x)


def _add_and_multiply(a, b):
    a += 1.0
    return a * b


def same_array_twice(x):
    u = x * 1.0
    return np.sum(_add_and_multiply(u, u))  # b is a: the callee's product reads its own write


def overlapping_views(x):
    u = x * 1.0
    return np.sum(_add_and_multiply(u[:2], u[1:]))


def array_and_its_alias(x):
    u = x * 2.0
    v = u
    return np.sum(_add_and_multiply(u, v))


def _scale_first(a, items):
    a *= 2.0
    return a + items[0]


def array_and_a_list_holding_it(x):
    u = x * 1.0
    return np.sum(_scale_first(u, [u]) ** 2)


REFUSED = [
    same_array_twice,
    overlapping_views,
    array_and_its_alias,
    array_and_a_list_holding_it,
    read_after_call,
    alias_read_after_call,
    read_later_in_statement,
    helper_reads_changed_parameter,
    view_of_live_array,
]


@pytest.mark.parametrize("f", REFUSED)
def test_refused_where_f_reads_the_changed_argument(f):
    with pytest.raises(s2sad.DifferentiationError, match=r"test_param_writes\.py:\d+:\d+: .*changes its parameter"):
        s2sad.grad(f)(X.copy())
    assert check(f, [X.copy()]) == []


def test_generated_code_passes_a_private_copy():
    text = s2sad.source(s2sad.grad(sgd_loop))
    assert "w = _step(copy_input(w), g)" in text
    assert "vjp__step(w, g" in text


# ``for k in d: d[k] = ...`` on a dict parameter: each entry is rebound once (no last-write mask, no
# integer truncation); first-order modes are exact, the Hessian refuses at the user's line.


def dict_entries_doubled(d):
    s = 0.0
    for k in d:
        d[k] = d[k] * 2.0
        s = s + np.sum(d[k])
    return s + np.sum(d["a"] ** 2)


def dict_entries_plus_running_sum(d):
    s = 0.0
    for k in d:
        s = s + np.sum(d[k] ** 2)
        d[k] = d[k] + s
    return s * np.sum(d["b"])


def dict_entries_through_alias(d):
    e = d
    for k in d:
        e[k] = e[k] ** 2
    return np.sum(d["a"] * d["b"])


def dict_entries_rebound(d):
    for k in d:
        d[k] = np.sin(d[k])
    return np.sum(d["a"] * d["b"])


DICT_LOOPS = [dict_entries_doubled, dict_entries_plus_running_sum, dict_entries_through_alias, dict_entries_rebound]


def test_dict_write_in_for_k_exact():
    d = {"a": np.array([1.0, 2.0]), "b": np.array([3.0])}
    g = s2sad.grad(dict_entries_doubled)(d)
    np.testing.assert_allclose(g["a"], [10.0, 18.0])
    np.testing.assert_allclose(g["b"], [2.0])
    assert d["a"].tolist() == [1.0, 2.0]  # the caller's dict is untouched


@pytest.mark.parametrize("f", DICT_LOOPS)
def test_dict_write_in_for_k_every_mode(f):
    assert check(f, [{"a": np.array([1.0, 2.0]), "b": np.array([3.0, -1.0])}]) == []


# ---- f writes into an array held by an argument it is not differentiated for (``w = m.w; w[0] += x[0]``)


class _Model:
    def __init__(self, w, scale):
        self.w = w
        self.scale = scale


@dataclasses.dataclass
class _Params:
    w: np.ndarray
    scale: float = 1.0


class _Pair(typing.NamedTuple):
    w: np.ndarray
    scale: float


def _writes_attribute(x, m):
    w = m.w
    w[0] += x[0]
    return np.sum(w * x)


def _writes_attribute_scaled(x, m):
    w = m.w
    w[1] += x[0] * x[2]
    w *= 2.0
    return np.sum(w * np.sin(x))


def _writes_attribute_then_reads_it(x, m):
    m.w[1] += x[0] * x[2]
    return np.sum(m.w * np.sin(x))


def _holders():
    w = np.array([1.0, 2.0, 3.0])
    return [_Model(w.copy(), 2.0), _Params(w.copy(), 1.5), _Pair(w.copy(), 0.5)]


def _same(a, b) -> bool:
    """Deep equality of arguments (arrays, NamedTuples, dataclasses, plain objects)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if hasattr(a, "__dict__"):
        return a.__dict__.keys() == b.__dict__.keys() and all(_same(a.__dict__[k], b.__dict__[k]) for k in a.__dict__)
    return a == b


@pytest.mark.parametrize("f", [_writes_attribute, _writes_attribute_scaled])
@pytest.mark.parametrize("kind", ["object", "dataclass", "namedtuple"])
def test_write_into_an_undifferentiated_argument_every_mode(f, kind):
    x0 = np.array([0.7, -1.2, 0.4])
    m0 = _holders()[["object", "dataclass", "namedtuple"].index(kind)]

    def pure(v):  # f on fresh copies: its value as of the call
        return f(copy.deepcopy(v), copy.deepcopy(m0))

    grad = numeric_grad(pure, [x0], 0)
    hess = numeric_grad(lambda v: numeric_grad(pure, [v], 0), [x0], 0, eps=1e-4)
    tangent = np.array([0.3, -0.5, 0.8])
    x, m = x0.copy(), copy.deepcopy(m0)
    calls = {
        "grad": (lambda: s2sad.grad(f)(x, m), grad),
        "value_and_grad": (lambda: s2sad.value_and_grad(f)(x, m), (pure(x0), grad)),
        "vjp": (lambda: s2sad.vjp(f)(x, m, 2.0), 2.0 * grad),
        "jvp": (lambda: s2sad.jvp(f)(x, m, tangent), (pure(x0), grad @ tangent)),
        "jacobian forward": (lambda: s2sad.jacobian(f, mode="forward")(x, m), grad),
        "jacobian reverse": (lambda: s2sad.jacobian(f, mode="reverse")(x, m), grad),
        "jacobian": (lambda: s2sad.jacobian(f)(x, m), grad),
        "hessian": (lambda: s2sad.hessian(f)(x, m), hess),
    }
    for mode, (call, expected) in calls.items():
        for _ in range(2):  # the same call twice gives the same numbers
            got = call()
            assert _same(x, x0) and _same(m, m0), f"{mode} changed its arguments"
            for g, e in zip(*((got, expected) if isinstance(expected, tuple) else ((got,), (expected,)))):
                np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=mode)


@pytest.mark.parametrize("kind", ["object"])
def test_write_into_an_argument_read_again_refused_at_the_line(kind):
    """A plain object's attribute written through ``m.w[1] += ...`` and read again: refused (a NamedTuple's or
    a dataclass's field is followed: see below, and tests/test_python_as_written.py)."""
    x0 = np.array([0.7, -1.2, 0.4])
    m0 = _holders()[["object", "dataclass", "namedtuple"].index(kind)]
    x, m = x0.copy(), copy.deepcopy(m0)
    line = _writes_attribute_then_reads_it.__code__.co_firstlineno + 1
    for make in (s2sad.grad, s2sad.jvp, s2sad.jacobian, s2sad.hessian):
        with pytest.raises(s2sad.DifferentiationError, match=rf"test_param_writes.py:{line}:\d+: in-place write"):
            make(_writes_attribute_then_reads_it)(x, m, *([np.ones(3)] if make is s2sad.jvp else []))
        assert _same(x, x0) and _same(m, m0)


@pytest.mark.parametrize("kind", ["dataclass", "namedtuple"])
def test_write_into_a_record_argument_read_again_is_exact(kind):
    x0 = np.array([0.7, -1.2, 0.4])
    m0 = _holders()[["object", "dataclass", "namedtuple"].index(kind)]

    def pure(v):
        return _writes_attribute_then_reads_it(copy.deepcopy(v), copy.deepcopy(m0))

    grad = numeric_grad(pure, [x0], 0)
    hess = numeric_grad(lambda v: numeric_grad(pure, [v], 0), [x0], 0, eps=1e-4)
    x, m = x0.copy(), copy.deepcopy(m0)
    np.testing.assert_allclose(s2sad.grad(_writes_attribute_then_reads_it)(x, m), grad, rtol=1e-6)
    value, tangent = s2sad.jvp(_writes_attribute_then_reads_it)(x, m, np.ones(3))
    np.testing.assert_allclose(tangent, grad.sum(), rtol=1e-6)
    assert value == pure(x0)
    np.testing.assert_allclose(s2sad.hessian(_writes_attribute_then_reads_it)(x, m), hess, rtol=1e-4, atol=1e-6)
    assert _same(x, x0) and _same(m, m0)


def _holds_then_appends(p):
    hs = [p]
    hs.append(p * 2)
    hs[0] = 3.0
    hs.sort()
    return hs


def _writes_into_numbers_array(p):
    y = np.zeros(2)
    y[0] = p
    y[1] = 3.0


def _appended_then_written(p):
    lst = []
    lst.append(p)
    lst[0][0] = 1.0


def _iterated_then_written(p):
    hs = [p]
    for r in hs:
        r[0] = 1.0


def _popped_then_written(p):
    hs = [p]
    q = hs.pop()
    q += 1.0


def _rows_filled(p):
    [r.fill(0) for r in p]


def _listed_then_set(p):
    rows = list(p)
    rows[0] = 1.0
    rows.append(2.0)


def _listed_row_written(p):
    rows = list(p)
    rows[0][1] = 5.0


def test_a_list_holding_a_parameter_changes_the_list_not_the_parameter():
    from s2sad.param_writes import param_writes

    # writing a list (or an array of numbers) that holds p changes the container only
    assert param_writes(_holds_then_appends) == {}
    assert param_writes(_writes_into_numbers_array) == {}
    assert param_writes(_listed_then_set) == {}
    # writing into an element it holds changes p (lst.append(p) and comprehensions were not followed)
    for fn in (_appended_then_written, _iterated_then_written, _popped_then_written, _rows_filled, _listed_row_written):
        assert set(param_writes(fn)) == {"p"}, fn.__name__
