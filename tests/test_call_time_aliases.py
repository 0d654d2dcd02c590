"""An argument f writes into in place shares memory with another way f reaches the same memory: refused
when the derivative is called (the derivative works on a private copy of the written argument).
Reproducers of the blind tester's round 13: a global object's attribute, a global read by a helper that
is not differentiated, an attribute of another argument, two entries of one container argument, an
entry of ``**kwargs`` (which crashed vjp); with copies, each is exact in every mode."""

import numpy as np
import pytest

import s2sad
from tests.exact_or_refused import check


class _Obj:
    pass


GO = _Obj()
GO.w = np.array([0.5, 1.5, -0.5])


def writes_reads_global_attribute(x):
    x -= 0.1
    return np.sum(x * GO.w)


G = np.array([0.5, 1.5, -0.5])


def _get_g():
    return G


def writes_reads_global_through_helper(x):
    x *= 3.0
    return np.sum(x * _get_g())


class M:
    def __init__(self):
        self.w = np.array([0.5, 1.5, -0.5])

    def loss(self, x):
        x *= 2.0
        return np.sum(x * self.w)


def writes_container_entry(ws):
    ws[0] *= 2.0
    return np.sum(ws[0] * ws[1])


def writes_reads_kwargs(x, **kw):
    x *= 2.0
    return np.sum(x * kw["z"])


def _modes(f, wrt=0):
    return {
        "grad": s2sad.grad(f, wrt=wrt),
        "value_and_grad": s2sad.value_and_grad(f, wrt=wrt),
        "hessian": s2sad.hessian(f, wrt=wrt),
        "jacobian": s2sad.jacobian(f, wrt=wrt),
    }


CASES = [
    (writes_reads_global_attribute, lambda: ((GO.w,), {}), 0, r"shares memory with the global 'GO' \(GO\.w\)"),
    (writes_reads_global_through_helper, lambda: ((G,), {}), 0, r"the global 'G' \(read by _get_g\)"),
    (M.loss, lambda: ((m := M(), m.w), {}), 1, r"the arguments 'x' and 'self' \(self\.w\)"),
    (writes_container_entry, lambda: (([G, G],), {}), 0, r"ws\[0\] and ws\[1\] in the argument 'ws'"),
    (writes_container_entry, lambda: (([G, G[1:]],), {}), 0, r"ws\[0\] and ws\[1\] in the argument 'ws'"),
    (writes_reads_kwargs, lambda: ((G,), {"z": G}), 0, r"the arguments 'x' and 'kw_z'"),
]


@pytest.mark.parametrize("f, make, wrt, message", CASES, ids=lambda c: getattr(c, "__qualname__", None))
def test_shared_memory_refused_at_call_time(f, make, wrt, message):
    before = GO.w.copy(), G.copy()
    for mode, derivative in _modes(f, wrt).items():
        args, kw = make()
        with pytest.raises(s2sad.DifferentiationError, match=r"test_call_time_aliases\.py:\d+:1: .*" + message):
            derivative(*args, **kw)
    args, kw = make()
    seed = 1.0
    with pytest.raises(s2sad.DifferentiationError, match=message):  # vjp's seed by position (crashed)
        s2sad.vjp(f, wrt=wrt)(*args, seed, **kw)
    args, kw = make()
    with pytest.raises(s2sad.DifferentiationError, match=message):
        s2sad.jvp(f, wrt=wrt)(
            *args,
            np.ones_like(args[wrt])
            if wrt == 1 or f is not writes_container_entry
            else [np.ones_like(a) for a in args[0]],
            **kw,
        )
    np.testing.assert_array_equal(GO.w, before[0])
    np.testing.assert_array_equal(G, before[1])


def test_copies_are_exact_in_every_mode():
    x = np.array([0.3, -0.7, 1.1])
    assert check(writes_reads_global_attribute, [x.copy()]) == []
    assert check(writes_reads_global_through_helper, [x.copy()]) == []
    assert check(M().loss, [x.copy()]) == []
    assert check(writes_container_entry, [[x.copy(), x.copy() * 2]]) == []
    assert check(lambda v: writes_reads_kwargs(v, z=G.copy()), [x.copy()]) == []


def test_attribute_copy_exact():
    m = M()
    np.testing.assert_allclose(s2sad.grad(M.loss, wrt=1)(m, m.w.copy()), 2.0 * m.w)


def test_same_entry_is_not_sharing():
    x = np.array([0.3, -0.7, 1.1])
    g = s2sad.grad(writes_container_entry)([x, x.copy()])
    np.testing.assert_allclose(g[0], 2.0 * x)
    np.testing.assert_allclose(g[1], 2.0 * x)


def _no_writes(x):
    return np.sum(x * G)


def test_no_check_without_writes():
    d = s2sad.grad(_no_writes)
    assert d.__code__.co_name != "checked"  # no call-time check at all
    assert s2sad.grad(writes_container_entry).__code__.co_name == "checked"
    np.testing.assert_allclose(d(G), G)  # sharing is fine when f writes into nothing


MANY = [[i] for i in range(12000)]  # 12000 lists: more objects than the check walks


def reads_a_huge_global(x):
    x *= 2.0
    return np.sum(x) + len(MANY)


def test_more_objects_than_can_be_checked_is_refused():
    with pytest.raises(s2sad.DifferentiationError, match=r"aliases\.py:\d+:1: .*more than 10000 objects"):
        s2sad.grad(reads_a_huge_global)(np.array([1.0, 2.0]))
