"""Rules for the copy ``anf`` makes of an argument that the function writes into (``copy_input``):
the identity, in both modes; so are ``number_item`` (a list's item checked to be a number before ``+=``)
and ``cast_into`` (an in-place result cast to its array's dtype, as NumPy keeps it)."""

from .. import runtime
from ..runtime import cast_into, copy_input, number_item, snapshot, unshared  # noqa: F401  (used in templates)
from .registry import forward_rule, nondifferentiable, reverse_rule


@reverse_rule(runtime.copy_input, name="s2sad.runtime.copy_input")
def copy_input(y, x):
    bx += by


@forward_rule(runtime.copy_input, name="s2sad.runtime.copy_input")
def copy_input(y, x):
    dy = copy_input(dx)


@reverse_rule(runtime.unshared, name="s2sad.runtime.unshared")
def unshared(y, g, *inputs):
    bg += by


@forward_rule(runtime.unshared, name="s2sad.runtime.unshared")
def unshared(y, g, *inputs):
    dy = unshared(dg)


@reverse_rule(runtime.snapshot, name="s2sad.runtime.snapshot")
def snapshot(y, x):
    bx += by


@forward_rule(runtime.snapshot, name="s2sad.runtime.snapshot")
def snapshot(y, x):
    dy = snapshot(dx)


nondifferentiable(runtime.updates_in_place, name="s2sad.runtime.updates_in_place")
nondifferentiable(runtime.rebinds_a_number, name="s2sad.runtime.rebinds_a_number")
nondifferentiable(runtime.expect_array, name="s2sad.runtime.expect_array")
nondifferentiable(runtime.expect_numbers, name="s2sad.runtime.expect_numbers")
nondifferentiable(runtime.diagonal_index, name="s2sad.runtime.diagonal_index")
nondifferentiable(runtime.expect_plain, name="s2sad.runtime.expect_plain")
nondifferentiable(runtime.expect_no_own, name="s2sad.runtime.expect_no_own")
nondifferentiable(runtime.expect_apart, name="s2sad.runtime.expect_apart")
nondifferentiable(runtime.expect_mutable, name="s2sad.runtime.expect_mutable")
nondifferentiable(runtime.expect_field, name="s2sad.runtime.expect_field")
nondifferentiable(runtime.is_view, name="s2sad.runtime.is_view")
nondifferentiable(runtime.last_writes, name="s2sad.runtime.last_writes")


@reverse_rule(runtime.number_item, name="s2sad.runtime.number_item")
def number_item(y, x, what):
    bx += by


@forward_rule(runtime.number_item, name="s2sad.runtime.number_item")
def number_item(y, x, what):
    dy = dx


# cast_into(a, v): v cast to a's dtype (float64 to float32: its derivative is the identity); a gives only
# its dtype and shape
@reverse_rule(runtime.cast_into, name="s2sad.runtime.cast_into")
def cast_into(y, a, v):
    bv += by


@forward_rule(runtime.cast_into, name="s2sad.runtime.cast_into")
def cast_into(y, a, v):
    dy = dv
