"""Cases for ``copy_input``: the private copy of an argument that the function writes into."""

from s2sad.runtime import copy_input, last_writes, updates_in_place

from . import A, case


@case("s2sad.runtime.copy_input", A(3, 2))
def copy_input_array(x):
    y = copy_input(x)
    return y * y


@case("s2sad.runtime.updates_in_place", A(3))
def updates_in_place_is_a_test(x):
    return x * 2.0 if updates_in_place(x) else x


@case("s2sad.runtime.last_writes", A(4))
def last_writes_is_a_mask(x):
    return x[[0, 0, 1]] * last_writes(x, [0, 0, 1])
