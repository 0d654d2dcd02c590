"""Round 37 (blind tester 37a, containers holding arrays written in place): wrong numbers that are now
refused or exact.  ``out=L[0]`` replaced the list's item instead of writing into its array; a helper writing
into an item of a list display passed to it (``h([a])``) lost the write to ``a``; one array stored twice in a
list (``L[0] = a; L[1] = a``) and written through its name updated only the first slot; an overwritten item of
a list argument had a 0-d zero gradient."""

import numpy as np
import pytest
from exact_or_refused import check

import s2sad

X0 = np.array([0.3, -0.7])


def out_into_a_list_item(x):
    a = x * 1.0
    L = [a]
    np.sin(x, out=L[0])  # a becomes sin(x)
    return np.sum(a)


def out_into_a_dict_item(x):
    y = x * 2.0
    d = {"k": x * 1.0}
    np.multiply(y, y, out=d["k"])
    return np.sum(d["k"] * x)


def out_into_a_row(x):
    m = np.zeros((2, 2))
    np.sin(x, out=m[1])
    return np.sum(m * x)


def bump_first(lst):
    lst[0] += 0.25


def helper_writes_an_item_of_a_display(x):
    a = x * 1.0
    bump_first([a])
    return np.sum(a * a)


def stored_twice_read_second(x):
    a = x * 1.0
    L = [None] * 2
    L[0] = a
    L[1] = a
    a *= 1.5
    return np.sum(L[1])


@pytest.mark.parametrize(
    "f",
    [
        out_into_a_list_item,
        out_into_a_dict_item,
        out_into_a_row,
        helper_writes_an_item_of_a_display,
        stored_twice_read_second,
    ],
)
def test_writes_into_arrays_containers_hold_are_exact_or_refused(f):
    assert check(f, (X0.copy(),)) == []


def test_out_into_a_row_is_exact():
    np.testing.assert_allclose(s2sad.grad(out_into_a_row)(X0), np.sin(X0) + X0 * np.cos(X0))


def replaces_an_item(x, ps):
    ps[1] = x
    return np.sum(ps[0] * ps[1])


def test_the_gradient_of_an_overwritten_item_of_a_list_argument_has_its_shape():
    g = s2sad.grad(replaces_an_item, wrt=1)(X0, [np.ones(2), np.ones(2)])
    np.testing.assert_array_equal(g[0], X0)
    assert g[1].shape == (2,) and not g[1].any()
    assert check(lambda ps, x: replaces_an_item(x, ps), ([np.ones(2), np.ones(2)], X0)) == []


# ---- round 37b: where complex values become real ----


def real_cast_times_complex(z):
    return np.sum(np.real(z.astype(float) * (1 + 1j)))  # sum(Re z)


def imaginary_cast_to_real(x):
    u = x * 1j
    return np.sum(np.real(u.astype(float) * (1 + 1j)))  # 0


def array_of_dtype_float(z):
    return np.sum(np.array(z, dtype=float) * 2.0) + np.sum(np.asarray(z, dtype=np.float64) ** 2)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_a_cast_of_a_complex_value_to_a_real_type_keeps_the_real_part_of_the_derivative():
    """grad [1+1j] for [1], jvp -1 for 0: the imaginary part NumPy drops stayed in the derivative."""
    z = np.array([3 + 4j])
    np.testing.assert_allclose(s2sad.grad(real_cast_times_complex)(z), [1.0])
    assert s2sad.jvp(real_cast_times_complex)(z, np.array([1j]))[1] == 0.0
    assert s2sad.jvp(real_cast_times_complex)(z, np.array([1.0]))[1] == 1.0
    x = np.array([2.0])
    np.testing.assert_allclose(s2sad.grad(imaginary_cast_to_real)(x), [0.0])
    assert s2sad.jvp(imaginary_cast_to_real)(x, np.array([1.0]))[1] == 0.0
    np.testing.assert_allclose(s2sad.grad(array_of_dtype_float)(z), [2.0 + 2 * 3.0])
    assert s2sad.jvp(array_of_dtype_float)(z, np.array([1 + 1j]))[1] == pytest.approx(2.0 + 6.0)


def real_part_of_sign(z):
    return np.real(np.sign(z))


def sign_times_square(x):
    return np.sum(np.sign(x) * x**2)


def test_sign_of_a_complex_value_is_refused_and_of_a_real_one_a_step():
    """np.sign(z) of a complex z is z / |z|: its derivative was 0 in every mode."""
    for make in (s2sad.grad, s2sad.jvp):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round37.py:\d+:\d+: np.sign of a complex value"):
            d = make(real_part_of_sign)
            d(3 + 4j) if make is s2sad.grad else d(3 + 4j, 1.0)
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(s2sad.grad(sign_times_square)(x), 2 * np.abs(x))
    assert check(sign_times_square, (x,)) == []


def stored_then_written_through_the_list(lst, x):
    v = x * 2.0
    lst[0] = v
    lst[0][1] = 7.0 * x[0]  # v itself changes
    return np.sum(v * x) + np.sum(lst[0] * lst[0])


def test_an_array_stored_in_a_list_argument_and_written_through_the_list_is_exact():
    """[55, 6.5] for [65.5, 3.5] in every mode (found by the lead): after the write, `v` was re-read from the list
    only where `is_view(v, lst)` found an array, never for a list's item; it asks for the item now."""
    x = np.array([0.5, 1.5])
    np.testing.assert_allclose(
        s2sad.grad(lambda x, lst: stored_then_written_through_the_list(lst, x))(x, [np.ones(2), np.ones(2)]),
        [65.5, 3.5],
    )
    assert check(lambda x, lst: stored_then_written_through_the_list(lst, x), (x, [np.ones(2), np.ones(2)])) == []
