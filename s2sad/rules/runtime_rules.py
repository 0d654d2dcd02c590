"""Rules for s2sad's own runtime helpers, so that generated derivative code can be differentiated
again (Hessians as forward-over-reverse, ``grad(grad(f))``).  Most helpers are linear in the adjoint
they take (``unbroadcast(g, x)`` sums ``g`` to ``x``'s shape), so their rules call themselves."""

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    broadcast_like,
    unbroadcast,
    unconcatenate,
    undot_x,
    undot_y,
    unextremum,
    unmatmul_x,
    unmatmul_y,
    unnorm,
    unreduce,
    unsqueeze,
    unstack,
    unsum_items,
    untranspose,
)
from .registry import forward_rule, nondifferentiable, reverse_rule

# fmt: off
nondifferentiable(runtime.zeros_like, name="s2sad.runtime.zeros_like")
nondifferentiable(runtime.expect_scalar, name="s2sad.runtime.expect_scalar")


@forward_rule(runtime.broadcast_like, name="s2sad.runtime.broadcast_like")
def broadcast_like(z, t, y):
    dz = broadcast_like(dt, y)


@reverse_rule(runtime.broadcast_like, name="s2sad.runtime.broadcast_like")
def broadcast_like(z, t, y):
    bt += unbroadcast(bz, t)


@forward_rule(runtime.unbroadcast, name="s2sad.runtime.unbroadcast")
def unbroadcast(z, g, x):
    dz = unbroadcast(dg, x)


@reverse_rule(runtime.unbroadcast, name="s2sad.runtime.unbroadcast")
def unbroadcast(z, g, x):
    bg += np.broadcast_to(bz, np.shape(g))


@forward_rule(runtime.unreduce, name="s2sad.runtime.unreduce")
def unreduce(z, g, x, axis=None, keepdims=False):
    dz = unreduce(dg, x, axis, keepdims)


@reverse_rule(runtime.unreduce, name="s2sad.runtime.unreduce")
def unreduce(z, g, x, axis=None, keepdims=False):
    bg += np.reshape(np.sum(bz, axis=axis, keepdims=keepdims), np.shape(g))


@forward_rule(runtime.unmatmul_x, name="s2sad.runtime.unmatmul_x")
def unmatmul_x(z, g, x, y):
    dz = unmatmul_x(dg, x, y) + unmatmul_x(g, x, dy)


@forward_rule(runtime.unmatmul_y, name="s2sad.runtime.unmatmul_y")
def unmatmul_y(z, g, x, y):
    dz = unmatmul_y(dg, x, y) + unmatmul_y(g, dx, y)


@forward_rule(runtime.undot_x, name="s2sad.runtime.undot_x")
def undot_x(z, g, x, y):
    dz = undot_x(dg, x, y) + undot_x(g, x, dy)


@forward_rule(runtime.undot_y, name="s2sad.runtime.undot_y")
def undot_y(z, g, x, y):
    dz = undot_y(dg, x, y) + undot_y(g, dx, y)


@forward_rule(runtime.unextremum, name="s2sad.runtime.unextremum")
def unextremum(z, g, x, y, axis=None, keepdims=False):
    dz = unextremum(dg, x, y, axis, keepdims)


@forward_rule(runtime.unnorm, name="s2sad.runtime.unnorm")
def unnorm(z, g, x, y, axis=None, keepdims=False):
    dz = unnorm(dg, x, y, axis, keepdims) + unnorm(g, dx, y, axis, keepdims) - unnorm(g * dy / y, x, y, axis, keepdims)


@forward_rule(runtime.unconcatenate, name="s2sad.runtime.unconcatenate")
def unconcatenate(z, g, xs, axis=0):
    dz = unconcatenate(dg, xs, axis)


@forward_rule(runtime.unstack, name="s2sad.runtime.unstack")
def unstack(z, g, axis=0):
    dz = unstack(dg, axis)


@reverse_rule(runtime.unstack, name="s2sad.runtime.unstack")
def unstack(z, g, axis=0):
    bg += np.stack(bz, axis)


@forward_rule(runtime.unsqueeze, name="s2sad.runtime.unsqueeze")
def unsqueeze(z, g, x):
    dz = unsqueeze(dg, x)


@reverse_rule(runtime.unsqueeze, name="s2sad.runtime.unsqueeze")
def unsqueeze(z, g, x):
    bg += np.reshape(bz, np.shape(g))


@forward_rule(runtime.untranspose, name="s2sad.runtime.untranspose")
def untranspose(z, g, axes=None):
    dz = untranspose(dg, axes)


@reverse_rule(runtime.untranspose, name="s2sad.runtime.untranspose")
def untranspose(z, g, axes=None):
    bg += np.transpose(bz, axes)


@forward_rule(runtime.unsum_items, name="s2sad.runtime.unsum_items")
def unsum_items(z, g, items):
    dz = unsum_items(dg, items)
