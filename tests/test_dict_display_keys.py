"""A dict display whose keys are equal at run time (``{k1: a, k2: b}`` with ``k1 == k2``, ``{1: a, True: b}``,
``{'a': a, 'a': b}``) keeps the last value at the first key's place: reverse mode gave the overwritten value a
derivative (round 29).  Every mode against finite differences, keys equal and distinct."""

import numpy as np
import pytest
from fd import numeric_grad

import s2sad


def numerical_grad(f, x):
    return numeric_grad(f, [x], 0)


def two_keys(x, k1, k2):
    d = {k1: x[0], k2: x[1]}
    return d[k2] * 3.0 + d[k1] * x[2]


def repeated_constant(x, k1, k2):
    d = {"a": x[0], "a": x[1]}  # noqa: F601
    return d["a"] * 3.0 * x[2]


def one_and_true(x, k1, k2):
    d = {1: x[0], True: x[1], 2: x[2]}  # noqa: F601
    return d[1] * d[2]


def three_keys(x, k1, k2):
    d = {"w": x[0], "b": x[1], k1: x[2] * 5}
    return d["w"] * d["b"]


def in_a_loop(x, k1, k2):
    s = 0.0
    for i in range(2):
        d = {k1: x[i], k2: x[i + 1] ** 2}
        s = s + d[k1] * d[k2]
    return s


X = np.array([0.5, 2.0, 1.5])
KEYS = [("w", "w"), ("w", "b"), ("b", "b")]


@pytest.mark.parametrize("k1,k2", KEYS)
@pytest.mark.parametrize(
    "f", [two_keys, repeated_constant, one_and_true, three_keys, in_a_loop], ids=lambda f: f.__name__
)
def test_every_mode_matches_finite_differences(f, k1, k2):
    expected = numerical_grad(lambda x: f(x, k1, k2), X.copy())
    value, g = s2sad.value_and_grad(f)(X, k1, k2)
    assert value == f(X, k1, k2)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(f)(X, k1, k2), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.vjp(f)(X, k1, k2, seed=1.0), expected, rtol=1e-6, atol=1e-8)
    tangents = [s2sad.jvp(f)(X, k1, k2, e)[1] for e in np.eye(3)]
    np.testing.assert_allclose(tangents, expected, rtol=1e-6, atol=1e-8)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(s2sad.jacobian(f, mode=mode)(X, k1, k2), expected, rtol=1e-6, atol=1e-8)
    H = s2sad.hessian(f)(X, k1, k2)
    fd_h = numerical_grad(lambda x: s2sad.grad(f)(x, k1, k2), X.copy())
    np.testing.assert_allclose(H, fd_h, rtol=1e-5, atol=1e-6)


def test_the_reported_case():
    np.testing.assert_allclose(s2sad.grad(lambda x: {"w": x[0], "w" * 1: x[1]}["w"] * 3.0)(X), [0.0, 3.0, 0.0])
    f = lambda x, k1, k2: {k1: x[0], k2: x[1]}[k2] * 3.0  # noqa: E731
    np.testing.assert_allclose(s2sad.grad(f)(X, "w", "w"), [0.0, 3.0, 0.0])
    np.testing.assert_allclose(s2sad.grad(f)(X, "w", "b"), [0.0, 3.0, 0.0])


def test_distinct_constant_keys_keep_the_display():
    text = s2sad.source(s2sad.grad(lambda x: {"w": x[0], "b": x[1]}["w"] * 2.0))
    assert "set_item" not in text


def zipped(x, it):
    s = 0.0
    for v, w in zip(it, x):
        s = s + v * w
    return s


@pytest.mark.parametrize(
    "make",
    [lambda: [1.0, 2.0], lambda: iter([1.0, 2.0]), lambda: map(float, [1, 2]), lambda: (a for a in [1.0, 2.0])],
    ids=["list", "list_iterator", "map", "generator"],
)
def test_a_read_only_loop_zips_an_iterator_argument(make):
    """``zip(it, x)`` over an iterator parameter in a loop that writes nothing was refused as a loop that
    writes in place (round 29): it iterates ``list(it)``, exact."""
    x = np.array([1.0, 2.0])
    value, g = s2sad.value_and_grad(zipped)(x, make())
    assert value == zipped(x, make())
    np.testing.assert_allclose(g, [1.0, 2.0])
    np.testing.assert_allclose(s2sad.jvp(zipped)(x, make(), np.array([1.0, 1.0]))[1], 3.0)


def test_builtin_pow_is_the_power_operator():
    """``pow(x, y)`` had no rule (round 29); three-argument pow (modular) is refused."""

    def f(x):
        return pow(x[0], 2) + pow(x[1], x[0]) + pow(2.0, x[1])

    x = np.array([1.3, 0.7])
    np.testing.assert_allclose(s2sad.grad(f)(x), numerical_grad(f, x.copy()), rtol=1e-6)
    np.testing.assert_allclose(s2sad.hessian(f)(x), numerical_grad(s2sad.grad(f), x.copy()), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(s2sad.jvp(f)(x, np.array([1.0, 0.0]))[1], numerical_grad(f, x.copy())[0], rtol=1e-6)
    with pytest.raises(s2sad.DifferentiationError, match="too many positional arguments"):
        s2sad.grad(lambda v: pow(v, 2, 3))(2.0)


def test_an_import_inside_f_is_refused_at_the_import():
    """``import numpy as onp`` inside f was refused as "name 'onp' is not defined" (round 29)."""

    def f(x):
        import numpy as onp

        return onp.sin(x)

    def g(x):
        from math import sin

        return sin(x)

    for fn, name_ in ((f, "onp"), (g, "sin")):
        with pytest.raises(s2sad.DifferentiationError, match=rf"`{name_}` is imported inside the differentiated"):
            s2sad.grad(fn)(0.5)


class _Base:
    def f(self, v):
        return v * 2


class _Child(_Base):
    def f(self, v):
        return v * 3

    def g(self, v):
        return _Base.f(self, v) + self.f(v)


def test_a_pure_method_named_like_a_draw_is_read_not_refused():
    """``self.f(v)`` (``Generator.f`` is a draw) in a method whose class defines a pure ``f`` was refused by
    jacobian and hessian as "may draw random numbers" (round 29)."""
    child = _Child()
    x = np.array([0.3, -0.6, 1.2])
    np.testing.assert_allclose(s2sad.jacobian(lambda v: np.sum(child.g(v)))(x), [5.0, 5.0, 5.0])
    np.testing.assert_allclose(s2sad.hessian(lambda v: np.sum(child.g(v) ** 2))(x), 50.0 * np.eye(3))
