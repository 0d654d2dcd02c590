"""Rules for s2sad's own runtime helpers, so that generated derivative code can be differentiated
again (Hessians as forward-over-reverse, ``grad(grad(f))``).  Most helpers are linear in the adjoint
they take (``unbroadcast(g, x)`` sums ``g`` to ``x``'s shape), so their rules call themselves."""

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    add_seq,
    appended_number,
    broadcast_like,
    hypot_moves,
    item_of,
    listed,
    norm_moves,
    over_hypot,
    over_std,
    own,
    scatter,
    std_moves,
    stored,
    tree_add,
    unbroadcast,
    unconcatenate,
    undot_x,
    undot_y,
    unextremum,
    unkron_a,
    unkron_b,
    unmatmul_x,
    unmatmul_y,
    unnorm,
    unpacked_adjoint,
    unpacked_tangent,
    unreduce,
    unsqueeze,
    unstack,
    unsum_items,
    untensordot_a,
    untensordot_b,
    untranspose,
    writable,
)
from .registry import forward_rule, nondifferentiable, reverse_rule

# fmt: off
nondifferentiable(runtime.zeros_like, name="s2sad.runtime.zeros_like")
nondifferentiable(runtime.median_weights, name="s2sad.runtime.median_weights")
nondifferentiable(runtime.expect_scalar, name="s2sad.runtime.expect_scalar")
nondifferentiable(runtime.real_numbers, name="s2sad.runtime.real_numbers")
nondifferentiable(runtime.real_arrays, name="s2sad.runtime.real_arrays")


@forward_rule(runtime.broadcast_like, name="s2sad.runtime.broadcast_like")
def broadcast_like(z, t, y):
    dz = broadcast_like(dt, y)


@reverse_rule(runtime.broadcast_like, name="s2sad.runtime.broadcast_like")
def broadcast_like(z, t, y):
    bt += unbroadcast(bz, t)


@forward_rule(runtime.stored, name="s2sad.runtime.stored")
def stored(z, a, g):
    dz = stored(a, dg)


@reverse_rule(runtime.stored, name="s2sad.runtime.stored")
def stored(z, a, g):
    bg += stored(a, bz)


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


# where y == 0 (x == 0 over the slice) x / |x| has no derivative: norm_moves refuses a moving x there
@forward_rule(runtime.unnorm, name="s2sad.runtime.unnorm")
def unnorm(z, g, x, y, axis=None, keepdims=False):
    ys = np.where(y == 0, 1.0, y)
    dz = (unnorm(dg, x, y, axis, keepdims) + unnorm(g, norm_moves(dx, x, y, axis, keepdims), ys, axis, keepdims)
          - unnorm(g * dy / ys, x, ys, axis, keepdims))


# z = Re(G) conj(x) / Y (0 where Y == 0), G and Y the adjoint g and the norm y spread over x's shape
@reverse_rule(runtime.unnorm, name="s2sad.runtime.unnorm")
def unnorm(z, g, x, y, axis=None, keepdims=False):
    yy = unreduce(y, x, axis, keepdims)
    inverse = np.where(yy == 0, 0.0, 1.0 / np.where(yy == 0, 1.0, yy))
    bg += np.reshape(np.sum(np.real(bz * np.conj(x)) * inverse, axis=axis, keepdims=keepdims), np.shape(g))
    bx += unnorm(g, norm_moves(bz, x, y, axis, keepdims), y, axis, keepdims)
    by -= np.reshape(np.sum(np.real(bz * z) * inverse, axis=axis, keepdims=keepdims), np.shape(y))


# w = x / z (0 where z == 0, where x is 0 too): a moving x there has no limit (hypot_moves refuses)
@forward_rule(runtime.over_hypot, name="s2sad.runtime.over_hypot")
def over_hypot(w, x, z):
    dw = over_hypot(hypot_moves(dx, z), z) - over_hypot(x * dz, z * z)


@reverse_rule(runtime.over_hypot, name="s2sad.runtime.over_hypot")
def over_hypot(w, x, z):
    bx += unbroadcast(over_hypot(hypot_moves(bw, z), z), x)
    bz -= unbroadcast(over_hypot(bw * x, z * z), z)


@forward_rule(runtime.hypot_moves, name="s2sad.runtime.hypot_moves")
def hypot_moves(u, t, z):
    du = hypot_moves(dt, z)


