"""Runtime helpers for the NumPy rules: adjoints of shape operations, sorting, indexing and
cumulative reductions that no single NumPy expression says well (see s2sad/runtime/__init__.py).

Each takes the adjoint (or tangent) ``g`` first and returns a value shaped like the input it
belongs to; all are plain NumPy.
"""

from __future__ import annotations

import math

import numpy as np

from .trees import _refusal

__all__ = [
    "match_complex",
    "abs_sign",
    "is_inexact",
    "cast_part",
    "real_sign",
    "unarray",
    "untake",
    "untake_along_axis",
    "unrepeat",
    "untile",
    "undiag",
    "undiagonal",
    "unpad_array",
    "undiff",
    "ungradient",
    "gradient_spacing_adjoint",
    "gradient_spacing_tangent",
    "gradient_spacing_refused",
    "uncumprod",
    "cumprod_tangent",
    "unhstack",
    "unvstack",
    "undstack",
    "uncolumn_stack",
    "rollaxis_axes",
    "spread_weights",
    "unspread_weights",
]


def match_complex(g, x):
    """``g`` as an adjoint of ``x``: its real part when ``x`` is real, complex when ``x`` is complex (an
    adjoint has its value's kind, so adjoints of complex values can be added into in place)."""
    if not np.iscomplexobj(x):
        return np.real(g)
    return g if np.iscomplexobj(g) else np.asarray(g) + 0j


def abs_sign(x):
    """d|x| as a factor of dx, as JAX and autograd take it (d|x| = Re(abs_sign(x) * dx)): ``sign(x)`` for
    real ``x`` but +1 at 0 and -0.0 (JAX's ``select(x >= 0, 1, -1)``: abs_sign(x)**2 == 1, so the
    derivatives of |x|**2 and |x|*|x| are exact at 0), ``conj(x) / |x|`` for complex ``x`` (0 at 0)."""
    if not np.iscomplexobj(x):
        if isinstance(x, (int, float)) and not isinstance(x, np.generic):
            return 1.0 if x >= 0 else -1.0 if x < 0 else math.nan
        return np.where(x >= 0, 1.0, np.sign(x))
    r = np.abs(x)
    return np.conj(x) / np.where(r == 0, 1.0, r)


def cast_part(g, dtype):
    """The part of a derivative ``g`` that a cast to ``dtype`` keeps (``x.astype(dtype)``, ``np.array(x,
    dtype=dtype)``): all of it for a complex type (or no ``dtype``), its real part for a real floating type
    (NumPy drops a complex value's imaginary part there), none for integers and bools; refused for other
    types.  Linear in ``g``, and its own adjoint."""
    if dtype is None:
        return g
    kind = np.dtype(dtype).kind
    if kind not in "biufc":
        raise _refusal(f"a differentiated value cast to {np.dtype(dtype)} (not a number type) cannot be followed")
    if kind == "c":
        return g
    return np.real(g) * (1.0 if kind == "f" else 0.0)


def real_sign(x):
    """``np.sign(x)`` in derivative code: a step (derivative 0) for real ``x``; of a complex ``x`` it is
    ``x / |x|``, smooth, which s2sad does not differentiate: refused (write ``z / abs(z)``)."""
    if np.iscomplexobj(x):
        raise _refusal("np.sign of a complex value is z / |z|, not a step: write z / abs(z) to differentiate it")
    return np.sign(x)


def is_inexact(dtype):
    """1.0 when values cast to ``dtype`` keep a derivative (floating or complex), 0.0 for integers and bools;
    refused for other types (``astype(str)``: the text holds the value, and ``float(...)`` of it gives it back)."""
    kind = np.dtype(dtype).kind
    if kind not in "biufc":
        raise _refusal(f"a differentiated value cast to {np.dtype(dtype)} (not a number type) cannot be followed")
    return 1.0 if kind in "fc" else 0.0


