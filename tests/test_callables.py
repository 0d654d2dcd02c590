"""Any Python callable: lambdas, bound methods, classmethods, static methods, callable instances,
functools.partial, built-in primitives with a rule; methods and attributes of user objects inside f;
defaults and keyword-only parameters.  Every derivative against central finite differences."""

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest
from fd import assert_close, call_jvp, numeric_grad, numeric_jvp

import s2sad

rng = np.random.default_rng(7)


def check_all(c, args, wrt=0, hessian=True):
    """grad, value_and_grad, jvp (and hessian) of the callable ``c`` at ``args`` against finite differences."""
    args = list(args)
    g = s2sad.grad(c, wrt=wrt)(*args)
    assert_close(g, numeric_grad(c, args, wrt))
    value, g2 = s2sad.value_and_grad(c, wrt=wrt)(*args)
    assert_close(value, c(*args))
    assert_close(g2, g)
    t = np.ones_like(np.asarray(args[wrt], dtype=float)) * 0.7
    t = float(t) if np.ndim(args[wrt]) == 0 else t
    value, tangent = call_jvp(c, args, [wrt], [t])
    assert_close(value, c(*args))
    assert_close(tangent, numeric_jvp(c, args, [wrt], [t]))
    if hessian:
        h = s2sad.hessian(c, wrt=wrt)(*args)
        assert_close(h, numeric_grad(s2sad.grad(c, wrt=wrt), args, wrt), rtol=1e-4, atol=1e-5)
    return g


# ---- lambdas ------------------------------------------------------------------------------------------
sq = lambda x, y: x * np.exp(y) + x**3  # noqa: E731
pair = (lambda x: x**3 * 2.0, lambda x: np.sin(x) * x)  # two lambdas on one line, same parameters


def uses_module_lambda(x):
    return sq(x, 0.5) * np.cos(x)


def test_lambda_in_a_call():
    check_all(lambda x: x**2 * np.sin(x), [1.3])


def test_lambda_assigned_to_a_name_both_arguments():
    check_all(sq, [0.8, -0.3], wrt=0)
    check_all(sq, [0.8, -0.3], wrt=1)


def test_lambda_of_an_array():
    check_all(lambda v: np.sum(np.tanh(v) ** 2), [rng.normal(size=3)])


def test_two_lambdas_on_one_line_are_told_apart():
    check_all(pair[0], [1.1])
    check_all(pair[1], [1.1])


def test_module_lambda_called_inside_f():
    check_all(uses_module_lambda, [0.9])


def apply(g, x):
    return g(x)


def passes_a_lambda(x):
    return apply(lambda t: t * 3.0, x)


def test_lambda_passed_to_a_user_function():
    check_all(passes_a_lambda, [1.0])


# ---- methods, instances, partials ---------------------------------------------------------------------
class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


class Model:
    def __init__(self, a, b=0.5):
        self.a = a
        self.b = b
        self.layer = Layer(1.5)

    def loss(self, w):
        return self.a * w**2 + np.sin(self.b * w)

    def predict(self, x):
        return self.a * x + self.b

    def through_methods(self, x):
        return self.predict(x) ** 2 + self.layer(x) + self.scaled * x

    @property
    def scaled(self):
        return 2.0 * self.a

    @classmethod
    def create(cls, w):
        return cls.SCALE * w**3

    @staticmethod
    def static(w):
        return np.exp(w) * w

    SCALE = 0.25


model = Model(2.0)


def test_bound_method_wrt_counts_the_remaining_parameters():
    check_all(model.loss, [0.7])
    check_all(Model(-1.0, 2.0).loss, [0.7])


def test_function_of_the_class_counts_self():
    g = s2sad.grad(Model.loss, wrt=1)(model, 0.7)
    assert_close(g, numeric_grad(model.loss, [0.7], 0))
    with pytest.raises(s2sad.DifferentiationError, match="wrt=2 is out of range"):
        s2sad.grad(Model.loss, wrt=2)


def test_classmethod_and_staticmethod():
    check_all(Model.create, [1.2])
    check_all(Model.static, [0.4])
    check_all(model.static, [0.4])


def test_callable_instance():
    check_all(Layer(0.8), [0.3])


def test_methods_property_and_callable_attribute_called_inside_a_method():
    check_all(model.through_methods, [0.6])


def f3(x, a, b=2.0):
    return a * x**2 + b * np.sin(x)


