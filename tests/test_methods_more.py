"""Objects as people write models (issue 13): a parameter's callable attribute (``model.layer(x)``, a
callable instance, a function or a bound method stored on the object, also passed to a helper), objects
reached through items and properties (``model.layers[0]``, ``for layer in model.layers``), methods named
like NumPy's (``model.sum(x)``), static and class methods called through an object, and a global object
passed to a helper.  Every mode against central differences, the value exact, the inputs unchanged, and
the derivative made again when a class or a bound attribute changes."""

import types

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
    if isinstance(obj, (int, float, complex, str, type(None))):
        return obj
    if isinstance(obj, (list, tuple)):
        return (type(obj), id(obj), [snapshot(o, seen) for o in obj])
    if isinstance(obj, types.MethodType):
        return ("method", obj.__func__, snapshot(obj.__self__, seen))
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, np.ufunc, type)):
        return obj
    if id(obj) in seen:
        return ("seen", id(obj))
    seen.add(id(obj))
    return (type(obj), id(obj), {k: snapshot(v, seen) for k, v in vars(obj).items()})


def check(f, args, hessian=True):
    """grad, value_and_grad (the value exact), vjp, jvp, hessian and grad(grad) w.r.t. ``args[0]``
    against central differences; nothing the caller holds is changed by any call."""
    before = snapshot(args)
    value = f(*args)
    expected = numeric_grad(f, list(args), 0)
    close(s2sad.grad(f)(*args), expected)
    v, d = s2sad.value_and_grad(f)(*args)
    assert np.array_equal(v, value)
    close(d, expected)
    close(s2sad.vjp(f)(*args, 1.0), expected)
    t = np.ones_like(args[0]) * 0.7 if isinstance(args[0], np.ndarray) else 0.7
    out, tangent = s2sad.jvp(f)(*args, t)
    assert np.array_equal(out, value)
    close(tangent, numeric_jvp(f, list(args), [0], [t]))
    if hessian:
        hess = numeric_hessian(f, list(args), 0)
        close(s2sad.hessian(f)(*args), hess, 1e-4)
        if np.ndim(args[0]) == 0:
            close(s2sad.grad(s2sad.grad(f))(*args), hess, 1e-4)
    assert snapshot(args) == before


# ---- 1. a parameter's callable attribute ----------------------------------------------------------
class Dense:
    def __init__(self, w=1.5):
        self.w = w

    def __call__(self, v):
        return np.tanh(v * self.w) + self.bias(v)

    def bias(self, v):
        return v * 0.25

    def forward(self, v):
        return np.tanh(v * self.w)


class Cube:
    def __init__(self, c=0.5):
        self.c = c

    def __call__(self, v):
        return v**3 * self.c


def my_tanh(v):
    return np.tanh(v) * 2.0


def my_sin(v):
    return np.sin(v) * 3.0


class Other:
    def __init__(self, c=1.5):
        self.c = c

    def go(self, v):
        return v**3 * self.c + self.lin(v)

    def stop(self, v):
        return np.cos(v) * self.c

    def lin(self, v):
        return v * 2.0


class Holder:
    def __init__(self, layer):
        self.layer = layer


def calls_layer(x, model):
    return model.layer(x) * 2.0


def apply(fn, v):
    return fn(v)


def applies_layer(x, model):
    return apply(model.layer, x * x)


def calls_given(x, fn):
    return fn(x) + x


@pytest.mark.parametrize("f", [calls_layer, applies_layer])
@pytest.mark.parametrize(
    "layer", [Dense(), Cube(), my_tanh, Other().go], ids=["instance", "instance2", "function", "bound method"]
)
def test_a_callable_attribute_in_every_mode(f, layer):
    check(f, [0.3, Holder(layer)])


def summed_layer(x, model):
    return np.sum(model.layer(x) * x)


@pytest.mark.parametrize("layer", [Dense(), my_tanh, Other().go])
def test_a_callable_attribute_of_an_array(layer):
    check(summed_layer, [np.array([0.3, -0.6]), Holder(layer)])


@pytest.mark.parametrize("fn", [Dense(), my_tanh, Other().go])
def test_a_callable_argument(fn):
    check(calls_given, [0.4, fn])


def test_a_rebound_attribute_or_another_class_is_never_stale():
    for f in (calls_layer, applies_layer):
        g = s2sad.grad(f)
        x = 0.3
        m = Holder(my_tanh)
        for layer in (my_tanh, my_sin, Dense(), Cube(), Other().go, Other().stop, my_tanh, Other(2.0).go):
            m.layer = layer  # the same holder, rebound between calls
            close(g(x, m), numeric_grad(f, [x, m], 0))
            close(s2sad.value_and_grad(f)(x, m)[0], f(x, m))


