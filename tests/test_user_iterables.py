"""Objects of user classes built inside f and read as Python reads them (round 29): iterated through their
``__iter__`` / ``__reversed__`` (not ``len`` and ``[i]``), also by ``zip``, ``sum``, ``max``, ``min`` and
``sorted``; iterables with only ``__iter__`` (no ``__len__``); an object's own ``__getitem__``; and
``round``/``math.floor``/``int``/``float`` of an object with its own ``__round__``/``__floor__``/``__int__``/
``__float__``.  Each is exact in every mode or refused at the user's line."""

import copy
import math

import numpy as np
import pytest
from exact_or_refused import assert_exact, check, numeric_jacobian

import s2sad


class Sparse:
    def __init__(self, d):
        self.d = d

    def __iter__(self):
        return iter(self.d.values())

    def __len__(self):
        return len(self.d)

    def __getitem__(self, k):
        return self.d.get(k, 0.0)


class Stack:
    def __init__(self, v):
        self.v = v

    def __len__(self):
        return len(self.v)

    def __getitem__(self, i):
        return self.v[i] * 10

    def __iter__(self):
        return iter(self.v)

    def __reversed__(self):
        return iter(self.v[::-1])


class OnlyIter:
    def __init__(self, v):
        self.v = v

    def __iter__(self):
        yield from self.v


class W:
    def __init__(self, v):
        self.v = v

    def __getitem__(self, i):
        return self.v * (i + 2)

    def __round__(self, n=None):
        return self.v * 3

    def __floor__(self):
        return self.v * 5

    def __ceil__(self):
        return self.v * 6

    def __trunc__(self):
        return self.v * 7

    def __int__(self):
        return 4

    def __float__(self):
        return 2.5


def zip_sparse(x):
    s = 0.0
    for a, b in zip(x, Sparse({0: 1.0, 5: 2.0, 9: 4.0})):
        s = s + a * b
    return s


def max_sparse(x):
    return max(Sparse({0: 1.0, 5: 4.0})) * x[0]


def min_sparse(x):
    return min(Sparse({0: 3.0, 5: 2.0})) * x[0]


def sorted_sparse(x):
    a, b = sorted(Sparse({0: 3.0, 5: 2.0}))
    return a * x[0] + b * x[1]


def reversed_stack(x):
    s = 1.0
    for b in reversed(Stack([1.0, 2.0])):
        s = s * x[0] + b
    return s


def sum_genexp(x):
    return sum(a * b for a, b in zip(x, Sparse({0: 1.0, 5: 2.0, 9: 4.0})))


def sum_object(x):
    return sum(Sparse({0: 1.0, 5: 2.0})) * x[1]


def plain_loop(x):
    s = 0.0
    for b in Sparse({0: 1.0, 5: 2.0, 9: 4.0}):
        s = s + b * x[1]
    return s


def named_loop(x):
    sp = Sparse({0: 1.0, 5: 2.0, 9: 4.0})
    s = 0.0
    for b in sp:
        s = s * x[2] + b
    return s


def named_max(x):
    sp = Sparse({0: 1.0, 5: 4.0})
    return max(sp) * x[0]


def list_of_object(x):
    a, b = list(Sparse({1: 2.0, 5: 3.0}))
    return a * x[0] + b * x[1]


def only_iter_loop(x):
    s = 0.0
    for b in OnlyIter([1.0, 2.0]):
        s = s + b * x[1]
    return s


def only_iter_zip(x):
    s = 0.0
    for a, b in zip(x, OnlyIter([1.0, 2.0])):
        s = s + a * b
    return s


def enumerate_only_iter(x):
    s = 0.0
    for i, b in enumerate(OnlyIter([1.0, 2.0])):
        s = s + b * x[i]
    return s


def only_iter_sum(x):
    return sum(OnlyIter([1.0, 2.0])) * x[0]


def only_iter_of_x(x):
    s = 0.0
    for b in OnlyIter([x[0], x[1]]):
        s = s + b * b
    return s


def sparse_of_x(x):
    s = 0.0
    for a, b in zip(x, Sparse({0: x[2], 5: x[0]})):
        s = s + a * b
    return s


def unpacked_object(x):
    a, b = Sparse({1: 2.0, 5: 3.0})
    return a * x[0] + b * x[1]


def unpacked_object_of_x(x):
    a, b = Sparse({1: x[2], 5: 3.0})
    return a * x[0] + b * x[1]


def max_object_of_x(x):
    return max(Sparse({1: x[2], 5: 3.0})) * x[0]


def reversed_object_of_x(x):
    s = 0.0
    for v in reversed(Stack([x[0], 2.0])):
        s = s * x[1] + v
    return s


class Growing(Stack):
    def append(self, v):
        self.v.append(v)


