"""Operations that move, copy, select or join elements: transposes, reshapes, flips, joins and
splits, sorting, indexing, padding, and array construction.  All are linear in the differentiated
input (sorting and partitioning move elements by a permutation that is locally constant), so each
adjoint moves the elements back, summing where one element was copied to several places."""

import builtins
import operator

import numpy as np

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    astype_of,
    broadcast_like,
    cast_part,
    gradient_spacing_adjoint,
    gradient_spacing_refused,
    gradient_spacing_tangent,
    is_inexact,
    match_complex,
    ndarray_item,
    ndarray_tolist,
    rollaxis_axes,
    scatter,
    spread_weights,
    unarray,
    unbroadcast,
    uncolumn_stack,
    unconcatenate,
    undiag,
    undiagonal,
    undiff,
    undstack,
    ungradient,
    unhstack,
    unpad_array,
    unrepeat,
    unspread_weights,
    unstack,
    untake,
    untake_along_axis,
    untile,
    untranspose,
    unvstack,
)
from .registry import forward_rule, nondifferentiable, reverse_rule

# fmt: off


@reverse_rule(np.transpose)
def transpose(y, a, axes=None):
    ba += untranspose(by, axes)


@forward_rule(np.transpose)
def transpose(y, a, axes=None):
    dy = np.transpose(da, axes)


@reverse_rule(np.reshape)
def reshape(y, a, shape):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.reshape)
def reshape(y, a, shape):
    dy = np.reshape(da, shape)


@reverse_rule(np.ravel)
def ravel(y, a):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.ravel)
def ravel(y, a):
    dy = np.ravel(da)


@reverse_rule(np.squeeze)
def squeeze(y, a, axis=None):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.squeeze)
def squeeze(y, a, axis=None):
    dy = np.squeeze(da, axis)


@reverse_rule(np.expand_dims)
def expand_dims(y, a, axis):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.expand_dims)
def expand_dims(y, a, axis):
    dy = np.expand_dims(da, axis)


@reverse_rule(np.concatenate)
def concatenate(y, arrays, axis=0):
    barrays += unconcatenate(by, arrays, axis)


@forward_rule(np.concatenate)
def concatenate(y, arrays, axis=0):
    dy = np.concatenate(darrays, axis)


@reverse_rule(np.stack)
def stack(y, arrays, axis=0):
    barrays += unstack(by, axis)


@forward_rule(np.stack)
def stack(y, arrays, axis=0):
    dy = np.stack(darrays, axis)


@reverse_rule(np.hstack)
def hstack(y, tup):
    btup += unhstack(by, tup)


@forward_rule(np.hstack)
def hstack(y, tup):
    dy = np.hstack(dtup)


@reverse_rule(np.vstack)
def vstack(y, tup):
    btup += unvstack(by, tup)


@forward_rule(np.vstack)
def vstack(y, tup):
    dy = np.vstack(dtup)


@reverse_rule(np.dstack)
def dstack(y, tup):
    btup += undstack(by, tup)


@forward_rule(np.dstack)
def dstack(y, tup):
    dy = np.dstack(dtup)


@reverse_rule(np.column_stack)
def column_stack(y, tup):
    btup += uncolumn_stack(by, tup)


@forward_rule(np.column_stack)
def column_stack(y, tup):
    dy = np.column_stack(dtup)


# ---- splits: list outputs ------------------------------------------------------------------


@reverse_rule(np.split)
def split(y, ary, indices_or_sections, axis=0):
    bary += np.concatenate(by, axis)


@forward_rule(np.split)
def split(y, ary, indices_or_sections, axis=0):
    dy = np.split(dary, indices_or_sections, axis)


@reverse_rule(np.array_split)
def array_split(y, ary, indices_or_sections, axis=0):
    bary += np.concatenate(by, axis)


@forward_rule(np.array_split)
def array_split(y, ary, indices_or_sections, axis=0):
    dy = np.array_split(dary, indices_or_sections, axis)


