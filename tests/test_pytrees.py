"""Containers as inputs and outputs (pytrees): dicts, lists, tuples, NamedTuples and dataclasses of
arrays and floats, nested, as arguments, as ``wrt`` and as return values, in every mode, against
central finite differences.  A derivative has its argument's structure; the caller's containers are
never changed by a derivative call."""

import copy
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest
from fd import assert_close, numeric_grad

import s2sad
from s2sad.runtime.trees import is_tree, tree_leaves, tree_unflatten

# ---- finite differences over containers -----------------------------------------------------------


def _flatten(x):
    """The numbers of a container as one float vector, and how to put a vector back."""
    leaves = tree_leaves(x)
    sizes = [int(np.size(v)) for v in leaves]

    def unflatten(vec):
        parts, start = [], 0
        for leaf, n in zip(leaves, sizes):
            chunk = vec[start : start + n]
            start += n
            parts.append(float(chunk[0]) if isinstance(leaf, (float, int)) else chunk.reshape(np.shape(leaf)))
        return tree_unflatten(x, parts)

    vec = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in leaves]) if leaves else np.zeros(0)
    return vec, unflatten


def fd_grad(f, args, i):
    """d f / d args[i] by central differences, with the structure of args[i]."""
    vec, unflatten = _flatten(args[i])

    def g(v):
        a = list(args)
        a[i] = unflatten(v)
        return f(*a)

    return unflatten(numeric_grad(g, [vec], 0))


def fd_jvp(f, args, i, tangent, eps=1e-6):
    vec, unflatten = _flatten(args[i])
    tvec, _ = _flatten(tangent)

    def at(step):
        a = list(args)
        a[i] = unflatten(vec + step * tvec)
        return _flatten(f(*a))[0]

    return (at(eps) - at(-eps)) / (2 * eps)


def assert_same_structure(got, like, blocks=False):
    """``got`` has the structure and container types of ``like`` (a dict for a dict, ...); with
    ``blocks`` (a Jacobian of a scalar), its leaves are arrays of the leaves' shapes."""
    if is_tree(like):
        assert type(got) is type(like), f"{type(got).__name__} for a {type(like).__name__}"
        items = like.items() if isinstance(like, dict) else enumerate(like) if isinstance(like, (list, tuple)) else None
        if items is None:  # a dataclass
            for k in vars(like):
                assert_same_structure(getattr(got, k), getattr(like, k), blocks)
            return
        if isinstance(like, dict):
            assert list(got) == list(like)
        else:
            assert len(got) == len(like)
        for k, v in items:
            assert_same_structure(got[k], v, blocks)
    elif isinstance(like, float) and not blocks:
        assert type(got) is float, f"{type(got).__name__} for a float"
    else:
        assert isinstance(got, np.ndarray) and got.shape == np.shape(like)


def assert_tree_close(got, expected, rtol=1e-5, atol=1e-6):
    assert_close(_flatten(got)[0], _flatten(expected)[0], rtol=rtol, atol=atol)


def random_tree(x, rng):
    vec, unflatten = _flatten(x)
    return unflatten(rng.normal(size=vec.shape))


