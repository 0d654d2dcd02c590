"""Python lists, tuples and dicts of differentiated values: slices (with steps), repetition,
concatenation, ``list``/``tuple``/``dict`` around arrays, ``enumerate`` and ``zip``, lists of lists,
and lists read back after appends in derivatives of derivatives.  Each program in grad, vjp, jvp and
hessian against central finite differences (reproducers of the blind testers, /work/adv and /work/adv11)."""

import inspect

import numpy as np
import pytest
from fd import assert_close, call_jvp, numeric_grad, numeric_jvp

import s2sad

X3 = np.array([0.7, -1.3, 0.4])
X6 = np.array([0.7, -1.3, 0.4, 1.1, -0.2, 0.9])
rng = np.random.default_rng(29)


def check_all(f, x, hessian=True):
    """grad, value_and_grad, vjp, jvp, hessian and vjp(grad) of scalar ``f`` at ``x`` against finite differences."""
    expected = numeric_grad(f, [x], 0)
    assert_close(s2sad.grad(f)(x), expected, rtol=1e-5, atol=1e-6)
    value, g = s2sad.value_and_grad(f)(x)
    assert_close(value, f(x), rtol=1e-12, atol=0)
    assert_close(g, expected, rtol=1e-5, atol=1e-6)
    bx = s2sad.vjp(f)(x, 2.0)
    assert_close(bx, 2.0 * expected, rtol=1e-5, atol=1e-6)
    tangent = rng.normal(size=x.shape)
    value, dout = call_jvp(f, [x], [0], [tangent])
    assert_close(value, f(x), rtol=1e-12, atol=0)
    assert_close(dout, numeric_jvp(f, [x], [0], [tangent]), rtol=1e-5, atol=1e-6)
    if hessian:
        H = numeric_grad(s2sad.grad(f), [x], 0)
        assert_close(s2sad.hessian(f)(x), H, rtol=1e-5, atol=1e-6)
        v = rng.normal(size=x.shape)  # reverse over reverse: v^T H
        back = s2sad.vjp(s2sad.grad(f))
        (seed,) = [p.name for p in inspect.signature(back).parameters.values() if p.kind == p.KEYWORD_ONLY]
        assert_close(back(x, **{seed: v}), v @ H, rtol=1e-5, atol=1e-6)


# ---- slices of lists and tuples (w3_list_slice, w4_list_ops, c6_split) ---------------------------


def sum_of_list_slice(x):
    items = [x[0], x[1] * 2, x[2] ** 2]
    return sum(items[1:])


def index_into_list_slice(x):
    items = [x[0], x[1] * 2, x[2] ** 2]
    tail = items[1:]
    return tail[0] * tail[1]


def negative_list_slice(x):
    items = [x[0], x[1], x[2]]
    return items[-2:][0] * 5


def tuple_display_slice(x):
    return sum((x[0], x[1] * 2, x[2])[1:])


def max_of_list_slice(x):
    items = [v**2 for v in x]
    return items[0] + max(items[1:])


def split_then_slice(x):
    parts = np.split(x, 3)
    return np.sum(parts[1:][0] * 2) + np.sum(parts[-1])


def split_reversed(x):
    parts = np.split(x, 3)
    return np.sum(np.concatenate(parts[::-1]) * np.arange(6.0))


def list_reversed_then_sliced(x):
    items = [x[0], x[1] * 2, x[2] ** 2]
    return sum(items[::-1][:2])


def appended_list_with_step(x):
    hs = []
    for v in x:
        hs.append(v**2)
    return np.sum(np.stack(hs[::2]))


def list_slice_written_in_loop(x):
    items = [x[0], x[1] * 2, x[2] ** 2]
    s = 0.0
    for i in range(2):
        s = s + sum(items[i:]) * (i + 1)
    return s


@pytest.mark.parametrize(
    "f",
    [
        sum_of_list_slice,
        index_into_list_slice,
        negative_list_slice,
        tuple_display_slice,
        max_of_list_slice,
        list_reversed_then_sliced,
        list_slice_written_in_loop,
    ],
)
def test_list_slices(f):
    check_all(f, X3.copy())


@pytest.mark.parametrize("f", [split_then_slice, split_reversed, appended_list_with_step])
def test_slices_of_array_lists(f):
    check_all(f, X6.copy() if f is not appended_list_with_step else X3.copy())