@reverse_rule(np.hsplit)
def hsplit(y, ary, indices_or_sections):
    bary += np.hstack(by)


@forward_rule(np.hsplit)
def hsplit(y, ary, indices_or_sections):
    dy = np.hsplit(dary, indices_or_sections)


@reverse_rule(np.vsplit)
def vsplit(y, ary, indices_or_sections):
    bary += np.vstack(by)


@forward_rule(np.vsplit)
def vsplit(y, ary, indices_or_sections):
    dy = np.vsplit(dary, indices_or_sections)


@reverse_rule(np.dsplit)
def dsplit(y, ary, indices_or_sections):
    bary += np.dstack(by)


@forward_rule(np.dsplit)
def dsplit(y, ary, indices_or_sections):
    dy = np.dsplit(dary, indices_or_sections)


# ---- axes ----------------------------------------------------------------------------------


@reverse_rule(np.moveaxis)
def moveaxis(y, a, source, destination):
    ba += np.moveaxis(by, destination, source)


@forward_rule(np.moveaxis)
def moveaxis(y, a, source, destination):
    dy = np.moveaxis(da, source, destination)


@reverse_rule(np.swapaxes)
def swapaxes(y, a, axis1, axis2):
    ba += np.swapaxes(by, axis1, axis2)


@forward_rule(np.swapaxes)
def swapaxes(y, a, axis1, axis2):
    dy = np.swapaxes(da, axis1, axis2)


if hasattr(np, "matrix_transpose"):  # NumPy >= 2.0; also what `a.mT` reads

    @reverse_rule(np.linalg.matrix_transpose)
    @reverse_rule(np.matrix_transpose)
    def matrix_transpose(y, a):
        ba += np.matrix_transpose(by)

    @forward_rule(np.linalg.matrix_transpose)
    @forward_rule(np.matrix_transpose)
    def matrix_transpose(y, a):
        dy = np.matrix_transpose(da)


@reverse_rule(np.rollaxis)
def rollaxis(y, a, axis, start=0):
    ba += untranspose(by, rollaxis_axes(np.ndim(a), axis, start))


@forward_rule(np.rollaxis)
def rollaxis(y, a, axis, start=0):
    dy = np.rollaxis(da, axis, start)


@reverse_rule(np.atleast_1d)
def atleast_1d(y, ary):
    """One array; several (a list out) are not differentiated."""
    bary += unarray(by, ary)


@forward_rule(np.atleast_1d)
def atleast_1d(y, ary):
    dy = np.atleast_1d(dary)


@reverse_rule(np.atleast_2d)
def atleast_2d(y, ary):
    """One array; several (a list out) are not differentiated."""
    bary += unarray(by, ary)


@forward_rule(np.atleast_2d)
def atleast_2d(y, ary):
    dy = np.atleast_2d(dary)


@reverse_rule(np.atleast_3d)
def atleast_3d(y, ary):
    """One array; several (a list out) are not differentiated."""
    bary += unarray(by, ary)


@forward_rule(np.atleast_3d)
def atleast_3d(y, ary):
    dy = np.atleast_3d(dary)


# ---- copies: broadcast, tile, repeat --------------------------------------------------------


@reverse_rule(np.broadcast_to)
def broadcast_to(y, array, shape):
    barray += unbroadcast(by, array)


@forward_rule(np.broadcast_to)
def broadcast_to(y, array, shape):
    dy = np.broadcast_to(darray, shape)


@reverse_rule(np.tile)
def tile(y, A, reps):
    bA += untile(by, A, reps)


@forward_rule(np.tile)
def tile(y, A, reps):
    dy = np.tile(dA, reps)


@reverse_rule(np.repeat)
def repeat(y, a, repeats, axis=None):
    ba += unrepeat(by, a, repeats, axis)


