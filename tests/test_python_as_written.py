"""Python as people write it (issue 13, round 23): ``itertools.accumulate``/``chain``, ``sorted``/``max``/``min``
with ``key=``, ... Each is exact in every mode against finite differences (and not refused), or refused at
the user's line naming the user's construct."""

import copy
import dataclasses
import functools
import itertools
import operator
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from tests.exact_or_refused import check
from tests.test_nested_functions import check_all

X = np.array([0.31, -0.53, 0.77])


def exact(f, args, wrt=0, pure=True):
    """Not refused, and exact in every mode (inputs unchanged).  ``pure``: f does not write into its
    arguments (``check_all`` runs f on them; ``check`` on copies)."""
    scalar = np.ndim(f(*copy.deepcopy(args))) == 0
    s2sad.grad(f, wrt=wrt)(*copy.deepcopy(args)) if scalar else s2sad.jvp(f, wrt=wrt)
    symptoms = check(f, args, wrt=[wrt])
    assert not symptoms, "\n".join(symptoms)
    if pure:
        check_all(f, args, wrt=wrt)


# ---- 1. itertools.accumulate, itertools.chain, chain.from_iterable ---------------------------------------
def acc_sum(x):
    return sum(v * v for v in itertools.accumulate([x[0], x[1], x[2]]))


def acc_mul_loop(x):
    s = 0.0
    for v in itertools.accumulate(x, operator.mul):
        s = s + v
    return s


def acc_lambda_initial(x):
    return sum(list(itertools.accumulate(x, lambda a, b: a * b + 1.0, initial=0.5)))


def acc_func_keyword(x):
    c = x[0] * 2.0
    return np.sum(np.array(list(itertools.accumulate(np.sin(x), func=lambda t, u: t * c + u))) ** 2)


def _smooth_max(a, b):
    return np.log(np.exp(a) + np.exp(b))


def acc_user_function(x):
    ys = itertools.accumulate([x[0] * 2, x[1], x[2] ** 2], _smooth_max)
    return [y for y in ys][-1] * x[1]


def acc_of_generator(x):
    return max(itertools.accumulate((v * v for v in x), initial=x[0]))


def acc_empty(x):
    return sum(itertools.accumulate([], initial=x[0])) + sum(itertools.accumulate([])) * x[1]


def chain_loop(x):
    s = 0.0
    for v in itertools.chain(x[:2], [x[2] * 3.0]):
        s = s + v * v
    return s


def chain_from_iterable_sum(x):
    return sum(itertools.chain.from_iterable([[x[0], x[1]], [x[2]]])) * x[0]


def chain_list(x):
    return np.sum(np.array(list(itertools.chain([x[0]], [x[1], x[2]]))) ** 2)


def chain_generators_break(x):
    s = 0.0
    for k, v in enumerate(itertools.chain((t * 2 for t in x), (np.sin(t) for t in x))):
        if k == 4:
            break
        s = s * v + v
    return s


def chain_of_rows(x):
    a = np.outer(x, x)
    return sum(np.sum(r**2) for r in itertools.chain(a[:1], a[2:]))


@pytest.mark.parametrize(
    "f",
    [
        acc_sum,
        acc_mul_loop,
        acc_lambda_initial,
        acc_func_keyword,
        acc_user_function,
        acc_of_generator,
        acc_empty,
        chain_loop,
        chain_from_iterable_sum,
        chain_list,
        chain_generators_break,
        chain_of_rows,
    ],
)
def test_itertools_accumulate_and_chain(f):
    exact(f, [X.copy()])


def acc_vector(x):
    return np.stack(list(itertools.accumulate([x, x * x, np.cos(x)], operator.mul)))


def test_accumulate_of_arrays_vector_output():
    exact(acc_vector, [X.copy()])


