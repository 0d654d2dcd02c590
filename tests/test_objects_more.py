"""Python as people write models (issue 13, continued): a bound method looping over ``self.layers``, a
call of an item (``model.layers[0](x)``), methods of NamedTuple and frozen dataclass arguments, layers
held in a dict, an empty layer list, a ``while`` over ``len(model.layers)``, a float read from an
attribute, and loops with ``break``/``continue`` over items of different classes.  Every mode against
central differences, the value exact, and nothing the caller holds changed by any call."""

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest
from fd import numeric_grad, numeric_jvp
from test_star_args import close, numeric_hessian

import s2sad
from s2sad import DifferentiationError


def snapshot(obj, seen=None):
    """What the caller can observe of ``obj``: values, classes and identities, recursively."""
    seen = seen if seen is not None else set()
    if isinstance(obj, np.ndarray):
        return ("array", obj.dtype.str, obj.shape, obj.tobytes())
    if (
        isinstance(obj, (int, float, complex, str, bool, type(None), type))
        or callable(obj)
        and not hasattr(obj, "__dict__")
    ):
        return obj
    if id(obj) in seen:
        return ("seen", id(obj))
    seen.add(id(obj))
    if isinstance(obj, (list, tuple)):
        return (type(obj), id(obj), [snapshot(o, seen) for o in obj])
    if isinstance(obj, dict):
        return (type(obj), id(obj), [(k, snapshot(v, seen)) for k, v in obj.items()])
    return (type(obj), id(obj), {k: snapshot(v, seen) for k, v in vars(obj).items()})


def check(f, args, wrt=0, hessian=True, held=()):
    """grad, value_and_grad, vjp, jvp and hessian of ``f`` w.r.t. ``args[wrt]`` against central
    differences; ``args`` and the objects in ``held`` (a bound method's object) are never changed."""
    before = [snapshot(a) for a in (*args, *held)]
    value = f(*args)
    expected = numeric_grad(f, list(args), wrt)
    close(s2sad.grad(f, wrt=wrt)(*args), expected)
    v, d = s2sad.value_and_grad(f, wrt=wrt)(*args)
    assert np.array_equal(v, value)
    close(d, expected)
    close(s2sad.vjp(f, wrt=wrt)(*args, 1.0), expected)
    x = args[wrt]
    t = np.ones_like(x) * 0.7 if isinstance(x, np.ndarray) else 0.7
    out, tangent = s2sad.jvp(f, wrt=wrt)(*args, t)
    assert np.array_equal(out, value)
    close(tangent, numeric_jvp(f, list(args), [wrt], [t]))
    if hessian:
        close(s2sad.hessian(f, wrt=wrt)(*args), numeric_hessian(f, list(args), wrt), 1e-4)
    assert [snapshot(a) for a in (*args, *held)] == before


X = np.array([0.3, -0.7, 1.1])


class Lin:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return np.tanh(self.w * x)

    def __call__(self, x):
        return self.forward(x) + 0.1 * x


class Sq:
    def __init__(self, c):
        self.c = c

    def forward(self, x):
        return self.c * x * x

    def __call__(self, x):
        return np.sin(self.forward(x))