@forward_rule(np.repeat)
def repeat(y, a, repeats, axis=None):
    dy = np.repeat(da, repeats, axis)


@reverse_rule(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0):
    """Modes that copy elements (constant, edge, reflect, symmetric, wrap); a scalar constant_values."""
    g = unpad_array(by, array, pad_width, mode)
    barray += g
    bconstant_values += np.sum(by) - np.sum(g)


@forward_rule(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0):
    dy = match_complex(np.pad(darray, pad_width, mode) + dconstant_values * (1 - np.pad(np.ones(np.shape(array)), pad_width, mode)), y)


# ---- reordering ------------------------------------------------------------------------------


@reverse_rule(np.flip)
def flip(y, m, axis=None):
    bm += np.flip(by, axis)


@forward_rule(np.flip)
def flip(y, m, axis=None):
    dy = np.flip(dm, axis)


@reverse_rule(np.fliplr)
def fliplr(y, m):
    bm += np.fliplr(by)


@forward_rule(np.fliplr)
def fliplr(y, m):
    dy = np.fliplr(dm)


@reverse_rule(np.flipud)
def flipud(y, m):
    bm += np.flipud(by)


@forward_rule(np.flipud)
def flipud(y, m):
    dy = np.flipud(dm)


@reverse_rule(np.rot90)
def rot90(y, m, k=1, axes=(0, 1)):
    bm += np.rot90(by, -k, axes)


@forward_rule(np.rot90)
def rot90(y, m, k=1, axes=(0, 1)):
    dy = np.rot90(dm, k, axes)


@reverse_rule(np.roll)
def roll(y, a, shift, axis=None):
    ba += np.roll(by, np.negative(shift), axis)


@forward_rule(np.roll)
def roll(y, a, shift, axis=None):
    dy = np.roll(da, shift, axis)


@reverse_rule(np.sort)
def sort(y, a, axis=-1, kind=None, order=None):
    """Each element's derivative follows it to its sorted place (ties: in stable order)."""
    ba += untake_along_axis(by, a, np.argsort(a, axis, kind="stable"), axis)


@forward_rule(np.sort)
def sort(y, a, axis=-1, kind=None, order=None):
    dy = np.take_along_axis(da, np.argsort(a, axis, kind="stable"), axis)


@reverse_rule(np.partition)
def partition(y, a, kth, axis=-1, kind="introselect", order=None):
    """Each element's derivative follows it to where np.argpartition puts it."""
    ba += untake_along_axis(by, a, np.argpartition(a, kth, axis), axis)


@forward_rule(np.partition)
def partition(y, a, kth, axis=-1, kind="introselect", order=None):
    dy = np.take_along_axis(da, np.argpartition(a, kth, axis), axis)


# ---- diagonals and triangles -----------------------------------------------------------------


@reverse_rule(np.diag)
def diag(y, v, k=0):
    bv += undiag(by, v, k)


@forward_rule(np.diag)
def diag(y, v, k=0):
    dy = np.diag(dv, k)


@reverse_rule(np.diagonal)
def diagonal(y, a, offset=0, axis1=0, axis2=1):
    ba += undiagonal(by, a, offset, axis1, axis2)


@forward_rule(np.diagonal)
def diagonal(y, a, offset=0, axis1=0, axis2=1):
    dy = np.diagonal(da, offset, axis1, axis2)


@reverse_rule(np.tril)
def tril(y, m, k=0):
    bm += np.tril(by, k)


@forward_rule(np.tril)
def tril(y, m, k=0):
    dy = np.tril(dm, k)


@reverse_rule(np.triu)
def triu(y, m, k=0):
    bm += np.triu(by, k)


@forward_rule(np.triu)
def triu(y, m, k=0):
    dy = np.triu(dm, k)


# ---- differences -----------------------------------------------------------------------------


@reverse_rule(np.diff)
def diff(y, a, n=1, axis=-1):
    """Without prepend/append."""
    ba += undiff(by, a, n, axis)