def test_accumulate_keeps_python_semantics():
    assert acc_lambda_initial(X) == s2sad.value_and_grad(acc_lambda_initial)(X)[0]
    assert acc_mul_loop(X) == s2sad.value_and_grad(acc_mul_loop)(X)[0]


def test_accumulate_with_a_lambda_of_other_arity_is_refused_at_the_line():
    def f(x):
        return sum(itertools.accumulate(x, lambda *ab: ab[0] * ab[1]))

    with pytest.raises(s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: .*accumulate"):
        s2sad.grad(f)(X)


# ---- 2. sorted / max / min with key= and reverse= -------------------------------------------------------
def sorted_key(x):
    ys = [x[0], x[1] * 2.0, x[2] - 1.0]
    zs = sorted(ys, key=lambda v: abs(v))
    return zs[0] * 3.0 + zs[1] * zs[2]


def sorted_reverse(x):
    zs = sorted([x[0], x[1], x[2]], reverse=True)
    return zs[0] + 2 * zs[1] + 3 * zs[2] ** 2


def sorted_array(x):
    zs = sorted(x * x - x)
    return zs[0] * 5.0 + zs[-1]


def sorted_generator_key_reverse(x):
    c = 0.2
    zs = sorted((np.sin(v) for v in x), key=lambda v: (v - c) ** 2, reverse=True)
    return sum(k * z for k, z in enumerate(zs, 1))


def sorted_rows_by_norm(x):
    rows = [x * 2.0, x[::-1], np.cos(x)]
    out = sorted(rows, key=np.linalg.norm)
    return np.sum(out[0] * 3.0 + out[2])


def sorted_pairs(x):
    pairs = [(x[0], 2.0), (x[1], 1.0), (x[2], 3.0)]
    s = 0.0
    for k, (a, w) in enumerate(sorted(pairs, key=lambda p: p[1])):
        s = s + k * a * w
    return s


def max_min_key(x):
    return max([x[0], x[1], x[2]], key=lambda v: (v - 0.1) ** 2) * x[0] + min([x[0], x[1]], key=abs)


def max_two_key(x):
    return max(x[0], x[2] * 0.5, key=abs) + min(x[1], x[2], x[0], key=lambda v: -v) ** 2


def max_generator_key(x):
    return max((v * k for k, v in enumerate(x)), key=np.cos) * min(x, key=np.sin)


def sorted_of_constants(x):
    ks = sorted({"b": 1.0, "a": 2.0})
    return x[0] * len(ks) + sum(sorted([3.0, 1.0], key=abs)) * x[1]


@pytest.mark.parametrize(
    "f",
    [
        sorted_key,
        sorted_reverse,
        sorted_array,
        sorted_generator_key_reverse,
        sorted_rows_by_norm,
        sorted_pairs,
        max_min_key,
        max_two_key,
        max_generator_key,
        sorted_of_constants,
    ],
)
def test_sorted_max_min_with_key(f):
    exact(f, [X.copy()])


def sorted_vector(x):
    return np.array(sorted(x * x, reverse=True))


def test_sorted_vector_output_follows_the_order():
    exact(sorted_vector, [X.copy()])


def test_sorted_is_stable_as_python():
    def f(x):
        zs = sorted([x[0], x[1], x[0] * 1.0], key=lambda v: 0.0, reverse=True)
        return zs[0] + 2.0 * zs[1] + 4.0 * zs[2]

    np.testing.assert_allclose(s2sad.grad(f)(X), [5.0, 2.0, 0.0])


def sorted_dict_items(x):
    d = {"a": x[0], "b": x[1] * 3}
    s = 0.0
    for _, v in sorted(d.items(), key=lambda kv: kv[1]):
        s = s * 2 + v
    return s + sum(sorted(d.values(), reverse=True)[0] for _ in range(2))


def test_sorted_dict_items_and_values():
    exact(sorted_dict_items, [X.copy()])


def test_max_with_default_and_next_of_accumulate_are_refused_at_the_line():
    def f(x):
        return max([x[0], x[1]], key=abs, default=0.0)

    def g(x):
        return next(itertools.accumulate(x)) * 2.0

    for fn in (f, g):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: "):
            s2sad.grad(fn)(X)


# ---- 8. arrays of dtype=object ---------------------------------------------------------------------------
def object_rows(x):
    a = np.zeros(2, dtype=object)
    a[0] = x[:2]
    a[1] = x[1:]
    return np.sum(a[0] * a[1])


def object_rows_alias(x):
    a = np.empty(2, dtype="O")
    b = a
    b[1] = x[:2]
    return np.sum(a[1])


def object_array_display(x):
    a = np.array([x[:2], x[1:]], dtype=object)
    return np.sum(a[0] * a[1])


@pytest.mark.parametrize(
    "f, what",
    [
        (object_rows, "'a', an array of dtype=object"),
        (object_rows_alias, "'b', an array of dtype=object"),
        (object_array_display, r"np.array\(..., dtype=object\)"),
    ],
)
def test_object_arrays_of_differentiated_values_are_refused_at_the_line(f, what):
    for make in (s2sad.grad, s2sad.value_and_grad, s2sad.hessian):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: .*" + what):
            make(f)(X.copy())
    with pytest.raises(s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: .*" + what):
        s2sad.jvp(f)(X.copy(), np.ones(3))
    assert not check(f, [X.copy()], wrt=[0])


def test_an_object_array_of_constants_is_fine():
    def f(x):
        a = np.zeros(2, dtype=object)
        a[0] = "s"
        return np.sum(x * 2) + len(a)

    exact(f, [X.copy()])


# ---- 5. functools.partial binding into **kwargs -----------------------------------------------------------
def _scaled(x, a=1.0, **kw):
    return np.sum(x * kw["scale"] * a) ** 2 + kw.get("off", 0.0) * x[0]


def test_partial_binding_into_kwargs():
    p = functools.partial(_scaled, scale=2.0)
    exact(p, [X.copy()])
    nested = functools.partial(functools.partial(_scaled, scale=2.0), a=3.0, off=0.7)
    exact(nested, [X.copy()])
    assert s2sad.value_and_grad(nested)(X)[0] == nested(X)
    # the bound value is read when the derivative runs, as the partial reads it
    p.keywords["scale"] = 3.0
    np.testing.assert_allclose(s2sad.grad(p)(X), s2sad.grad(functools.partial(_scaled, scale=3.0))(X))


def test_partial_into_kwargs_of_a_function_with_star_args_is_refused_naming_the_keyword():
    def g(*xs, **kw):
        return xs[0] * kw["s"]

    with pytest.raises(s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: partial binds 's'"):
        s2sad.grad(functools.partial(g, s=2.0))(1.5)


# ---- 7. a list of functions called in a generator ---------------------------------------------------------
def test_a_function_from_a_list_is_named_by_the_users_name():
    def f(x):
        fs = [lambda t, k=k: t * k for k in range(3)]
        return sum(g(x) for g in fs)

    with pytest.raises(
        s2sad.DifferentiationError,
        match=r"test_python_as_written.py:\d+:\d+: .* g\(\), a call of an object or function",
    ):
        s2sad.grad(f)(1.5)


# ---- 6. a global tuple rebound at module level ------------------------------------------------------------
CONST = (1.0, 2.0)
CONST_LIST = [0.5, 1.5]


def over_const(x):
    s = 0.0
    for c in CONST:
        s = s + c * x[0]
    return s + x[1] * CONST[1] + sum(c * x[2] for c in CONST_LIST) + CONST_LIST[0] * x[1] ** 2


def test_a_global_tuple_rebound_is_read_when_the_derivative_runs():
    global CONST, CONST_LIST
    old = CONST, CONST_LIST
    try:
        derivatives = [s2sad.grad(over_const), s2sad.value_and_grad(over_const), s2sad.hessian(over_const)]
        derivatives[0](X)
        CONST = (3.0, 4.0)  # rebound after the derivative was made
        CONST_LIST[0] = -2.0  # and a global list changed in place
        exact(over_const, [X.copy()])
        for d in derivatives:
            got = d(X)
            fresh = {0: s2sad.grad, 1: s2sad.value_and_grad, 2: s2sad.hessian}[derivatives.index(d)](over_const)(X)
            np.testing.assert_allclose(
                np.asarray(got[1] if isinstance(got, tuple) else got, dtype=float),
                np.asarray(fresh[1] if isinstance(fresh, tuple) else fresh, dtype=float),
            )
        np.testing.assert_allclose(derivatives[0](X), [7.0, 4.0 + 2 * -2.0 * X[1], -0.5])
        CONST = (np.ones(2), 2.0)  # other types: the derivative would be stale, so it asks to be made again
        with pytest.raises(
            s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: 'CONST' was redefined"
        ):
            derivatives[0](X)
        CONST = (1.0, 2.0, 3.0)
        exact(over_const, [X.copy()])
    finally:
        CONST, CONST_LIST = old


# ---- 3. a view of an argument written, then the argument read ---------------------------------------------
X4 = np.array([0.31, -0.53, 0.77, 1.2])


def view_scaled(x):
    v = x[1:]
    v *= 2
    return np.sum(x**2)


def view_read_after_parent_write(x):
    v = x[1:]
    x[0] = x[1] * 3.0
    return np.sum(v * x[:3])


def view_of_view(x):
    v = x[1:]
    w = v[:2]
    w[0] = np.sin(w[1])
    return np.sum(x**3) + np.sum(v)


def view_in_loop(x):
    v = x[:2]
    for i in range(2):
        v[i] = v[i] * x[3]
    return np.sum(x * x)


def view_strided(x):
    v = x[::2]
    v[:] = np.tanh(v)
    return np.sum(x**2) * x[1]


def view_of_matrix_row(a):
    r = a[1, :]
    r += a[0, :] ** 2
    return np.sum(a * a)


@pytest.mark.parametrize(
    "f, x",
    [
        (view_scaled, X4),
        (view_read_after_parent_write, X4),
        (view_of_view, X4),
        (view_in_loop, X4),
        (view_strided, X4),
        (view_of_matrix_row, np.arange(6.0).reshape(2, 3) / 7 + 0.1),
    ],
)
def test_a_view_of_an_argument_written_then_the_argument_read(f, x):
    exact(f, [x.copy()], pure=False)
    a = x.copy()
    s2sad.grad(f)(a)
    s2sad.jvp(f)(a, np.ones_like(a))
    assert np.array_equal(a, x)  # the caller's x is unchanged by derivative calls
    b = x.copy()
    assert s2sad.value_and_grad(f)(b)[0] == f(x.copy())


def view_second_arg(x, y):
    v = x[1:]
    v += y
    return np.sum(x * np.cos(x))


def test_a_view_written_with_another_argument():
    exact(view_second_arg, [X4.copy(), np.ones(3)], pure=False)
    exact(view_second_arg, [X4.copy(), np.linspace(0.1, 0.3, 3)], wrt=1, pure=False)


def test_a_view_of_a_list_argument_is_refused_when_the_derivative_runs():
    def f(x):
        v = x[1:]
        v[0] = 5.0
        return x[0] * x[1]

    assert f([0.5, 2.0, 3.0]) == 1.0
    with pytest.raises(
        s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: .*'x' is not a NumPy array"
    ):
        s2sad.grad(f)([0.5, 2.0, 3.0])


# ---- 4. a NamedTuple / dataclass field written through a local, the object read later ----------------------
class Q(NamedTuple):
    w: np.ndarray
    b: np.ndarray


@dataclasses.dataclass
class D:
    w: np.ndarray
    b: float


class Plain:
    def __init__(self, w):
        self.w = w


def field_add(x, q):
    w = q.w
    w[0] += x[0]
    return np.sum(q.w * x)


def field_scaled(x, q):
    w = q.w
    b = q.b
    w *= x
    return np.sum(q.w * b) + np.sum(w**2)


def field_in_branch(x, q):
    w = q.w
    if x[0] > 0:
        w[1] = np.sin(x[1])
    return np.sum(q.w * x) + q.b[0]


def field_in_loop(x, q):
    w = q.w
    for i in range(2):
        w[i] = w[i] * x[i]
    return np.sum(q.w * x)


def field_through_copy(x, q):
    w = q.w
    w[0] = x[0] ** 2
    q2 = q
    return np.sum(q2.w * x)


@pytest.mark.parametrize("f", [field_add, field_scaled, field_in_branch, field_in_loop, field_through_copy])
def test_a_namedtuple_field_written_through_a_local(f):
    q = Q(np.array([1.0, 0.5, -0.3]), np.array([2.0, 1.0, 0.5]))
    before = copy.deepcopy(q)
    exact(f, [X.copy(), q], pure=False)
    s2sad.grad(f)(X.copy(), q)
    s2sad.jvp(f)(X.copy(), q, np.ones(3))
    assert all(np.array_equal(a, b) for a, b in zip(q, before))  # the caller's q is unchanged
    assert s2sad.value_and_grad(f)(X.copy(), copy.deepcopy(q))[0] == f(X.copy(), copy.deepcopy(q))


def field_wrt_q(q, x):
    w = q.w
    w[0] += x[0]
    return np.sum(q.w * q.w)


def test_a_field_written_through_a_local_differentiated_with_respect_to_the_object():
    q = Q(np.ones(3) * 0.7, np.ones(3))
    gq, gx = s2sad.grad(field_wrt_q, wrt=(0, 1))(q, X.copy())
    np.testing.assert_allclose(gq.w, 2 * (q.w + np.array([X[0], 0, 0])))
    np.testing.assert_allclose(gq.b, 0.0)
    np.testing.assert_allclose(gx, [2 * (0.7 + X[0]), 0, 0])
    np.testing.assert_allclose(s2sad.hessian(field_wrt_q, wrt=1)(q, X.copy()), np.diag([2.0, 0, 0]))
    assert np.array_equal(q.w, np.ones(3) * 0.7)


def test_a_dataclass_field_written_through_a_local():
    d = D(np.array([1.0, 0.5, -0.3]), 1.0)
    g = s2sad.grad(field_add)(X.copy(), d)
    np.testing.assert_allclose(g, [1.0 + 2 * X[0], 0.5, -0.3])
    np.testing.assert_allclose(s2sad.hessian(field_add)(X.copy(), d), np.diag([2.0, 0, 0]))
    assert np.array_equal(d.w, [1.0, 0.5, -0.3])


def test_a_plain_object_attribute_written_through_a_local_is_refused_when_the_derivative_runs():
    with pytest.raises(s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: .*'q' is not one here"):
        s2sad.grad(field_add)(X.copy(), Plain(np.ones(3)))


def object_array_argument(x, a):
    a[0] = x[0] * 3
    return a[0] * 2


@pytest.mark.parametrize("rows", [False, True])
def test_an_object_array_argument_written_is_refused_where_the_derivative_runs(rows):
    """It was silently 0 (``stored`` took dtype=object for an integer array's truncation)."""

    def args():
        a = np.zeros(2, dtype=object)
        return [X.copy(), a]

    for call in (
        lambda: s2sad.grad(object_array_argument)(*args()),
        lambda: s2sad.jvp(object_array_argument)(*args(), np.ones(3)),
        lambda: s2sad.hessian(object_array_argument)(*args()),
    ):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_python_as_written.py:\d+:\d+: .*dtype=object"):
            call()