def test_partial_binds_positional_and_keyword_arguments():
    check_all(functools.partial(f3, 1.5), [0.4])  # x bound: wrt 0 is a
    check_all(functools.partial(f3, a=3.0), [0.4])
    check_all(functools.partial(f3, b=-1.0), [0.4, 2.0], wrt=1)
    check_all(functools.partial(functools.partial(f3, b=-1.0), a=0.5), [0.4])  # nested
    check_all(functools.partial(model.loss), [0.3])


def test_partial_keyword_parameters_follow_python():
    p = functools.partial(f3, a=3.0)
    assert s2sad.grad(p)(0.4, b=1.0) == pytest.approx(6.0 * 0.4 + math.cos(0.4))
    with pytest.raises(s2sad.DifferentiationError, match="not a named parameter"):
        s2sad.grad(functools.partial(f3, c=1.0))


f3_keyword = functools.partial(f3, a=2.0)
f3_positional = functools.partial(f3, 1.5)  # x bound: the call passes a
f3_nested = functools.partial(functools.partial(f3, b=-1.0), a=0.5)
predict_partial = functools.partial(model.predict)


def calls_partials(x):
    total = f3_keyword(x) + f3_positional(x * x) + f3_nested(np.sin(x))
    for k in range(2):
        total = total * 0.5 + f3_keyword(x, b=float(k))  # the call's keyword wins over none bound
    return total + predict_partial(x) ** 2


def calls_partial_of_array(w):
    return np.sum(f3_keyword(w) * w) + np.sum(f3_nested(w))


def test_partials_called_inside_f():
    check_all(calls_partials, [0.7])
    check_all(calls_partials, [-1.2])
    check_all(calls_partial_of_array, [rng.normal(size=3)])


# ---- built-in primitives ------------------------------------------------------------------------------
def test_primitives_with_a_rule():
    assert s2sad.grad(np.sin)(1.0) == pytest.approx(math.cos(1.0))
    assert s2sad.grad(math.exp)(0.5) == pytest.approx(math.exp(0.5))
    value, tangent = s2sad.jvp(np.tanh)(0.3, 2.0)
    assert value == pytest.approx(math.tanh(0.3))
    assert tangent == pytest.approx(2.0 * (1 - math.tanh(0.3) ** 2))
    assert s2sad.hessian(np.sin)(0.7) == pytest.approx(-math.sin(0.7))
    x = rng.normal(size=4)
    assert_close(s2sad.value_and_grad(np.sum)(x)[1], np.ones(4))


def test_what_is_not_python_is_refused_by_name():
    with pytest.raises(s2sad.DifferentiationError, match="Model"):
        s2sad.grad(Model)
    with pytest.raises(s2sad.DifferentiationError, match="no rule"):
        s2sad.grad(np.vectorize(lambda x: x))


# ---- objects read inside f ----------------------------------------------------------------------------
@dataclass
class Params:
    w: float
    b: np.ndarray


class Pair(NamedTuple):
    w: float
    b: float


class Plain:
    def __init__(self):
        self.w = 0.3


P = Params(1.5, np.array([0.1, -0.2, 0.3]))
Q = Pair(0.7, 0.2)
R = Plain()


def attributes_of_globals(x):
    return np.sum(P.w * x + P.b) * Q.w + Q.b * R.w * np.sum(x**2)


def attributes_of_an_argument(x, p):
    return np.sum(np.sin(p.w * x) + p.b)


def method_of_a_global(x):
    return model.predict(x) ** 2 + model.layer(x) * model.scaled


def test_attributes_of_constant_objects():
    check_all(attributes_of_globals, [rng.normal(size=3)])
    check_all(attributes_of_an_argument, [rng.normal(size=3), P])
    check_all(attributes_of_an_argument, [rng.normal(size=3), Q])


def test_methods_of_a_global_object():
    check_all(method_of_a_global, [0.45])


# ---- defaults and keyword-only parameters -------------------------------------------------------------
def make(a):
    def f(x, a=a):
        return a * x**2

    return f


scaled_by_3 = make(3.0)
A = 2.0


def default_at_definition(x, a=A):
    return a * np.sin(x)


A = 5.0  # does not change the default, as in Python


def keyword_only(x, *, k=2.0, m):
    return k * x**2 + m * x


def calls_the_factory_function(x):
    return scaled_by_3(x) + default_at_definition(x)


