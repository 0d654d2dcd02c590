"""Round 26: names the generated code reads as globals (``np``, ``math``, runtime helpers, builtins)
that the user's function binds as a parameter or a local; ``vjp(f)(x, seed=...)``; accurate refusals."""

import copy
import math as M
import os
import subprocess
import sys
import textwrap

import numpy
import numpy as np_
import pytest
from exact_or_refused import assert_exact

import s2sad

X = numpy.array([0.3, -1.2])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def p_np(x, np=2.0):
    return numpy.sum(numpy.sin(x) * np)


def p_math(a, math=2.0):
    return M.sin(a) * math


def p_zeros_like(x, zeros_like=1.0):
    for i in range(2):
        x = numpy.tanh(x * x[i]) * zeros_like
    return numpy.sum(x)


def p_helpers(x, unreduce=1.0, unbroadcast=2.0, astype_of=0.5, expect_scalar=1.5):
    return numpy.sum(numpy.cos(x) * unreduce * unbroadcast + astype_of * x * expect_scalar)


def p_loop_helpers(x, tape=1.0, own=0.5, add_at=2.0, tree_add=1.0):
    for i in range(2):
        x = numpy.tanh(x * x[i]) * tape + own * add_at * tree_add * x
    return numpy.sum(x)


def p_builtins(x, reversed=1.0, range=2, len=0.5, list=1.5):
    s = 0.0
    for i in [0, 1]:
        s = s + numpy.sin(x[i]) * reversed * len * list + range
    return s


def local_reversed(x):
    reversed = "not used for anything"  # noqa: F841
    for i in range(2):
        x = numpy.tanh(x * x[i])
    return numpy.sum(x)


def local_builtins(x):
    len = 2.0
    range = 3.0
    s = 0.0
    for i in [0, 1]:
        s = s + numpy.sin(x[i]) * len * range
    return s


def kw_only_np(x, *, np=2.0, math=3.0):
    return numpy.sum(numpy.exp(x) * np + x * math)


CASES = [
    (p_np, (X,)),
    (p_np, (X, 3.0)),
    (p_math, (0.7,)),
    (p_math, (0.7, -1.5)),
    (p_zeros_like, (X,)),
    (p_zeros_like, (X, 0.7)),
    (p_helpers, (X,)),
    (p_loop_helpers, (X,)),
    (p_builtins, (X,)),
    (local_reversed, (X,)),
    (local_builtins, (X,)),
    (kw_only_np, (X,)),
]


@pytest.mark.parametrize("f,args", CASES, ids=[f"{f.__name__}-{len(a)}" for f, a in CASES])
def test_parameters_and_locals_named_like_generated_globals(f, args):
    assert_exact(f, args)


@pytest.mark.parametrize("f", [p_np, p_zeros_like, p_loop_helpers, p_builtins], ids=lambda f: f.__name__)
def test_jacobian_and_keywords(f):
    name = list(f.__code__.co_varnames[1 : f.__code__.co_argcount])[0]
    kw = {name: 0.7}
    h = 1e-6
    g = s2sad.grad(f)(X.copy(), **kw)
    fd = numpy.array([(f(X + h * e, **kw) - f(X - h * e, **kw)) / (2 * h) for e in numpy.eye(2)])
    numpy.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    numpy.testing.assert_allclose(s2sad.jacobian(f)(X.copy(), **kw), fd, rtol=1e-6, atol=1e-8)
    value, g2 = s2sad.value_and_grad(f)(X.copy(), **kw)
    assert value == f(X, **kw)
    numpy.testing.assert_allclose(g2, fd, rtol=1e-6, atol=1e-8)
    hess = s2sad.hessian(f)(X.copy(), **kw)
    fdh = numpy.array(
        [(s2sad.grad(f)(X + h * e, **kw) - s2sad.grad(f)(X - h * e, **kw)) / (2 * h) for e in numpy.eye(2)]
    )
    numpy.testing.assert_allclose(hess, fdh, rtol=1e-5, atol=1e-6)


def test_the_generated_code_reads_numpy_by_another_name():
    text = s2sad.source(s2sad.grad(p_np))
    assert "import numpy as np1" in text
    assert "def df_dx(x, np=2.0, bout=1.0):" in text.replace("dp_np_dx", "df_dx")
    assert "np1.cos(x)" in text