def test_a_primitive_or_a_lambda_stored_on_the_object():
    check(calls_layer, [0.3, Holder(np.tanh)])
    check(calls_layer, [0.3, Holder(lambda v: v * v * np.sin(v))])
    g = s2sad.grad(calls_layer)
    m = Holder(np.tanh)
    for act in (np.tanh, np.sin, np.exp, my_tanh, np.tanh):
        m.act = m.layer = act
        close(g(0.3, m), numeric_grad(calls_layer, [0.3, m], 0))


class NotCallable:
    pass


def test_a_stored_object_that_cannot_be_called_is_refused_at_the_users_line():
    line = calls_layer.__code__.co_firstlineno + 1
    for layer in (NotCallable(), 3.0, len):
        with pytest.raises(DifferentiationError, match=rf"test_methods_more.py:{line}:12: .*model\.layer\(\)"):
            s2sad.grad(calls_layer)(0.3, Holder(layer))


def test_a_method_replaced_on_the_class_of_a_callable_attribute_regenerates():
    class Local:
        def __call__(self, v):
            return v * 2.0

    g = s2sad.grad(calls_layer)
    assert g(1.5, Holder(Local())) == 4.0
    Local.__call__ = lambda self, v: v * v
    assert g(1.5, Holder(Local())) == 6.0


# ---- 3. objects reached through items and properties ---------------------------------------------
class Sine:
    def __init__(self, w=2.0):
        self.w = w

    def forward(self, v):
        return np.sin(v) * self.w

    def __call__(self, v):
        return self.forward(v) + v * 0.5


class Seq:
    def __init__(self, layers):
        self.layers = layers

    @property
    def first(self):
        return self.layers[0]


def first_forward(x, model):
    return model.layers[0].forward(x)


def last_forward(x, model):
    return model.layers[-1].forward(x) * model.layers[0].w


def through_all(x, model):
    for layer in model.layers:
        x = layer(x)
    return x


def through_all_forward(x, model):
    h = x
    for layer in model.layers:
        h = layer.forward(h) + h
    return h


def through_property(x, model):
    return model.first.forward(x)


@pytest.mark.parametrize("f", [first_forward, last_forward, through_all, through_all_forward, through_property])
@pytest.mark.parametrize("container", [list, tuple])
def test_objects_reached_through_items(f, container):
    check(f, [0.3, Seq(container([Sine(1.5), Sine(0.5), Sine(-1.0)]))])


def test_items_of_another_class_or_count_are_never_stale():
    for f in (first_forward, through_all, through_all_forward, through_property):
        g = s2sad.grad(f)
        for layers in ([Sine(1.5)], [Dense(), Dense(0.5)], [Sine(1.5), Sine(0.5)], [Dense()], [Sine(0.3)]):
            m = Seq(layers)
            close(g(0.3, m), numeric_grad(f, [0.3, m], 0))
            m.layers[0] = Dense(0.7) if isinstance(layers[0], Sine) else Sine(0.7)  # an item replaced
            close(g(0.3, m), numeric_grad(f, [0.3, m], 0))


def test_items_of_different_classes_in_a_loop():
    check(through_all, [0.3, Seq([Sine(1.5), Dense(0.5), Sine(-1.0)])])
    g = s2sad.grad(through_all)
    for layers in ([Sine(), Dense()], [Sine(), Dense(), Sine(0.2)], [Dense(), Sine()], (Dense(),), [Sine(), Dense()]):
        m = Seq(layers)  # another length, order or class: made again
        close(g(0.3, m), numeric_grad(through_all, [0.3, m], 0))


class Stored:
    """Items of one class whose stored function differs (``Stored(np.cos)``, ``Stored(np.sin)``)."""

    def __init__(self, fn, inner=None):
        self.fn = fn
        self.inner = inner

    def forward(self, v):
        return self.fn(v)

    def deep(self, v):
        return self.inner.forward(v) + v


def through_stored(x, model):
    for layer in model.layers:
        x = layer.forward(x)
    return np.sum(x)


def through_stored_deep(x, model):
    for layer in model.layers:
        x = layer.deep(x)
    return np.sum(x)


def through_stored_with_break(x, model):
    for layer in model.layers:
        x = layer.forward(x)
        if np.sum(x) > 100.0:
            break
    return np.sum(x)


