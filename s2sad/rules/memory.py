"""Rules for the copy ``anf`` makes of an argument that the function writes into (``copy_input``):
the identity, in both modes."""

from .. import runtime
from ..runtime import copy_input  # noqa: F401  (used in templates)
from .registry import forward_rule, nondifferentiable, reverse_rule


@reverse_rule(runtime.copy_input, name="s2sad.runtime.copy_input")
def copy_input(y, x):
    bx += by


@forward_rule(runtime.copy_input, name="s2sad.runtime.copy_input")
def copy_input(y, x):
    dy = copy_input(dx)


nondifferentiable(runtime.updates_in_place, name="s2sad.runtime.updates_in_place")
nondifferentiable(runtime.last_writes, name="s2sad.runtime.last_writes")