def check(f, args, wrt=0, hessian=True):
    """grad, value_and_grad, vjp, jvp, jacobian (both modes) and hessian of ``f`` w.r.t. ``args[wrt]``
    against finite differences; derivatives have the argument's structure; arguments unchanged."""
    before = copy.deepcopy(args)
    rng = np.random.default_rng(3)
    primal = f

    def f(*a):  # f itself may write into its arguments (Python's semantics): call it on copies
        return primal(*copy.deepcopy(a))

    expected = fd_grad(f, args, wrt)
    got = s2sad.grad(primal, wrt=wrt)(*args)
    assert_same_structure(got, args[wrt])
    assert_tree_close(got, expected)
    value, got2 = s2sad.value_and_grad(primal, wrt=wrt)(*args)
    assert_close(value, f(*args))
    assert_tree_close(got2, expected)
    seed = float(rng.normal())
    assert_tree_close(s2sad.vjp(primal, wrt=wrt)(*args, seed), _flatten(expected)[0] * seed)
    tangent = random_tree(args[wrt], rng)
    value, dout = s2sad.jvp(primal, wrt=wrt)(*args, tangent)
    assert_close(value, f(*args))
    assert_close(_flatten(dout)[0], fd_jvp(f, args, wrt, tangent))
    for mode in ("forward", "reverse"):
        jac = s2sad.jacobian(primal, wrt=wrt, mode=mode)(*args)
        assert_same_structure(jac, args[wrt], blocks=True)
        assert_tree_close(jac, expected)
    if hessian:
        h = s2sad.hessian(primal, wrt=wrt)(*args)
        v = random_tree(args[wrt], rng)
        # H v by finite differences of the exact gradient
        hv_fd = fd_jvp(lambda *a: s2sad.grad(primal, wrt=wrt)(*a), args, wrt, v, eps=1e-5)
        hv = s2sad.hvp(primal, wrt=wrt)(*args, v)
        assert_same_structure(hv, args[wrt])
        assert_close(_flatten(hv)[0], hv_fd, rtol=1e-4, atol=1e-5)
        # the Hessian's blocks, applied to v, give H v
        flat_h = _hessian_matrix(h, args[wrt])
        assert_close(flat_h @ _flatten(v)[0], hv_fd, rtol=1e-4, atol=1e-5)
    for a, b in zip(args, before):
        assert_tree_close(a, b, rtol=0, atol=0)
    return got


def _hessian_matrix(h, x):
    """The nested Hessian (x's structure holding x's structure of blocks) as one matrix."""
    leaves = tree_leaves(x)
    sizes = [int(np.size(v)) for v in leaves]
    rows = tree_leaves(h) if is_tree(x) else [h]
    n = sum(sizes)
    out = np.zeros((n, n))
    k = 0
    r0 = 0
    for si in sizes:
        c0 = 0
        for sj in sizes:
            out[r0 : r0 + si, c0 : c0 + sj] = np.reshape(rows[k], (si, sj))
            k += 1
            c0 += sj
        r0 += si
    return out


# ---- the JAX / autograd way of writing models -------------------------------------------------------

RNG = np.random.default_rng(0)
PARAMS = {"w1": RNG.normal(size=(3, 4)), "b1": RNG.normal(size=4), "w2": RNG.normal(size=4), "b2": 0.3}
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=5)


def mlp_loss(params, x, y):
    h = np.tanh(x @ params["w1"] + params["b1"])
    out = h @ params["w2"] + params["b2"]
    return np.mean((out - y) ** 2)


def test_params_dict_gradient_is_a_dict():
    g = check(mlp_loss, [PARAMS, X, Y])
    assert set(g) == {"w1", "b1", "w2", "b2"} and isinstance(g["b2"], float)


def layer(p, x):
    return np.tanh(x @ p["w"] + p["b"])


def deep_loss(layers, x):
    for p in layers:
        x = layer(p, x)
    return np.sum(x * x)


def test_list_of_layer_dicts_through_a_helper():
    layers = [{"w": RNG.normal(size=(3, 3)), "b": RNG.normal(size=3)} for _ in range(2)]
    check(deep_loss, [layers, X])


def nested(tree, x):
    a = tree["a"]
    inner = tree["inner"]
    return np.sum(a * x) * inner[0] + np.sin(inner[1][1]) * inner[1][0]


def test_nested_dict_list_tuple():
    tree = {"a": RNG.normal(size=3), "inner": [1.3, (0.4, 0.7)]}
    check(nested, [tree, RNG.normal(size=3)])


def nested_list(xs):
    return xs[0][0] * xs[1] + xs[2] ** 2


def test_nested_list_gradient_has_the_lists_structure():
    got = check(nested_list, [[[1.0], 2.0, 1.5]])
    assert got == [[2.0], 1.0, 3.0]


def unpack_tuple(t):
    a, (b, c) = t
    return a * b * c + np.sin(a)


