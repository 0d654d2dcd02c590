"""Round 27: effects the round-26 scan missed, reached through arguments, methods and objects.

A helper drawing from a generator passed to it (``dropout(h, rng)``, a specialized helper), a layer object
holding its own generator (``self.rng.random``), ``RandomState``/``random.Random`` methods, ``it.__next__()``,
``next(self.it)``, ``itertools.islice(it, 1)``, ``gen.send``, ``rng.shuffle``, ``setattr`` on an argument
object, ``set.add`` on an argument set: reverse mode runs the helper again for its VJP (a Jacobian or Hessian
runs f's derivative once per column, a checkpointed loop replays segments), so each is exact or refused at the
user's line.  Pure methods of argument objects (typed from the call's objects) stay exact.

Generators and iterators are arguments: the checker deep-copies them for every run, so finite differences
see the same draws as the derivative.
"""

import copy
import itertools
import random

import numpy as np
import pytest
from exact_or_refused import numeric_hessian, numeric_jacobian

import s2sad

ALL = ("grad", "value_and_grad", "vjp", "jvp", "hessian")
X = np.array([1.0, 2.0, 3.0])


def _refused_here(e):
    assert str(e).startswith(__file__), str(e)


def exact_or_refused(f, args):
    """grad, value_and_grad, vjp, jvp and hessian of a scalar f w.r.t. its first argument: exact (against
    central differences with the same draws: every run on deep copies of args) or refused at this file."""
    run = lambda: copy.deepcopy(list(args))  # noqa: E731
    value = f(*run())
    fd = numeric_jacobian(f, args, 0)
    for mode in ALL:
        try:
            if mode == "grad":
                got = s2sad.grad(f)(*run())
            elif mode == "value_and_grad":
                v, got = s2sad.value_and_grad(f)(*run())
                assert v == pytest.approx(value, rel=1e-12)
            elif mode == "vjp":
                got = s2sad.vjp(f, wrt=0)(*run(), 1.0)
            elif mode == "jvp":
                tangent = np.random.default_rng(7).normal(size=np.shape(args[0]))
                v, got = s2sad.jvp(f, wrt=0)(*run(), tangent)
                assert v == pytest.approx(value, rel=1e-12)
                np.testing.assert_allclose(got, np.dot(fd, tangent), rtol=1e-5, atol=1e-6, err_msg=mode)
                continue
            else:
                got = s2sad.hessian(f)(*run())
                np.testing.assert_allclose(got, numeric_hessian(f, args, 0), rtol=1e-4, atol=1e-5, err_msg=mode)
                continue
        except s2sad.DifferentiationError as e:
            _refused_here(e)
            continue
        np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-6, err_msg=mode)


def jacobian_exact_or_refused(f, args):
    """jacobian of f w.r.t. its first argument: exact (against the FD with the same draws) or refused here."""
    try:
        got = s2sad.jacobian(f)(*copy.deepcopy(list(args)))
    except s2sad.DifferentiationError as e:
        _refused_here(e)
        return
    np.testing.assert_allclose(got, numeric_jacobian(f, args, 0), rtol=1e-5, atol=1e-6)


# ---- 1. a helper drawing from a generator passed as an argument ----------------------------------------


def dropout(h, rng):
    m = rng.random(h.shape) > 0.5
    return h * m


def loss_dropout(x, rng):
    return np.sum(dropout(x, rng) ** 2)


def loss_closure(x, rng):
    def noisy(v):
        return np.sin(v) * rng.normal()

    return np.sum(noisy(x) ** 2)


def loss_lambda(x, rng):
    noisy = lambda v: np.sin(v) * rng.normal()  # noqa: E731
    return np.sum(noisy(x) ** 2)


def scale(v, rng):
    return v * rng.normal(size=3)


def loss_scale(x, rng):
    return np.sum(scale(x, rng) ** 2)


@pytest.mark.parametrize("f", [loss_dropout, loss_closure, loss_lambda, loss_scale])
def test_helper_drawing_from_argument_generator(f):
    exact_or_refused(f, (X, np.random.default_rng(1)))
    jacobian_exact_or_refused(f, (X, np.random.default_rng(1)))


def test_hvp_of_helper_drawing_from_argument_generator():
    try:
        got = s2sad.hvp(loss_scale)(X, np.random.default_rng(0), np.ones(3))
    except s2sad.DifferentiationError as e:
        assert str(e).startswith(__file__), str(e)
        return
    d = np.random.default_rng(0).normal(size=3)
    np.testing.assert_allclose(got, 2 * d**2)


# ---- 2. effects through methods and objects -------------------------------------------------------------


class Dropout:  # a PyTorch-style layer owning its generator
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __call__(self, h):
        return h * (self.rng.random(h.shape) > 0.5)


def loss_layer(x, drop):
    return np.sum(drop(x) ** 2)


class Net:
    def __init__(self):
        self.drop = Dropout()

    def forward(self, x):
        return np.tanh(self.drop(x))


def loss_net(x, net):
    return np.sum(net.forward(x) ** 2)


def loss_net_attr(x, net):
    return np.sum(net.drop(x) ** 2)


class Stack:
    def __init__(self):
        self.layers = [Dropout()]


def loss_item_layer(x, m):
    return np.sum(m.layers[0](x) ** 2)


def scale_rs(v, rs):
    return v * rs.rand()


def loss_rs(x, rs):
    return scale_rs(x[0], rs) ** 2


def scale_random(v, r):
    return v * r.random()


def loss_random(x, r):
    return scale_random(x[0], r) ** 2


def nxt(v, it):
    return v * it.__next__()


def loss_dunder_next(x, it):
    return nxt(x[0], it) ** 2


