"""Python as people write it (issue 13, round 16): ``math``'s functions of sequences and the other ``math``
functions that had no rule, ... Each is exact in every mode against finite differences, or refused at the
user's line naming the user's construct."""

import functools
import math

import numpy as np
import pytest

import s2sad
from tests.exact_or_refused import assert_exact_or_refused
from tests.fd import assert_close, numeric_grad
from tests.test_nested_functions import check_all

# ---- 1. math.fsum, math.prod, math.dist, math.degrees, math.radians, math.cbrt, math.hypot(a, b, c) ------


def f_fsum(x):
    return math.fsum([x, x * x, 3.0]) * x + math.fsum(x * i for i in range(3))


def f_prod(x):
    return (
        math.prod([x, x * x, 2.0])
        + math.prod((x, 0.0))
        + math.prod([x, 3.0], start=x)
        + math.prod(x + i for i in range(3))
    )


def f_dist(x):
    return math.dist([x, 1.0, x * x], (2.0, x, 0.5)) * x


def f_angles(x):
    return math.degrees(x) * math.radians(x * x) + math.sin(math.radians(math.degrees(x)))


def f_hypot(x):
    return math.hypot(x, 2.0 * x, 3.0) + math.hypot(x * x) + math.hypot(x, 1.0, x, x * x) * x


def f_hypot_items(x):
    ys = [x, 2.0, x * x]
    return math.hypot(*ys) + math.hypot()


def f_prod_of_arrays(a):
    return np.sum(math.prod([a, a * a, 2.0 * a]))


@pytest.mark.parametrize("f", [f_fsum, f_prod, f_dist, f_angles, f_hypot, f_hypot_items])
@pytest.mark.parametrize("x", [0.7, -1.3])
def test_math_of_sequences(f, x):
    check_all(f, [x])
    assert_exact_or_refused(f, [x])


def test_prod_at_a_zero_factor():
    check_all(f_prod, [0.0])


def test_prod_of_arrays():
    check_all(f_prod_of_arrays, [np.array([0.5, -1.2, 0.0])])


@pytest.mark.skipif(not hasattr(math, "cbrt"), reason="math.cbrt is Python >= 3.11")
@pytest.mark.parametrize("x", [0.7, -1.3])
def test_cbrt(x):
    def f(x):
        return math.cbrt(x * x + x) * x

    check_all(f, [x])


def test_dist_of_equal_points_is_zero_not_a_crash():
    def f(x):
        return math.dist([x, 1.0], [x, 1.0])

    assert s2sad.grad(f)(0.5) == 0.0  # np.linalg.norm's convention at the zero vector (round 20)


# ---- 2. augmented writes into a list's items: lst[1] += lst[0], lst[0] = lst[0] * x ---------------------


def f_list_aug(x):
    lst = [x, 2.0 * x, 1.0]
    lst[1] += lst[0]
    lst[2] *= lst[1]
    lst[0] = lst[0] * x
    return lst[0] + lst[1] * lst[2] + x


def f_list_passed(lst, x):
    lst[1] += lst[0] * x
    lst[0] = lst[0] * x
    return lst[0] * lst[1]


def f_dict_aug(x):
    d = {"a": x, "b": x * x}
    d["b"] += d["a"]
    return d["b"] * x


@pytest.mark.parametrize("f", [f_list_aug, f_dict_aug])
def test_augmented_list_items(f):
    check_all(f, [0.8])
    assert_exact_or_refused(f, [0.8])


def test_augmented_items_of_a_passed_list():
    def value(x):
        return f_list_passed([0.5, -1.5], x)

    lst, eps = [0.5, -1.5], 1e-6
    fd = (value(0.8 + eps) - value(0.8 - eps)) / (2 * eps)
    assert abs(s2sad.grad(f_list_passed, wrt=1)(lst, 0.8) - fd) < 1e-6
    assert lst == [0.5, -1.5]
    fd2 = (
        s2sad.grad(f_list_passed, wrt=1)([0.5, -1.5], 0.8 + eps)
        - s2sad.grad(f_list_passed, wrt=1)([0.5, -1.5], 0.8 - eps)
    ) / (2 * eps)
    assert abs(s2sad.hessian(f_list_passed, wrt=1)(lst, 0.8) - fd2) < 1e-5
    assert lst == [0.5, -1.5]
    assert_exact_or_refused(f_list_passed, [[0.5, -1.5], 0.8], wrt=[1])


def f_list_of_one_array(x):
    lst = [x, x]
    lst[1] += lst[0]
    return np.sum(lst[0] * lst[1])


def test_augmented_item_holding_a_shared_array_is_refused_at_the_users_line():
    with pytest.raises(s2sad.DifferentiationError, match=r"test_python_more.py:\d+:\d+: .*`lst\[1\] op= v`"):
        s2sad.grad(f_list_of_one_array)(np.array([1.0, 2.0]))
    assert_exact_or_refused(f_list_of_one_array, [np.array([1.0, 2.0])])


# ---- 3. methods writing into self.buf: refused at the user's line, naming the user's attribute ----------------


class Buffer:
    def __init__(self):
        self.buf = np.array([1.0, 2.0])

    def scale(self, x):
        self.buf *= 2
        return np.sum(self.buf * x)

    def add(self, x):
        self.buf += x
        return np.sum(self.buf)

    def first(self, x):
        self.buf[0] = x[0]
        return np.sum(self.buf * x)


def f_scale(b, x):
    return b.scale(x)


def f_add(b, x):
    return b.add(x)


def f_first(b, x):
    return b.first(x)


