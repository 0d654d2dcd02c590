"""Round 24 (ops branch): values whose Python operators or container methods are not NumPy's or Python's
own (a user class's ``__rmul__``, a NamedTuple's ``__add__``, a dict subclass's ``values``, ``np.matrix``, an
ndarray subclass's ``__mul__``, ``scipy.sparse``) were differentiated as if they were: wrong numbers and
internal crashes.  Each is refused now, at generation time when the value is a global, a closure value or an
object built in f, when the derivative is called for arguments; plain values keep working."""

from __future__ import annotations

import copy
import dataclasses
import re
from collections import OrderedDict, defaultdict
from typing import NamedTuple

import numpy as np
import pytest
import scipy.sparse
from exact_or_refused import check

import s2sad

LOCATED = re.compile(r"^\S+:\d+:\d+: ")


class Scale:
    def __init__(self, k):
        self.k = k

    def __rmul__(self, o):
        return o**2 * self.k

    def __mul__(self, o):
        return o**2 * self.k

    def __radd__(self, o):
        return o**2 * self.k

    def __matmul__(self, o):
        return o**2 * self.k

    def __rmatmul__(self, o):
        return o**2 * self.k


S = Scale(2.0)


class N(NamedTuple):
    w: float

    def __add__(self, o):
        return N(self.w + o.w * 10)

    def __mul__(self, o):
        return N(self.w * o * 10)


class P(NamedTuple):  # a plain NamedTuple: works
    w: float
    b: float


class D:
    def __init__(self, w):
        self.w = w

    def __add__(self, o):
        return D(self.w * o.w)


@dataclasses.dataclass
class DC:
    w: float

    def __mul__(self, o):
        return DC(self.w * o * 10)


class DV(dict):
    def values(self):
        return [v * 2 for v in dict.values(self)]


class DI(dict):
    def items(self):
        return [(k, v * 2) for k, v in dict.items(self)]


class DG(dict):
    def get(self, k, default=None):
        return dict.get(self, k, default) * 2


class TI(tuple):
    def __iter__(self):
        return iter([v * 2 for v in tuple.__iter__(self)])


class LG(list):
    def __getitem__(self, i):
        return list.__getitem__(self, i) * 2


class Arr(np.ndarray):
    def __mul__(self, o):
        return np.multiply(np.asarray(self), np.asarray(o)) * 2


class Plain(np.ndarray):  # a subclass that changes no operator: as an ndarray
    pass


A = scipy.sparse.csr_matrix(np.array([[1.0, 0.0], [2.0, 3.0]]))
M = np.matrix([[1.0, 2.0], [3.0, 4.0]])
G = np.array([1.0, 2.0]).view(Arr)


def _calls(f, args):
    x = args[0]
    one = np.ones_like(np.asarray(x, dtype=float)) if not isinstance(x, (dict, tuple, list)) else x
    return {
        "grad": lambda: s2sad.grad(f)(*args),
        "value_and_grad": lambda: s2sad.value_and_grad(f)(*args),
        "vjp": lambda: s2sad.vjp(f)(*args, 1.0),
        "jvp": lambda: s2sad.jvp(f)(*args, one),
        "jacobian": lambda: s2sad.jacobian(f)(*args),
        "jacobian_reverse": lambda: s2sad.jacobian(f, mode="reverse")(*args),
        "hessian": lambda: s2sad.hessian(f)(*args),
        "hvp": lambda: s2sad.hvp(f)(*args, one),
    }


def assert_refused(f, args, match, modes=None):
    """Every API refuses with a located DifferentiationError naming ``match``, inputs unchanged."""
    for mode, call in _calls(f, args).items():
        if modes is not None and mode not in modes:
            continue
        before = copy.deepcopy(args)
        with pytest.raises(s2sad.DifferentiationError) as e:
            call()
        assert LOCATED.match(str(e.value)), (mode, str(e.value))
        assert re.search(match, str(e.value)), (mode, str(e.value))
        for a, b in zip(args, before):
            assert type(a) is type(b)
            if isinstance(a, (np.ndarray, float)):
                np.testing.assert_equal(np.asarray(a), np.asarray(b))


# ---- 1. operators of user classes: globals, closures, objects built in f, arguments ----------------


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x * S,
        lambda x: S * x,
        lambda x: x + S,
        lambda x: np.sum(S @ x),
        lambda x: np.sum(x @ S),
    ],
    ids=["x*S", "S*x", "x+S", "S@x", "x@S"],
)
def test_user_operators_of_a_global_are_refused(f):
    assert_refused(f, (np.array([3.0, 1.0]),), r"class Scale that defines")


def _closure():
    T = Scale(3.0)
    return lambda x: x * T


def test_user_operators_of_a_closure_value_are_refused():
    assert_refused(_closure(), (3.0,), r"\* of an object of class Scale")


def test_user_operators_of_an_attribute_of_a_global_are_refused():
    class Cfg:
        pass

    cfg = Cfg()
    cfg.s = S

    def f(x):
        return x * cfg.s

    assert_refused(f, (3.0,), r"class Scale")