def perm(v, rng):
    a = np.arange(3.0)
    rng.shuffle(a)
    return v * a


def loss_shuffle(x, rng):
    return np.sum(perm(x, rng) ** 2)


class Feed:
    def __init__(self):
        self.it = iter([2.0, 3.0, 4.0, 5.0, 6.0, 7.0])

    def scale(self, v):
        return v * next(self.it)


def loss_feed(x, c):
    return c.scale(x[0]) ** 2


def take(v, it):
    return v * list(itertools.islice(it, 1))[0]


def loss_islice(x, it):
    return take(x[0], it) ** 2


def gen_values():
    k = 1.0
    while True:
        yield k
        k += 1.0


def sent(v, g):
    return v * g.send(None)


def loss_send(x, g):
    return sent(x[0], g) ** 2


class E:
    pass


def count(v, o):
    setattr(o, "n", getattr(o, "n", 0) + 1)  # noqa: B010
    return v * o.n


def loss_setattr(x, o):
    return count(x[0], o) ** 2


def seen(v, s):
    s.add(len(s))
    return v * len(s)


def loss_set_add(x, s):
    return seen(x[0], s) ** 2


class Counter:
    def __init__(self):
        self.n = 0

    def tick(self, v):
        self.n += 1
        return v * self.n


def loss_tick_helper(x, c):
    return ticked(x[0], c) ** 2


def ticked(v, c):
    return c.tick(v)


CASES = [
    (loss_layer, Dropout),
    (loss_net, Net),
    (loss_net_attr, Net),
    (loss_item_layer, Stack),
    (loss_rs, lambda: np.random.RandomState(0)),
    (loss_random, lambda: random.Random(0)),
    (loss_dunder_next, lambda: iter([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
    (loss_shuffle, lambda: np.random.default_rng(0)),
    (loss_feed, Feed),
    (loss_islice, lambda: iter([2.0, 3.0, 4.0, 5.0, 6.0, 7.0])),
    (loss_send, gen_values),
    (loss_setattr, E),
    (loss_set_add, set),
    (loss_tick_helper, Counter),
]


@pytest.mark.parametrize("f, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_effects_through_objects(f, make):
    if f is loss_send:  # (a generator cannot be deep-copied: a new one per run)
        for mode in ("grad", "value_and_grad", "hessian"):
            with pytest.raises(s2sad.DifferentiationError) as info:
                getattr(s2sad, mode)(f)(X, make())
            assert str(info.value).startswith(__file__), str(info.value)
        return
    exact_or_refused(f, (X, make()))
    jacobian_exact_or_refused(f, (X, make()))


# ---- 3. jacobian / hessian of a lambda -----------------------------------------------------------------


def test_jacobian_of_lambda_drawing():
    f = lambda x, rng: x * rng.normal(size=4)  # noqa: E731
    jacobian_exact_or_refused(f, (np.ones(4), np.random.default_rng(0)))
    g = lambda x, rng: np.sum(x**2 * rng.normal(size=4))  # noqa: E731
    exact_or_refused(g, (np.ones(4), np.random.default_rng(0)))
    jacobian_exact_or_refused(g, (np.ones(4), np.random.default_rng(0)))


def test_jacobian_of_lambda_next():
    f = lambda x, it: x * next(it)  # noqa: E731
    jacobian_exact_or_refused(f, (np.ones(3), iter(range(1, 100))))


# ---- 4. a layer with its own generator inside a checkpointed loop ---------------------------------------


def ck_dropout(x, dr):
    h = x * 1.0
    for t in s2sad.checkpoint(range(4), every=2):
        h = np.tanh(dr(h) + x)
    return np.sum(h)


def test_dropout_object_in_checkpointed_loop():
    exact_or_refused(ck_dropout, (X, Dropout()))


# ---- pure methods and helpers stay exact ----------------------------------------------------------------


class D:
    def f(self, x):  # named like Generator.f: the real method is pure
        return x**2

    def normal(self, x):
        return np.sin(x) * 2.0


def loss_pure_f(x, obj):
    return np.sum(obj.f(x))


def loss_pure_normal(x, obj):
    return np.sum(obj.normal(x) ** 2)


class Layer:
    def __init__(self):
        self.w = np.array([0.5, -1.0, 2.0])

    def __call__(self, h):
        return np.tanh(h * self.w)


class Model:
    def __init__(self):
        self.layer = Layer()

    def predict(self, x):
        return self.layer(x) * 2.0


def loss_model(x, model):
    return np.sum(model.predict(x) ** 2)


def helper_noise(h, noise):
    return h * noise


def loss_given_noise(x, noise):
    return np.sum(helper_noise(x, noise) ** 2)


def fixed_draw(v):
    rng = np.random.default_rng(3)
    return v * rng.normal(size=3)


def loss_fixed(x):
    return np.sum(fixed_draw(x) ** 2)


@pytest.mark.parametrize(
    "f, args",
    [
        (loss_pure_f, (X, D())),
        (loss_pure_normal, (X, D())),
        (loss_model, (X, Model())),
        (loss_given_noise, (X, np.array([0.3, -1.0, 2.0]))),
        (loss_fixed, (X,)),
    ],
    ids=["obj.f", "obj.normal", "model.predict", "noise arg", "own rng"],
)
def test_pure_stay_exact(f, args):
    exact_or_refused(f, args)
    jacobian_exact_or_refused(f, args)
    run = lambda: copy.deepcopy(list(args))  # noqa: E731
    for mode in ("grad", "value_and_grad", "hessian", "jacobian"):  # exact, not refused
        getattr(s2sad, mode)(f)(*run())
    s2sad.vjp(f)(*run(), 1.0)
    s2sad.jvp(f, wrt=0)(*run(), np.ones(3))