@forward_rule(np.diff)
def diff(y, a, n=1, axis=-1):
    dy = np.diff(da, n, axis)


@reverse_rule(np.gradient)
def gradient(y, f, spacing=1.0, *, axis=None, edge_order=1):
    """One spacing argument: a number for every axis, or the coordinates along the one axis; a list out
    when f has several axes.  Linear in f; y / spacing for a number spacing."""
    bf += ungradient(by, f, axis, edge_order, spacing)
    bspacing += gradient_spacing_adjoint(by, y, spacing)


@forward_rule(np.gradient)
def gradient(y, f, spacing=1.0, *, axis=None, edge_order=1):
    dy = np.gradient(df, spacing, axis=axis, edge_order=edge_order) + gradient_spacing_tangent(dspacing, y, spacing)


# ---- indexing ----------------------------------------------------------------------------


@reverse_rule(np.take)
def take(y, a, indices, axis=None, out=None, mode="raise"):
    ba += untake(by, a, indices, axis, mode)


@forward_rule(np.take)
def take(y, a, indices, axis=None, out=None, mode="raise"):
    dy = np.take(da, indices, axis, mode=mode)


@reverse_rule(np.take_along_axis)
def take_along_axis(y, arr, indices, axis=-1):
    barr += untake_along_axis(by, arr, indices, axis)


@forward_rule(np.take_along_axis)
def take_along_axis(y, arr, indices, axis=-1):
    dy = np.take_along_axis(darr, indices, axis)


# ---- indexing ----------------------------------------------------------------------------


@reverse_rule(operator.getitem)
def getitem(y, x, index):
    bx[index] += by


@forward_rule(operator.getitem)
def getitem(y, x, index):
    dy = dx[index]


# ---- copies and conversions: the identity on values ----------------------------------------


@reverse_rule(np.copy)
def copy(y, a, order="K"):
    """``order`` sets the memory layout only."""
    ba += by


@forward_rule(np.copy)
def copy(y, a, order="K"):
    dy = np.copy(da)


@reverse_rule(np.ascontiguousarray)
def ascontiguousarray(y, a):
    """The values of ``a`` (at least 1-d: a scalar comes back as one element)."""
    ba += unarray(np.reshape(by, np.shape(a)), a)


@forward_rule(np.ascontiguousarray)
def ascontiguousarray(y, a):
    dy = np.ascontiguousarray(da)


@reverse_rule(np.asfortranarray)
def asfortranarray(y, a):
    ba += unarray(np.reshape(by, np.shape(a)), a)


@forward_rule(np.asfortranarray)
def asfortranarray(y, a):
    dy = np.asfortranarray(da)


@reverse_rule(builtins.float)
def to_float(y, x=0.0):
    bx += by


@forward_rule(builtins.float)
def to_float(y, x=0.0):
    dy = float(dx)


@reverse_rule(np.float64)
def to_float64(y, x=0.0):
    """``np.float64(x)``: the value as a double (an array stays an array)."""
    bx += by


@forward_rule(np.float64)
def to_float64(y, x=0.0):
    dy = np.float64(dx)


@reverse_rule(np.float32)
def to_float32(y, x=0.0):
    bx += by


@forward_rule(np.float32)
def to_float32(y, x=0.0):
    dy = np.float32(dx)


@reverse_rule(runtime.ndarray_item, name="numpy.ndarray.item")
def ndarray_item(y, x):
    """``x.item()`` of a one-element array (desugar spells the method as this call)."""
    bx += np.reshape(by, np.shape(x))


@reverse_rule(runtime.ndarray_item, name="numpy.ndarray.item")
def ndarray_item(y, x, index):
    """``x.item(k)``: the element at flat position ``k``; ``x.item((i, j))``: at ``x[i, j]``."""
    bx += scatter(by, x, index if isinstance(index, tuple) else np.unravel_index(index, np.shape(x)))


