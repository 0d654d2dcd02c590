"""One small check per pass, on 3-6 line inputs: parse, resolve, anf, activity, shapes, optimize, codegen."""

import math

import gast
import numpy as np

from s2sad.activity import activity
from s2sad.anf import anf
from s2sad.codegen import to_source
from s2sad.naming import Names, Role
from s2sad.optimize import optimize
from s2sad.parse import parse_function
from s2sad.program import Program
from s2sad.resolve import resolve
from s2sad.shapes import infer_shapes


def front(fn):
    parsed = parse_function(fn)
    ns = resolve(parsed)
    tree, names, facts = anf(parsed.tree, ns, parsed.loc)
    return parsed, ns, tree


def program_of(fn):
    parsed = parse_function(fn)
    ns = resolve(parsed)
    tree, names, facts = anf(parsed.tree, ns, parsed.loc)
    return Program(tree, ns, parsed.loc, names, facts)


def text(tree):
    return to_source(tree)


def straight(x, y):
    z = x * y + np.sin(x)
    z = z * 2
    return z


def test_parse_keeps_file_line_numbers():
    parsed = parse_function(straight)
    assert parsed.tree.lineno == straight.__code__.co_firstlineno
    assert parsed.loc.filename == __file__


def test_resolve_binds_module_aliases():
    parsed = parse_function(straight)
    ns = resolve(parsed)
    assert ns.lookup(gast.parse("np.sin").body[0].value) is np.sin
    assert "np" in ns.used


def test_anf_single_assignment_and_versions():
    _, _, tree = front(straight)
    assert text(tree).splitlines()[1:] == [
        "    t = x * y",
        "    u = np.sin(x)",
        "    z = t + u",
        "    z1 = z * 2",
        "    return z1",
    ]


def methods(x):
    return x.T.sum(axis=0).reshape(2, 2)


def test_anf_turns_array_methods_into_numpy_calls():
    _, _, tree = front(methods)
    source = text(tree)
    assert "np.transpose(x)" in source and "np.sum(t, axis=0)" in source and "np.reshape(" in source


def loop(xs):
    s = 0.0
    for x in xs:
        if x > 0:
            continue
        s = s + x
    return s


def test_anf_indexes_sequences_and_moves_code_after_continue_into_else():
    _, _, tree = front(loop)
    source = text(tree)
    assert "t = list(xs)" in source and "for i in range(len(t)):" in source  # list(xs): a dict's keys too
    assert "else:" in source and "continue" in source


def partly_active(x, y, n):
    a = x * 2
    b = y * n
    c = len(y)
    return a + b * c


def test_activity():
    program = program_of(partly_active)
    assert activity(program, ["x"]) == {"x", "a", "out"}
    assert activity(program, ["y"]) == {"y", "b", "t", "out"}


def scalars(x, y):
    t = math.sin(x)
    u = t * y
    v = np.sum(x * np.ones(3))
    return u + v


def test_shapes_prove_scalars_through_math_functions():
    shapes = infer_shapes(program_of(scalars))
    name = lambda n: gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)  # noqa: E731
    assert shapes.is_scalar(name("x")) and shapes.is_scalar(name("t")) and shapes.is_scalar(name("v"))
    assert not shapes.is_scalar(name("y"))


def shifted(x, y):
    m = np.max(x, axis=1, keepdims=True)
    z = x - m
    w = z * np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return np.sum(w * y)


def test_shapes_know_a_keepdims_reduction_broadcasts_into_its_input():
    shapes = infer_shapes(program_of(shifted))
    name = lambda n: gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)  # noqa: E731
    assert shapes.get(name("z")) == frozenset({"x"})
    assert shapes.get(name("w")) == frozenset({"x"})  # log(sum(exp(z), keepdims)) fits into z too
    assert shapes.get(name("m")) != frozenset({"x"})  # but is not x's shape itself


def test_keepdims_shapes_give_exact_gradients_and_fewer_unbroadcasts():
    from fd import check_grad

    import s2sad

    rng = np.random.default_rng(3)
    for x_shape, y_shape in [((3, 4), (3, 4)), ((1, 4), (3, 4)), ((3, 4), (3, 1)), ((3, 4), (4,))]:
        check_grad(shifted, (rng.standard_normal(x_shape), rng.standard_normal(y_shape)))
    text = s2sad.source(s2sad.grad(shifted, wrt=0))
    # z = x - m and w = z * lse have x's shape: only m, lse and the product with y are summed back
    assert text.count("unbroadcast(") == 3


def folding(x):
    return x


def test_optimize_folds_constants_and_drops_dead_code():
    tree = gast.parse("def f(x):\n    a = x ** (2 - 1) * 1\n    dead = x + 1\n    return a\n").body[0]
    assert text(optimize(tree, Names())).splitlines()[1:] == ["    a = x", "    return a"]


def test_merged_copies_keep_the_name_by_its_role_not_its_spelling():
    # of two names joined by a copy, the user's stays and the temporary goes, whatever they look like
    source = "def f(x):\n    w = x * 2.0\n    t = w\n    return t\n"
    for temp, user in (("w", "t"), ("t", "w")):
        names = Names({"x", user})
        names.take(temp, Role.TEMP)
        kept = text(optimize(gast.parse(source).body[0], names)).splitlines()[1:]
        assert kept == [f"    {user} = x * 2.0", f"    return {user}"]


def test_codegen_round_trips():
    tree = gast.parse("def f(x):\n    return (x + 1) * 2\n").body[0]
    assert text(tree) == "def f(x):\n    return (x + 1) * 2\n"
