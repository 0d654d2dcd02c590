"""*args, **kwargs, keyword-only and default arguments, in f and in the functions it calls, in every mode;
``for k in d`` over a dict parameter; jvp w.r.t. an object f never reads; ``grad(Model.loss)``."""

import copy

import numpy as np
import pytest
from fd import numeric_grad, numeric_jvp

import s2sad
from s2sad import DifferentiationError


def numeric_hessian(f, args, i, h=1e-4):
    return numeric_grad(lambda *a: numeric_grad(f, list(a), i, h), list(args), i, h)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol, atol=tol)


def every_mode(f, args, i=0, kwargs=None, hess_tol=1e-4):
    """grad, value_and_grad, vjp, jvp, jacobian (both modes), hessian and grad(grad) of ``f`` w.r.t.
    ``args[i]`` against finite differences; the arguments are unchanged by every call."""
    kwargs = kwargs or {}
    before = copy.deepcopy(args)
    g = lambda *a: f(*a, **kwargs)  # noqa: E731
    value = g(*args)
    expected = numeric_grad(g, list(args), i)
    close(s2sad.grad(f, wrt=i)(*args, **kwargs), expected)
    v, d = s2sad.value_and_grad(f, wrt=i)(*args, **kwargs)
    close(v, value)
    close(d, expected)
    close(s2sad.vjp(f, wrt=i)(*args, 1.0, **kwargs), expected)
    t = np.ones_like(args[i]) * 0.7 if isinstance(args[i], np.ndarray) else 0.7
    out, tangent = s2sad.jvp(f, wrt=i)(*args, t, **kwargs)
    close(out, value)
    close(tangent, numeric_jvp(g, list(args), [i], [t]))
    for mode in ("forward", "reverse"):
        close(s2sad.jacobian(f, wrt=i, mode=mode)(*args, **kwargs), expected)
    hess = numeric_hessian(g, list(args), i)
    close(s2sad.hessian(f, wrt=i)(*args, **kwargs), hess, hess_tol)
    if np.ndim(args[i]) == 0:
        close(s2sad.grad(s2sad.grad(f, wrt=i), wrt=i)(*args, **kwargs), hess, hess_tol)
    for a, b in zip(args, before):
        if hasattr(a, "__dict__"):
            a, b = vars(a), vars(b)
        np.testing.assert_array_equal(a, b)


# ---- *args / **kwargs in a function f calls --------------------------------------------------------
def helper(*xs):
    return sum(xs)


def f_h(x):
    return helper(x, x * x)


def kw(x, **kw):
    return x * kw.get("a", 1.0) * kw["b"]


def f_kw(x):
    return kw(x, a=3.0, b=x)


def f_kw_default(x):
    return kw(x, b=x * x)  # kw.get("a", 1.0) takes the default


def f_splat(x):
    args = (x, 2 * x)
    return helper(*args)


def mix(x, *rest, scale=2.0, **opts):
    s = x * scale
    for r in rest:
        s = s + r * opts["w"]
    return s


def f_mix(x):
    return mix(x, x * x, 3.0, w=np.sin(x))


def f_mix_scale(x):
    return mix(x, scale=x) + mix(x, x, w=2.0, v=1.0)


def forward(x, *args, **kwargs):
    return helper(*args) * kw(x, **kwargs)


def f_forwarding(x):
    return forward(x, x, 2.0 * x, a=x, b=3.0)


def defaults(x, y=2.0, *, z=3.0):
    return x * y * z


def f_defaults(x):
    return defaults(x) + defaults(x, x, z=x * x) + defaults(x, z=2.0)


def f_array(x):
    return np.sum(helper(x, x**2, np.sin(x)))


@pytest.mark.parametrize("f", [f_h, f_kw, f_kw_default, f_splat, f_mix, f_mix_scale, f_forwarding, f_defaults])
def test_called_functions(f):
    every_mode(f, [1.3])


def test_called_functions_arrays():
    every_mode(f_array, [np.array([0.3, -1.2, 2.0])])


def test_generated_code_packs_the_arguments():
    text = s2sad.source(s2sad.grad(f_kw))
    assert "kw = {'a': kw_a, 'b': kw_b}" in text
    text = s2sad.source(s2sad.grad(f_mix))
    assert "rest = rest_0, rest_1" in text and "opts = {'w': opts_w}" in text