@forward_rule(runtime.ndarray_item, name="numpy.ndarray.item")
def ndarray_item(y, x):
    dy = ndarray_item(dx)


@forward_rule(runtime.ndarray_item, name="numpy.ndarray.item")
def ndarray_item(y, x, index):
    dy = ndarray_item(dx, index)


@reverse_rule(runtime.ndarray_tolist, name="numpy.ndarray.tolist")
def ndarray_tolist(y, x):
    """``x.tolist()``: the nested list's adjoint back into ``x``'s shape."""
    bx += np.reshape(np.array(by), np.shape(x))


@forward_rule(runtime.ndarray_tolist, name="numpy.ndarray.tolist")
def ndarray_tolist(y, x):
    dy = ndarray_tolist(dx)


@reverse_rule(np.astype)
def astype(y, x, dtype, copy=True):
    """Casting to an integer or bool type carries no derivative (like floor); to a complex type, all of it;
    to a real floating type, its real part (NumPy drops a complex value's imaginary part)."""
    bx += match_complex(cast_part(by, dtype), x)


@forward_rule(np.astype)
def astype(y, x, dtype, copy=True):
    dy = cast_part(dx, dtype)


@reverse_rule(np.array)
def array(y, object, dtype=None, *, copy=True, ndmin=0):
    """Of an array, or of (nested) lists of arrays and floats; adjoints go back to each element."""
    bobject += unarray(cast_part(by, dtype), object)


@forward_rule(np.array)
def array(y, object, dtype=None, *, copy=True, ndmin=0):
    dy = cast_part(np.array(dobject, ndmin=ndmin), dtype)


@reverse_rule(np.asarray)
def asarray(y, a, dtype=None):
    ba += unarray(cast_part(by, dtype), a)


@forward_rule(np.asarray)
def asarray(y, a, dtype=None):
    dy = cast_part(np.asarray(da), dtype)


# ---- constant arrays of a differentiated value --------------------------------------------------


@reverse_rule(np.full)
def full(y, shape, fill_value, dtype=None):
    bfill_value += unbroadcast(by, fill_value)


@forward_rule(np.full)
def full(y, shape, fill_value, dtype=None):
    dy = np.full(shape, dfill_value)


@reverse_rule(np.full_like)
def full_like(y, a, fill_value, dtype=None):
    """Depends on fill_value only (the values of a give just the shape and dtype)."""
    bfill_value += unbroadcast(by, fill_value)


@forward_rule(np.full_like)
def full_like(y, a, fill_value, dtype=None):
    dy = match_complex(np.full(np.shape(a), dfill_value), y)


@reverse_rule(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, *, axis=0):
    """Without retstep; y = start + t (stop - start) with t = linspace(0, 1)."""
    t = np.linspace(0.0 * start, 1.0 + 0.0 * stop, num, endpoint, axis=axis)
    bstart += unbroadcast(np.sum(by * (1 - t), axis=axis), start)
    bstop += unbroadcast(np.sum(by * t, axis=axis), stop)


@forward_rule(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, *, axis=0):
    dy = np.linspace(dstart, dstop, num, endpoint, axis=axis)


# ---- the runtime helpers these rules call, so derivative code can be differentiated again --------
# Each is linear in the adjoint g it moves (the other arguments give shapes or positions), so its
# tangent applies it to dg and its adjoint is the primal operation it undoes.
nondifferentiable(runtime.is_inexact, name="s2sad.runtime.is_inexact")


@reverse_rule(runtime.cast_part, name="s2sad.runtime.cast_part")
def cast_part(y, g, dtype):
    bg += cast_part(by, dtype)


@forward_rule(runtime.cast_part, name="s2sad.runtime.cast_part")
def cast_part(y, g, dtype):
    dy = cast_part(dg, dtype)
nondifferentiable(runtime.rollaxis_axes, name="s2sad.runtime.rollaxis_axes")


