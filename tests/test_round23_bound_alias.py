"""Round 23: an argument f writes into that is an array of the bound object (``m.loss(m.w)``), of a
partial's bound arguments, of a callable instance or of a classmethod's class is refused when the
derivative is called, in every mode; a copy is exact.  Writing into ``self.w`` in a bound method is
refused at the user's line (it crashed inside anf)."""

import functools

import numpy as np
import pytest
from exact_or_refused import check

import s2sad


class M:
    def __init__(self):
        self.w = np.array([1.0, 2.0])

    def loss(self, x):
        x[0] = x[0] * 3
        return np.sum(x * self.w)

    def __call__(self, x):
        x *= 2.0
        return np.sum(np.sin(x) * self.w)

    def via_helper(self, x):
        y = _step(x)
        return np.sum(y * self.w)


def _step(v):
    v[0] = v[0] * 3
    return v * 1.0


class E:
    w = np.array([1.0, 2.0])

    @classmethod
    def loss(cls, x):
        x[0] = x[0] * 3
        return np.sum(x * cls.w)


def base(w, x):
    x[0] = x[0] * 3
    return np.sum(x * w)


class Holder:
    def __init__(self, w):
        self.w = w


def nested(h, x):
    x += 1.0
    return np.sum(np.cos(x) * h.w)


def _forms():
    m = M()
    w = np.array([1.0, 2.0])
    h = Holder(np.array([0.5, -1.0]))
    return [
        ("bound method", m.loss, lambda: m.w),
        ("callable instance", m, lambda: m.w),
        ("helper writes", m.via_helper, lambda: m.w),
        ("classmethod", E.loss, lambda: E.w),
        ("partial", functools.partial(base, w), lambda: w),
        ("partial object", functools.partial(nested, h), lambda: h.w),
        ("view of the bound array", m.loss, lambda: m.w[:]),
    ]


MODES = {
    "grad": lambda f, x: s2sad.grad(f)(x),
    "value_and_grad": lambda f, x: s2sad.value_and_grad(f)(x),
    "vjp": lambda f, x: s2sad.vjp(f)(x, 1.0),
    "jvp": lambda f, x: s2sad.jvp(f)(x, np.ones_like(x)),
    "hessian": lambda f, x: s2sad.hessian(f)(x),
    "hvp": lambda f, x: s2sad.hvp(f)(x, np.ones_like(x)),
    "jacobian forward": lambda f, x: s2sad.jacobian(f, mode="forward")(x),
    "jacobian reverse": lambda f, x: s2sad.jacobian(f, mode="reverse")(x),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("i", range(len(_forms())), ids=[f[0] for f in _forms()])
def test_the_bound_objects_array_written_as_the_argument_is_refused(i, mode):
    _, f, arg = _forms()[i]
    x = arg()
    before = x.copy()
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round23_bound_alias\.py:\d+:1: .*share"):
        MODES[mode](f, x)
    np.testing.assert_array_equal(x, before)  # nothing written


@pytest.mark.parametrize("i", range(len(_forms())), ids=[f[0] for f in _forms()])
def test_a_copy_of_the_bound_array_is_exact(i):
    _, f, arg = _forms()[i]
    assert check(f, [np.copy(arg()) + 0.25], hessian=True) == []


class W:
    def __init__(self):
        self.w = np.array([1.0, 2.0])

    def loss(self, x):
        self.w[0] = x[0] * 3
        return np.sum(self.w * x)

    def loss_aug(self, x):
        self.w += x
        return np.sum(self.w * x)


@pytest.mark.parametrize("method", ["loss", "loss_aug"])
def test_writing_into_the_bound_objects_array_is_refused_at_the_users_line(method):
    obj = W()
    f = getattr(obj, method)
    for make in (s2sad.grad, s2sad.value_and_grad, s2sad.jvp, s2sad.hessian):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round23_bound_alias\.py:\d+:\d+: "):
            make(f)(np.array([1.0, 1.0]))
    np.testing.assert_array_equal(obj.w, [1.0, 2.0])