@reverse_rule(runtime.hypot_moves, name="s2sad.runtime.hypot_moves")
def hypot_moves(u, t, z):
    bt += hypot_moves(bu, z)


# z = Re(g) / y (0 where y == 0): where a standard deviation is 0 its adjoint has no derivative (std_moves refuses)
@forward_rule(runtime.over_std, name="s2sad.runtime.over_std")
def over_std(z, g, y, n):
    dz = std_moves(over_std(dg, y, n) - over_std(z * np.real(dy), y, n), y, n)


@reverse_rule(runtime.over_std, name="s2sad.runtime.over_std")
def over_std(z, g, y, n):
    bg += std_moves(unbroadcast(over_std(bz, y, n), g), y, n)
    by -= std_moves(unbroadcast(over_std(np.real(bz) * z, y, n), y), y, n)


@forward_rule(runtime.std_moves, name="s2sad.runtime.std_moves")
def std_moves(z, t, y, n):
    dz = std_moves(dt, y, n)


@reverse_rule(runtime.std_moves, name="s2sad.runtime.std_moves")
def std_moves(z, t, y, n):
    bt += std_moves(bz, y, n)


@forward_rule(runtime.norm_moves, name="s2sad.runtime.norm_moves")
def norm_moves(z, t, x, y, axis=None, keepdims=False):
    dz = norm_moves(dt, x, y, axis, keepdims)


@reverse_rule(runtime.norm_moves, name="s2sad.runtime.norm_moves")
def norm_moves(z, t, x, y, axis=None, keepdims=False):
    bt += norm_moves(bz, x, y, axis, keepdims)


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


# z = add_at(g, index, v) is g with v added at index (g is written in place and returned; a real g takes
# the real part of v, so its adjoint does too: unbroadcast(bz, g) is bz's real part for a real g)
@forward_rule(runtime.add_at, name="s2sad.runtime.add_at")
def add_at(z, g, index, v):
    dz = tree_add(dg, scatter(dv, g, index))


@reverse_rule(runtime.add_at, name="s2sad.runtime.add_at")
def add_at(z, g, index, v):
    bg += bz
    bv += unbroadcast(unbroadcast(item_of(bz, index), item_of(g, index)), v)


@forward_rule(runtime.scatter, name="s2sad.runtime.scatter")
def scatter(z, v, like, index):
    dz = scatter(dv, like, index)


@reverse_rule(runtime.scatter, name="s2sad.runtime.scatter")
def scatter(z, v, like, index):
    bv += unbroadcast(unbroadcast(bz, like)[index], v)


@forward_rule(runtime.writable, name="s2sad.runtime.writable")
def writable(z, t, like=None):
    dz = writable(dt, like)


@reverse_rule(runtime.writable, name="s2sad.runtime.writable")
def writable(z, t, like=None):
    bt += bz


@forward_rule(runtime.appended_number, name="s2sad.runtime.appended_number")
def appended_number(z, v, what="the item"):
    dz = dv


@reverse_rule(runtime.appended_number, name="s2sad.runtime.appended_number")
def appended_number(z, v, what="the item"):
    bv += bz


@forward_rule(runtime.own, name="s2sad.runtime.own")
def own(z, g):
    dz = own(dg)


@reverse_rule(runtime.own, name="s2sad.runtime.own")
def own(z, g):
    bg += bz


# ---- bilinear adjoints: z = dB/dx (g, y) for B(g, x, y) = <g, x @ y>; <bz, z> = B(g, bz, y) ----------


@reverse_rule(runtime.unmatmul_x, name="s2sad.runtime.unmatmul_x")
def unmatmul_x(z, g, x, y):
    bg += unbroadcast(np.matmul(bz, y), g)
    by += unmatmul_y(g, bz, y)


@reverse_rule(runtime.unmatmul_y, name="s2sad.runtime.unmatmul_y")
def unmatmul_y(z, g, x, y):
    bg += unbroadcast(np.matmul(x, bz), g)
    bx += unmatmul_x(g, x, bz)


@reverse_rule(runtime.undot_x, name="s2sad.runtime.undot_x")
def undot_x(z, g, x, y):
    bg += unbroadcast(np.dot(bz, y), g)
    by += undot_y(g, bz, y)