@pytest.mark.parametrize("f", [through_stored, through_stored_deep])
def test_items_of_one_class_with_different_stored_functions(f):
    x = np.array([0.7, -1.2, 0.4])
    for fns in ([np.cos, np.sin], [my_sin, np.cos, my_tanh], [np.sin, np.sin], [np.sin, lambda v: v * v]):
        m = Seq([Stored(fn, Stored(fn)) for fn in fns])
        check(f, [x, m])


def test_a_stored_function_of_an_item_rebound_is_never_stale():
    x = np.array([0.7, -1.2, 0.4])
    for f in (through_stored, through_stored_deep):
        m = Seq([Stored(np.sin, Stored(np.sin)), Stored(np.sin, Stored(np.sin))])
        made = [s2sad.grad(f), s2sad.value_and_grad(f), s2sad.jvp(f), s2sad.hessian(f)]
        for fn in (np.cos, my_tanh, np.sin, np.exp):
            for d in made:
                d(x, m) if d is not made[2] else d(x, m, x)
            m.layers[0].fn = m.layers[0].inner.fn = fn  # the first item's function rebound
            expected = numeric_grad(f, [x, m], 0)
            close(made[0](x, m), expected)
            v, d = made[1](x, m)
            assert np.array_equal(v, f(x, m))
            close(d, expected)
            close(made[2](x, m, x)[1], numeric_jvp(f, [x, m], [0], [x]))
            close(made[3](x, m), numeric_hessian(f, [x, m], 0), 1e-4)


def test_items_that_differ_in_a_loop_that_cannot_be_written_out_are_refused_at_the_users_line():
    line = Stored.forward.__code__.co_firstlineno + 1  # self.fn(v): not the same function for every item
    m = Seq([Stored(np.cos), Stored(np.sin)])
    with pytest.raises(DifferentiationError, match=rf"test_methods_more.py:{line}:\d+: "):
        s2sad.grad(through_stored_with_break)(np.array([0.7, -1.2]), m)
    m = Seq([Stored(np.sin), Stored(np.sin)])
    g = s2sad.grad(through_stored_with_break)
    close(g(np.array([0.7, -1.2]), m), numeric_grad(through_stored_with_break, [np.array([0.7, -1.2]), m], 0))
    m.layers[1].fn = np.cos
    with pytest.raises(DifferentiationError, match=rf"test_methods_more.py:{line}:\d+: "):
        g(np.array([0.7, -1.2]), m)


def square(t):
    return t**2


def cube(t):
    return t**3


def test_a_function_default_replaced_is_never_stale():
    x = np.array([0.7, -1.2, 0.4])

    def positional(x, act=square):
        return np.sum(act(x))

    def keyword_only(x, *, act=square):
        return np.sum(act(x))

    def lambda_default(x, act=lambda t: t * t):
        return np.sum(act(x))

    for f in (positional, keyword_only, lambda_default):
        made = [s2sad.grad(f), s2sad.value_and_grad(f), s2sad.jvp(f), s2sad.hessian(f)]
        for act in (cube, np.sin, lambda t: t**4, square):
            for d in made:
                d(x) if d is not made[2] else d(x, x)
            if f is keyword_only:
                f.__kwdefaults__ = {"act": act}
            else:
                f.__defaults__ = (act,)
            expected = numeric_grad(f, [x], 0)
            try:
                close(made[0](x), expected)
                v, d = made[1](x)
                assert np.array_equal(v, f(x))
                close(d, expected)
                close(made[2](x, x)[1], numeric_jvp(f, [x], [0], [x]))
                close(made[3](x), numeric_hessian(f, [x], 0), 1e-4)
            except DifferentiationError as e:  # the promise: refused, saying to make it again
                assert "defaults" in str(e) and "again" in str(e)
                made = [s2sad.grad(f), s2sad.value_and_grad(f), s2sad.jvp(f), s2sad.hessian(f)]
            check(f, [x])


# ---- 5. methods named like NumPy's or builtins --------------------------------------------------
class Named:
    def __init__(self, a=2.0):
        self.a = a

    def sum(self, v):
        return np.sum(v * v) * self.a

    def max(self, v):
        return v * self.a + 1.0

    def mean(self, v):
        return np.sin(v)


def uses_named(x, model):
    return model.sum(x) + np.sum(model.max(x) * model.mean(x))


def helper_named(v, m):
    return m.sum(v)


def passes_named(x, model):
    return helper_named(x * 2.0, model)