class Net:
    def __init__(self, layers, scale=1.5):
        self.layers = layers
        self.scale = scale

    def loss(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return np.sum(x**2)

    def loss_calls(self, x):
        for layer in self.layers:
            x = layer(x)
        return np.sum(x**2)

    def loss2(self, x, y):
        for layer in self.layers:
            x = layer.forward(x) * y
        return np.sum(x**2) + y * y

    def scaled(self, x):
        s = self.scale
        return s * x


# ---- 1. a bound method looping over self.layers ---------------------------------------------------
@pytest.mark.parametrize("layers", [[Lin(1.5), Lin(-0.5)], (Lin(0.7),), [Lin(0.4), Sq(0.3)], []])
def test_a_bound_method_looping_over_its_layers(layers):
    m = Net(layers)
    check(m.loss, [X.copy()], held=(m,))
    check(m.loss_calls, [X.copy()], held=(m,))


def test_a_bound_method_with_several_parameters():
    m = Net([Lin(1.5), Lin(-0.5)])
    f = m.loss2
    args = [X.copy(), 0.8]
    for wrt in (0, 1):
        check(f, args, wrt=wrt, held=(m,))
    gx, gy = s2sad.grad(f, wrt=(0, 1))(*args)
    close(gx, numeric_grad(f, args, 0))
    close(gy, numeric_grad(f, args, 1))


def test_a_bound_method_sees_its_layers_changed():
    m = Net([Lin(1.5), Lin(-0.5)])
    g = s2sad.grad(m.loss)
    close(g(X), numeric_grad(m.loss, [X], 0))
    m.layers.append(Sq(0.2))
    close(g(X), numeric_grad(m.loss, [X], 0))
    m.layers[0] = Sq(0.9)
    close(g(X), numeric_grad(m.loss, [X], 0))


# ---- 2. a call of an item that is a callable instance --------------------------------------------
def item_call(x, model):
    return np.sum(model.layers[0](x) * model.layers[-1](x))


def loop_calls(x, model):
    for layer in model.layers:
        x = layer(x)
    return np.sum(x)


@pytest.mark.parametrize("f", [item_call, loop_calls])
@pytest.mark.parametrize("layers", [[Lin(1.5), Lin(-0.5)], (Lin(0.7), Sq(0.4)), [Sq(0.3)]])
def test_a_call_of_an_item(f, layers):
    check(f, [X.copy(), Net(layers)])


# ---- 3. methods of NamedTuple and frozen dataclass arguments -------------------------------------
class P(NamedTuple):
    w: np.ndarray
    b: float

    def apply(self, x):
        return self.w * x + self.b


@dataclass(frozen=True)
class D:
    w: np.ndarray
    b: float

    def apply(self, x):
        return np.tanh(self.w * x) + self.b

    @property
    def w2(self):
        return self.w * self.w


def uses_apply(x, p):
    return np.sum(p.apply(x) ** 2)


def uses_apply_and_property(x, p):
    return np.sum(p.apply(x) * p.w2)


def replaced(p, field, value):
    return p._replace(**{field: value}) if isinstance(p, tuple) else dataclasses.replace(p, **{field: value})


def check_record(f, x, p):
    """grad, value_and_grad, vjp and jvp of ``f(x, p)`` w.r.t. the NamedTuple or dataclass ``p``: field by
    field against central differences; ``x`` and ``p`` unchanged."""
    before = [snapshot(x), snapshot(p)]
    value = f(x, p)
    fields = p._fields if isinstance(p, tuple) else [fl.name for fl in dataclasses.fields(p)]
    expected = {k: numeric_grad(lambda v, k=k: f(x, replaced(p, k, v)), [getattr(p, k)], 0) for k in fields}
    v, d2 = s2sad.value_and_grad(f, wrt=1)(x, p)
    assert np.array_equal(v, value)
    for d in (s2sad.grad(f, wrt=1)(x, p), d2, s2sad.vjp(f, wrt=1)(x, p, 1.0)):
        assert type(d) is type(p)
        for k in fields:
            close(getattr(d, k), expected[k])
    t = type(p)(**{k: np.ones_like(getattr(p, k)) * 0.7 for k in fields})
    out, tangent = s2sad.jvp(f, wrt=1)(x, p, t)
    assert np.array_equal(out, value)
    close(tangent, sum(np.sum(expected[k] * getattr(t, k)) for k in fields))
    assert [snapshot(x), snapshot(p)] == before


@pytest.mark.parametrize("make", [P, D])
def test_a_method_of_a_namedtuple_or_frozen_dataclass(make):
    p = make(np.array([0.5, -1.2, 2.0]), 0.3)
    check(uses_apply, [X.copy(), p])
    check_record(uses_apply, X.copy(), p)


def test_a_property_of_a_frozen_dataclass():
    p = D(np.array([0.5, -1.2, 2.0]), 0.3)
    check(uses_apply_and_property, [X.copy(), p])


def reads_property(p):
    return np.sum(p.w2)


class PW(NamedTuple):
    w: np.ndarray

    @property
    def w2(self):
        return self.w * self.w


@pytest.mark.parametrize("p", [D(np.array([0.5, -1.2, 2.0]), 0.3), PW(np.array([0.5, -1.2, 2.0]))])
def test_a_property_of_a_record_differentiated_with_respect_to_is_refused_at_the_users_line(p):
    """Its tangent is not the property of the tangent (jvp gave sum(dw * dw) for sum(w * w))."""
    line = reads_property.__code__.co_firstlineno + 1
    match = rf"test_objects_more.py:{line}:\d+: 'w2' is not a field of {type(p).__name__}"
    for d in (s2sad.grad(reads_property), s2sad.value_and_grad(reads_property), s2sad.hessian(reads_property)):
        with pytest.raises(DifferentiationError, match=match):
            d(p)
    with pytest.raises(DifferentiationError, match=match):
        s2sad.jvp(reads_property)(p, p)


# ---- 4. layers held in a dict --------------------------------------------------------------------
class Blocks:
    def __init__(self, blocks):
        self.blocks = blocks


def dict_item(x, model):
    return np.sum(model.blocks["a"].forward(x))


def dict_loop(x, model):
    for k in model.blocks:
        x = model.blocks[k].forward(x)
    return np.sum(x)


def dict_values_loop(x, model):
    for block in model.blocks.values():
        x = block(x)
    return np.sum(x)


def dict_items_loop(x, model):
    for k, block in model.blocks.items():
        x = block.forward(x) * (2.0 if k == "a" else 1.0) + model.blocks[k].forward(x)
    return np.sum(x)


@pytest.mark.parametrize("f", [dict_item, dict_loop, dict_values_loop, dict_items_loop])
@pytest.mark.parametrize("blocks", [{"a": Lin(1.5), "b": Lin(-0.5)}, {"a": Lin(0.7), "b": Sq(0.4)}])
def test_layers_held_in_a_dict(f, blocks):
    check(f, [X.copy(), Blocks(blocks)])


def test_layers_held_in_a_dict_changed_are_never_stale():
    for f in (dict_item, dict_loop, dict_values_loop, dict_items_loop):
        m = Blocks({"a": Lin(1.5), "b": Lin(-0.5)})
        made = s2sad.grad(f)
        for change in ({"b": Sq(0.2)}, {"c": Lin(0.3)}, {"a": Sq(0.9)}):
            m.blocks.update(change)  # another class, another key
            close(made(X, m), numeric_grad(f, [X, m], 0))
        m.blocks = {"b": Sq(0.1), "a": Lin(0.4)}  # the same keys in another order
        close(made(X, m), numeric_grad(f, [X, m], 0))


# ---- 5. an empty layer list -----------------------------------------------------------------------
@pytest.mark.parametrize("f", [loop_calls, Net([]).loss])
def test_an_empty_layer_list(f):
    args = [X.copy(), Net([])] if f is loop_calls else [X.copy()]
    check(f, args)
    assert np.array_equal(s2sad.grad(f)(*args), np.ones(3) if f is loop_calls else 2 * X)


# ---- 6. a while loop over len(model.layers); a float read from an attribute ----------------------
def while_layers(x, model):
    a = x
    i = 0
    while i < len(model.layers):
        a = model.layers[i].forward(a)
        i += 1
    return np.sum(a)


@pytest.mark.parametrize("layers", [[Lin(1.5), Lin(-0.5)], [Lin(0.7)], []])
def test_a_while_loop_over_the_layers(layers):
    check(while_layers, [X.copy(), Net(layers)])


def attribute_float(x, m):
    s = m.scale
    return np.sum(s * x)


def test_a_float_read_from_an_attribute():
    m = Net([], scale=2.5)
    check(attribute_float, [X.copy(), m])
    check(m.scaled, [0.4], held=(m,))


# ---- 7. break and continue over items of different classes ---------------------------------------
def loop_with_break(x, model):
    for layer in model.layers:
        x = layer.forward(x)
        if np.sum(x) > 100.0:
            break
    return np.sum(x)


def loop_with_continue(x, model):
    for layer in model.layers:
        if layer.skip:
            continue
        x = layer.forward(x)
    return np.sum(x)


@pytest.mark.parametrize("f", [loop_with_break, loop_with_continue])
def test_break_and_continue_over_items_of_one_class(f):
    layers = [Lin(1.5), Lin(0.4), Lin(-0.5)]
    for i, layer in enumerate(layers):
        layer.skip = i == 1
    check(f, [X.copy(), Net(layers)])


@pytest.mark.parametrize("f", [loop_with_break, loop_with_continue])
def test_break_and_continue_over_items_of_different_classes_are_refused_saying_why(f):
    layers = [Lin(1.5), Sq(0.4), Lin(-0.5)]
    for i, layer in enumerate(layers):
        layer.skip = i == 1
    m = Net(layers)
    line = f.__code__.co_firstlineno + (2 if f is loop_with_break else 4)
    match = (
        rf"test_objects_more.py:{line}:\d+: `.forward\(\)` on the items of 'model.layers', which differ "
        r"\(Lin, Sq\): .* without break, continue or return"
    )
    for d in (s2sad.grad(f), s2sad.value_and_grad(f), s2sad.hessian(f)):
        with pytest.raises(DifferentiationError, match=match):
            d(X, m)
    with pytest.raises(DifferentiationError, match=match):
        s2sad.jvp(f)(X, m, X)


def test_a_while_loop_over_layers_added_later_is_never_stale():
    m = Net([])
    g = s2sad.grad(while_layers)
    assert np.array_equal(g(X, m), np.ones(3))
    m.layers.append(Lin(0.6))
    close(g(X, m), numeric_grad(while_layers, [X, m], 0))
    m.layers.clear()
    assert np.array_equal(g(X, m), np.ones(3))


def dict_loop_with_break(x, model):
    for k in model.blocks:
        x = model.blocks[k].forward(x)
        if np.sum(x) > 100.0:
            break
    return np.sum(x)


class HasParams:
    def __init__(self, params):
        self.params = params


def over_attribute_dict(x, model):
    s = 0.0
    for k in model.params:
        s = s + np.sum(model.params[k] * np.sin(x))
    return s


def over_attribute_items(x, model):
    s = 0.0
    for w in model.params:
        s = s + np.sum((model.params[w] if isinstance(w, str) else w) * np.sin(x))
    return s


def test_loops_over_a_dict_attribute_iterate_its_keys():
    """(were KeyError 0: the loop indexed the dict by position)"""
    check(dict_loop_with_break, [X.copy(), Blocks({"a": Lin(1.5), "b": Lin(0.3)})])
    params = {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([0.5, -0.5, 1.0])}
    check(over_attribute_dict, [X.copy(), HasParams(params)])
    check(over_attribute_items, [X.copy(), HasParams(params)])
    check(over_attribute_items, [X.copy(), HasParams(list(params.values()))])  # a list: its items


@pytest.mark.parametrize("f", [loop_calls, item_call, while_layers])
def test_wrt_naming_a_plain_object_whose_methods_f_calls_is_refused(f):
    """(README: the objects are constants; was a TypeError from add_at in the generated code)"""
    m = Net([Lin(1.5), Sq(0.4)])
    match = rf"test_objects_more.py:{f.__code__.co_firstlineno}:1: wrt names 'model', an object of class Net"
    for d in (s2sad.grad, s2sad.value_and_grad, s2sad.vjp, s2sad.hessian):
        with pytest.raises(DifferentiationError, match=match):
            d(f, wrt=1)(X, m) if d is not s2sad.vjp else d(f, wrt=1)(X, m, 1.0)
    with pytest.raises(DifferentiationError, match=match):
        s2sad.jvp(f, wrt=1)(X, m, m)