def _like(g, x):
    """``g`` reshaped to ``x``'s shape, and a float when ``x`` is a Python number."""
    g = np.reshape(g, np.shape(x))
    if isinstance(x, complex):
        return complex(g)
    return float(np.real(g)) if isinstance(x, (float, int)) else match_complex(g, x) if np.iscomplexobj(g) else g


def unarray(g, obj):
    """Adjoint of ``np.array(obj)``: ``g`` split back into ``obj``'s nesting of lists, arrays and floats."""
    if isinstance(obj, (list, tuple)):
        g = np.reshape(g, np.shape(obj))
        return [unarray(gi, oi) for gi, oi in zip(g, obj)]
    return _like(g, obj)


def _scatter(g, a, index):
    """Zeros shaped like ``a`` with ``g`` added at ``index`` (repeated indices add up)."""
    g = np.asarray(g)
    out = np.zeros(np.shape(a), dtype=np.result_type(g.dtype, float))
    np.add.at(out, index, g)
    return out


def untake(g, a, indices, axis=None, mode="raise"):
    """Adjoint of ``np.take(a, indices, axis, mode=mode)``."""
    n = np.size(a) if axis is None else np.shape(a)[axis]
    indices = np.asarray(indices)
    indices = np.clip(indices, 0, n - 1) if mode == "clip" else indices % n
    if axis is None:
        return _scatter(g, np.ravel(a), indices).reshape(np.shape(a))
    axis = axis % np.ndim(a)
    index = (slice(None),) * axis + (indices,)
    return _scatter(g, a, index)


def untake_along_axis(g, a, indices, axis):
    """Adjoint of ``np.take_along_axis(a, indices, axis)``: each element goes back where it came from."""
    g = np.asarray(g)
    if axis is None:
        return _scatter(g, np.ravel(a), np.ravel(indices)).reshape(np.shape(a))
    axis = axis % g.ndim
    shape = np.shape(a)
    index = tuple(
        np.broadcast_to(indices, g.shape) if d == axis else (np.arange(n) % shape[d]).reshape(_along(d, g.ndim))
        for d, n in enumerate(g.shape)
    )
    return _scatter(g, a, index)


def _along(d, ndim):
    return tuple(-1 if k == d else 1 for k in range(ndim))


def unrepeat(g, a, repeats, axis=None):
    """Adjoint of ``np.repeat(a, repeats, axis)``: each element sums the adjoints of its copies."""
    if axis is None:
        return untake(g, a, np.repeat(np.arange(np.size(a)), repeats))
    axis = axis % np.ndim(a)
    return untake(g, a, np.repeat(np.arange(np.shape(a)[axis]), repeats), axis)


def untile(g, a, reps):
    """Adjoint of ``np.tile(a, reps)``: sum the copies."""
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    shape = np.shape(a)
    d = max(len(shape), len(reps))
    shape1 = (1,) * (d - len(shape)) + shape
    reps1 = (1,) * (d - len(reps)) + reps
    g = np.reshape(g, [n for pair in zip(reps1, shape1) for n in pair])
    return _like(np.sum(g, axis=tuple(range(0, 2 * d, 2))), a)