@pytest.mark.parametrize(
    "f",
    [
        lambda x: (N(x) + N(x)).w,
        lambda x: (N(x) * x).w,
        lambda x: sum(N(x) + N(1.0)),
        lambda x: (D(x) + D(x)).w,
        lambda x: (DC(x) * x).w,
    ],
    ids=["N+N", "N*x", "sumN", "D+D", "DC*x"],
)
def test_operators_of_objects_built_in_f_are_refused(f):
    assert_refused(f, (3.0,), r"defines")


def test_an_argument_of_a_class_with_operators_is_refused_when_called():
    assert_refused(lambda n: (n + n).w, (N(3.0),), r"argument n of .*<lambda> is an object of class N")
    assert_refused(lambda x, s: x * s, (3.0, S), r"argument s of .*<lambda> is an object of class Scale")

    class Model:
        pass

    m = Model()
    m.s = S
    assert_refused(lambda x, m: x * m.s, (3.0, m), r"argument m\.s of .*<lambda>")


def test_plain_values_and_objects_keep_working():
    for f, args in [
        (lambda x: x * 2.0 + np.sin(x), (3.0,)),
        (lambda p: p.w * p.b**2, (P(2.0, 3.0),)),
        (lambda x: P(x, 2.0).w * P(x, x).b, (3.0,)),
    ]:
        assert not check(f, args)
    assert s2sad.grad(lambda p: p.w * p.b**2)(P(2.0, 3.0)) == P(9.0, 12.0)


# ---- 2. dict, list, tuple subclasses overriding methods --------------------------------------------


@pytest.mark.parametrize(
    "f, arg, name",
    [
        (lambda p: sum(v for v in p.values()), DV(a=1.0, b=2.0), "values"),
        (lambda p: sum(v for _, v in p.items()), DI(a=1.0, b=2.0), "items"),
        (lambda p: p.get("a", 0.0) ** 2, DG(a=1.0, b=2.0), "get"),
        (lambda t: sum(v * v for v in t), TI((1.0, 2.0)), "__iter__"),
        (lambda xs: xs[0] * xs[1], LG([1.0, 2.0]), "__getitem__"),
    ],
    ids=["values", "items", "get", "tuple-iter", "list-getitem"],
)
def test_container_subclasses_overriding_methods_are_refused(f, arg, name):
    for mode in ("grad", "value_and_grad", "hessian"):
        with pytest.raises(s2sad.DifferentiationError, match=f"defines its own {name}"):
            getattr(s2sad, mode)(f)(arg)


def test_ordered_dict_and_named_tuple_keep_working():
    f = lambda p: p["a"] ** 2 * p["b"]  # noqa: E731
    g = s2sad.grad(f)(OrderedDict(a=3.0, b=2.0))
    assert g == {"a": 12.0, "b": 9.0}
    assert not check(f, (OrderedDict(a=3.0, b=2.0),), hessian=False)
    assert not check(lambda p: p.w * p.b**2, (P(2.0, 3.0),))


def test_defaultdict_argument_is_refused_clearly():
    d = defaultdict(float, a=3.0)
    for mode in ("grad", "value_and_grad", "hessian"):
        with pytest.raises(s2sad.DifferentiationError, match=r"defaultdict.*dict\(p\)"):
            getattr(s2sad, mode)(lambda p: p["a"] ** 2)(d)
    assert dict(d) == {"a": 3.0}
    assert s2sad.grad(lambda p: p["a"] ** 2)(dict(d)) == {"a": 6.0}


# ---- 3. np.matrix and ndarray subclasses ----------------------------------------------------------


def test_np_matrix_argument_is_refused_in_every_api():
    assert_refused(lambda x: np.sum(x * x), (np.matrix([[1.0, 2.0], [3.0, 4.0]]),), r"np\.matrix")


def test_ndarray_subclass_with_operators_is_refused_in_every_api():
    assert_refused(lambda x: np.sum(x * x), (np.array([1.0, 2.0]).view(Arr),), r"ndarray subclass Arr")


def test_arrays_inside_pytrees_are_checked():
    assert_refused(
        lambda xs: np.sum(xs[0] * xs[1]),
        ([np.ones(2), np.ones(2).view(Arr)],),
        r"xs\[1\]",
        modes=("grad", "value_and_grad", "hessian"),
    )
    assert_refused(
        lambda d: np.sum(d["m"] * 2.0),
        ({"m": np.matrix([[1.0]])},),
        r"d\['m'\]",
        modes=("grad", "value_and_grad", "hessian"),
    )


def test_ndarray_subclass_without_operators_keeps_working():
    x = np.array([1.0, 2.0]).view(Plain)
    np.testing.assert_allclose(s2sad.grad(lambda x: np.sum(x * x))(x), [2.0, 4.0])


def _matrix_closure():
    K = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    return lambda x: np.sum(K * x)