@pytest.mark.parametrize("f", [uses_named, passes_named])
def test_methods_named_like_numpy(f):
    check(f, [np.array([0.3, -0.6]), Named()])
    check(f, [0.4, Named(0.5)])


def test_an_array_argument_keeps_numpy_methods():
    def f(x, y):
        return x.sum() * y.max()

    check(f, [np.array([0.3, -0.6]), np.array([1.0, 2.0])])


def dot_only(W, x):
    return np.sum(np.tanh(W.dot(x)))


def test_a_parameter_read_only_through_numpy_methods_keeps_its_plain_derivative(tmp_path):
    # W.dot(x) could be a user object's dot: objects get the derivative specialized to their class, while
    # arrays get the plain one, which s2sad.source and the command line show before any call
    W, x = np.array([[0.5, -1.0], [0.3, 0.8]]), np.array([0.2, 0.7])
    g = s2sad.grad(dot_only, wrt=1)
    assert "def ddot_only_dx(W, x" in s2sad.source(g)
    check(dot_only, [W, x])
    assert np.allclose(s2sad.jacobian(g, wrt=1)(W, x), numeric_hessian(dot_only, [W, x], 1), atol=1e-5)

    class Dotter:
        def dot(self, v):
            return v * 3.0

    assert np.allclose(g(Dotter(), x), numeric_grad(dot_only, [Dotter(), x], 1))
    from s2sad.cli import main

    out = tmp_path / "d.py"
    assert main([f"{__file__}:dot_only", "--mode", "reverse", "--wrt", "x", "-o", str(out)]) in (0, None)
    assert "def ddot_only_dx(W, x" in out.read_text()


# ---- 2. static and class methods called through an object ---------------------------------------
class WithStatic:
    K = 4.0

    def __init__(self, k=2.0):
        self.k = k

    @staticmethod
    def helper(v):
        return np.sin(v) * 3.0

    @classmethod
    def make(cls, v):
        return v * v * cls.K

    def run(self, x):
        return self.helper(x) + self.make(x) * self.k


class Stronger(WithStatic):
    K = 10.0

    @staticmethod
    def helper(v):
        return np.cos(v)


def runs(x, m):
    return m.run(x)


def calls_static(x, m):
    return m.helper(x) * m.make(x)


@pytest.mark.parametrize("f", [runs, calls_static])
@pytest.mark.parametrize("cls", [WithStatic, Stronger])
def test_static_and_class_methods_through_an_object(f, cls):
    check(f, [0.3, cls()])


def test_a_static_method_hidden_later_is_refused_at_the_users_line_in_every_mode():
    line = calls_static.__code__.co_firstlineno + 1
    m = WithStatic()
    made = [s2sad.grad(calls_static), s2sad.jvp(calls_static), s2sad.hessian(calls_static)]
    made += [s2sad.jvp(s2sad.grad(calls_static))]
    for d in made:
        d(0.3, m) if d is made[0] or d is made[2] else d(0.3, m, 1.0)
    m.helper = lambda v: v**3  # the instance attribute hides the static method
    for d in made:
        with pytest.raises(DifferentiationError, match=rf"^[^<]*test_methods_more.py:{line}:\d+: 'm' has its own"):
            d(0.3, m) if d is made[0] or d is made[2] else d(0.3, m, 1.0)


def test_static_and_class_methods_of_another_class_are_never_stale():
    g = s2sad.grad(calls_static)
    for m in (WithStatic(), Stronger(), WithStatic()):
        close(g(0.3, m), numeric_grad(calls_static, [0.3, m], 0))


# ---- 4. a global object passed to a helper that calls its methods ---------------------------------
class Loss:
    def __init__(self, c=2.0):
        self.c = c

    def loss(self, v):
        return np.sin(v) * self.c


class SquareLoss(Loss):
    def loss(self, v):
        return v * v * self.c


M = Loss()


def loss_helper(v, m):
    return m.loss(v) + v


def global_to_helper(x):
    return loss_helper(x * 1.5, M)


def test_a_global_object_passed_to_a_helper():
    check(global_to_helper, [0.3])


def test_a_rebound_global_object_is_never_stale():
    global M
    g = s2sad.grad(global_to_helper)
    saved = M
    try:
        for m in (Loss(), SquareLoss(), Loss(0.5), SquareLoss(3.0)):
            M = m
            close(g(0.3), numeric_grad(global_to_helper, [0.3], 0))
            close(s2sad.value_and_grad(global_to_helper)(0.3)[0], global_to_helper(0.3))
    finally:
        M = saved