def undiag(g, v, k=0):
    """Adjoint of ``np.diag(v, k)``: the k-th diagonal of ``g`` (``v`` a vector), or ``g`` on it (``v`` a matrix)."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k)
    out = np.zeros(np.shape(v), dtype=np.result_type(g, float))
    i = np.arange(len(g))
    out[i + max(-k, 0), i + max(k, 0)] = g
    return out


def undiagonal(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal(a, offset, axis1, axis2)``: ``g`` written on that diagonal of zeros."""
    out = np.zeros(np.shape(a), dtype=np.result_type(g, float))
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    i = np.arange(np.shape(g)[-1])
    view[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out


_PAD_COPY_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def unpad_array(g, array, pad_width, mode="constant"):
    """Adjoint of ``np.pad(array, pad_width, mode)`` for the modes that copy elements (constant, edge,
    reflect, symmetric, wrap): each element sums the adjoints of its copies."""
    if mode not in _PAD_COPY_MODES:
        raise ValueError(f"s2sad differentiates np.pad in modes {', '.join(_PAD_COPY_MODES)}, not {mode!r}")
    n = np.size(array)
    where = np.arange(n).reshape(np.shape(array))
    where = (
        np.pad(where, pad_width, "constant", constant_values=-1)
        if mode == "constant"
        else np.pad(where, pad_width, mode)
    )
    kept = where >= 0
    return _like(_scatter(np.asarray(g)[kept], np.zeros(n), where[kept]), array)


def undiff(g, a, n=1, axis=-1):
    """Adjoint of ``np.diff(a, n, axis)``: the transpose of differencing, n times."""
    g = np.asarray(g)
    for _ in range(n):
        widths = [(0, 0)] * g.ndim
        before, after = list(widths), list(widths)
        before[axis], after[axis] = (1, 0), (0, 1)
        g = np.pad(g, before) - np.pad(g, after)
    return g


def ungradient(g, f, axis=None, edge_order=1, spacing=1.0):
    """Adjoint of ``np.gradient(f, spacing, axis=axis, edge_order=edge_order)``: along each axis the
    gradient is a matrix ``D`` (the gradient of the identity with the same spacing), so the adjoint is
    ``D.T @ g``."""
    axes = range(np.ndim(f)) if axis is None else (axis,) if np.ndim(axis) == 0 else tuple(axis)
    parts = list(g) if isinstance(g, (list, tuple)) else [g]
    out = np.zeros(np.shape(f))
    for part, ax in zip(parts, axes):
        n = np.shape(f)[ax]
        d = np.gradient(np.eye(n, dtype=np.result_type(spacing, 1.0)), spacing, axis=0, edge_order=edge_order)
        out = out + np.moveaxis(np.tensordot(d.T, np.moveaxis(part, ax, 0), axes=1), 0, ax)
    return out


def DifferentiationError_(text):
    try:
        from s2sad.errors import DifferentiationError
    except ImportError:  # a --standalone module run where s2sad is not installed
        return ValueError(text)
    return DifferentiationError(text)


def _spacing_number(spacing):
    if np.ndim(spacing) != 0:
        raise DifferentiationError_(
            "np.gradient: the derivative with respect to coordinates (an array spacing) is not supported; "
            "use s2sad.stop_gradient on them, or a number spacing"
        )


def gradient_spacing_adjoint(g, y, spacing):
    """Adjoint of the number ``spacing`` of ``y = np.gradient(f, spacing, ...)``: y is linear in
    1 / spacing, so dy/dspacing = -y / spacing."""
    _spacing_number(spacing)
    parts = zip(g, y) if isinstance(y, (list, tuple)) else [(g, y)]
    return -sum(np.sum(np.multiply(a, b)) for a, b in parts) / spacing


def gradient_spacing_refused(spacing):
    """The second derivative of ``np.gradient`` with respect to its spacing: not supported."""
    raise DifferentiationError_(
        "np.gradient: second derivatives with respect to its spacing are not supported; use s2sad.stop_gradient"
    )


def gradient_spacing_tangent(t, y, spacing):
    """Tangent of ``y = np.gradient(f, spacing, ...)`` along the tangent ``t`` of a number spacing."""
    _spacing_number(spacing)
    if isinstance(y, (list, tuple)):
        raise DifferentiationError_("np.gradient over several axes: the tangent of its spacing is not supported")
    return -y * (t / spacing)


def _cumprod_others(a):
    """``m[..., i, j]`` = the product of ``a[..., k]`` for k <= j, k != i (0 where j < i): the Jacobian
    of ``np.cumprod`` along the last axis, exact with zeros."""
    n = np.shape(a)[-1]
    others = np.repeat(a[..., None, :], n, axis=-2)
    i = np.arange(n)
    others[..., i, i] = 1.0
    return np.triu(np.cumprod(others, axis=-1))


def uncumprod(g, a, y, axis=None):
    """Adjoint of ``y = np.cumprod(a, axis)``."""
    a = np.asarray(a)
    flat = axis is None
    x = np.ravel(a) if flat else np.moveaxis(a, axis, -1)
    gm = np.ravel(g) if flat else np.moveaxis(g, axis, -1)
    if np.all(x != 0):
        ym = np.ravel(y) if flat else np.moveaxis(y, axis, -1)
        b = np.flip(np.cumsum(np.flip(gm * ym, -1), -1), -1) / x
    else:
        b = np.einsum("...ij,...j->...i", _cumprod_others(x), gm)
    return b.reshape(a.shape) if flat else np.moveaxis(b, -1, axis)


def cumprod_tangent(t, a, y, axis=None):
    """Tangent of ``y = np.cumprod(a, axis)`` along ``t``."""
    a = np.asarray(a)
    flat = axis is None
    x = np.ravel(a) if flat else np.moveaxis(a, axis, -1)
    tm = np.ravel(t) if flat else np.moveaxis(np.broadcast_to(t, a.shape), axis, -1)
    if np.all(x != 0):
        ym = np.ravel(y) if flat else np.moveaxis(y, axis, -1)
        d = ym * np.cumsum(tm / x, -1)
    else:
        d = np.einsum("...ij,...i->...j", _cumprod_others(x), tm)
    return d if flat else np.moveaxis(d, -1, axis)


def _unjoin(g, xs, axis, promoted):
    """Adjoint of joining ``xs`` along ``axis`` after reshaping each to its ``promoted`` shape."""
    sizes = [s[axis] for s in promoted]
    pieces = np.split(g, np.cumsum(sizes)[:-1], axis=axis)
    return [_like(p, x) for p, x in zip(pieces, xs)]


def unhstack(g, xs):
    """Adjoint of ``np.hstack(xs)``."""
    shapes = [np.shape(np.atleast_1d(x)) for x in xs]
    return _unjoin(g, xs, 0 if len(shapes[0]) == 1 else 1, shapes)


def unvstack(g, xs):
    """Adjoint of ``np.vstack(xs)``."""
    return _unjoin(g, xs, 0, [np.shape(np.atleast_2d(x)) for x in xs])


def undstack(g, xs):
    """Adjoint of ``np.dstack(xs)``."""
    return _unjoin(g, xs, 2, [np.shape(np.atleast_3d(x)) for x in xs])


def uncolumn_stack(g, xs):
    """Adjoint of ``np.column_stack(xs)``: vectors are columns."""
    return _unjoin(g, xs, 1, [np.shape(x) + (1,) if np.ndim(x) < 2 else np.shape(x) for x in xs])


def rollaxis_axes(ndim, axis, start=0):
    """The permutation ``np.rollaxis(a, axis, start)`` applies, as ``np.transpose`` axes."""
    axis, start = axis % ndim, start + ndim if start < 0 else start
    axes = [k for k in range(ndim) if k != axis]
    axes.insert(start - 1 if axis < start else start, axis)
    return tuple(axes)


def spread_weights(a, weights=None, axis=None):
    """The weights of ``np.average(a, axis, weights)`` spread to ``a``'s shape (ones for None)."""
    shape = np.shape(a)
    if weights is None:
        w = np.ones(shape)
    elif np.ndim(weights) == 1 and len(shape) > 1 and axis is not None:
        w = np.broadcast_to(np.reshape(weights, _along(axis % len(shape), len(shape))), shape)
    else:
        w = np.broadcast_to(weights, shape)
    return w


def unspread_weights(g, a, weights, axis=None):
    """The part of ``g`` (shaped like ``a``) that belongs to the weights: summed back to their shape."""
    shape = np.shape(a)
    if np.ndim(weights) == 1 and len(shape) > 1 and axis is not None:
        ax = axis % len(shape)
        return np.sum(g, axis=tuple(k for k in range(len(shape)) if k != ax))
    lead = len(shape) - np.ndim(weights)
    g = np.sum(g, axis=tuple(range(lead))) if lead else g
    axes = tuple(k for k, n in enumerate(np.shape(weights)) if n == 1 and np.shape(g)[k] != 1)
    return _like(np.sum(g, axis=axes, keepdims=True), weights)
