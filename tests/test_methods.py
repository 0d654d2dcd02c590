"""Methods called on a parameter that is not ``self`` (``model.loss(x)``), on an attribute of one
(``self.layer.forward(x)``), and in helpers ``f`` passes the object to: in every mode, per class."""

import numpy as np
import pytest
from test_star_args import close, every_mode

import s2sad
from s2sad import DifferentiationError


class Layer:
    def __init__(self, w=2.0):
        self.w = w

    def __eq__(self, other):  # every_mode checks that the arguments are unchanged: by value
        return type(self) is type(other) and vars(self) == vars(other)

    def forward(self, x):
        return np.sin(x) * self.w


class Cubic(Layer):
    def forward(self, x):
        return x**3 * self.w


class Model:
    def __init__(self, layer=None):
        self.layer = layer or Layer()
        self.scale = 3.0

    def loss(self, x):
        return self.layer.forward(x) * self.scale


class Shifted(Model):
    def loss(self, x):
        return self.layer.forward(x + 1.0) - self.scale


def uses_model(x, model):
    return model.loss(x) ** 2


def outer(x, model):
    return helper(x, model) + 1.0


def helper(x, model):
    return model.loss(x)


def passes_layer(x, model):
    return apply(model.layer, x * x)


def apply(layer, v):
    return layer.forward(v) * 2.0


def summed(x, model):
    return np.sum(model.loss(x) * x)


@pytest.mark.parametrize("f", [uses_model, outer, passes_layer, summed])
@pytest.mark.parametrize("model", [Model(), Model(Cubic(0.5)), Shifted(), Shifted(Cubic())])
def test_every_mode(f, model):
    every_mode(f, [0.3, model], 0)  # also grad(grad(f)); and the model is unchanged
    if f is summed:
        every_mode(f, [np.array([0.3, -0.7]), model], 0)


def test_each_class_gets_its_own_derivative():
    g = s2sad.grad(uses_model)
    x = 0.3
    close(g(x, Model()), 2 * (6 * np.sin(x)) * 6 * np.cos(x))
    close(g(x, Shifted()), 2 * (2 * np.sin(x + 1) - 3) * 2 * np.cos(x + 1))
    close(g(x, Model(Cubic(0.5))), 2 * (1.5 * x**3) * 4.5 * x**2)  # model.layer's class too
    close(g(x, Model()), 2 * (6 * np.sin(x)) * 6 * np.cos(x))
    assert "vjp_loss_x(model, x, bout=bt)" in s2sad.source(g)


def test_a_method_replaced_on_the_class_regenerates():
    class Local:
        def f(self, x):
            return x * 2.0

    def uses(x, o):
        return o.f(x) ** 2

    g = s2sad.grad(uses)
    assert g(1.5, Local()) == 12.0
    Local.f = lambda self, x: x * 3.0
    assert g(1.5, Local()) == 27.0
    assert s2sad.grad(s2sad.grad(uses))(1.5, Local()) == 18.0


def test_an_instance_attribute_hiding_a_method_is_refused():
    g = s2sad.grad(uses_model)
    assert g(0.3, Model()) > 0
    hidden = Model()
    hidden.loss = lambda x: x
    with pytest.raises(
        DifferentiationError,
        match=rf"test_methods.py:{uses_model.__code__.co_firstlineno + 1}:12: 'model' has its own attribute 'loss'",
    ):
        g(0.3, hidden)
    deep = Model()
    deep.layer.forward = lambda x: x
    with pytest.raises(
        DifferentiationError,
        match=rf"test_methods.py:{Model.loss.__code__.co_firstlineno + 1}:16: 'self.layer' has its own attribute",
    ):
        s2sad.grad(outer)(0.3, deep)  # at generation
    with pytest.raises(DifferentiationError, match=r"'model.layer' has its own attribute 'forward'"):
        g(0.3, deep)  # a later call


def test_wrt_the_object_is_refused_and_inputs_unchanged():
    m = Model()
    with pytest.raises(DifferentiationError, match="object"):
        s2sad.grad(uses_model, wrt=1)(0.3, m)
    x = np.array([0.3, 0.4])
    s2sad.jacobian(uses_model)(x, m)
    np.testing.assert_array_equal(x, [0.3, 0.4])
    assert m.scale == 3.0 and m.layer.w == 2.0


def test_source_of_a_dispatcher_before_its_first_call_says_what_to_do():
    g = s2sad.grad(uses_model)
    with pytest.raises(DifferentiationError, match="call it once"):
        s2sad.source(g)
