"""Layers as PyTorch code writes them, through a bound method (round 20): ``grad(net.loss)`` where
``loss`` calls ``self.forward(x)`` looping over callable instances, ``self(x)`` whose ``__call__`` is
``return self.forward(x)``, ``self.head(x)`` of a callable instance calling a function stored on it, a
class attribute ``act = staticmethod(np.tanh)``, a global model object used in ``f``, third order
through such a loop, and how often a printing ``__call__`` runs.  Every mode against central
differences (tests/test_methods_more.check), and the Jacobian."""

import numpy as np
import pytest
from fd import numeric_grad
from test_methods_more import check
from test_star_args import close

import s2sad

X0 = np.array([0.3, -0.4, 0.2])


class Lin:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(x * self.w)


class Net:
    def __init__(self, layers):
        self.layers = layers

    def forward(self, x):
        for l in self.layers:  # noqa: E741
            x = l(x)
        return x

    def loss(self, x):
        return np.sum(self.forward(x) ** 2)

    def vec(self, x):
        return self.forward(x) * x


class Module:
    def __call__(self, x):
        return self.forward(x)


class MLin(Module):
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return x * self.w


class MTanh(Module):
    def forward(self, x):
        return np.tanh(x)


class Seq(Module):
    def __init__(self, layers):
        self.layers = layers

    def forward(self, x):
        for l in self.layers:  # noqa: E741
            x = l(x)
        return x

    def loss(self, x):
        return np.sum(self(x) ** 2)

    def loss2(self, x):
        return np.sum(self.forward(x) ** 2)


class Stored:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


class Head:
    def __init__(self):
        self.head = Stored(np.sin)

    def loss(self, x):
        return np.sum(self.head(x) * x)


class Act:
    act = staticmethod(np.tanh)

    def __init__(self):
        self.w = 1.5

    def loss(self, x):
        return np.sum(self.act(x * self.w) ** 2)


def jacobian_ok(f, x):
    for mode in ("forward", "reverse"):
        close(s2sad.jacobian(f, mode=mode)(x), numeric_grad(f, [x], 0))


NETS = {
    "one": lambda: Net([Lin(1.5)]),
    "two": lambda: Net([Lin(1.5), Lin(-0.7)]),
    "mixed": lambda: Net([Lin(1.5), Stored(np.sin)]),
}


@pytest.mark.parametrize("make", NETS.values(), ids=NETS.keys())
def test_a_bound_method_calling_forward_that_loops_over_callable_layers(make):
    net = make()
    check(net.loss, [X0.copy()])
    jacobian_ok(net.vec, X0.copy())
    jacobian_ok(net.forward, X0.copy())


SEQS = {
    "lin": lambda: Seq([MLin(1.5)]),
    "lin_tanh": lambda: Seq([MLin(1.5), MTanh()]),
    "nested": lambda: Seq([Seq([MLin(2.0), MTanh()]), MLin(0.5)]),
}


@pytest.mark.parametrize("make", SEQS.values(), ids=SEQS.keys())
@pytest.mark.parametrize("meth", ["loss", "loss2"])
def test_the_pytorch_module_pattern_through_a_bound_method(make, meth):
    s = make()
    check(getattr(s, meth), [X0.copy()])
    jacobian_ok(s.forward, X0.copy())
    jacobian_ok(s, X0.copy())


def test_a_callable_instance_calling_a_function_stored_on_it():
    h = Head()
    check(h.loss, [X0.copy()])


def test_a_static_method_class_attribute_of_a_primitive():
    a = Act()
    check(a.loss, [X0.copy()])


GLOBAL_NET = Net([Lin(1.5), Lin(0.5)])


def uses_global(x):
    return GLOBAL_NET.loss(x)


def test_a_global_model_object_used_in_f():
    check(uses_global, [X0.copy()])


def test_third_order_through_a_loop_over_layers():
    net = Net([Lin(1.5)])
    got = s2sad.hessian(s2sad.grad(net.loss))(X0.copy())
    close(got, s2sad.jacobian(s2sad.hessian(net.loss))(X0.copy()), 1e-10)
    h = s2sad.hessian(net.loss)
    close(got, numeric_grad(h, [X0.copy()], 0), 1e-4)


class Loud:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        print("loud")
        return np.tanh(self.a * x)


class LoudModel:
    def __init__(self):
        self.lin = Loud(2.0)
        self.layers = [Loud(2.0)]

    def vec(self, x):
        return self.lin(x)

    def loss(self, x):
        return np.sum(self.lin(x) ** 2)

    def loop_vec(self, x):
        for l in self.layers:  # noqa: E741
            x = l(x)
        return x


def via_param(x, m):
    return m.loss(x)


def printed(capsys, run):
    capsys.readouterr()
    run()
    return capsys.readouterr().out.count("loud")


def test_a_printing_call_of_a_callable_instance_prints_once(capsys):
    m, x = LoudModel(), X0.copy()
    assert printed(capsys, lambda: s2sad.grad(via_param)(x, m)) == 1
    assert printed(capsys, lambda: s2sad.hessian(via_param)(x, m)) == 1
    assert printed(capsys, lambda: s2sad.jacobian(m.vec, mode="reverse")(x)) == 1
    assert printed(capsys, lambda: s2sad.jacobian(m.vec, mode="forward")(x)) == 1
    assert printed(capsys, lambda: s2sad.jacobian(m.loop_vec, mode="reverse")(x)) == 1
    assert printed(capsys, lambda: s2sad.hessian(m.loss)(x)) == 1
    assert printed(capsys, lambda: s2sad.grad(m.loss)(x)) == 1


class ActLayer:
    act = staticmethod(np.tanh)

    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return self.act(x * self.w)


class ActNet:
    def __init__(self):
        self.layers = [ActLayer(1.5), ActLayer(-0.5)]
        self.head = ActLayer(0.7)

    def loss(self, x):
        for l in self.layers:  # noqa: E741
            x = l(x)
        return np.sum(self.head(x) ** 2)


def act_via_param(x, m):
    return m.loss(x)


def act_direct(x, m):
    return np.sum(m.act(x) * x)


GLOBAL_ACT = Act()


def act_global(x):
    return GLOBAL_ACT.loss(x)


@pytest.mark.parametrize(
    "f, extra",
    [
        (lambda x: ActNet().loss(x), None),
        (act_via_param, ActNet),
        (act_via_param, Act),
        (act_direct, ActLayer),
        (act_global, None),
    ],
    ids=["bound_loop", "param_loop", "param", "direct", "global"],
)
def test_a_static_method_of_a_primitive_through_objects(f, extra):
    if f.__name__ == "<lambda>":
        check(ActNet().loss, [X0.copy()])
    elif extra is None:
        check(f, [X0.copy()])
    else:
        obj = extra(0.8) if extra is ActLayer else extra()
        check(f, [X0.copy(), obj])


def test_a_static_method_of_a_primitive_replaced_or_hidden():
    net = ActNet()
    g = s2sad.grad(net.loss)
    close(g(X0.copy()), numeric_grad(net.loss, [X0.copy()], 0))
    old = ActLayer.act
    try:
        ActLayer.act = staticmethod(np.sin)
        close(g(X0.copy()), numeric_grad(net.loss, [X0.copy()], 0))
    finally:
        ActLayer.act = old
    net.layers[1].act = np.sin
    with pytest.raises(s2sad.DifferentiationError, match="hides the method"):
        g(X0.copy())