def test_defaults_made_by_a_factory_and_at_definition_time():
    check_all(scaled_by_3, [0.6])
    check_all(default_at_definition, [0.6])
    assert s2sad.grad(default_at_definition)(0.6) == pytest.approx(2.0 * math.cos(0.6))
    check_all(calls_the_factory_function, [0.6])


def test_keyword_only_parameters():
    g = s2sad.grad(keyword_only)(0.5, m=3.0)
    assert g == pytest.approx(2.0 + 3.0)
    assert s2sad.grad(keyword_only, wrt="m")(0.5, m=3.0) == pytest.approx(0.5)
    check_all(functools.partial(keyword_only, m=3.0), [0.5])


# ---- the cache and the generated source ---------------------------------------------------------------
def test_two_instances_do_not_share_a_derivative():
    m1, m2 = Model(1.0), Model(4.0)
    g1, g2 = s2sad.grad(m1.loss), s2sad.grad(m2.loss)
    assert g1(0.5) == pytest.approx(numeric_grad(m1.loss, [0.5], 0))
    assert g2(0.5) == pytest.approx(numeric_grad(m2.loss, [0.5], 0))
    assert s2sad.grad(m1.loss)(0.5) == pytest.approx(g1(0.5))
    m1.a = 10.0  # the derivative reads the object when it runs, as the method does
    assert s2sad.grad(m1.loss)(0.5) == pytest.approx(numeric_grad(m1.loss, [0.5], 0))


def test_source_of_a_bound_method_is_readable():
    text = s2sad.source(s2sad.grad(model.loss))
    assert "def dloss_dw(w, bout=1.0):" in text
    assert "self.a" in text
    assert "test_callables.py" in text  # the source map names the user's file


class Swappable:
    def predict(self, x):
        return 3.0 * x


swappable = Swappable()


def calls_swappable(x):
    return swappable.predict(x) ** 2


def test_a_replaced_method_makes_the_derivative_stale():
    g = s2sad.grad(calls_swappable)
    assert g(1.0) == pytest.approx(18.0)
    original = Swappable.predict
    Swappable.predict = lambda self, x: 5.0 * x
    try:
        with pytest.raises(s2sad.DifferentiationError, match="'predict' was redefined"):
            g(1.0)
        assert s2sad.grad(calls_swappable)(1.0) == pytest.approx(50.0)
    finally:
        Swappable.predict = original
    assert g(1.0) == pytest.approx(18.0)


# ---- the command line ---------------------------------------------------------------------------------
CLI_MODEL = """
import numpy as np


def make(a):
    def f(x, a=a):
        return a * x**2

    return f


scaled = make(3.0)


class Model:
    def __init__(self, a):
        self.a = a

    def predict(self, x):
        return self.a * x

    def loss(self, w):
        return self.predict(w) ** 2 + np.sin(w)


model = Model(2.0)
cube = lambda x: x**3  # noqa: E731
"""


@pytest.mark.parametrize(
    "target, call, expected",
    [
        ("scaled", "df_dx(0.5)", 3.0),
        ("model.loss", "dloss_dw(0.5)", 8.0 * 0.5 + math.cos(0.5)),
        ("cube", "dlambda_dx(2.0)", 12.0),
    ],
)
def test_command_line_takes_factories_bound_methods_and_lambdas(tmp_path, target, call, expected):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).parent.parent)
    env = dict(os.environ, PYTHONPATH=root)
    (tmp_path / "cmodel.py").write_text(CLI_MODEL)
    done = subprocess.run(
        [sys.executable, "-m", "s2sad", f"cmodel.py:{target}", "-o", "dmodel.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "dmodel.py").read_text()
    if target == "model.loss":
        assert "from cmodel import model as self" in text
    script = f"import dmodel; print(repr(dmodel.{call}))"
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) == pytest.approx(expected)


def test_jacobians_and_second_derivatives_of_callables():
    x = rng.normal(size=3)
    for mode in (None, "forward", "reverse"):
        assert_close(s2sad.jacobian(model.loss, mode=mode)(x), numeric_grad(model.loss, [x], 0))
        assert_close(s2sad.jacobian(lambda v: np.sin(v) * 2.0, mode=mode)(x), np.diag(2.0 * np.cos(x)))
    second = s2sad.grad(s2sad.grad(model.loss))(0.3)
    assert second == pytest.approx(numeric_grad(s2sad.grad(model.loss), [0.3], 0))
    p = functools.partial(f3, a=3.0)
    assert s2sad.hvp(p)(0.4, 1.0) == pytest.approx(6.0 - 2.0 * math.sin(0.4))