# ---- *args / **kwargs in f itself ------------------------------------------------------------------
def f_star(*xs):
    return xs[0] * xs[1]


def f_star_sum(x, *xs, scale=1.0, **kws):
    s = x * scale
    for v in xs:
        s = s + v * v
    for k in kws:
        s = s * kws[k]
    return s


def test_f_with_args_positions_count_as_in_the_call():
    g = s2sad.grad(f_star, wrt=(0, 1))
    assert g(1.5, 2.0) == (2.0, 1.5)
    assert g(1.5, 2.0, 7.0) == (2.0, 1.5)  # another specialization
    assert "def df_star_dxs_0_dxs_1(xs_0, xs_1, " in s2sad.source(g)
    every_mode(f_star, [1.5, 2.0], 0)
    every_mode(f_star, [1.5, 2.0], 1)


@pytest.mark.parametrize("i", [0, 1, 2])
def test_f_with_args_and_kwargs(i):
    every_mode(f_star_sum, [1.1, 0.5, -2.0], i, kwargs={"a": 1.5, "b": 2.5})


def test_f_with_kwargs_by_name():
    g = s2sad.grad(f_star_sum, wrt=("a", "x"))
    da, dx = g(1.1, 0.5, a=1.5, b=2.5)
    close(da, numeric_grad(lambda a: f_star_sum(1.1, 0.5, a=a, b=2.5), [1.5], 0))
    close(dx, 2.5 * 1.5)
    # keyword-only parameter by name
    ds = s2sad.grad(f_star_sum, wrt="scale")(1.1, scale=2.0)
    close(ds, 1.1)
    d = s2sad.vjp(f_star_sum, wrt="a")(1.1, 0.5, seed=2.0, a=1.5, b=2.5)
    close(d, 2 * da)


def test_f_with_args_source_and_errors():
    g = s2sad.grad(f_star)
    with pytest.raises(DifferentiationError, match="call it once"):
        s2sad.source(g)
    g(1.0, 2.0)
    assert "xs = xs_0, xs_1" in s2sad.source(g)
    with pytest.raises(DifferentiationError, match=r"test_star_args.py:\d+:1: wrt=3 is out of range"):
        s2sad.grad(f_star, wrt=3)(1.0, 2.0)
    with pytest.raises(TypeError):
        s2sad.grad(f_star_sum)(1.0, x=2.0)  # f_star_sum() got multiple values for argument 'x'


def test_hvp_of_f_with_args():
    close(s2sad.hvp(f_star_sum, wrt=1)(1.1, 0.5, 0.25, a=2.0), 2 * 2.0 * 0.25)


def test_f_with_args_arrays_unchanged():
    x, y = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    g = s2sad.grad(lambda *v: np.sum(v[0] * v[1] ** 2), wrt=1)
    close(g(x, y), 2 * x * y)
    np.testing.assert_array_equal(y, [0.5, -1.0])


def writes(*xs):
    xs[0][0] = 5.0
    return np.sum(xs[0] * xs[1])


def test_f_with_args_writing_into_an_item_is_refused_and_never_changes_the_caller():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    with pytest.raises(DifferentiationError, match=r"test_star_args.py:\d+:5: in-place write into 'xs\[0\]'"):
        s2sad.grad(writes, wrt=1)(x, y)
    np.testing.assert_array_equal(x, [1.0, 2.0])


# ---- refusals -------------------------------------------------------------------------------------
def unknown_length(x, n):
    lst = []
    for k in range(n):
        lst.append(x * k)
    return helper(*lst)


def test_starred_call_of_unknown_length_is_refused():
    with pytest.raises(DifferentiationError, match=r"test_star_args.py:\d+:\d+: .*helper\(\*lst\)"):
        s2sad.grad(unknown_length)(1.0, 2)


def passes_dict_it_changes(x):
    opts = {"a": x}
    opts["b"] = 2.0
    return kw(x, **opts)


def test_unknown_keywords_are_refused():
    with pytest.raises(DifferentiationError, match=r"test_star_args.py:\d+:\d+: .*\*\*opts"):
        s2sad.grad(passes_dict_it_changes)(1.0)


# ---- for k in d over a parameter d ----------------------------------------------------------------
def keys_only(d):
    s = 0.0
    for k in d:
        s = s + k * 1.0
    return s