def test_nested_tuple_grad_and_hessian():
    got = check(unpack_tuple, [(1.0, (2.0, 3.0))])
    assert isinstance(got, tuple) and isinstance(got[1], tuple)


class Params(NamedTuple):
    w: np.ndarray
    b: float


@dataclass
class Model:
    w: np.ndarray
    b: float


def attr_loss(p, x):
    return np.sum(np.tanh(p.w * x + p.b))


@pytest.mark.parametrize("kind", [Params, Model])
def test_attribute_reads_of_namedtuple_and_dataclass(kind):
    p = kind(RNG.normal(size=3), 0.2)
    got = check(attr_loss, [p, RNG.normal(size=3)])
    assert type(got) is kind


def indexed_namedtuple(p, x):
    w, b = p
    return np.sum(w * x) * p[1] + b


def test_namedtuple_unpacked_and_indexed():
    got = check(indexed_namedtuple, [Params(RNG.normal(size=3), 0.5), RNG.normal(size=3)])
    assert isinstance(got, Params)


def two_containers(params, state, x):
    return np.sum(params["w"] * x * state[0]) + state[1] ** 2


def test_wrt_several_containers():
    args = [{"w": RNG.normal(size=3)}, [RNG.normal(size=3), 0.7], RNG.normal(size=3)]
    gp, gs = s2sad.grad(two_containers, wrt=(0, 1))(*args)
    assert_tree_close(gp, fd_grad(two_containers, args, 0))
    assert_tree_close(gs, fd_grad(two_containers, args, 1))
    assert isinstance(gp, dict) and isinstance(gs, list) and isinstance(gs[1], float)
    jp, js = s2sad.jacobian(two_containers, wrt=(0, 1), mode="reverse")(*args)
    assert_tree_close(jp, gp)
    assert_tree_close(js, gs)


# ---- dicts built inside f ---------------------------------------------------------------------------


def builds_dict(x):
    d = {"a": x * 2.0, "b": np.sin(x)}
    d["c"] = d["a"] * d["b"]
    d["a"] = d["c"] + d["b"]
    return np.sum(d["a"] * d["c"])


def test_dict_built_and_written_inside_f():
    check(builds_dict, [RNG.normal(size=3)])


def dict_iteration(params, x):
    total = 0.0
    for k, v in params.items():
        total = total + np.sum(v * x)
    for k in params.keys():
        total = total + np.sum(params[k] ** 2)
    for v in params.values():
        total = total * 0.5 + np.sum(np.sin(v))
    scaled = {}
    for k in params:
        scaled[k] = params[k] * 2.0
    for k in scaled:
        total = total + np.sum(scaled[k])
    return total


def test_dict_items_keys_values_iteration():
    check(dict_iteration, [{"a": RNG.normal(size=3), "b": RNG.normal(size=3)}, RNG.normal(size=3)])


def dict_merge(params, x):
    p = {**params, "w": params["w"] * x}
    q = {**p}
    q["b"] = q["b"] + 1.0
    return np.sum(p["w"] * q["b"]) + np.sum(params["b"])


def test_dict_merge_display():
    check(dict_merge, [{"w": RNG.normal(size=3), "b": RNG.normal(size=3)}, RNG.normal(size=3)])


def writes_param_dict(params, x):
    params["w"] = params["w"] * x
    return np.sum(params["w"] ** 2)


def test_write_into_a_dict_argument_leaves_the_callers_dict_alone():
    params = {"w": RNG.normal(size=3)}
    w = params["w"]
    check(writes_param_dict, [params, RNG.normal(size=3)])
    assert params["w"] is w


def writes_aliased_dict(params, x):
    d = {"w": x}
    e = d
    d["w"] = x * 2.0
    return np.sum(e["w"])


def test_write_into_a_dict_another_name_holds_is_refused():
    with pytest.raises(s2sad.DifferentiationError, match=r"test_pytrees.py:\d+:\d+: .*dict 'd'.*'e'"):
        s2sad.grad(writes_aliased_dict, wrt=1)