@pytest.mark.parametrize(
    "f",
    [lambda x: np.sum(M * x), lambda x: np.sum(G * x), _matrix_closure()],
    ids=["matrix-global", "subclass-global", "matrix-closure"],
)
def test_matrix_and_subclass_globals_are_refused(f):
    assert_refused(f, (np.array([[1.0, 2.0], [3.0, 4.0]]),), r"np\.matrix|ndarray subclass")


# ---- 4. scipy.sparse ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "f",
    [
        lambda x: np.sum((A @ x) ** 2),
        lambda x: np.sum((x @ A.T) ** 2),
        lambda x: np.sum(A.dot(x) ** 2),
        lambda x: np.sum(np.dot(A, x) ** 2),
    ],
    ids=["A@x", "x@A.T", "A.dot", "np.dot"],
)
def test_sparse_global_is_refused_at_the_line(f):
    assert_refused(
        f, (np.array([1.0, 2.0]),), r"scipy\.sparse|sparse", modes=("grad", "value_and_grad", "jvp", "hessian")
    )


def test_sparse_argument_is_refused_when_called():
    f = lambda B, x: np.sum(B.dot(x) ** 2)  # noqa: E731
    for mode in ("grad", "value_and_grad", "hessian"):
        with pytest.raises(s2sad.DifferentiationError, match=r"argument B .*scipy\.sparse csr_matrix"):
            getattr(s2sad, mode)(f, wrt=1)(A, np.array([1.0, 2.0]))


def test_foreign_values_not_differentiated_are_fine():
    def f(x):
        k = M * 2.0  # no derivative flows through it
        return np.sum(x * np.asarray(k))

    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(s2sad.grad(f)(x), np.asarray(M) * 2.0)


class NM(NamedTuple):
    w: float

    def __add__(self, o):
        return NM(self.w * o.w)


def _add(a, b):
    return a + b


def test_objects_with_operators_given_to_a_helper_or_held_in_a_list_are_refused():
    # h(NM(x), NM(x)).w is x**2: derivative 6 at 3, was 2 (the helper's + taken for a number's)
    assert_refused(
        lambda x: _add(NM(x), NM(x)).w,
        (3.0,),
        r"_add\(\) is given an object of class NM",
        modes=("grad", "value_and_grad", "jvp", "hessian"),
    )
    assert_refused(lambda x: x * [S][0], (3.0,), r"class Scale", modes=("grad", "value_and_grad", "jvp", "hessian"))


class _Model:
    def __init__(self):
        self.s = S

    def loss(self, x):
        return x * self.s


def test_operators_of_the_bound_object_attribute_are_refused():
    assert_refused(_Model().loss, (3.0,), r"class Scale", modes=("grad", "value_and_grad", "jvp", "hessian"))


def test_memmap_numpy_scalars_and_complex_arguments_keep_working(tmp_path):
    m = np.memmap(tmp_path / "m.dat", dtype=float, mode="w+", shape=(3,))
    m[:] = [1.0, 2.0, 3.0]
    np.testing.assert_allclose(s2sad.grad(lambda x: np.sum(x * x))(m), [2.0, 4.0, 6.0])
    assert s2sad.grad(lambda x: x * x)(np.float64(3.0)) == 6.0
    assert s2sad.grad(lambda z: abs(z) ** 2)(1 + 2j) == 2 - 4j


class NL(NamedTuple):
    w: float

    def __add__(self, o):
        return NL(self.w * o.w)


def test_a_named_tuple_argument_with_a_nonlinear_add_is_refused():
    # the adjoint bt + bt called NL.__add__ on adjoints: N(w=1.0), true 6 (right only for a linear __add__)
    assert_refused(
        lambda n: (n + n).w, (NL(3.0),), r"argument n of .* class NL", modes=("grad", "value_and_grad", "hessian")
    )


def test_indexing_and_fields_of_a_named_tuple_with_operators_keep_working():
    for f in (lambda x: NL(x)[0] ** 2, lambda x: NL(x).w ** 2):
        assert not check(f, (3.0,))
        assert s2sad.grad(f)(3.0) == 6.0


T_LATER = 2.0


def test_a_global_rebound_to_an_object_with_operators_makes_the_derivative_stale():
    global T_LATER
    f = lambda x: x * T_LATER  # noqa: E731
    d = s2sad.value_and_grad(f)
    assert d(3.0) == (6.0, 2.0)
    T_LATER = 5.0  # another number: read live
    assert d(3.0) == (15.0, 5.0)
    try:
        T_LATER = Scale(2.0)
        with pytest.raises(s2sad.DifferentiationError, match="'T_LATER' was rebound"):
            d(3.0)
        with pytest.raises(s2sad.DifferentiationError, match=r"\* of an object of class Scale"):
            s2sad.value_and_grad(f)(3.0)
    finally:
        T_LATER = 2.0
    assert s2sad.value_and_grad(f)(3.0) == (6.0, 2.0)