def keys_and_values(d):
    s = 0.0
    for k in d:
        s = s + d[k] * k
    return s


def rows(A):
    s = 0.0
    for row in A:
        s = s + np.sum(row**3)
    return s


@pytest.mark.parametrize("d", [{1.0: 2.0, 3.0: 4.0}, {1: 2.0, 0: 5.0}])  # int keys: never read by position
def test_loop_over_a_dict_parameter(d):
    before = dict(d)
    assert s2sad.grad(keys_only)(d) == {k: 0.0 for k in d}
    assert s2sad.value_and_grad(keys_only)(d) == (keys_only(d), {k: 0.0 for k in d})
    assert s2sad.jvp(keys_only)(d, {k: 1.0 for k in d}) == (keys_only(d), 0.0)
    assert s2sad.grad(keys_and_values)(d) == {k: float(k) for k in d}
    value, tangent = s2sad.jvp(keys_and_values)(d, {k: 1.0 for k in d})
    assert (value, tangent) == (keys_and_values(d), float(sum(d)))
    assert s2sad.vjp(keys_and_values)(d, 2.0) == {k: 2.0 * k for k in d}
    assert d == before


def test_loop_over_a_list_or_array_parameter_still_differentiates_its_items():
    assert s2sad.grad(keys_only)([0.5, 1.5]) == [1.0, 1.0]
    A = np.arange(6.0).reshape(3, 2)
    every_mode(rows, [A])


def test_tangent_of_list_of_a_dict_is_zero():  # list(d) holds the keys: no derivative
    def f(d):
        return sum(list(d)) + sum(tuple(d))

    assert s2sad.jvp(f)({1.0: 2.0}, {1.0: 1.0}) == (2.0, 0.0)


# ---- jvp with respect to an object f never reads: refused as in the other modes ----------------------
class Plain:
    pass


def ignores(x, o):
    return x * 2.0


def test_jvp_wrt_an_unread_object_is_refused_like_grad():
    o = Plain()
    for call in (
        lambda: s2sad.grad(ignores, wrt=1)(1.0, o),
        lambda: s2sad.jvp(ignores, wrt=1)(1.0, o, o),
        lambda: s2sad.jvp(ignores, wrt=(0, 1))(1.0, o, 1.0, o),
    ):
        with pytest.raises(DifferentiationError, match="argument 'o' is an object of type Plain"):
            call()
    assert s2sad.jvp(ignores, wrt=1)(1.0, np.ones(2), np.ones(2)) == (2.0, 0.0)


# ---- grad(Model.loss): self an ordinary argument whose methods are called -----------------------------
class Model:
    def __init__(self, s=2.0):
        self.s = s

    def predict(self, w):
        return w * self.s

    def loss(self, w, *extra, scale=1.0):
        return self.predict(w) ** 2 * scale + sum(extra)


class Deeper(Model):
    def predict(self, w):
        return np.sin(w) * self.s


def test_function_of_a_class_with_self_an_argument():
    m, w = Model(), 1.3
    every_mode(Model.loss, [m, w], 1)
    every_mode(Model.loss, [Deeper(), w], 1)  # the subclass's predict: one derivative per class
    every_mode(Model.loss, [Deeper(), w, 0.5], 2, kwargs={"scale": 3.0})
    g = s2sad.grad(Model.loss, wrt=1)
    close(g(m, w), 2 * (w * 2.0) * 2.0)
    close(g(Deeper(3.0), w), 2 * np.sin(w) * 3.0 * np.cos(w) * 3.0)
    assert "self.predict(w)" in s2sad.source(g)


def test_function_of_a_class_follows_the_class_and_refuses_shadowing():
    class Local:
        def f(self, w):
            return w * 2.0

        def loss(self, w):
            return self.f(w) ** 2

    g = s2sad.grad(Local.loss, wrt=1)
    assert g(Local(), 1.5) == 12.0
    Local.f = lambda self, w: w * 3.0  # the class changed: a new derivative
    assert g(Local(), 1.5) == 27.0
    hidden = Local()
    hidden.f = lambda w: w
    with pytest.raises(DifferentiationError, match=r"test_star_args.py:\d+:20: 'self' has its own attribute 'f'"):
        g(hidden, 1.5)