def grows_while_iterated(x):
    st = Growing([1.0, 2.0])
    s = 0.0
    for b in st:
        s = s + b * x[0]
        if len(st) < 4:
            st.append(3.0)
    return s


G = Sparse({0: 1.0, 5: 4.0})
GD = {"a": 1.0, "b": 2.0}


def max_global(x):
    return max(G) * x[0] + len(max(GD)) * x[1]


def reversed_global(x):
    s = 1.0
    for b in reversed(GD):
        s = s * x[0] + len(b)
    return s


def make_sparse():
    return Sparse({0: 1.0, 5: 4.0})


def max_helper_result(x):
    return max(make_sparse()) * x[0]


EXACT = [
    unpacked_object,
    max_global,
    reversed_global,
    max_helper_result,
    zip_sparse,
    max_sparse,
    min_sparse,
    sorted_sparse,
    reversed_stack,
    sum_genexp,
    sum_object,
    plain_loop,
    named_loop,
    named_max,
    list_of_object,
    only_iter_loop,
    only_iter_zip,
    enumerate_only_iter,
    only_iter_sum,
]

X = np.array([0.3, -0.6, 1.2])


def check_jacobian(f, x):
    """``s2sad.jacobian`` exact, or refused at the user's line."""
    try:
        got = s2sad.jacobian(f)(copy.deepcopy(x))
    except s2sad.DifferentiationError as e:
        assert str(e).split(":")[0].endswith("test_user_iterables.py"), str(e)
        return
    np.testing.assert_allclose(got, numeric_jacobian(f, [x], 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", EXACT, ids=lambda f: f.__name__)
def test_iterated_as_python_iterates(f):
    assert_exact(f, [X.copy()])
    np.testing.assert_allclose(s2sad.jacobian(f)(X.copy()), numeric_jacobian(f, [X], 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "f",
    [only_iter_of_x, sparse_of_x, unpacked_object_of_x, max_object_of_x, reversed_object_of_x, grows_while_iterated],
    ids=lambda f: f.__name__,
)
def test_iterated_differentiated_items_exact_or_refused(f):
    symptoms = check(f, [X.copy()])
    assert not symptoms, "\n".join(symptoms)
    check_jacobian(f, X.copy())


def getitem_built(x):
    return W(x[0])[1] + x[1]


def getitem_constant(x):
    return W(2.0)[1] * x[1]


def round_built(x):
    return round(W(x[0])) + x[1]


def floor_built(x):
    return math.floor(W(x[0])) + x[1]


def ceil_built(x):
    return math.ceil(W(x[0])) + x[1]


def trunc_built(x):
    return math.trunc(W(x[0])) + x[1]


def int_built(x):
    return int(W(x[0])) * x[1]


def float_built(x):
    return float(W(x[0])) * x[1]


def round_named(x):
    w = W(x[0])
    return round(w, 2) + x[1]


class Scaled:
    def __init__(self, v):
        self.v = v

    def __getitem__(self, i):
        return self.v[i] * 2.0


def sliced_built(x):
    return np.sum(Scaled(x)[1:3] ** 2)


OWN = [
    sliced_built,
    getitem_built,
    getitem_constant,
    round_built,
    floor_built,
    ceil_built,
    trunc_built,
    int_built,
    float_built,
    round_named,
]


@pytest.mark.parametrize("f", OWN, ids=lambda f: f.__name__)
def test_own_dunder_is_its_method(f):
    assert_exact(f, [X.copy()])
    np.testing.assert_allclose(s2sad.jacobian(f)(X.copy()), numeric_jacobian(f, [X], 0), rtol=1e-5, atol=1e-6)


def make_w(v):
    return W(v)


def round_helper_result(x):
    return round(make_w(x[0])) + x[1]


def floor_item(x):
    ws = [W(x[0]), W(x[1])]
    return math.floor(ws[0]) + x[1]


def getitem_helper_result(x):
    return make_w(x[0])[1] + x[1]


def round_rebound(x):
    w = W(x[0])
    if x[1] > 0:
        w = x[2]
    return round(w) + x[1]


def float_helper_result(x):
    return float(make_w(x[0])) * x[1]


def sin_of_object(x):
    return math.sin(make_w(x[0])) + x[1]


def round_refused(x):
    return round(make_w(x[0])) + x[1]


def test_round_refusal_names_the_line():
    with pytest.raises(s2sad.DifferentiationError, match=r"test_user_iterables.py:\d+:\d+: round\(\.\.\.\) of an"):
        s2sad.grad(round_refused)(X.copy())


@pytest.mark.parametrize(
    "f",
    [round_helper_result, floor_item, getitem_helper_result, round_rebound, float_helper_result, sin_of_object],
    ids=lambda f: f.__name__,
)
def test_own_dunder_unknown_class_exact_or_refused(f):
    symptoms = check(f, [X.copy()])
    assert not symptoms, "\n".join(symptoms)
    check_jacobian(f, X.copy())
