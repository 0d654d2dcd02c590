"""Cases for ``copy_input``: the private copy of an argument that the function writes into."""

from typing import NamedTuple

import numpy as np

from s2sad.runtime import (
    cast_into,
    copy_input,
    diagonal_index,
    expect_apart,
    expect_array,
    expect_field,
    expect_mutable,
    expect_no_own,
    expect_numbers,
    expect_plain,
    is_view,
    last_writes,
    number_item,
    rebinds_a_number,
    snapshot,
    stored,
    unshared,
    updates_in_place,
)

from . import A, F, case


@case("s2sad.runtime.copy_input", A(3, 2))
def copy_input_array(x):
    y = copy_input(x)
    return y * y


@case("s2sad.runtime.cast_into", A(3, 2))
def cast_into_keeps_the_dtype(x):
    return cast_into(np.zeros((3, 2)), x * x) * x


@case("s2sad.runtime.updates_in_place", A(3))
def updates_in_place_is_a_test(x):
    return x * 2.0 if updates_in_place(x) else x


class _Field(NamedTuple):
    w: np.ndarray


@case("s2sad.runtime.rebinds_a_number", A(3))
def rebinds_a_number_is_a_check(x):
    s = float(np.sum(x))
    return x * 2.0 if rebinds_a_number(s, "never: s is a number") else x


@case("s2sad.runtime.expect_array", A(3))
def expect_array_is_a_check(x):
    expect_array(x, "never: x is an array")
    return x * x


@case("s2sad.runtime.diagonal_index", A(3, 3))
def diagonal_index_is_an_index(x):
    k = x * 1.0
    k[diagonal_index(k, x[0])] = x[:, 1] ** 2
    return k


@case("s2sad.runtime.expect_numbers", A(3))
def expect_numbers_is_a_check(x):
    expect_numbers(x, "never: x is an array of numbers")
    return x * x


@case("s2sad.runtime.expect_plain", A(3))
def expect_plain_is_a_check(x):
    expect_plain(x, "never: x is an array")
    return x * x


@case("s2sad.runtime.expect_no_own", A(3))
def expect_no_own_is_a_check(x):
    expect_no_own(x, "__round__", "never: x is an array")
    return x * x


@case("s2sad.runtime.expect_mutable", A(3))
def expect_mutable_is_a_check(x):
    expect_mutable([x], "never: a list")
    return x * x


@case("s2sad.runtime.expect_apart", A(3))
def expect_apart_is_a_check(x):
    y = x * 2.0
    expect_apart(x[0], y, "never: x[0] is a number")
    return y * x


@case("s2sad.runtime.expect_field", A(3))
def expect_field_is_a_check(x):
    expect_field(_Field(x), "w", "never: a NamedTuple with the field w")
    return np.sin(x)


@case("s2sad.runtime.last_writes", A(4))
def last_writes_is_a_mask(x):
    return x[[0, 0, 1]] * last_writes(x, [0, 0, 1])


@case("s2sad.runtime.number_item", F())
def number_item_(x):
    return number_item(x * x, "x") * x


@case("s2sad.runtime.is_view", A(3, 2))
def is_view_is_a_test(x):
    r = x[0]
    return r * 2.0 if is_view(r, x) else r


@case("s2sad.runtime.unshared", A(3, 2))
def unshared_is_the_identity(x):
    y = x * 2.0
    return unshared(y, x) * y


@case("s2sad.runtime.snapshot", A(3, 2))
def snapshot_is_the_identity(x):
    y = snapshot(x * 2.0)
    return y * x


@case("s2sad.runtime.stored", A(3))
def stored_into_a_float_array(x):
    return stored(np.zeros(3), x * x) * x


@case("s2sad.runtime.stored", A(3))
def stored_into_an_integer_array(x):
    # a value written into an integer array is truncated: no derivative reaches it
    return stored(np.arange(3), x * x) * x + x
