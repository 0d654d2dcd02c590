"""Property-based: random straight-line and looping NumPy programs, differentiated and checked
against finite differences.  Exercises SSA versions, aliasing of adjoints (in-place accumulation),
loop stacks, recomputation and branches together, in combinations no hand-written test lists."""

import copy
import importlib.util
import itertools

import numpy as np
from fd import assert_close, check_forward_agrees, numeric_grad
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import s2sad

UNARY = ["np.sin({})", "np.tanh({})", "np.cos({}) * 0.5", "{} * {}", "-{}", "np.sqrt({} * {} + 1.0)"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / (1.5 + {} * {})".replace("{} * {}", "{1} * {1}"), "np.maximum({}, {})"]
_counter = itertools.count()


def _binary(template, a, b):
    return template.replace("{1}", b).format(a, b) if "{1}" in template else template.format(a, b)


def _exit_loop(draw, target, a, b, nested):
    """A loop whose body jumps (break, continue or return) from inside 1-3 nested ifs, with code
    after the jump at any level; a for or while loop, maybe with an else, maybe inside another loop."""
    exits = ["break", "continue", f"return np.sum({target}) * 2.0 + np.sum({b})"]
    tests = [f"np.sum({target}) > {draw(st.sampled_from([-1.0, 0.0, 0.5, 2.0]))}", "i % 2 == 0", "i > 1"]
    lines = [f"{target} = {a} * 0.5"]
    outer = []
    if nested:
        outer = ["for j in range(3):"]
        lines.append(outer[0])
    pad = "    " * len(outer)
    loop = draw(st.sampled_from(["for", "while"]))
    if loop == "for":
        lines.append(f"{pad}for i in range({draw(st.integers(0, 5))}):")
    else:
        lines += [f"{pad}i = 0", f"{pad}while i < {draw(st.integers(0, 5))}:", f"{pad}    i += 1"]
    step = f"{target} = {target} + np.cos({target}) * np.tanh({b})"
    lines.append(f"{pad}    {step}")
    depth = draw(st.integers(1, 3))
    for level in range(depth):
        indent = pad + "    " * (level + 1)
        lines.append(f"{indent}if {draw(st.sampled_from(tests))}:")
        if draw(st.booleans()):
            lines.append(f"{indent}    {target} = {target} * 1.1")
    lines.append(pad + "    " * (depth + 1) + draw(st.sampled_from(exits)))
    for level in reversed(range(depth)):  # code after the jump at each level, or none
        if draw(st.booleans()):
            lines.append(pad + "    " * (level + 1) + f"{target} = {target} * 0.9 + np.sin({b}) * 0.1")
    if draw(st.booleans()):
        lines.append(f"{pad}else:")
        lines.append(f"{pad}    {target} = {target} + {a}")
    if nested:
        lines.append(f"    {target} = {target} - {a} * 0.1")
    return lines


KINDS = [
    "unary",
    "binary",
    "binary",
    "reassign",
    "loop",
    "if",
    "while",
    "break",
    "append",
    "setitem",
    "call",
    "exit",
    "exit",
    "nested_exit",
]


@st.composite
def programs(draw, kinds=KINDS):
    names = ["x", "y", "a"]  # x, y: arrays of shape (3,); a: a Python float
    lines = []
    depth = 1
    n = draw(st.integers(2, 7))
    for k in range(n):
        kind = draw(st.sampled_from(kinds))
        # x stays an array: the "setitem" programs index it
        target = draw(st.sampled_from([n for n in names if n != "x"])) if kind == "reassign" else f"v{k}"
        a = draw(st.sampled_from(names))
        b = draw(st.sampled_from(names))
        if kind == "unary":
            expr = draw(st.sampled_from(UNARY)).format(a, a)
        elif kind in ("binary", "reassign"):
            expr = _binary(draw(st.sampled_from(BINARY)), a, b)
        if kind == "loop":
            steps = draw(st.integers(0, 4))
            body = _binary(draw(st.sampled_from(BINARY)), target, b)
            lines.append(f"{target} = {a} * 0.5")
            lines.append(f"for i in range({steps}):")
            lines.append(f"    {target} = np.tanh({body}) + {a} * i")
        elif kind == "while":
            lines.append(f"{target} = {a} * 1.0")
            lines.append("n = 0")
            lines.append(f"while np.sum({target} * {target}) < 4.0 and n < 5:")
            lines.append(f"    {target} = {target} * 1.3 + np.sin({b}) * 0.1")
            lines.append("    n += 1")
        elif kind == "break":
            lines.append(f"{target} = {a} * 0.5")
            lines.append("for i in range(6):")
            # bounded factors: finite differences stay accurate (cos(v * b) with a large b is too stiff)
            lines.append(f"    {target} = {target} + np.cos({target}) * np.tanh({b})")
            lines.append(f"    if np.sum({target}) > {draw(st.sampled_from([0.0, 1.0, 3.0]))}:")
            lines.append("        break")
        elif kind in ("exit", "nested_exit"):
            lines += _exit_loop(draw, target, a, b, nested=kind == "nested_exit")
        elif kind == "append":
            lines.append("items = []")
            lines.append(f"for i in range({draw(st.integers(1, 3))}):")
            lines.append(f"    items.append({a} * (i + 1.0) + {b})")
            lines.append(f"{target} = np.sum(np.tanh(np.stack(items)) ** 2, axis=0) + sum(items)")
        elif kind == "setitem":
            lines.append(f"{target} = np.zeros(3)")
            lines.append("for i in range(3):")
            lines.append(f"    {target}[i] = {target}[i - 1] * 0.5 + np.sum({a}) * np.tanh(x[i] * np.sum({b}))")
        elif kind == "call":
            lines.append(f"{target} = helper({a}, {b})")
        elif kind == "if":
            lines.append(f"if np.sum({a}) > 0:")
            lines.append(f"    {target} = {a} * {b}")
            lines.append("else:")
            lines.append(f"    {target} = np.sin({b}) + {a}")
        else:
            lines.append(f"{target} = {expr}")
        if target not in names:
            names.append(target)
    out = " + ".join(f"np.sum({v})" for v in names[-2:])
    body = "\n".join("    " * depth + line for line in lines)
    return f"def f(x, y, a):\n{body}\n    return {out}\n"


def load(source, tmp_path):
    path = tmp_path / f"prog_{next(_counter)}.py"
    path.write_text("import numpy as np\n\n\ndef helper(p, q):\n    return np.tanh(p) * q + p\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs(), st.integers(0, 2**31 - 1))
def test_random_programs_match_finite_differences(tmp_path, source, seed):
    f = load(source, tmp_path)
    rng = np.random.default_rng(seed)
    args = [rng.normal(size=3), rng.normal(size=3), float(rng.normal())]
    before = copy.deepcopy(args)
    value, got = s2sad.value_and_grad(f, wrt=(0, 1, 2))(*args)
    assert all(np.array_equal(b, a) for b, a in zip(before, args)), f"inputs changed by the call:\n{source}"
    np.testing.assert_allclose(value, f(*copy.deepcopy(args)), rtol=1e-12, err_msg=f"value of f:\n{source}")
    for i in range(3):
        expected = numeric_grad(f, args, i)
        # finite differences lose digits in proportion to the largest entry, not to each entry
        assert_close(got[i], expected, rtol=1e-4, atol=1e-5 * max(1.0, float(np.max(np.abs(expected)))))
    assert isinstance(got[2], float)
    check_forward_agrees(f, args, (0, 1, 2), got)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs(kinds=["unary", "binary", "exit", "nested_exit"]), st.integers(0, 2**31 - 1))
def test_random_early_exits_second_order(tmp_path, source, seed):
    """Hessians of programs with break/continue/return in nested ifs: forward over the generated
    reverse code, against finite differences of the gradient."""
    f = load(source, tmp_path)
    rng = np.random.default_rng(seed)
    args = [rng.normal(size=3), rng.normal(size=3), float(rng.normal())]
    H = s2sad.hessian(f, wrt=2)(*args)
    expected = numeric_grad(s2sad.grad(f, wrt=2), args, 2)
    assert_close(H, expected, rtol=1e-4, atol=1e-5 * max(1.0, float(np.max(np.abs(expected)))))
