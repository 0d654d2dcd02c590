"""Values whose type s2sad sees only when the code runs (results of user functions called on constants,
their items and attributes) are checked where a differentiated rule takes them as operands: an object with
operators of its own is refused at the user's line, and numbers, arrays, lists and dicts pass exactly."""

import numpy as np
import pytest
from exact_or_refused import assert_exact, check

import s2sad


class Sq:
    """``other * s`` is ``other**2 * k``: not NumPy's product."""

    def __init__(self, k):
        self.k = k

    def __rmul__(self, other):
        return other * other * self.k

    __mul__ = __rmul__

    def __radd__(self, other):
        return other * other * self.k


def make():
    return Sq(3.0)


def helper(x, s):
    return x * s


class Model:
    def __init__(self):
        self.s = Sq(3.0)

    def get(self):
        return self.s

    def loss(self, x):
        return x * self.get()


def times_result(x):
    return x * make()


def result_times(x):
    return make() * x


def plus_after_sin(x):
    s = make()
    return np.sin(x) + s


def item_of_a_list(x):
    s = [make()]
    return x * s[0]


def appended_then_read(x):
    held = []
    for _ in range(2):
        held.append(make())
    y = x
    for s in held:
        y = y * s
    return y


def method_of_an_object_built_in_f(x):
    return x * Model().get()


def passed_to_a_helper(x):
    return helper(x, make())


def summed(x):
    return np.sum(x * make())


UNSEEN = [
    times_result,
    result_times,
    plus_after_sin,
    item_of_a_list,
    appended_then_read,
    method_of_an_object_built_in_f,
    passed_to_a_helper,
    Model().loss,
]


@pytest.mark.parametrize("f", UNSEEN, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "jvp", "vjp", "hessian"])
def test_an_object_with_its_own_operators_from_a_call_is_refused_at_the_users_line(f, mode):
    call = {
        "grad": lambda: s2sad.grad(f)(1.5),
        "value_and_grad": lambda: s2sad.value_and_grad(f)(1.5),
        "jvp": lambda: s2sad.jvp(f)(1.5, 1.0),
        "vjp": lambda: s2sad.vjp(f)(1.5, 1.0),
        "hessian": lambda: s2sad.hessian(f)(1.5),
    }[mode]
    with pytest.raises(s2sad.DifferentiationError, match=r"test_unseen_operands\.py:\d+:\d+: .*(class|type) Sq"):
        call()


def test_an_array_result_is_refused_too():
    with pytest.raises(s2sad.DifferentiationError, match="class Sq"):
        s2sad.grad(summed)(np.array([1.0, 2.0]))


def make_number():
    return 3.0


def make_numpy_scalar():
    return np.float64(2.5)


def make_array():
    return np.array([1.0, -2.0, 0.5])


def make_dict():
    return {"w": np.array([0.5, 1.0, 2.0]), "n": 2}


def make_list():
    return [np.array([1.0, 2.0, 3.0]), 2.0]


class Config:
    def __init__(self):
        self.scale = 1.5
        self.w = np.array([0.1, 0.2, 0.3])


def plain_results(x):
    d = make_dict()
    lst = make_list()
    cfg = Config()
    y = x * make_number() + make_numpy_scalar() * np.sin(x) + make_array() * x
    y = y * d["w"] * d["n"] + lst[0] * x**2 * lst[1] + cfg.scale * cfg.w * x
    return np.sum(y**2)


def plain_results_to_a_helper(x):
    return np.sum(helper(x, make_array()) ** 2)


@pytest.mark.parametrize("f", [plain_results, plain_results_to_a_helper], ids=lambda f: f.__name__)
def test_numbers_arrays_lists_and_dicts_from_calls_are_exact(f):
    assert_exact(f, [np.array([0.3, -0.7, 1.1])])


def helper_times_x(x):
    return helper(x, 2.0) * x


def test_the_check_is_in_the_generated_code_where_the_value_is_an_operand():
    src = s2sad.source(s2sad.grad(times_result))
    assert "expect_plain(" in src
    # a differentiated helper's result needs no check: its own operations are checked in its derivative
    assert "    expect_plain(" not in s2sad.source(s2sad.grad(helper_times_x))


def test_a_written_module_checks_too(tmp_path):
    import subprocess
    import sys
    import textwrap

    (tmp_path / "lib.py").write_text(
        textwrap.dedent(
            """
            class Sq:
                def __rmul__(self, other):
                    return other * other * 3.0

            def make():
                return Sq()
            """
        )
    )
    (tmp_path / "m.py").write_text("from lib import make\n\n\ndef f(x):\n    return x * make()\n")
    out = subprocess.run(
        [sys.executable, "-m", "s2sad", "m.py:f", "--mode", "reverse", "-o", "out.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    run = subprocess.run(
        [sys.executable, "-c", "import out; out.df_dx(1.5)"], cwd=tmp_path, capture_output=True, text=True
    )
    assert "m.py:5:" in run.stderr and "class Sq" in run.stderr, run.stderr


def test_check_reports_no_symptom_for_plain_results():
    assert not check(plain_results, [np.array([0.3, -0.7, 1.1])])


def returns_what_it_got():
    return make()


def differentiated_helper_returning_one(x):
    s = returns_what_it_got()
    return s


def times_a_differentiated_helpers_result(x):
    return x * differentiated_helper_returning_one(x)


def pair(x):
    return x * 1.0, make()


def unpacked_from_a_differentiated_helper(x):
    a, s = pair(x)
    return a * s


class Holder:
    def __init__(self):
        self.s = Sq(3.0)

    def scale(self):
        return self.s

    def loss(self, x):
        return x * self.scale()


@pytest.mark.parametrize(
    "f",
    [times_a_differentiated_helpers_result, unpacked_from_a_differentiated_helper, Holder().loss],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("mode", ["grad", "jvp", "hessian"])
def test_an_object_returned_by_a_differentiated_helper_is_refused(f, mode):
    call = {
        "grad": lambda: s2sad.grad(f)(1.5),
        "jvp": lambda: s2sad.jvp(f)(1.5, 1.0),
        "hessian": lambda: s2sad.hessian(f)(1.5),
    }[mode]
    with pytest.raises(s2sad.DifferentiationError, match=r"test_unseen_operands\.py:\d+:\d+: .*(class|type) Sq"):
        call()


def scaled_layer(w, x):
    return np.tanh(w * x)


def model_of_helpers(w):
    h = scaled_layer(w, np.array([0.5, -1.0]))
    return np.sum(scaled_layer(w, h) ** 2)


def test_helpers_computing_from_their_parameters_need_no_check():
    assert_exact(model_of_helpers, [0.7])
    for make_derivative in (s2sad.grad, s2sad.jvp, s2sad.hessian):
        assert "    expect_plain(" not in s2sad.source(make_derivative(model_of_helpers))