# ---- containers as outputs ----------------------------------------------------------------------------


def returns_dict(x):
    return {"sq": x * x, "pair": (np.sin(x), 2.0 * x)}


def test_dict_output_vjp_jvp_jacobian():
    x = RNG.normal(size=3)
    seed = {"sq": RNG.normal(size=3), "pair": (RNG.normal(size=3), RNG.normal(size=3))}
    got = s2sad.vjp(returns_dict)(x, seed)
    want = seed["sq"] * 2 * x + seed["pair"][0] * np.cos(x) + 2.0 * seed["pair"][1]
    assert_close(got, want)
    t = RNG.normal(size=3)
    value, dout = s2sad.jvp(returns_dict)(x, t)
    assert isinstance(dout, dict) and isinstance(dout["pair"], tuple)
    assert_tree_close(dout, {"sq": 2 * x * t, "pair": (np.cos(x) * t, 2.0 * t)})
    for mode in ("forward", "reverse"):
        jac = s2sad.jacobian(returns_dict, mode=mode)(x)
        assert_close(jac["sq"], np.diag(2 * x))
        assert_close(jac["pair"][0], np.diag(np.cos(x)))


def returns_namedtuple(x):
    return Params(w=x * x, b=np.sum(x))


def test_namedtuple_output():
    x = RNG.normal(size=3)
    seed = Params(RNG.normal(size=3), 0.7)
    assert_close(s2sad.vjp(returns_namedtuple)(x, seed), seed.w * 2 * x + seed.b)
    value, dout = s2sad.jvp(returns_namedtuple)(x, np.ones(3))
    assert isinstance(dout, Params)
    assert_close(dout.w, 2 * x)
    assert_close(dout.b, 3.0)


# ---- loops over containers ------------------------------------------------------------------------------


def enumerate_zip(xs, ys):
    s = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        s = s + (i + 1) * a * b
    return s


def test_enumerate_over_zip():
    check(enumerate_zip, [[1.0, 2.0, 0.5], [3.0, 4.0, -1.0]])
    check(enumerate_zip, [[1.0, 2.0, 0.5], [3.0, 4.0, -1.0]], wrt=1)


def list_rnn(h0, w):
    hs = [h0]
    for t in range(4):
        hs.append(np.tanh(hs[-1] * w))
    return hs[-1]


def test_list_rnn_reads_the_last_item():
    check(list_rnn, [0.5, 1.2])
    check(list_rnn, [0.5, 1.2], wrt=1)


def list_rnn_sum(h0, w):
    hs = [h0]
    for t in range(3):
        hs.append(np.tanh(hs[-1] @ w))
    return np.sum(hs[-1]) + np.sum(hs[1])


def test_list_rnn_with_arrays():
    check(list_rnn_sum, [RNG.normal(size=3), RNG.normal(size=(3, 3))], wrt=1)


# ---- nested lists built inside f ------------------------------------------------------------------------


def nested_list_literal(x):
    rows = [[x[0], x[1]], [x[1] * x[0], 2.0]]
    return rows[0][1] * rows[1][0] + rows[1][1] * rows[0][0] ** 2


def nested_list_comprehension(x):
    rows = [[x[i] * np.sin(x[j]) for j in range(3)] for i in range(3)]
    return rows[0][1] * rows[2][0] + sum(rows[1]) * rows[2][2]


def nested_list_of_appends(x):
    rows = []
    for i in range(3):
        row = []
        for j in range(i + 1):
            row.append(x[i] * x[j] + 1.0)
        rows.append(row)
    total = 0.0
    for i in range(3):
        for j in range(i + 1):
            total = total + rows[i][j] ** 2 * (j + 1)
    return total


def nested_list_to_array(x):
    rows = [[x[i] * x[j] for j in range(3)] for i in range(3)]
    m = np.array(rows)
    return np.sum(m @ x) + np.trace(m) ** 2