# astype_of(g, x): g with x's type (the real part for a real x, x's dtype); linear in g
@forward_rule(runtime.astype_of, name="s2sad.runtime.astype_of")
def astype_of_(z, g, x):
    dz = astype_of(dg, x)


@reverse_rule(runtime.astype_of, name="s2sad.runtime.astype_of")
def astype_of_(z, g, x):
    bg += astype_of(bz, g)


@forward_rule(runtime.match_complex, name="s2sad.runtime.match_complex")
def match_complex(z, g, x):
    dz = match_complex(dg, x)


@reverse_rule(runtime.match_complex, name="s2sad.runtime.match_complex")
def match_complex(z, g, x):
    bg += match_complex(bz, g)


@forward_rule(runtime.unarray, name="s2sad.runtime.unarray")
def unarray(z, g, obj):
    dz = unarray(dg, obj)


@reverse_rule(runtime.unarray, name="s2sad.runtime.unarray")
def unarray(z, g, obj):
    bg += np.reshape(np.array(bz), np.shape(g))


@forward_rule(runtime.untake, name="s2sad.runtime.untake")
def untake(z, g, a, indices, axis=None, mode="raise"):
    dz = untake(dg, a, indices, axis, mode)


@reverse_rule(runtime.untake, name="s2sad.runtime.untake")
def untake(z, g, a, indices, axis=None, mode="raise"):
    bg += np.take(bz, indices, axis, mode=mode)


@forward_rule(runtime.untake_along_axis, name="s2sad.runtime.untake_along_axis")
def untake_along_axis(z, g, a, indices, axis):
    dz = untake_along_axis(dg, a, indices, axis)


@reverse_rule(runtime.untake_along_axis, name="s2sad.runtime.untake_along_axis")
def untake_along_axis(z, g, a, indices, axis):
    bg += np.take_along_axis(bz, indices, axis)


@forward_rule(runtime.unrepeat, name="s2sad.runtime.unrepeat")
def unrepeat(z, g, a, repeats, axis=None):
    dz = unrepeat(dg, a, repeats, axis)


@reverse_rule(runtime.unrepeat, name="s2sad.runtime.unrepeat")
def unrepeat(z, g, a, repeats, axis=None):
    bg += np.repeat(bz, repeats, axis)


@forward_rule(runtime.untile, name="s2sad.runtime.untile")
def untile(z, g, a, reps):
    dz = untile(dg, a, reps)


@reverse_rule(runtime.untile, name="s2sad.runtime.untile")
def untile(z, g, a, reps):
    bg += np.reshape(np.tile(bz, reps), np.shape(g))


@forward_rule(runtime.undiag, name="s2sad.runtime.undiag")
def undiag(z, g, v, k=0):
    dz = undiag(dg, v, k)


@reverse_rule(runtime.undiag, name="s2sad.runtime.undiag")
def undiag(z, g, v, k=0):
    bg += np.diag(bz, k)


@forward_rule(runtime.undiagonal, name="s2sad.runtime.undiagonal")
def undiagonal(z, g, a, offset=0, axis1=0, axis2=1):
    dz = undiagonal(dg, a, offset, axis1, axis2)


@reverse_rule(runtime.undiagonal, name="s2sad.runtime.undiagonal")
def undiagonal(z, g, a, offset=0, axis1=0, axis2=1):
    bg += np.diagonal(bz, offset, axis1, axis2)


@forward_rule(runtime.unpad_array, name="s2sad.runtime.unpad_array")
def unpad_array(z, g, array, pad_width, mode="constant"):
    dz = unpad_array(dg, array, pad_width, mode)


@reverse_rule(runtime.unpad_array, name="s2sad.runtime.unpad_array")
def unpad_array(z, g, array, pad_width, mode="constant"):
    bg += np.pad(bz, pad_width, mode)


