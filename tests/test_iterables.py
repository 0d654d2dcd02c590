"""``for`` over iterables whose items are not their positions: a global dict (its keys), dict and set
displays, a dict attribute of a constant object or of ``self``, ``itertools`` objects, ``enumerate``'s
``start`` given by keyword, ``zip(..., strict=True)``; in loops, comprehensions and generator
expressions, in f and in the helpers it calls.  Each was silently wrong (the keys replaced by
``D[0], D[1], ...``) or crashed in generated code (``len`` of an iterator) before.  Checked in every
mode against finite differences (tests/exact_or_refused.py), and required exact, not refused."""

import itertools
import math

import numpy as np
import pytest
from exact_or_refused import check

import s2sad

ORDER = {0: 1, 1: 2, 2: 0}
W = {"a": 1.5, "b": -0.5, "c": 2.0}
PAIRS = {2, 0}


def global_dict_keys(x):
    s = 0.0
    for k in ORDER:
        s = s * x[0] + k
    return s


def global_dict_string_keys(x):
    s = 0.0
    for k in W:
        s = s + W[k] * np.sin(x[0] * W[k])
    return s


def dict_display(x):
    s = 0.0
    for k in {"a": 1.0, "b": 2.0}:
        s = s + len(k) * x[1] * x[0]
    return s


def set_display(x):
    s = 0.0
    for i in {2, 0}:
        s = s + x[i] * x[i]
    return s


def global_set(x):
    s = 0.0
    for i in PAIRS:
        s = s + np.cos(x[i]) * i
    return s


def comprehension_over_global_dict(x):
    return sum(x[0] * W[k] for k in W) + np.sum(np.array([x[ORDER[k]] * k for k in ORDER]))


def global_dict_values_and_items(x):
    s = 0.0
    for v in W.values():
        s = s + v * x[0]
    for k, v in ORDER.items():
        s = s + x[v] * k
    return s


def _loop_over_global(x):
    s = 0.0
    for k in ORDER:
        s = s * x[0] + k
    return s


def helper_loops_over_global_dict(x):
    return _loop_over_global(x) * x[1]


def product(x):
    s = 0.0
    for i, j in itertools.product(range(2), range(2)):
        s = s + x[i] * x[j + 2]
    return s


def combinations(x):
    s = 0.0
    for i, j in itertools.combinations(range(4), 2):
        s = s + x[i] * np.sin(x[j])
    return s


def islice_of_range(x):
    s = 0.0
    for i in itertools.islice(range(10), 1, 4):
        s = s + x[i] ** 2
    return s


def enumerate_start_keyword(x):
    s = 0.0
    for i, v in enumerate(x, start=1):
        s += i * v * v
    return s


def enumerate_start_in_comprehension(x):
    return sum(i * v for i, v in enumerate(x, start=2)) + sum([i * np.sin(v) for i, v in enumerate(x, start=-1)])


def enumerate_zip_start(x):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, x[::-1]), start=1):
        s = s + i * a * b
    return s


def zip_strict(x):
    s = 0.0
    for a, b in zip(x, np.cos(x), strict=True):
        s = s + a * b
    return s


class Coefs:
    coef = {"a": 1.0, "b": 2.0, "c": -1.0}

    def __init__(self):
        self.order = {2: 0.5, 0: 1.5}

    def __eq__(self, other):  # the checker compares the caller's objects before and after each call
        return type(other) is Coefs and other.order == self.order

    def loss(self, x):
        s = 0.0
        for k in self.order:
            s = s + self.order[k] * x[k] ** 2
        return s


def dict_attribute_of_argument(m, x):
    s = 0.0
    for k in m.coef:
        s = s + m.coef[k] * x[0] * x[1]
    for k in m.order:
        s = s + x[k] * k
    return s


def _make_keys():
    return {0: 2, 2: 0}


def local_bound_to_global_dict(x):
    d = ORDER
    s = 0.0
    for k in d:
        s = s * x[0] + k
    return s


def local_copy_of_global_dict(x):
    d = dict(ORDER)
    s = 0.0
    for k in d:
        s = s * x[1] + k * x[0]
    return s


def local_from_helper(x):
    d = _make_keys()
    s = 0.0
    for k in d:
        s = s * x[1] + k * x[0] + x[k]
    for k in _make_keys():
        s = s * x[3] + k
    return s


def local_set_and_keys(x):
    st = set([2, 0])
    ks = ORDER.keys()
    s = 0.0
    for k in st:
        s = s + x[k] * k
    for k in ks:
        s = s * x[0] + k
    return s