def nested_list_of_arrays(x):
    pairs = [[x, np.sin(x)], [x * x, np.cos(x)]]
    return np.sum(pairs[0][1] * pairs[1][0]) + np.sum(pairs[1][1])


@pytest.mark.parametrize(
    "f",
    [
        nested_list_literal,
        nested_list_comprehension,
        nested_list_of_appends,
        nested_list_to_array,
        nested_list_of_arrays,
    ],
)
def test_nested_lists_built_inside_f(f):
    check(f, [np.array([0.7, -1.3, 0.4])])


# ---- dict comprehensions and loops over a dict's keys ------------------------------------------------------


def dict_comprehension_of_params(params, x):
    h = {k: np.tanh(v * x) for k, v in params.items() if k != "skip"}
    return sum(np.sum(v) for v in h.values()) * np.sum(h["a"]) + params["skip"] ** 2


def test_dict_comprehension_over_a_params_dict():
    params = {"a": RNG.normal(size=3), "b": RNG.normal(size=3), "skip": 0.4}
    check(dict_comprehension_of_params, [params, RNG.normal(size=3)])
    check(dict_comprehension_of_params, [params, RNG.normal(size=3)], wrt=1)


def counts_keys(params, x):
    n = 0.0
    for k in params:  # the body does not read params[k]
        n = n + 1.0
    names = []
    for name in params.keys():
        names.append(name)
    return n * np.sum(params["a"] * x) + len(names) * params["b"]


def test_loop_over_a_dict_argument_that_does_not_read_its_values():
    params = {"a": RNG.normal(size=3), "b": 0.7}
    check(counts_keys, [params, RNG.normal(size=3)])
    check(counts_keys, [params, RNG.normal(size=3)], wrt=1)


SCALES = {"x": 1.5, "y": -0.5}


def returns_dict_comprehension(x):
    return {k: s * np.sin(x) for k, s in SCALES.items()}


def test_dict_comprehension_as_output():
    x = RNG.normal(size=3)
    seed = {"x": RNG.normal(size=3), "y": RNG.normal(size=3)}
    assert_close(s2sad.vjp(returns_dict_comprehension)(x, seed), (1.5 * seed["x"] - 0.5 * seed["y"]) * np.cos(x))
    t = RNG.normal(size=3)
    value, dout = s2sad.jvp(returns_dict_comprehension)(x, t)
    assert list(dout) == ["x", "y"]
    assert_tree_close(dout, {"x": 1.5 * np.cos(x) * t, "y": -0.5 * np.cos(x) * t})


# ---- plain objects are not containers ------------------------------------------------------------------


class PlainParams:  # neither a dataclass nor a NamedTuple
    def __init__(self, w):
        self.w = w


def reads_plain_object(p, x):
    return np.sum(p.w * x)


def ignores_plain_object(p, x):
    return np.sum(x * x)


@pytest.mark.parametrize("f", [reads_plain_object, ignores_plain_object])
def test_plain_object_as_wrt_is_refused_naming_the_argument(f):
    p, x = PlainParams(RNG.normal(size=3)), RNG.normal(size=3)
    calls = [
        lambda: s2sad.grad(f)(p, x),
        lambda: s2sad.value_and_grad(f)(p, x),
        lambda: s2sad.vjp(f)(p, x, 1.0),
        lambda: s2sad.hessian(f)(p, x),
        lambda: s2sad.jacobian(f, mode="forward")(p, x),
        lambda: s2sad.jacobian(f, mode="reverse")(p, x),
    ]
    for call in calls:
        with pytest.raises(
            s2sad.DifferentiationError, match=r"argument 'p' is an object of type PlainParams.*dataclass"
        ):
            call()
    if f is reads_plain_object:  # (a jvp that never reads the tangent of p gives f's zero tangent)
        with pytest.raises(s2sad.DifferentiationError, match=r"argument 'p' is an object of type PlainParams"):
            s2sad.jvp(f)(p, x, PlainParams(np.ones(3)))
    assert_close(s2sad.grad(f, wrt=1)(p, x), fd_grad(f, [p, x], 1))  # a constant object is fine
