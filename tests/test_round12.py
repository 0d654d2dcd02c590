"""Programs from the blind tester's round 12 (each was a wrong number or a crash inside s2sad).

Every program must be exact in every mode (grad, value_and_grad, jvp, vjp, hessian) against finite
differences, checked by ``tests/exact_or_refused.check``; those listed in ``EXACT`` must also not be
refused at first order."""

import copy

import numpy as np
import pytest

import s2sad
from tests.exact_or_refused import check
from tests.fd import numeric_grad

X4 = np.array([0.31, -0.23, 0.52, 0.17])


# ---- a NumPy call's out= argument whose result is also used --------------------------------------------


def out_keyword_result_used(x):
    a = np.zeros(4)
    b = np.multiply(x, x, out=a)  # b is a
    return np.sum(a * x) + np.sum(b)


def out_rebinds_its_own_array(x):
    a = np.zeros(4)
    a = np.multiply(x, x, out=a)
    return np.sum(a * x)


def out_seen_through_an_earlier_view(x):
    a = np.zeros(4)
    v = a[1:]
    a = np.multiply(x, x, out=a)
    return np.sum(v * x[1:])


def out_into_its_own_input(x):
    a = x * 1.0
    c = np.add(a, x, out=a)
    return np.sum(a * c)


def positional_ufunc_output(x):
    a = x * 1.0
    c = np.subtract(a, 1.0, a)
    return np.sum(a * x) + np.sum(c)


def out_tuple(x):
    a = np.zeros(4)
    np.multiply(x, 2.0, out=(a,))
    return np.sum(a * x)


def out_result_discarded(x):
    a = np.zeros(4)
    np.sin(x, out=a)
    return np.sum(a * x)


def out_returned(x):
    a = np.zeros(())
    return np.multiply(x[0], x[1], out=a)


def out_of_a_reduction(x):
    s = np.zeros(())
    np.sum(x * x, out=s)
    return s * 3.0


# ---- crashes ---------------------------------------------------------------------------------------


def augmented_write_after_element_read(x):
    a = x * 1.0
    s = a[0]
    a *= x
    return np.sum(a) + s


def alias_augmented_write_after_element_read(x):
    a = x * 1.0
    s = a[0]
    b = a
    b *= x
    return np.sum(a) + s


def nested_if_not_taken(x):
    a = 0.0 * x[0]
    if x[1] > 0.0:
        if x[0] > 0.0:
            a = x[0] * x[1]
    return a * x[0]


# ---- value_and_grad's value when f returns a 0-d view ---------------------------------------------


def returns_zero_d_view(x):
    a = x * 1.0
    a[0] = x[1] * x[2]
    return a[..., 0]


def returns_zero_d_view_taken_before_write(x):
    a = x * 1.0
    v = a[..., 0]
    a[0] = x[1] * x[2]
    return v


def returns_zero_d_view_after_loop(x):
    a = x * 1.0
    for i in range(3):
        a[i + 1] = a[i] * x[i + 1]
    return a[..., 3]


# ---- second order through a write at a negative index (was refused: -1 was taken for an index computed at run time)


def negative_index_augmented_write(x):
    a = x * 1.0
    a[-1] *= x[1]
    return np.sum(a * a)


def test_negative_index_is_exact_at_second_order():
    x = X4.copy()
    fd = numeric_grad(s2sad.grad(negative_index_augmented_write), [x], 0, eps=1e-5)
    np.testing.assert_allclose(s2sad.hessian(negative_index_augmented_write)(x), fd, rtol=1e-6, atol=1e-7)
    jr = s2sad.jacobian(s2sad.grad(negative_index_augmented_write), mode="reverse")(x)
    np.testing.assert_allclose(jr, fd, rtol=1e-6, atol=1e-7)
    assert "a[-1] = " in s2sad.source(s2sad.grad(negative_index_augmented_write))


EXACT = [
    negative_index_augmented_write,
    out_keyword_result_used,
    out_rebinds_its_own_array,
    out_seen_through_an_earlier_view,
    out_into_its_own_input,
    positional_ufunc_output,
    out_tuple,
    out_result_discarded,
    out_returned,
    out_of_a_reduction,
    augmented_write_after_element_read,
    alias_augmented_write_after_element_read,
    returns_zero_d_view,
    returns_zero_d_view_taken_before_write,
    returns_zero_d_view_after_loop,
]


@pytest.mark.parametrize("f", EXACT)
def test_exact(f):
    x = X4.copy()
    value, g = s2sad.value_and_grad(f)(x)
    assert np.allclose(value, f(x.copy()), rtol=1e-13, atol=0)
    np.testing.assert_allclose(g, numeric_grad(lambda v: f(copy.deepcopy(v)), [x], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, X4)
    assert check(f, [x]) == []


@pytest.mark.parametrize("point", [[-0.3, -0.2], [-0.3, 0.2], [0.3, 0.2], [0.3, -0.2]])
def test_reverse_over_reverse_of_a_nested_if_not_taken(point):
    x = np.array(point)
    expected = s2sad.hessian(nested_if_not_taken)(x)
    np.testing.assert_allclose(s2sad.jacobian(s2sad.grad(nested_if_not_taken), mode="reverse")(x), expected)
    np.testing.assert_allclose(s2sad.vjp(s2sad.grad(nested_if_not_taken))(x, np.array([1.0, 0.0])), expected[0])
    fd = numeric_grad(s2sad.grad(nested_if_not_taken), [x], 0, eps=1e-5)
    np.testing.assert_allclose(expected, fd, atol=1e-6)


def test_out_inside_an_expression_is_refused():
    def f(x):
        a = np.zeros(4)
        return np.sum(np.multiply(x, x, out=a) * x)

    with pytest.raises(s2sad.DifferentiationError, match=r"test_round12\.py:\d+:\d+: .*out="):
        s2sad.grad(f)(X4)


def test_out_generated_code_reads_as_a_write():
    text = s2sad.source(s2sad.grad(out_result_discarded))
    assert "a[...] = t" in text or "a[...] = np.sin(x)" in text or "a[...] = u" in text  # u = cast_into(a, t)


# ---- round 15: reverse-over-reverse where a loop returns before a branch's temporaries are bound ----------


def returns_in_a_loop_before_the_else_branch(x):
    res = x[0]
    a = x * 1.0
    for _ in range(2):
        if x[1] > 0.0:
            res = res * a[0]
            if res > -5.0:
                return res
        else:
            a[[0, 1]] += x[:2] * np.sum(a)
        for _ in range(2):
            res = res * 0.8
    return res + np.sum(np.sin(a))


@pytest.mark.parametrize("point", [[0.31, 0.57], [0.31, -0.57]])
def test_reverse_over_reverse_when_a_loop_returns_early(point):
    f = returns_in_a_loop_before_the_else_branch
    x = np.array(point)
    fd = numeric_grad(s2sad.grad(f), [x], 0, eps=1e-5)
    np.testing.assert_allclose(s2sad.hessian(f)(x), fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2sad.jacobian(s2sad.grad(f), mode="reverse")(x), fd, rtol=1e-5, atol=1e-6)
