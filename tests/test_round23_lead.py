"""Round 23 (blind tester adv23a): common Python that was refused, now exact in every mode.

divmod, any/all over a generator, np.float64/np.float32 conversions, the ufunc methods that are
reductions (``np.add.reduce``, ``np.multiply.accumulate``) and the methods of a dict parameter
(``d.values()``, ``d.items()``, ``d.keys()``, ``d.get(k, default)``) where their value is used.
"""

import numpy as np
import pytest
from exact_or_refused import assert_exact

import s2sad


def divmod_scalar(x):
    q, r = divmod(x, 0.7)
    return r * x + q * x**2


def divmod_array(x):
    q, r = divmod(x * 3.0, 1.0)
    return np.sum(r**2 + q * x)


def any_over_generator(x):
    if any(v > 0.5 for v in x):
        return np.sum(x**2)
    return np.sum(x)


def all_over_list(x):
    scale = 2.0 if all([v > -5.0 for v in x]) else 1.0
    return np.sum(np.sin(x)) * scale


def any_as_number(x):
    return float(any(v > 0 for v in x)) * np.sum(x**3)


def float64_scalar(x):
    return np.float64(x) ** 2 * 3.0


def float64_array(x):
    return np.sum(np.float64(x) * x)


def float32_array(x):
    return np.sum(np.float32(2.0) * x**2)


def add_reduce_rows(a):
    return np.sum(np.add.reduce(a**2) * np.arange(1.0, 4.0))


def add_reduce_axis(a):
    return np.sum(np.add.reduce(np.sin(a), 1) ** 2) + np.sum(np.add.reduce(a, axis=None))


def multiply_reduce(a):
    return np.sum(np.multiply.reduce(a + 2.0))


def maximum_reduce(a):
    return np.sum(np.maximum.reduce(a * a))


def accumulate(a):
    return np.sum(np.add.accumulate(a) ** 2) + np.sum(np.multiply.accumulate(a + 1.5, axis=1))


SCALAR = [divmod_scalar, float64_scalar]
ARRAY = [divmod_array, any_over_generator, all_over_list, any_as_number, float64_array, float32_array]
MATRIX = [add_reduce_rows, add_reduce_axis, multiply_reduce, maximum_reduce, accumulate]


@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
def test_scalar_builtins_are_exact(f):
    assert_exact(f, [1.3])


@pytest.mark.parametrize("f", ARRAY, ids=lambda f: f.__name__)
def test_array_builtins_are_exact(f):
    assert_exact(f, [np.array([0.3, -1.2, 2.1])])


@pytest.mark.parametrize("f", MATRIX, ids=lambda f: f.__name__)
def test_ufunc_methods_are_exact(f):
    a = np.random.default_rng(0).normal(size=(3, 3))
    a[np.abs(a) < 0.2] += 0.5  # (away from ties of maximum)
    assert_exact(f, [a])


def test_divmod_matches_python():
    for x in (1.3, -1.3, 2.0, 5.75):
        assert s2sad.value_and_grad(divmod_scalar)(x)[0] == divmod_scalar(x)


def test_ufunc_reduce_with_out_is_still_refused():
    def f(a):
        out = np.zeros(3)
        np.add.reduce(a, 0, None, out)
        return np.sum(out)

    with pytest.raises(s2sad.DifferentiationError, match=r"test_round23_lead.py:\d+:\d+:"):
        s2sad.grad(f)(np.ones((2, 3)))


# ---- the methods of a dict parameter -------------------------------------------------------


def dict_values_sum(d):
    return sum(d.values()) * d["a"]


def dict_values_only(d):
    return sum(d.values())


def dict_items_list(d):
    pairs = list(d.items())
    return sum(k * v**2 for k, v in pairs)


def dict_keys_and_values(d):
    ks = d.keys()
    vs = d.values()
    return sum(vs) * len(ks)


def dict_get(d):
    return d.get("a") * 2.0 + d.get("z", 1.5) + d.get("b", d["a"]) ** 2


def dict_values_array(d):
    total = np.zeros(2)
    for v in list(d.values()):
        total = total + np.tanh(v)
    return np.sum(total**2)


def _fd(f, d, eps=1e-6):
    out = {}
    for k, v in d.items():
        if np.ndim(v) == 0:
            hi, lo = dict(d), dict(d)
            hi[k], lo[k] = v + eps, v - eps
            out[k] = (f(hi) - f(lo)) / (2 * eps)
        else:
            g = np.zeros_like(v)
            for i in np.ndindex(v.shape):
                hi, lo = dict(d), dict(d)
                hi[k], lo[k] = v.copy(), v.copy()
                hi[k][i] += eps
                lo[k][i] -= eps
                g[i] = (f(hi) - f(lo)) / (2 * eps)
            out[k] = g
    return out


CASES = [
    (dict_values_sum, {"a": 1.2, "b": -0.7}),
    (dict_values_only, {"a": 1.2, "b": -0.7, "c": 2.0}),
    (dict_items_list, {1: 1.2, 2: -0.7}),
    (dict_keys_and_values, {"a": 1.2, "b": -0.7}),
    (dict_get, {"a": 1.2, "b": -0.7}),
    (dict_get, {"a": 1.2, "z": 0.3}),
    (dict_values_array, {"u": np.array([0.3, -0.2]), "w": np.array([1.1, 0.4])}),
]