@pytest.mark.parametrize(
    "f, what",
    [(f_scale, r"`self\.buf \*= \.\.\.`"), (f_add, r"`self\.buf \+= \.\.\.`"), (f_first, r"'self\.buf'")],
)
def test_writes_into_an_attribute_are_refused_at_the_users_line(f, what):
    b, x = Buffer(), np.array([1.0, 3.0])
    with pytest.raises(s2sad.DifferentiationError, match=r"test_python_more\.py:\d+:\d+: .*" + what):
        s2sad.grad(f, wrt=1)(b, x)
    np.testing.assert_array_equal(b.buf, [1.0, 2.0])  # the caller's object is not changed
    assert_exact_or_refused(f, [Buffer(), x], wrt=[1], modes=("grad", "value_and_grad", "vjp", "hessian"))


# ---- 4. output as often as one run of f: a method of an argument's object, a print inside an expression ----


class Noisy:
    def go(self, x):
        print("go")
        return np.sin(x) * 2.0


NOISY = Noisy()


def f_method_prints(m, x):
    return m.go(x) * x


def f_global_method_prints(x):
    return NOISY.go(x) * x[::-1]


def f_through_helper(m, x):
    return np.sum(f_method_prints(m, x))


def f_print_in_expression(x):
    g = lambda t: (print("a"), t * t)[1]  # noqa: E731
    return g(x) * x


def _printed(capsys, call):
    capsys.readouterr()
    call()
    return capsys.readouterr().out


MAKERS = [
    (lambda f, **kw: s2sad.jacobian(f, **kw), 0),
    (lambda f, **kw: s2sad.jacobian(f, mode="reverse", **kw), 0),
    (lambda f, **kw: s2sad.jacobian(f, mode="forward", **kw), 0),
    (lambda f, **kw: s2sad.vjp(f, **kw), 1),
    (lambda f, **kw: s2sad.jvp(f, **kw), 1),
]


@pytest.mark.parametrize("make, seeds", MAKERS)
def test_a_printing_method_prints_once(make, seeds, capsys):
    x, m = np.array([0.3, -1.2, 0.8]), Noisy()
    once = _printed(capsys, lambda: f_method_prints(m, x))
    assert once == "go\n"
    extra = [np.ones(3)] * seeds
    make = functools.partial(make, wrt=1)
    assert _printed(capsys, lambda: make(f_method_prints)(m, x, *extra)) == once
    assert_close(s2sad.jacobian(f_method_prints, wrt=1)(m, x), numeric_grad(f_method_prints, [m, x], 1))


def test_hessian_through_a_helper_calling_a_printing_method_prints_once(capsys):
    x, m = np.array([0.3, -1.2, 0.8]), Noisy()
    assert _printed(capsys, lambda: s2sad.hessian(f_through_helper, wrt=1)(m, x)) == "go\n"
    assert _printed(capsys, lambda: s2sad.grad(f_through_helper, wrt=1)(m, x)) == "go\n"


@pytest.mark.parametrize("mode", [None, "reverse", "forward"])
def test_a_printing_method_of_a_global_object_prints_once(mode, capsys):
    x = np.array([0.3, -1.2, 0.8])
    assert _printed(capsys, lambda: s2sad.jacobian(f_global_method_prints, mode=mode)(x)) == "go\n"


def test_print_inside_an_expression_prints_as_one_run(capsys):
    x = np.array([0.3, -1.2, 0.8])
    assert _printed(capsys, lambda: f_print_in_expression(x)) == "a\n"
    for make, seeds in MAKERS:
        extra = [np.ones(3)] * seeds
        assert _printed(capsys, lambda: make(f_print_in_expression)(x, *extra)) == "a\n"  # noqa: B023
    fs = lambda x: np.sum(f_print_in_expression(x))  # noqa: E731
    assert _printed(capsys, lambda: s2sad.hessian(fs)(x)) == "a\n"
    assert_close(s2sad.hessian(fs)(x), numeric_grad(s2sad.grad(fs), [x], 0), rtol=1e-4, atol=1e-5)


# ---- 5. the command line's module reads the user's global values when it runs, as s2sad.grad does ----------

M5 = """\
import numpy as np

SCALE = 2.0
W = np.eye(2)


def f(x):
    SHIFT = 0.5
    return np.sum(np.tanh(W @ x + SHIFT) * SCALE)
"""


def test_generated_module_sees_a_rebound_global(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "m5.py").write_text(M5)
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    subprocess.run([sys.executable, "-m", "s2sad", "m5.py:f", "-o", "d5.py"], cwd=tmp_path, env=env, check=True)
    text = (tmp_path / "d5.py").read_text()
    assert "import m5\n" in text and "m5.SCALE" in text and "m5.W @ x" in text
    assert "from m5 import" not in text and "m5.SHIFT" not in text
    script = (
        "import numpy as np, s2sad, m5, d5\n"
        "x = np.array([0.3, -0.4])\n"
        "m5.SCALE = 10.0\n"
        "m5.W = np.array([[1.0, 2.0], [0.5, -1.0]])\n"
        "print(repr((d5.df_dx(x) - s2sad.grad(m5.f)(x)).tolist()))\n"
        "eps = 1e-6\n"
        "fd = [(m5.f(x + eps * e) - m5.f(x - eps * e)) / (2 * eps) for e in np.eye(2)]\n"
        "print(repr((d5.df_dx(x) - np.array(fd)).tolist()))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    same, fd = (eval(line) for line in out.stdout.splitlines())
    assert np.allclose(same, 0.0, atol=1e-12) and np.allclose(fd, 0.0, atol=1e-6)