def test_the_command_line_with_such_parameters(tmp_path):
    (tmp_path / "m.py").write_text(
        textwrap.dedent(
            """
            import numpy
            def f(x, np=2.0):
                return numpy.sum(numpy.sin(x) * np)
            def h(x, zeros_like=1.0, reversed=1.0):
                for i in range(2):
                    x = numpy.tanh(x * x[i]) * zeros_like * reversed
                return numpy.sum(x)
            """
        )
    )
    env = dict(os.environ, PYTHONPATH=ROOT)
    for flags in ([], ["--standalone"]):
        for fn in ("f", "h"):
            out = f"out_{fn}{len(flags)}.py"
            subprocess.run(
                [sys.executable, "-m", "s2sad", f"m.py:{fn}", "-o", out, *flags],
                cwd=tmp_path,
                env=env,
                check=True,
                capture_output=True,
            )
            code = (
                "import numpy, runpy, m\n"
                f"ns = runpy.run_path({out!r})\n"
                f"d = ns['d{fn}_dx']\n"
                "x = numpy.array([0.3, -1.2])\n"
                f"g = d(x.copy(), **{{'{'np' if fn == 'f' else 'zeros_like'}': 0.7}})\n"
                f"e = numpy.eye(2) * 1e-6\n"
                f"k = {{'{'np' if fn == 'f' else 'zeros_like'}': 0.7}}\n"
                f"fd = [(m.{fn}(x + e[i], **k) - m.{fn}(x - e[i], **k)) / 2e-6 for i in range(2)]\n"
                "assert numpy.allclose(g, fd, rtol=1e-6), (g, fd)\n"
            )
            subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True)


# ---- vjp(f)(*args, seed=...) --------------------------------------------------------------------
def twice(a):
    return a * 2


def scaled_kw(a, *, k=2.0):
    return a * k


def scaled_default(a, b=1.0):
    return a * b


def has_seed(a, seed=3.0):
    return a * seed


S = np_.array([1.0, 2.0])


def test_vjp_takes_the_seed_by_keyword():
    numpy.testing.assert_allclose(s2sad.vjp(twice)(X, seed=S), 2 * S)
    numpy.testing.assert_allclose(s2sad.vjp(scaled_kw)(X, seed=S), 2 * S)
    numpy.testing.assert_allclose(s2sad.vjp(scaled_kw)(X, k=3.0, seed=S), 3 * S)
    numpy.testing.assert_allclose(s2sad.vjp(scaled_kw)(X, S, k=3.0), 3 * S)
    numpy.testing.assert_allclose(s2sad.vjp(scaled_default)(X, seed=S), S)
    numpy.testing.assert_allclose(s2sad.vjp(scaled_default)(X, 2.0, seed=S), 2 * S)
    ga, gb = s2sad.vjp(scaled_default, wrt=(0, 1))(X, 2.0, seed=S)
    numpy.testing.assert_allclose(ga, 2 * S)
    assert gb == pytest.approx(float(S @ X))
    seed = S.copy()
    s2sad.vjp(twice)(X, seed=seed)
    assert (seed == S).all()


def test_a_parameter_named_seed_keeps_seed_for_itself():
    """f's own ``seed`` parameter is bound by ``seed=``; the VJP's seed goes last (or by ``bout=``)."""
    numpy.testing.assert_allclose(s2sad.vjp(has_seed)(X, S), 3 * S)
    numpy.testing.assert_allclose(s2sad.vjp(has_seed)(X, S, seed=2.0), 2 * S)
    numpy.testing.assert_allclose(s2sad.vjp(has_seed)(X, 2.0, S), 2 * S)
    numpy.testing.assert_allclose(s2sad.vjp(has_seed)(X, seed=2.0, bout=S), 2 * S)
    assert_exact(has_seed, (X, 0.5))


def test_seed_given_twice_is_a_type_error():
    with pytest.raises(TypeError):
        s2sad.vjp(scaled_kw)(X, S, seed=S)
    with pytest.raises(TypeError):
        s2sad.vjp(twice)(X, bout=S, seed=S)


def test_inputs_unchanged():
    x = X.copy()
    s2sad.grad(p_zeros_like)(x, zeros_like=0.3)
    s2sad.hessian(p_np)(x, np=0.3)
    assert (x == X).all()
    _ = copy


# ---- a tuple or list into a fancy index; dict displays of new values in nested loops -------------
def tuple_into_fancy(x):
    a = numpy.zeros(3)
    a[[1, 2]] = x[0], x[1]
    return numpy.sum(a * numpy.arange(3.0))


def tuple_into_slice(x):
    a = numpy.zeros(3)
    a[1:] = x[0] * x[1], numpy.sin(x[1])
    return numpy.sum(a * a)


def list_into_fancy(x):
    a = numpy.ones(4)
    a[[0, 3]] = [x[1] ** 2, x[0]]
    return numpy.sum(numpy.exp(a) * numpy.arange(4.0))


def nested_list_into_rows(x):
    A = numpy.ones((3, 2))
    A[[0, 2]] = [[x[0], x[1]], [x[1] * x[0], 2.0]]
    return numpy.sum(A**2)


def dict_step_nested_loops(x):
    p = {"w": x.copy()}
    for t in range(2):
        gr = {"w": 2 * p["w"] * x}
        for k in ["w"]:
            p[k] = p[k] - 0.1 * gr[k]
    return numpy.sum(p["w"] ** 2)