@pytest.mark.parametrize("f, d", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_dict_parameter_methods_are_exact(f, d):
    before = {k: np.copy(v) for k, v in d.items()}
    want = _fd(f, d)
    value, g = s2sad.value_and_grad(f)(d)
    assert value == f(d)
    assert list(g) == list(d)
    for k in d:
        np.testing.assert_allclose(g[k], want[k], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(f)(d)[k := next(iter(d))], want[k], rtol=1e-6, atol=1e-8)
    tangent = {k: np.ones_like(v) * 0.5 for k, v in d.items()}
    out, dout = s2sad.jvp(f)(d, tangent)
    assert out == f(d)
    np.testing.assert_allclose(dout, sum(np.sum(want[k] * tangent[k]) for k in d), rtol=1e-6, atol=1e-8)
    for k in d:
        np.testing.assert_array_equal(d[k], before[k])


def test_dict_parameter_hessian():
    d = {"a": 1.2, "b": -0.7}
    h = s2sad.hessian(dict_get)(d)
    # dict_get = 2a + 1.5 + b**2 (b present): d2/db2 = 2, the rest 0
    assert h["b"]["b"] == pytest.approx(2.0)
    assert h["a"]["a"] == pytest.approx(0.0)
    h = s2sad.hessian(dict_values_sum)(d)  # (a + b) * a
    assert h["a"]["a"] == pytest.approx(2.0) and h["a"]["b"] == pytest.approx(1.0)


def test_dict_methods_of_a_non_dict_are_refused_at_the_line():
    class Store:
        def __init__(self):
            self.v = [1.0, 2.0]

        def values(self):
            return self.v

        def __getitem__(self, k):
            return 100.0

    def f(d, x):
        return sum(d.values()) * x

    assert f(Store(), 2.0) == 6.0
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round23_lead.py:\d+:\d+: d.values\(\) of a Store"):
        s2sad.grad(f, wrt=1)(Store(), 2.0)


# ---- hessian with respect to several arguments (JAX's nested layout) -------------------------


def two_args(x, y):
    return np.sum(np.sin(x) * y[:2] ** 2) + np.sum(y**3) * np.sum(x)


def star_args(*xs):
    return xs[0] ** 2 * xs[1] + np.sin(xs[0] * xs[1])


def _numeric_block(f, args, i, j, h=1e-4):
    args = [np.asarray(a, dtype=float) for a in args]
    xi, xj = args[i], args[j]
    out = np.zeros(np.shape(xi) + np.shape(xj))
    for p in np.ndindex(np.shape(xi)):
        for q in np.ndindex(np.shape(xj)):
            total = 0.0
            for si, sj, w in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                a = [np.array(v, copy=True) for v in args]
                a[i][p] += si * h
                a[j][q] += sj * h
                total += w * f(*[v if np.ndim(v) else float(v) for v in a])
            out[p + q] = total / (4 * h * h)
    return out


@pytest.mark.parametrize(
    "f, args",
    [
        (two_args, [np.array([0.3, -1.1]), np.array([0.7, 1.3, -0.4])]),
        (star_args, [0.8, -1.3]),
        (two_args, [0.5, np.array([1.0, 2.0])]),
    ],
    ids=["arrays", "star_args", "scalar_and_array"],
)
def test_hessian_with_respect_to_two_arguments(f, args):
    before = [np.copy(a) for a in args]
    h = s2sad.hessian(f, wrt=(0, 1))(*args)
    assert len(h) == 2 and all(len(row) == 2 for row in h)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(h[i][j], _numeric_block(f, args, i, j), rtol=1e-5, atol=1e-6)
            assert np.shape(h[i][j]) == np.shape(args[i]) + np.shape(args[j])
    np.testing.assert_allclose(h[0][1], np.swapaxes(h[1][0], 0, -1) if np.ndim(h[1][0]) == 2 else h[1][0].T)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)
    single = s2sad.hessian(f, wrt=1)(*args)
    np.testing.assert_allclose(h[1][1], single)


def tuple_out(x, y):
    return x * 2.0 + y[0], {"s": np.sum(y) * x[0], "p": np.sin(y) * x[1]}


def test_jacobian_of_a_container_w_r_t_several_arguments_has_one_layout_in_every_mode():
    """Forward mode nested the blocks argument-first, reverse mode output-first (JAX's); the default mode
    picks one by size, so the same code read different entries on different inputs."""
    x, y = np.array([0.3, -1.1]), np.array([0.7, 1.3, -0.4])
    j = {m: s2sad.jacobian(tuple_out, wrt=(0, 1), mode=m)(x, y) for m in ("forward", "reverse", None)}
    eps = 1e-6
    for i, arg in enumerate((x, y)):
        for k in range(arg.size):
            hi, lo = [x.copy(), y.copy()], [x.copy(), y.copy()]
            hi[i][k] += eps
            lo[i][k] -= eps
            (a1, d1), (a0, d0) = tuple_out(*hi), tuple_out(*lo)
            want0, want_s, want_p = (
                (a1 - a0) / (2 * eps),
                (d1["s"] - d0["s"]) / (2 * eps),
                (d1["p"] - d0["p"]) / (2 * eps),
            )
            for m, jac in j.items():
                np.testing.assert_allclose(jac[0][i][..., k], want0, rtol=1e-6, atol=1e-8, err_msg=str(m))
                np.testing.assert_allclose(jac[1]["s"][i][..., k], want_s, rtol=1e-6, atol=1e-8, err_msg=str(m))
                np.testing.assert_allclose(jac[1]["p"][i][..., k], want_p, rtol=1e-6, atol=1e-8, err_msg=str(m))


def tape(x, k=2.0):  # named like a runtime helper (s2sad.runtime.tape)
    return np.sum(x * x) * k


def test_a_function_named_like_a_runtime_helper():
    """jacobian's wrapper called f by its own name, which the helper's import had taken (TypeError)."""
    x = np.array([1.0, 2.0])
    for mode in ("forward", "reverse", None):
        np.testing.assert_allclose(s2sad.jacobian(tape, mode=mode)(x), 4.0 * x)
    np.testing.assert_allclose(s2sad.hessian(tape)(x), 4.0 * np.eye(2))
