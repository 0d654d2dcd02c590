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


# ---- views of x.copy() carried by tuple unpacking, lists, dicts and helpers (round 25a: a wrong value
# and gradient; x.copy() of a value of unknown type not used as a list or dict is an array's copy) ----

W = np.array([1.0, 10.0, 100.0])


def views_unpacked(x):
    a = x.copy()
    u, v = a[:2], a[2:]  # noqa: F841 -- (v: a second view, as the tester wrote it)
    u[0] = u[0] * x[2]
    return np.sum(a * W)


def views_unpacked_augmented(x):
    a = x.copy()
    u, v = a[:2], a[2:]
    u *= 3.0
    return np.sum(a) + np.sum(v)


def boundary_conditions(x):
    u = x.copy()
    left, right = u[:1], u[-1:]
    left[0] = x[1] * 2
    right[0] = u[-2] * 3
    return np.sum(np.diff(u) ** 2)


def view_in_a_list(x):
    a = x.copy()
    rows = [a[:2]]
    rows[0] *= 3
    return np.sum(a * W)


@pytest.mark.parametrize("f", [views_unpacked, views_unpacked_augmented, boundary_conditions, view_in_a_list])
def test_views_of_a_copy_carried_another_way_are_exact_or_refused(f):
    from exact_or_refused import check

    x = np.array([0.5, 1.0, 2.0, 4.0])[: 4 if f is boundary_conditions else 3]
    symptoms = check(f, [x])
    assert not symptoms, "\n".join(symptoms)


def max_key_of_a_dict(x):
    d = {"a": x[0], "b": x[1], "c": x[2]}
    return d[max(d, key=d.get)] + d[min(d, key=lambda k: d[k])] * 2.0


def test_max_and_min_of_a_dict_with_a_key():
    """max(d, key=d.get) raised KeyError: 0 inside s2sad (round 25b)."""
    from exact_or_refused import check

    x = np.array([0.37, -1.2, 0.7])
    assert not check(max_key_of_a_dict, [x])
    np.testing.assert_array_equal(s2sad.grad(max_key_of_a_dict)(x), [0.0, 2.0, 1.0])


class _Fwd:
    def fwd(self, x):
        return np.tanh(x)


class _Holds:
    def __init__(self):
        self.fn = _Fwd().fwd  # a bound method of another object

    def loss(self, x):
        return np.sum(self.fn(x) ** 2)


def test_a_bound_method_of_another_object_held_on_self():
    """grad(Hold().loss) raised a bare StopIteration inside s2sad (round 25b)."""
    x = np.array([0.37, -1.2, 0.7])
    h = _Holds()
    g = s2sad.grad(h.loss)
    t = np.tanh(x)
    np.testing.assert_allclose(g(x), 2 * t * (1 - t * t), rtol=1e-12)
    h.fn = np.sin
    with pytest.raises(s2sad.DifferentiationError):
        g(x)


def test_a_tangent_of_another_shape_is_refused():
    """jvp(f)(x, t) broadcast a tangent of another shape and gave a number of no meaning (round 25a)."""
    f = lambda x: np.sum(np.sin(x) * np.arange(1.0, 4.0).reshape(3, 1))  # noqa: E731
    x = np.ones((3, 1))
    for t in (np.ones(4), np.array([1.0, 0.0, 0.0])):
        with pytest.raises(s2sad.DifferentiationError, match="the tangent dx is"):
            s2sad.jvp(f)(x, t)
    g = lambda d, s: d["a"] * s  # noqa: E731
    assert s2sad.jvp(g, wrt=(0, 1))({"a": 2.0}, 3.0, {"a": 1.0}, 0.5) == (6.0, 4.0)
    with pytest.raises(s2sad.DifferentiationError, match="the tangent dd is"):
        s2sad.jvp(g, wrt=(0, 1))({"a": 2.0}, 3.0, {"b": 1.0}, 0.5)