# ---- list(...), tuple(...), dict(...) around arrays, enumerate and zip (w1_list_enumerate, bug_dict_ctor) --


def loop_over_list_of_enumerate(x):
    s = 0.0
    for i, v in list(enumerate(x)):
        s = s + v**2 * (i + 1)
    return s


def list_of_zip(x):
    items = list(zip(x, x * 2))
    return sum(a * b for a, b in items) + items[0][0] * items[1][1]


def tuple_of_enumerate(x):
    t = tuple(enumerate(x))
    return t[0][1] * t[1][1] + t[2][0]


def list_of_array(x):
    t = list(x)
    return t[0] * t[1] + sum(v**2 for v in reversed(list(x)))


def tuple_of_array(x):
    return sum(v**3 for v in tuple(x))


def tuple_of_list(x):
    t = tuple([x[0], x[1] * 2])
    return t[0] * t[1]


def dict_of_enumerate(x):
    d = dict(enumerate(x))
    return d[0] * d[1] + sum(v for k, v in dict(enumerate(x)).items())


def dict_of_zip(x):
    d = dict(zip(["p", "q", "r"], x))
    return d["p"] * d["q"] + d["r"]


def dict_comprehension(x):
    d = {k: v * 2 for k, v in zip("pqr", x)}
    return d["p"] * d["q"] + d["r"]


def list_of_matrix_rows(x):
    rows = list(np.reshape(x, (2, 3)))
    return np.sum(rows[0] * rows[1])


@pytest.mark.parametrize(
    "f",
    [
        loop_over_list_of_enumerate,
        list_of_zip,
        tuple_of_enumerate,
        list_of_array,
        tuple_of_array,
        tuple_of_list,
        dict_of_enumerate,
        dict_of_zip,
        dict_comprehension,
    ],
)
def test_sequence_constructors(f):
    check_all(f, X3.copy())


def test_list_of_matrix_rows():
    check_all(list_of_matrix_rows, X6.copy())


def test_enumerate_and_zip_values_are_refused_not_zero():
    def f(x):
        e = enumerate(x)
        return sum(v for i, v in e)

    with pytest.raises(s2sad.DifferentiationError, match=r"test_lists.py:\d+:\d+:.*enumerate"):
        s2sad.grad(f)(X3.copy())


# ---- a list read at both ends after appends, differentiated twice (bug_gg_index, rr) --------------------


def list_read_at_both_ends(x):
    w = x * 1.0
    hs = [w]
    for i in range(2):
        w = np.sin(w) * x
        hs.append(w)
    return np.sum(hs[-1] + hs[0])


def test_list_read_at_both_ends():
    check_all(list_read_at_both_ends, X3.copy())


def concatenated(x):
    a = [x[0]]
    b = [x[1], x[2]]
    items = a + b
    return items[0] + 2 * items[1] + 3 * items[2]


def padded(x):
    items = [1.0, 2.0] + [x[0]]
    return items[0] * items[2] + items[1]


def repeated(x):
    return sum([x[0] * 3] * 2)


@pytest.mark.parametrize("fn", [concatenated, padded, repeated])
def test_list_concatenation_and_repetition_are_refused_at_the_users_line(fn):
    # the arithmetic rules take + and * for numbers and arrays: on lists they would be silently wrong
    x = np.array([1.0, 2.0, 3.0])
    last = fn.__code__.co_firstlineno + len(inspect.getsource(fn).splitlines()) - 1
    for call in (lambda: s2sad.grad(fn)(x), lambda: s2sad.jvp(fn)(x, np.ones(3))):
        with pytest.raises(s2sad.DifferentiationError, match=r"(concatenating|repeating) lists") as err:
            call()
        line = int(str(err.value).split("test_lists.py:")[1].split(":")[0])
        assert fn.__code__.co_firstlineno < line <= last


def concatenated_parameters(a, b):
    items = a + b
    return items[0] * 2 + items[2] * 3


def test_concatenating_list_parameters_is_refused_at_run_time():
    # a and b are only known to be lists when the gradient runs: its adjoint refuses there, at the user's line
    with pytest.raises(s2sad.DifferentiationError, match=r"test_lists.py:\d+:\d+: concatenating or repeating"):
        s2sad.grad(concatenated_parameters)([1.0, 2.0], [3.0])
