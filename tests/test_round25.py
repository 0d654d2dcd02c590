"""Round 25 (blind testers adv25a/adv25b, final checks of 2026-11-27)."""

import numpy as np
import pytest

import s2sad

X = np.array([0.37, -1.2])
SIN2 = 2 * np.sin(X) * np.cos(X)  # d/dx sum(sin(x) ** 2)


def _refused_then_exact(make, change):
    """A class-level callable reached through the bound object (grad(obj.method), grad(instance)) changed
    after grad: the old derivative refuses; a new grad is exact (it gave the old function's numbers)."""
    obj, cls = make()
    g = s2sad.grad(obj.method if hasattr(obj, "method") else obj)
    g(X)
    change(obj, cls)
    with pytest.raises(s2sad.DifferentiationError, match="redefined|changed"):
        g(X)
    again = s2sad.grad(obj.method if hasattr(obj, "method") else obj)(X)
    np.testing.assert_allclose(again, SIN2, rtol=1e-12)


def test_a_staticmethod_replaced_on_the_class():
    def make():
        class A:
            @staticmethod
            def h(t):
                return np.tanh(t)

            def method(self, x):
                return np.sum(self.h(x) ** 2)

        return A(), A

    _refused_then_exact(make, lambda o, c: setattr(c, "h", staticmethod(np.sin)))


def test_an_instance_attribute_hiding_a_class_staticmethod():
    def make():
        class M:
            act = staticmethod(np.tanh)

            def method(self, x):
                return np.sum(self.act(x) ** 2)

        return M(), M

    _refused_then_exact(make, lambda o, c: setattr(o, "act", np.sin))


def test_a_ufunc_class_attribute_replaced():
    def make():
        class C:
            act = np.tanh

            def method(self, x):
                return np.sum(self.act(x) ** 2)

        return C(), C

    _refused_then_exact(make, lambda o, c: setattr(c, "act", np.sin))


def test_a_callable_instance_on_the_class_replaced():
    class L1:
        def __call__(self, x):
            return np.tanh(x)

    class L2:
        def __call__(self, x):
            return np.sin(x)

    def make():
        class Net:
            layer = L1()

            def method(self, x):
                return np.sum(self.layer(x) ** 2)

        return Net(), Net

    _refused_then_exact(make, lambda o, c: setattr(c, "layer", L2()))


def test_grad_of_a_callable_instance_whose_class_attribute_is_replaced():
    def make():
        class K:
            fn = staticmethod(np.tanh)

            def __call__(self, x):
                return np.sum(self.fn(x) ** 2)

        return K(), K

    _refused_then_exact(make, lambda o, c: setattr(c, "fn", staticmethod(np.sin)))
