"""Findings of the round-20 blind testers, each now exact or refused at the user's line."""

import math
import os
import warnings

import numpy as np
import pytest
from exact_or_refused import assert_exact_or_refused

import s2sad


def smallest_singular(a):
    return np.linalg.norm(a, -2)


@pytest.mark.parametrize(
    "a",
    [np.outer([1.0, 2], [1.0, -1, 0.5]), np.array([[1.0, 2], [2, 4]])],
    ids=["rank_one_2x3", "singular_2x2"],
)
def test_the_min_singular_value_norm_of_a_rank_deficient_matrix_is_refused(a):
    # norm(a, -2) = s_min moves like |t| there (f(A + t g) - f(A) = |t| |g|): no derivative; it gave u v^T
    where = r"test_round20.py:\d+:\d+: the ord=-2 matrix norm of a rank-deficient matrix has no derivative"
    with pytest.raises(s2sad.DifferentiationError, match=where):
        s2sad.grad(smallest_singular)(a)
    with pytest.raises(s2sad.DifferentiationError, match=where):
        s2sad.jvp(smallest_singular)(a, np.ones_like(a))


def test_the_min_singular_value_norm_of_a_full_rank_matrix_is_exact():
    a = np.array([[1.0, 2], [3, 4]])
    g = s2sad.grad(smallest_singular)(a)
    eps, fd = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = eps
        fd[i] = (smallest_singular(a + e) - smallest_singular(a - e)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.jvp(smallest_singular)(a, np.ones_like(a))[1], np.sum(fd), rtol=1e-6)


def test_a_complex_p_norm_below_one_at_a_zero_entry_is_refused_and_real_is_inf():
    def f(z):
        return np.linalg.norm(z, 0.5)

    where = r"test_round20.py:\d+:\d+: the ord=0.5 norm at a zero entry of a complex vector has no derivative"
    with pytest.raises(s2sad.DifferentiationError, match=where):
        s2sad.grad(f)(np.array([0j, -0.5 + 0.3j]))  # was nan+nanj
    g = s2sad.grad(f)(np.array([0.0, -0.5]))
    assert g[0] == np.inf and np.isclose(g[1], -1.0)


# ---- 1. the hypot family at the zero vector: gradient 0 (np.linalg.norm's convention), no nan ----


def hypot_of_x_and_zero(x):
    return math.hypot(x, 0.0)


def hypot_of_x(x):
    return math.hypot(x)


def dist_of_equal_points(x):
    return math.dist([x, 1.0], [x, 1.0])


def dist_to_zero(x):
    return math.dist([x], [0.0])


def hypot_of_a_zero_difference(x):
    return math.hypot(x - x, 0.0) + x


def np_hypot_of_a_zero_difference(x):
    return np.sum(np.hypot(x - x, 0.0) + x)


def hypot_of_three(x):
    return math.hypot(x, 0.0, x * 0.0)


def hypot_of_squares(x):
    return math.hypot(x * x, x * x)  # sqrt(2) x**2: zero tangent at 0 but curvature 2 sqrt(2)


ZERO_LENGTHS = [
    (hypot_of_x_and_zero, 0.0, 0.0),
    (hypot_of_x, 0.0, 0.0),
    (dist_of_equal_points, 0.0, 0.0),
    (dist_to_zero, 0.0, 0.0),
    (hypot_of_a_zero_difference, 0.0, 1.0),
    (hypot_of_three, 0.0, 0.0),
    (np_hypot_of_a_zero_difference, np.zeros(2), np.ones(2)),
    (hypot_of_squares, 0.0, 0.0),
]


@pytest.mark.parametrize("f,x,slope", ZERO_LENGTHS, ids=[c[0].__name__ for c in ZERO_LENGTHS])
def test_a_length_at_the_zero_vector_has_gradient_zero_and_no_second_derivative(f, x, slope):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0/0 anywhere
        np.testing.assert_array_equal(s2sad.grad(f)(x), slope)
        np.testing.assert_array_equal(s2sad.value_and_grad(f)(x)[1], slope)
        np.testing.assert_array_equal(s2sad.jvp(f)(x, np.ones_like(x))[1], np.sum(slope))
        with pytest.raises(
            s2sad.DifferentiationError, match=r"test_round20.py:\d+:\d+: a length .* at the zero vector"
        ):
            s2sad.hessian(f)(x)


@pytest.mark.parametrize("f", [c[0] for c in ZERO_LENGTHS], ids=[c[0].__name__ for c in ZERO_LENGTHS])
def test_the_hypot_family_away_from_zero_is_exact_in_every_mode(f):
    x = np.array([0.7, -0.4]) if f is np_hypot_of_a_zero_difference else 0.7
    assert_exact_or_refused(f, [x])