@forward_rule(runtime.undiff, name="s2sad.runtime.undiff")
def undiff(z, g, a, n=1, axis=-1):
    dz = undiff(dg, a, n, axis)


@reverse_rule(runtime.undiff, name="s2sad.runtime.undiff")
def undiff(z, g, a, n=1, axis=-1):
    bg += np.diff(bz, n, axis)


@forward_rule(runtime.ungradient, name="s2sad.runtime.ungradient")
def ungradient(z, g, f, axis=None, edge_order=1, spacing=1.0):
    """(Not differentiated again with respect to the spacing: refused when it runs.)"""
    dz = ungradient(dg, f, axis, edge_order, spacing) + gradient_spacing_refused(dspacing)


@reverse_rule(runtime.ungradient, name="s2sad.runtime.ungradient")
def ungradient(z, g, f, axis=None, edge_order=1, spacing=1.0):
    bg += np.gradient(bz, spacing, axis=axis, edge_order=edge_order)
    bspacing += gradient_spacing_refused(spacing)


@forward_rule(runtime.unhstack, name="s2sad.runtime.unhstack")
def unhstack(z, g, xs):
    dz = unhstack(dg, xs)


@reverse_rule(runtime.unhstack, name="s2sad.runtime.unhstack")
def unhstack(z, g, xs):
    bg += np.hstack(bz)


@forward_rule(runtime.unvstack, name="s2sad.runtime.unvstack")
def unvstack(z, g, xs):
    dz = unvstack(dg, xs)


@reverse_rule(runtime.unvstack, name="s2sad.runtime.unvstack")
def unvstack(z, g, xs):
    bg += np.vstack(bz)


@forward_rule(runtime.undstack, name="s2sad.runtime.undstack")
def undstack(z, g, xs):
    dz = undstack(dg, xs)


@reverse_rule(runtime.undstack, name="s2sad.runtime.undstack")
def undstack(z, g, xs):
    bg += np.dstack(bz)


@forward_rule(runtime.uncolumn_stack, name="s2sad.runtime.uncolumn_stack")
def uncolumn_stack(z, g, xs):
    dz = uncolumn_stack(dg, xs)


@reverse_rule(runtime.uncolumn_stack, name="s2sad.runtime.uncolumn_stack")
def uncolumn_stack(z, g, xs):
    bg += np.column_stack(bz)


@forward_rule(runtime.spread_weights, name="s2sad.runtime.spread_weights")
def spread_weights(z, a, weights=None, axis=None):
    dz = spread_weights(a, dweights, axis)


@reverse_rule(runtime.spread_weights, name="s2sad.runtime.spread_weights")
def spread_weights(z, a, weights=None, axis=None):
    bweights += unspread_weights(bz, a, weights, axis)


@forward_rule(runtime.unspread_weights, name="s2sad.runtime.unspread_weights")
def unspread_weights(z, g, a, weights, axis=None):
    dz = unspread_weights(dg, a, weights, axis)


@reverse_rule(runtime.unspread_weights, name="s2sad.runtime.unspread_weights")
def unspread_weights(z, g, a, weights, axis=None):
    bg += spread_weights(a, bz, axis)


# polyval(p, x) = sum_i p[i] x ** (n - 1 - i): d/dp[i] = x ** (n - 1 - i), d/dx = polyval(polyder(p), x)
@reverse_rule(np.polyval)
def polyval(y, p, x):
    k = np.arange(np.size(p) - 1, -1, -1)
    bp += unarray(np.sum(np.asarray(by)[..., None] * np.asarray(x)[..., None] ** k, axis=tuple(range(np.ndim(by)))), p)
    bx += unbroadcast(by * np.polyval(np.asarray(p)[:-1] * k[:-1], x), x)


@forward_rule(np.polyval)
def polyval(y, p, x):
    dy = np.polyval(dp, x) + dx * np.polyval(np.asarray(p)[:-1] * np.arange(np.size(p) - 1, 0, -1), x)