def dict_step_two_keys(x):
    p = {"a": x * 1.0, "b": x[0] * x}
    for t in range(2):
        gr = {"a": p["b"] * x, "b": numpy.sin(p["a"])}
        for k in ["a", "b"]:
            p[k] = p[k] - 0.1 * gr[k]
    return numpy.sum(p["a"] * p["b"])


@pytest.mark.parametrize(
    "f",
    [
        tuple_into_fancy,
        tuple_into_slice,
        list_into_fancy,
        nested_list_into_rows,
        dict_step_nested_loops,
        dict_step_two_keys,
    ],
    ids=lambda f: f.__name__,
)
def test_sequences_into_arrays_and_dict_steps(f):
    assert_exact(f, (X,))


def dict_really_held(x):
    q = {"w": x * 1.0}
    for t in range(2):
        held = {"q": q}
        for k in ["w"]:
            q[k] = q[k] * x
        x = x + held["q"]["w"]
    return numpy.sum(x)


def dict_the_same(x):
    q = {"w": x * 1.0}
    for t in range(2):
        r = q
        for k in ["w"]:
            q[k] = q[k] * x
        x = x + r["w"]
    return numpy.sum(x)


@pytest.mark.parametrize("f", [dict_really_held, dict_the_same], ids=lambda f: f.__name__)
def test_a_dict_really_shared_is_exact_or_refused_accurately(f):
    from exact_or_refused import check

    symptoms = check(f, (X,))
    assert not symptoms, symptoms
    try:
        s2sad.grad(f)(X)
    except s2sad.DifferentiationError as e:
        assert "may also be or hold" in str(e)


def test_a_list_of_other_length_than_its_array_adjoint_is_refused():
    from s2sad.runtime.core import unbroadcast

    with pytest.raises(s2sad.DifferentiationError):
        unbroadcast(numpy.ones(4), [1.0, 2.0])
    g = unbroadcast(numpy.array([[1.0, 2.0], [3.0, 4.0]]), [1.0, 2.0])
    assert type(g) is list and g == [4.0, 6.0]


def test_the_parameter_itself_differentiated_and_its_tangent_named_dnp():
    g = s2sad.grad(p_np, wrt=(0, 1))(X, 2.0)
    numpy.testing.assert_allclose(g[0], 2 * numpy.cos(X))
    assert g[1] == pytest.approx(numpy.sum(numpy.sin(X)))
    assert s2sad.grad(p_np, wrt="np")(X, np=3.0) == pytest.approx(numpy.sum(numpy.sin(X)))
    out, dout = s2sad.jvp(p_np, wrt=(0, 1))(X, 2.0, numpy.ones(2), 1.0)
    assert dout == pytest.approx(numpy.sum(2 * numpy.cos(X)) + numpy.sum(numpy.sin(X)))
    assert "def jvp_p_np(x, dx, dnp, np=2.0):" in s2sad.source(s2sad.jvp(p_np, wrt=(0, 1)))
    assert_exact(p_np, (X, 2.0))


def ret_np(x, np=2.0):
    np = np * x
    return np


def test_a_vjp_seed_of_a_rebound_parameter():
    s = numpy.array([1.0, -2.0])
    ga, gb = s2sad.vjp(ret_np, wrt=(0, 1))(X, 2.0, seed=s)
    numpy.testing.assert_allclose(ga, 2 * s)
    assert gb == pytest.approx(float(s @ X))
    assert_exact(ret_np, (X, 2.0))


def helper_np(x, np=2.0):
    return numpy.sin(x) * np


def calls_helper_by_keyword(x):
    return numpy.sum(helper_np(x, np=3.0) + helper_np(x) * x)


def calls_local_by_keyword(x):
    def inner(y, zeros_like=2.0):
        return numpy.tanh(y) * zeros_like

    return numpy.sum(inner(x, zeros_like=0.5) * inner(x))


@pytest.mark.parametrize("f", [calls_helper_by_keyword, calls_local_by_keyword], ids=lambda f: f.__name__)
def test_functions_it_calls_take_such_parameters_by_keyword(f):
    assert_exact(f, (X,))
    numpy.testing.assert_allclose(s2sad.jacobian(f)(X), s2sad.grad(f)(X), rtol=1e-12, atol=1e-12)


def with_a_module_argument(x, backend=numpy):
    return backend.sum(backend.sin(x) * x)


@pytest.mark.parametrize("make", [s2sad.grad, s2sad.value_and_grad, s2sad.hessian])
def test_a_module_passed_as_an_argument_is_refused_naming_it(make):
    """``backend.sum(v)`` of a module argument was taken for ``v``'s array method (an internal TypeError)."""
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round26_names\.py:\d+:\d+: .*backend .*module numpy"):
        make(with_a_module_argument)(numpy.array([0.1, 0.2]))