CASES = [
    local_bound_to_global_dict,
    local_copy_of_global_dict,
    local_from_helper,
    local_set_and_keys,
    global_dict_keys,
    global_dict_string_keys,
    dict_display,
    set_display,
    global_set,
    comprehension_over_global_dict,
    global_dict_values_and_items,
    helper_loops_over_global_dict,
    product,
    combinations,
    islice_of_range,
    enumerate_start_keyword,
    enumerate_start_in_comprehension,
    enumerate_zip_start,
    zip_strict,
]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_iterating_a_non_sequence_is_exact_in_every_mode(f):
    x = np.array([0.3, -0.5, 0.7, 1.2])
    symptoms = check(f, [x])
    assert not symptoms, "\n".join(symptoms)
    assert s2sad.value_and_grad(f)(x.copy())[0] == f(x.copy())  # exact, not refused
    assert np.all(np.isfinite(s2sad.hessian(f)(x.copy())))


def test_dict_attribute_of_a_constant_argument_and_of_self():
    m, x = Coefs(), np.array([0.3, -0.5, 0.7])
    symptoms = check(dict_attribute_of_argument, [m, x], wrt=[1])
    assert not symptoms, "\n".join(symptoms)
    symptoms = check(m.loss, [x])
    assert not symptoms, "\n".join(symptoms)
    assert s2sad.value_and_grad(m.loss)(x)[0] == m.loss(x)
    np.testing.assert_allclose(s2sad.grad(m.loss)(x), [3 * x[0], 0, 2 * 0.5 * x[2]])


def test_zip_strict_raises_as_zip_does():
    def f(x, y):
        s = 0.0
        for a, b in zip(x, y, strict=True):
            s = s + a * b
        return s

    with pytest.raises(ValueError):
        f(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="strict"):
        s2sad.grad(f)(np.ones(3), np.ones(2))
    np.testing.assert_allclose(s2sad.grad(f)(np.ones(3), np.arange(3.0)), np.arange(3.0))


def test_global_dict_changed_after_grad_is_read_at_call_time():
    x = np.array([0.3, -0.5, 0.7, 1.2])
    g = s2sad.grad(global_dict_string_keys)
    before = g(x)
    W["d"] = 3.0
    try:
        np.testing.assert_allclose(g(x), before + 3.0 * 3.0 * math.cos(3.0 * x[0]) * np.array([1, 0, 0, 0]))
    finally:
        del W["d"]


def test_enumerate_with_a_wrong_keyword_is_refused_at_the_line():
    def f(x):
        s = 0.0
        for i, v in enumerate(x, begin=1):
            s = s + v
        return s

    with pytest.raises(s2sad.DifferentiationError, match=r"test_iterables.py:\d+:\d+: .*enumerate"):
        s2sad.grad(f)(np.ones(2))


def test_an_endless_iterator_is_refused_at_the_line():
    def f(x):
        s = 0.0
        for i in itertools.count():
            s = s + x[i % 4] * i
            if i >= 5:
                break
        return s

    with pytest.raises(s2sad.DifferentiationError, match=r"test_iterables.py:\d+:\d+: .*endless itertools.count"):
        s2sad.grad(f)(np.ones(4))


def writes_over_global_dict_keys(x):
    d = ORDER
    a = np.zeros(3)
    for k in d:
        a[k] = x[k] * d[k]
    for k in W:
        a[0] = a[0] + W[k] * x[1]
    return np.sum(a * a)


def test_a_loop_writing_in_place_over_dict_keys_is_exact():
    x = np.array([0.3, -0.5, 0.7])
    symptoms = check(writes_over_global_dict_keys, [x])
    assert not symptoms, "\n".join(symptoms)
    assert s2sad.value_and_grad(writes_over_global_dict_keys)(x)[0] == writes_over_global_dict_keys(x)


def _as_dict(x):
    return {0: 1.0, 2: 2.0}


def _as_list(x):
    return [0, 2]


def test_a_loop_writing_over_a_helpers_dict_is_refused_at_run_time_and_a_list_is_exact():
    def over_dict(x):
        a = np.zeros(3)
        for k in _as_dict(x):
            a[k] = x[k] * 2.0
        return np.sum(a * x)

    def over_list(x):
        a = np.zeros(3)
        ks = _as_list(x)
        for k in ks:
            a[k] = x[k] * 2.0
        return np.sum(a * x)

    x = np.array([0.3, -0.5, 0.7])
    with pytest.raises(s2sad.DifferentiationError, match=r"test_iterables.py:\d+:\d+: .*writes in place over a dict"):
        s2sad.grad(over_dict)(x)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_iterables.py:\d+:\d+: .*writes in place over a dict"):
        s2sad.jvp(over_dict)(x, np.ones(3))
    symptoms = check(over_list, [x])
    assert not symptoms, "\n".join(symptoms)


def test_a_loop_writing_in_place_over_a_dict_parameter_is_refused_and_over_an_array_exact():
    def rows(a, x):
        s = 0.0
        for row in a:
            row[0] = row[0] * x
            s = s + np.sum(row) * x
        return s

    with pytest.raises(s2sad.DifferentiationError, match=r"test_iterables.py:\d+:\d+: .*writes in place over a dict"):
        s2sad.grad(rows, wrt=1)({0: np.ones(2), 1: np.ones(2)}, 0.5)
    symptoms = check(rows, [np.arange(6.0).reshape(3, 2), 0.5])
    assert not symptoms, "\n".join(symptoms)