def np_hypot_broadcast(x, y):
    return np.sum(np.hypot(x, y) ** 3)


def test_np_hypot_broadcasting_is_exact_in_every_mode():
    assert_exact_or_refused(np_hypot_broadcast, [np.array([0.5, -1.0, 2.0]), np.array([[0.3], [-0.2]])])


# ---- 3. a --standalone module copies runtime helpers: none may keep a relative import ----


def _runtime_helpers():
    from s2sad import runtime
    from s2sad.standalone import is_runtime_helper

    return sorted((n, v) for n, v in vars(runtime).items() if is_runtime_helper(v))


def test_every_runtime_helper_copies_into_a_standalone_module_without_relative_imports():
    from s2sad.standalone import provide

    for name, helper in _runtime_helpers():
        out = provide({name: helper}, [], True, "here:1:1")
        text = "\n".join([*out.imports, *out.constants, *out.helpers])
        assert "from ." not in text, name
        assert "__file__" not in text, name  # (refusals.refusal locates through its package's path)
        namespace = {}
        exec(compile(text, f"<standalone {name}>", "exec"), namespace)  # every name it reads is defined
        assert callable(namespace[name]), name


def test_a_standalone_module_whose_field_check_refuses_runs(tmp_path):
    import subprocess
    import sys
    import textwrap

    (tmp_path / "model4.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from typing import NamedTuple
            class P(NamedTuple):
                w: np.ndarray
                b: float
                @property
                def w2(self):
                    return self.w * 2.0
            def loss(p, x):
                return np.sum(np.tanh(p.w2 * x + p.b) ** 2)
            """
        )
    )
    run = [sys.executable, "-m", "s2sad", "model4.py:loss", "--wrt", "p", "--standalone", "-o", "d4.py"]
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(s2sad.__file__))}
    subprocess.run(run, cwd=tmp_path, check=True, env=env)
    use = "import numpy as np, d4, model4\nd4.dloss_dp(model4.P(np.array([0.5, -0.3]), 0.1), np.ones(2))\n"
    done = subprocess.run([sys.executable, "-c", use], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert "ImportError" not in done.stderr and "is not a field of P" in done.stderr, done.stderr


# ---- 4. math.log2, log10, fmod, remainder, ldexp; floor, ceil, trunc (a zero derivative) ----


def more_math(x):
    return (
        math.log2(x) * math.log10(x)
        + math.fmod(x * 3, 1.0)
        + math.remainder(x * 5, 2.0) * x
        + math.ldexp(x, 3)
        + math.ceil(x) * x
        + math.trunc(x * 4) * x
        + math.floor(x)
    )


@pytest.mark.parametrize("x", [0.6123, 1.37])
def test_more_math_functions_are_exact_in_every_mode(x):
    assert_exact_or_refused(more_math, [x])


# ---- 2. a for loop writing the items of a dict argument: the tangent dict is copied as a dict ----


def scale_dict(d, x):
    for k in d:
        d[k] = d[k] * x
    return d["a"] + d["b"]


def test_writing_the_items_of_a_dict_argument_in_a_loop_is_exact_in_every_mode():
    d = {"a": 1.0, "b": 3.0}
    assert s2sad.jvp(scale_dict, wrt=1)(d, 0.7, 1.0) == (2.8, 4.0)
    assert s2sad.jvp(scale_dict, wrt=0)(d, 0.7, {"a": 1.0, "b": 0.0}) == (2.8, 0.7)
    assert s2sad.jacobian(scale_dict, wrt=1, mode="forward")(d, 0.7) == 4.0
    assert d == {"a": 1.0, "b": 3.0}
    assert_exact_or_refused(scale_dict, [d, 0.7], wrt=(1,))
    assert_exact_or_refused(lambda d, x: scale_dict({"a": d, "b": 3.0 * d}, x), [1.5, 0.7])


# ---- 5. sum(d.values()) (and min, max, list, tuple, math.fsum, math.prod of it) of a local dict ----


def sum_of_values(x):
    d = {"a": x, "b": x * x}
    return sum(d.values())


def consumers_of_values(x):
    d = {"a": x, "b": x * x}
    d["a"] = d["a"] * 3.0
    s = math.fsum(d.values()) * sum(d.values(), start=1.0) + math.prod(d.values())
    return s + max(d.values()) + min(list(d.values())) * tuple(d.values())[1]


def values_of_a_dict_argument(d, x):
    return sum(d.values()) * x + d["a"]  # (read with a string key: a dict, as s2sad knows parameters)


def values_of_an_unknown_argument(d, x):
    return sum(d.values()) * x  # d may be any object with a values() method


@pytest.mark.parametrize("f", [sum_of_values, consumers_of_values])
def test_sum_of_the_values_of_a_local_dict_is_exact_in_every_mode(f):
    assert_exact_or_refused(f, [0.6123])


def test_sum_of_the_values_of_a_dict_argument_is_exact():
    d = {"a": 0.5, "b": 2.0}
    assert s2sad.grad(values_of_a_dict_argument, wrt=0)(d, 3.0) == {"a": 4.0, "b": 3.0}
    assert s2sad.grad(values_of_a_dict_argument, wrt=1)(d, 3.0) == 2.5
    assert s2sad.jvp(values_of_a_dict_argument, wrt=0)(d, 3.0, {"a": 1.0, "b": 0.0}) == (8.0, 4.0)
    assert d == {"a": 0.5, "b": 2.0}
    # d.values() of a parameter read no other way: exact for a dict (checked when the derivative runs) ...
    assert s2sad.grad(values_of_an_unknown_argument, wrt=0)(d, 3.0) == {"a": 3.0, "b": 3.0}

    class Values:  # ... refused at the line for another object with a values() method
        def values(self):
            return [1.0, 2.0]

    with pytest.raises(s2sad.DifferentiationError, match=r"test_round20.py:\d+:\d+: d.values\(\) of a Values"):
        s2sad.grad(values_of_an_unknown_argument, wrt=1)(Values(), 3.0)


# ---- 6. a copy of a list (list(v), tuple(v), v[:]) is a new list: writing its items leaves v alone ----


def list_copy_then_add(x):
    v = [x, 2 * x]
    u = list(v)
    u[0] += 10.0
    return v[0] * u[0]


def slice_copy_then_scale(x):
    v = [x, 2 * x]
    u = v[:]
    u[0] *= 3.0
    u[1] = u[1] - v[0]
    return v[0] + u[0] * u[1]


def tuple_copy_then_list(x):
    v = [x, x * x]
    u = list(tuple(v))
    u[1] = u[0] * 5.0
    return v[1] * u[1]


def copy_of_arrays_written_by_item(a):
    v = [a, 2 * a]
    u = v[:]
    u[0] = u[0] * 3.0  # replaces the item: v[0] stays
    return np.sum(v[0] + u[0] * v[1])


@pytest.mark.parametrize("f", [list_copy_then_add, slice_copy_then_scale, tuple_copy_then_list])
def test_writing_an_item_of_a_copied_list_of_numbers_is_exact_in_every_mode(f):
    assert_exact_or_refused(f, [0.6123])


def test_writing_an_item_of_a_copied_list_of_arrays_is_exact_in_every_mode():
    assert_exact_or_refused(copy_of_arrays_written_by_item, [np.array([0.5, -1.0])])


def list_copy_array_item_in_place(a):
    v = [a, 2 * a]
    u = list(v)
    u[0] += 10.0  # in place on the array v[0] also holds
    return np.sum(v[0] * u[1])


def test_an_augmented_write_into_a_shared_array_item_of_a_copied_list_stays_refused():
    with pytest.raises(
        s2sad.DifferentiationError, match=r"test_round20.py:\d+:\d+: `u\[0\] op= v` writes into an array"
    ):
        s2sad.grad(list_copy_array_item_in_place)(np.array([0.5, 1.0]))


# ---- 7. lst.append(x * 2) on a list argument not differentiated: jvp starts its tangent at zeros ----


def append_to_argument(lst, x):
    lst.append(x * 2)
    return np.sum(lst[-1] * lst[0])


def append_numbers_to_argument(lst, x):
    lst.append(x * x)
    lst.append(lst[0] * x)
    return lst[-1] + lst[-2] * lst[1]


def test_appending_to_a_list_argument_is_exact_in_every_mode():
    a, x = [np.array([1.0, 2.0])], np.array([0.3, -0.5])
    assert s2sad.jvp(append_to_argument, wrt=1)(a, x, np.ones(2))[1] == 6.0
    assert len(a) == 1
    assert_exact_or_refused(append_to_argument, [a, x], wrt=(1,))
    assert_exact_or_refused(append_numbers_to_argument, [[1.5, -0.5], 0.7], wrt=(1,))


def norm_of_squares(x):
    return np.linalg.norm(np.array([x * x, x * x]))  # sqrt(2) x**2: zero tangent at 0 but curvature 2 sqrt(2)


def test_the_second_derivative_of_a_norm_at_zero_is_refused_also_where_the_tangent_is_zero():
    # it gave 0 (the tangent of x * x is 0 at 0, so norm_moves let it through)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round20.py:\d+:\d+: np.linalg.norm has no second"):
        s2sad.hessian(norm_of_squares)(0.0)
    assert s2sad.grad(norm_of_squares)(0.0) == 0.0
