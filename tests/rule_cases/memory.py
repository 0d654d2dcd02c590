"""Cases for ``copy_input``: the private copy of an argument that the function writes into."""

from s2sad.runtime import copy_input

from . import A, case


@case("s2sad.runtime.copy_input", A(3, 2))
def copy_input_array(x):
    y = copy_input(x)
    return y * y