@reverse_rule(runtime.undot_y, name="s2sad.runtime.undot_y")
def undot_y(z, g, x, y):
    bg += unbroadcast(np.dot(x, bz), g)
    bx += undot_x(g, x, bz)


@forward_rule(runtime.untensordot_a, name="s2sad.runtime.untensordot_a")
def untensordot_a(z, g, a, b, axes=2):
    dz = untensordot_a(dg, a, b, axes) + untensordot_a(g, a, db, axes)


@reverse_rule(runtime.untensordot_a, name="s2sad.runtime.untensordot_a")
def untensordot_a(z, g, a, b, axes=2):
    bg += np.tensordot(bz, b, axes)
    bb += untensordot_b(g, bz, b, axes)


@forward_rule(runtime.untensordot_b, name="s2sad.runtime.untensordot_b")
def untensordot_b(z, g, a, b, axes=2):
    dz = untensordot_b(dg, a, b, axes) + untensordot_b(g, da, b, axes)


@reverse_rule(runtime.untensordot_b, name="s2sad.runtime.untensordot_b")
def untensordot_b(z, g, a, b, axes=2):
    bg += np.tensordot(a, bz, axes)
    ba += untensordot_a(g, a, bz, axes)


@forward_rule(runtime.unkron_a, name="s2sad.runtime.unkron_a")
def unkron_a(z, g, a, b):
    dz = unkron_a(dg, a, b) + unkron_a(g, a, db)


@reverse_rule(runtime.unkron_a, name="s2sad.runtime.unkron_a")
def unkron_a(z, g, a, b):
    bg += np.kron(bz, b)
    bb += unkron_b(g, bz, b)


@forward_rule(runtime.unkron_b, name="s2sad.runtime.unkron_b")
def unkron_b(z, g, a, b):
    dz = unkron_b(dg, a, b) + unkron_b(g, da, b)


@reverse_rule(runtime.unkron_b, name="s2sad.runtime.unkron_b")
def unkron_b(z, g, a, b):
    bg += np.kron(a, bz)
    ba += unkron_a(g, a, bz)


# ---- adjoints linear in g with weights that are locally constant or have their own rules ---------


@reverse_rule(runtime.unextremum, name="s2sad.runtime.unextremum")
def unextremum(z, g, x, y, axis=None, keepdims=False):
    bg += unbroadcast(np.sum(unextremum(1.0, x, y, axis, keepdims) * bz, axis=axis, keepdims=keepdims), g)


# z = unreduce(g) * x / unreduce(y) (0 where y == 0)
@reverse_rule(runtime.unconcatenate, name="s2sad.runtime.unconcatenate")
def unconcatenate(z, g, xs, axis=0):
    bg += np.reshape(np.concatenate(bz, axis), np.shape(g))


@reverse_rule(runtime.unsum_items, name="s2sad.runtime.unsum_items")
def unsum_items(z, g, items):
    bg += broadcast_like(sum(bz), g)


@forward_rule(runtime.add_seq, name="s2sad.runtime.add_seq")
def add_seq(z, a, b):
    dz = add_seq(da, db)


@reverse_rule(runtime.add_seq, name="s2sad.runtime.add_seq")
def add_seq(z, a, b):
    ba += bz
    bb += bz


@forward_rule(runtime.unpacked_adjoint, name="s2sad.runtime.unpacked_adjoint")
def unpacked_adjoint(z, parts, x):
    dz = unpacked_adjoint(dparts, x)


@reverse_rule(runtime.unpacked_adjoint, name="s2sad.runtime.unpacked_adjoint")
def unpacked_adjoint(z, parts, x):
    bparts += unpacked_adjoint(bz, parts)


@forward_rule(runtime.listed, name="s2sad.runtime.listed")
def listed(z, g):
    dz = listed(dg)


@reverse_rule(runtime.listed, name="s2sad.runtime.listed")
def listed(z, g):
    bg += unpacked_adjoint(bz, g)


@forward_rule(runtime.unpacked_tangent, name="s2sad.runtime.unpacked_tangent")
def unpacked_tangent(z, dx, x):
    dz = unpacked_tangent(ddx, x)


@reverse_rule(runtime.unpacked_tangent, name="s2sad.runtime.unpacked_tangent")
def unpacked_tangent(z, dx, x):
    bdx += unpacked_adjoint(bz, x)
