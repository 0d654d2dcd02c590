"""Runtime helpers called by generated derivative code.

Small, dependency-free (numpy only) functions for what no single expression says well: summing an
adjoint back over broadcast dimensions, undoing a reduction, matmul adjoints for any rank.  Each
one is plain enough to be copied into a standalone module (``--standalone``).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from .trees import (
    _is_plain_object,
    _is_zero_number,
    _refusal,
    _refuse_object,
    add_item,
    is_tree,
    tree_add,
    tree_astype,
    tree_zeros,
)

__all__ = [
    "appended_number",
    "expect_no_own",
    "stored",
    "cast_into",
    "broadcast_like",
    "unbroadcast",
    "unreduce",
    "median_weights",
    "norm_moves",
    "over_hypot",
    "hypot_moves",
    "over_std",
    "std_moves",
    "zeros_like",
    "copy_input",
    "updates_in_place",
    "rebinds_a_number",
    "expect_array",
    "expect_numbers",
    "diagonal_index",
    "expect_plain",
    "expect_apart",
    "expect_mutable",
    "expect_field",
    "number_item",
    "last_writes",
    "is_view",
    "unshared",
    "snapshot",
    "tape",
    "astype_of",
    "expect_scalar",
    "real_numbers",
    "real_arrays",
    "add_at",
    "scatter",
    "unmatmul_x",
    "unmatmul_y",
    "undot_x",
    "undot_y",
    "axes_last",
    "axes_back",
    "others_product",
    "unextremum",
    "unconcatenate",
    "unstack",
    "unsqueeze",
    "untranspose",
    "unnorm",
    "unsum_items",
    "add_seq",
    "own",
    "writable",
]


def _shape(x):
    """``np.shape(x)``, without NumPy's dispatch for the common case of an array (a helper is called
    once per statement: its overhead is the overhead of generated code on small arrays)."""
    return x.shape if type(x) is np.ndarray else np.shape(x)


def _ndim(x):
    return x.ndim if type(x) is np.ndarray else np.ndim(x)


def _real_for(g, x):
    """``g`` as an adjoint of ``x``: its real part when ``x`` is real and ``g`` complex (only the real part
    of a real value's adjoint counts: dL = Re(g dx)), else ``g`` itself.  Cheap when nothing changes."""
    if type(g) is np.ndarray:
        if g.dtype.kind != "c" or np.iscomplexobj(x):
            return g
    elif not isinstance(g, (complex, np.complexfloating)) or np.iscomplexobj(x):
        return g
    return g.real


def _as_sequence(x, g):
    """The adjoint of a list or tuple of numbers ``x`` that NumPy read as an array (``a[[1, 2]] = u, v``,
    ``arr + [u, v]``), from that array's adjoint ``g``: a sequence of ``x``'s structure."""
    try:
        g = unbroadcast(g, np.asarray(x, dtype=complex if np.iscomplexobj(x) else float))
    except (ValueError, TypeError):  # (not numbers; an adjoint of another length: x concatenated or repeated)
        g = None
    if g is None or _shape(g) != np.shape(x):
        raise _refusal("concatenating or repeating lists or tuples of differentiated values is not supported")
    return type(x)(_as_sequence(v, gv) if type(v) in (list, tuple) else np.copy(gv)[()] for v, gv in zip(x, g))


def unbroadcast(g, x):
    """Sum ``g`` (shaped like a broadcast result) back to the shape of ``x``; its real part for a real ``x``.
    A container ``x`` (a list, dict, ...) has a container adjoint of its own structure: ``g`` itself."""
    if type(x) is not np.ndarray and not isinstance(x, (float, int, complex, np.generic)) and is_tree(x):
        if type(x) in (list, tuple) and type(g) is np.ndarray:  # NumPy made an array of x (a[i] = u, v)
            return _as_sequence(x, g)
        if isinstance(x, (list, tuple)) and (not isinstance(g, (list, tuple)) or len(g) != len(x)):
            # the adjoint of ``a + b`` or ``a * 2`` on lists is not theirs to keep whole: refuse
            raise _refusal("concatenating or repeating lists or tuples of differentiated values is not supported")
        return g
    shape = _shape(x)
    gshape = _shape(g)
    g = _real_for(g, x)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead > 0:
        g = np.add.reduce(g, axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and lead + i >= 0 and gshape[lead + i] != 1)
    if axes:
        g = np.add.reduce(g, axis=axes, keepdims=True)
    if not shape and isinstance(x, (float, int)):
        return float(g)
    return g if _shape(g) == shape else np.broadcast_to(g, shape)


def broadcast_like(t, y):
    """A tangent ``t`` of an elementwise result ``y`` made of smaller inputs, spread to ``y``'s shape."""
    shape = _shape(y)
    if _shape(t) == shape:
        return t
    return np.broadcast_to(0.0 if type(t) is int else t, shape)  # (the int 0 of a constant: zeros of y's shape)


def unreduce(g, x, axis=None, keepdims=False):
    """Broadcast the adjoint ``g`` of a reduction of ``x`` over ``axis`` back to ``x``'s shape."""
    shape = _shape(x)
    if not shape:  # a reduction of a scalar: the adjoint is a scalar too (a float for a float)
        return g[()] if isinstance(g, np.ndarray) else g
    if axis is not None and not keepdims and _ndim(g):
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        g = np.expand_dims(g, tuple(a % len(shape) for a in axes))
    if isinstance(g, float) and (x.size if type(x) is np.ndarray else np.size(x)) <= _SMALL:
        return np.full(shape, g)  # cheaper than a broadcast view for small arrays
    return np.broadcast_to(g, shape)


_SMALL = 4096


def zeros_like(x):
    """A zero adjoint for ``x``: ``0.0`` for Python scalars, a float array of ``x``'s shape otherwise."""
    if x is None or isinstance(x, (float, int)):
        return 0.0
    if isinstance(x, complex):
        return 0j
    if isinstance(x, list) or type(x) is tuple:
        return [_zeros_item(v) for v in x]
    if is_tree(x):  # a dict, NamedTuple or dataclass: zeros of its structure
        return tree_zeros(x, _zeros_item)
    if isinstance(x, (str, bytes)) or callable(x):
        return None  # a part of a container that is not a number: no derivative
    if type(x) is not np.ndarray and _is_plain_object(x):
        _refuse_object(x)
    x = np.asarray(x)
    return np.zeros(x.shape, dtype=x.dtype if x.dtype.kind in "fc" else float)


def astype_of(g, x):
    """The derivative ``g`` with the type of the argument ``x`` it belongs to: a float for a Python
    float or int, a complex for a complex, an array of ``x``'s dtype (float64 for an integer array) for an
    array, 0-d arrays included.  A real ``x`` keeps the real part of ``g``: its imaginary part is the
    derivative along directions a real argument cannot move in."""
    if type(x) is float:  # the common scalar case first: no NumPy call for a float derivative
        return g if type(g) is float else float(np.real(g))
    if type(x) is np.ndarray:
        dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(float)
        if type(g) is np.ndarray and g.dtype == dtype:
            return g
        if dtype.kind != "c" and np.iscomplexobj(g):
            g = np.real(g)
        if x.ndim and not np.ndim(g) and g == 0:  # (a symbolic zero: a list item overwritten, ps[1] = x)
            return np.zeros(x.shape, dtype=dtype)
        return np.asarray(g, dtype=dtype)
    if is_tree(x):  # a container: its structure and type, each part typed like the argument's
        return tree_astype(g, x, astype_of)
    if isinstance(x, bool) or not isinstance(x, (int, float, complex, np.generic)):
        if _is_plain_object(x):
            _refuse_object(x)
        return g  # None, strings: no derivative
    if isinstance(x, complex) or (isinstance(x, np.generic) and np.iscomplexobj(x)):
        return type(x)(g) if isinstance(x, np.generic) else complex(g)
    g = np.real(g)
    if isinstance(x, np.floating):
        return type(x)(g)
    return float(g)


def _zeros_item(v):
    """The zero adjoint of an item of a container: a list of zeros for a nested list (an adjoint list
    pops its items' adjoints, which are lists again), zeros of its structure for a container."""
    return zeros_like(v)


def expect_scalar(value, function):
    """grad needs a real scalar output; say what to use otherwise (a complex output's gradient would be
    that of its real part, None's zeros: both refused)."""
    if isinstance(value, float):
        return
    if value is None:
        raise _refusal(
            f"grad needs a real scalar output; {function} returns None (a missing `return`?): return the "
            "number to differentiate"
        )
    if is_tree(value):
        raise _refusal(
            f"grad needs a scalar output; {function} returns a {type(value).__name__}: return one number "
            "(s2sad has no has_aux), or use s2sad.vjp with a seed of the same structure, or s2sad.jacobian"
        )
    if np.iscomplexobj(value):
        raise _refusal(
            f"grad needs a real scalar output; {function} returns a complex value: differentiate a real "
            "function of it (np.real, np.imag, np.abs, ...), or use s2sad.vjp with a complex seed, or "
            "s2sad.jvp"
        )
    if np.ndim(value) != 0:
        raise _refusal(
            f"grad({function}) needs {function} to return a scalar, but it returned an array of shape "
            f"{np.shape(value)}; use s2sad.vjp with a seed of that shape, or s2sad.jacobian"
        )


def real_numbers(*values) -> bool:
    """Whether every value is a real number (``float``, ``int``, ``bool``, a NumPy real scalar; not a
    subclass): what grad's proof that f's output is a real number assumed of these arguments."""
    return all(_real_number(v) for v in values)


def real_arrays(*values) -> bool:
    """Whether every value is a real number or an ``np.ndarray`` (not a subclass) of a real dtype."""
    return all(_real_number(v) or type(v) is np.ndarray and v.dtype.kind in "biuf" for v in values)


def _real_number(v) -> bool:
    t = type(v)
    return t in (float, int, bool) or issubclass(t, np.generic) and t is np.dtype(t).type and np.dtype(t).kind in "biuf"


def add_at(g, index, v):
    """``g[index] += v`` where repeated indices accumulate (fancy indexing) and ``g`` is owned (a real
    ``g`` belongs to a real value: it takes the real part of ``v``); returns ``g`` (generated code
    writes ``bx = add_at(bx, i, v)``, so differentiating it again sees a value).  A container ``g``
    (the adjoint of a list, dict, NamedTuple or dataclass) is not written into: a copy with ``v`` added
    at ``index`` (a key, a position or a field's name) is returned."""
    if type(g) is np.ndarray:
        if type(index) is int:
            g[index] += _real_for(v, g)
            return g
        v = _real_for(v, g)
    elif is_tree(g):
        return add_item(g, index, v)
    if type(index) is str:  # (an attribute read of an object that is an array when the code runs: a.base)
        raise _refusal(f"the attribute or field `{index}` of an array has no derivative rule")
    if _is_basic(index):
        g[index] += v
    else:
        np.add.at(g, index, v)
    return g


def scatter(v, like, index):
    """Zeros shaped like ``like`` with ``v`` added at ``index`` (repeated indices add up): ``add_at``
    without writing into anything, for the tangent of ``add_at`` (so, like ``add_at``, the real part of
    ``v`` when ``like`` is real)."""
    if is_tree(like):
        return add_item(zeros_like(like), index, v)
    v = np.asarray(_real_for(v, like))
    out = np.zeros(_shape(like), dtype=np.result_type(v.dtype, float))
    np.add.at(out, index, v)
    return out


def _is_basic(index):
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, (slice, int, np.integer)) for p in parts)


def _matmul_promote(x, y, g):
    """Views of x, y, g as >=2-d operands of matmul (1-d operands gain the axis matmul gives them)."""
    x2 = x[None, :] if np.ndim(x) == 1 else x
    y2 = y[:, None] if np.ndim(y) == 1 else y
    g2 = np.asarray(g)
    if np.ndim(y) == 1:
        g2 = np.expand_dims(g2, -1)
    if np.ndim(x) == 1:
        g2 = np.expand_dims(g2, -2)
    return np.asarray(x2), np.asarray(y2), g2


def unmatmul_x(g, x, y):
    """Adjoint of ``x`` in ``x @ y``."""
    if _ndim(x) == 2 and _ndim(y) == 2:
        return _real_for(g @ y.T, x)
    x2, y2, g2 = _matmul_promote(x, y, g)
    bx = unbroadcast(g2 @ np.swapaxes(y2, -1, -2), x2)
    return bx.reshape(np.shape(x))


def unmatmul_y(g, x, y):
    """Adjoint of ``y`` in ``x @ y``."""
    if _ndim(x) == 2 and _ndim(y) == 2:
        return _real_for(x.T @ g, y)
    x2, y2, g2 = _matmul_promote(x, y, g)
    by = unbroadcast(np.swapaxes(x2, -1, -2) @ g2, y2)
    return by.reshape(np.shape(y))


def undot_x(g, x, y):
    """Adjoint of ``x`` in ``np.dot(x, y)`` (any ranks, scalars included)."""
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * y, x)
    if np.ndim(y) == 1:
        return _real_for(np.multiply.outer(g, y), x)
    axes_g = list(range(np.ndim(x) - 1, np.ndim(g)))
    axes_y = list(range(np.ndim(y) - 2)) + [np.ndim(y) - 1]
    return _real_for(np.tensordot(g, y, axes=(axes_g, axes_y)), x)


def undot_y(g, x, y):
    """Adjoint of ``y`` in ``np.dot(x, y)`` (any ranks, scalars included)."""
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * x, y)
    lead = list(range(np.ndim(x) - 1))
    by = _real_for(np.tensordot(x, g, axes=(lead, lead)), y)
    return by if np.ndim(y) == 1 else np.moveaxis(by, 0, -2)


def _axes(x, axis):
    """``axis`` of a reduction of ``x`` as a tuple of non-negative axes (every axis for None)."""
    nd = _ndim(x)
    if axis is None:
        return tuple(range(nd))
    return tuple(a % nd for a in ((axis,) if np.ndim(axis) == 0 else axis))


def axes_last(x, axis=None):
    """``x`` with the axes of a reduction along ``axis`` (all for None) moved last and merged into one:
    shape ``(kept..., n)``.  Linear; ``axes_back`` is its inverse (and its transpose)."""
    x = np.asarray(x)
    axes = _axes(x, axis)
    last = tuple(range(x.ndim - len(axes), x.ndim))
    moved = np.moveaxis(x, axes, last) if axes != last else x
    return moved.reshape(moved.shape[: x.ndim - len(axes)] + (math.prod(moved.shape[x.ndim - len(axes) :]),))


def axes_back(m, x, axis=None):
    """The inverse of ``axes_last(x, axis)``: ``m`` (shaped ``(kept..., n)``) back in ``x``'s shape."""
    shape = _shape(x)
    axes = _axes(x, axis)
    kept = [n for i, n in enumerate(shape) if i not in axes]
    moved = np.reshape(m, tuple(kept) + tuple(shape[a] for a in axes))
    last = tuple(range(len(shape) - len(axes), len(shape)))
    return np.moveaxis(moved, last, axes) if axes != last else moved


def others_product(m):
    """``p[..., i]``: the product of the other elements ``m[..., k]``, k != i, along the last axis (the
    adjoint factor of ``np.prod``), exact with zeros (no division where ``m`` has one)."""
    m = np.asarray(m)
    if np.all(m != 0):
        return np.prod(m, axis=-1, keepdims=True) / m
    return _prod_others(m, -1)


def _prod_others(x, axis):
    """For each element, the product of all others along ``axis`` (no division)."""
    x = np.moveaxis(x, axis, -1)
    ones = np.ones(x.shape[:-1] + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, x[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, x[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return np.moveaxis(left * right, -1, axis)


def unextremum(g, x, y, axis=None, keepdims=False):
    """Adjoint of ``np.max``/``np.min``: split equally among the tied extreme elements."""
    if axis is not None and not keepdims:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(a % np.ndim(x) for a in axes)
        y = np.expand_dims(y, axes)
        g = np.expand_dims(g, axes) if np.ndim(g) else g
    mask = np.asarray(x) == y
    count = np.add.reduce(mask, axis=axis, keepdims=True)
    return mask * (g / count)


def unconcatenate(g, xs, axis=0):
    """Split the adjoint of ``np.concatenate(xs, axis)`` into one piece per input."""
    if axis is None:
        sizes = [np.size(x) for x in xs]
        return [p.reshape(np.shape(x)) for p, x in zip(np.split(g, np.cumsum(sizes)[:-1]), xs)]
    sizes = [np.shape(x)[axis] for x in xs]
    return np.split(g, np.cumsum(sizes)[:-1], axis=axis)


def unstack(g, axis=0):
    """Split the adjoint of ``np.stack(xs, axis)`` into one piece per input."""
    return list(np.moveaxis(g, axis, 0))


def unsqueeze(g, x):
    """Reshape the adjoint of a shape-only operation back to ``x``'s shape."""
    return np.reshape(g, np.shape(x))


def untranspose(g, axes=None):
    """Adjoint of ``np.transpose(x, axes)``."""
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort(axes))


def unnorm(g, x, y, axis=None, keepdims=False):
    """Adjoint of the 2-norm / Frobenius norm ``y = np.linalg.norm(x, axis=axis)``: ``Re(g) conj(x) / y``
    (0 at ``y == 0``); the norm is real, so only the real part of its adjoint counts."""
    y = unreduce(y, x, axis, keepdims)
    safe = np.where(y == 0, 1.0, y)
    if np.iscomplexobj(x):
        g, x = np.real(g), np.conj(x)
    return unreduce(g, x, axis, keepdims) * np.where(y == 0, 0.0, x / safe)


def over_std(g, y, n):
    """``Re(g) / y`` for the adjoint ``g`` of a standard deviation ``y`` of ``n`` values each; 0 where ``y`` is 0
    (a constant slice: np.std has no derivative there unless ``n`` is 1, where it is constant)."""
    return np.real(g) / np.where(y == 0, np.inf, y)


def std_moves(t, y, n):
    """``t``, after checking that no standard deviation ``y`` of ``n > 1`` values is 0: there ``(a - mean) / y``
    has no limit, so a second derivative through np.std's adjoint is refused (``hessian(np.std(x) ** 2)`` at a
    constant ``x`` included: its limit is not local)."""
    if np.all(np.asarray(n) > 1) and np.any(np.asarray(y) == 0):
        raise _refusal("np.std has no second derivative where the standard deviation is 0 (a constant slice)")
    return t


def norm_moves(t, x, y, axis=None, keepdims=False):
    """``t`` (a tangent or adjoint of ``unnorm``'s ``x`` argument), after checking that no norm
    ``y`` is 0: there ``x / |x|`` (the gradient of the norm) has no derivative, so a second derivative through
    it is refused (``hessian(lambda x: np.linalg.norm(x) ** 2)`` at 0 included: its limit is not local)."""
    yy = unreduce(y, x, axis, keepdims)
    if np.any(np.asarray(yy) == 0):  # (also where t is 0: norm([s*s, s*s]) = sqrt(2) s**2 curves at 0)
        raise _refusal("np.linalg.norm has no second derivative where the norm is 0 (x / |x| has no limit there)")
    return t


def over_hypot(x, z):
    """``x / z`` for a coordinate ``x`` of a length ``z = hypot(x, ...)`` (elementwise, broadcast): the slope of
    the length along ``x``, 0 where ``z`` is 0 (the zero vector, where ``x`` is 0 too: np.linalg.norm's
    convention, so ``hypot(x, 0)`` has gradient 0 at 0 and ``hypot(x - x, 0)`` an exact 0)."""
    z = np.asarray(z)
    return np.where(z == 0, 0.0, np.asarray(x) / np.where(z == 0, 1.0, z))[()]


def hypot_moves(t, z):
    """``t`` (a tangent or adjoint of ``over_hypot``'s ``x``), after checking that no length ``z`` is 0: there
    ``x / |x|`` has no limit, so a second derivative of a length at the zero vector is refused, also where
    ``t`` is 0 (``hypot(s * s, s * s) = sqrt(2) s**2`` has a zero tangent at ``s = 0`` but curvature; as np.std)."""
    if np.any(np.asarray(z) == 0):
        raise _refusal("a length (math.hypot, math.dist, np.hypot) has no second derivative at the zero vector")
    return t


def unsum_items(g, items):
    """Adjoint of the builtin ``sum(items)``: every item (or row of an array) receives ``g``."""
    if isinstance(items, (list, tuple)):
        return [unbroadcast(g, v) for v in items]
    return unreduce(g, items, 0)


def add_seq(a, b):
    """Accumulate adjoints of lists/tuples element by element (a number for either is a zero: a
    tangent of ``add_seq`` with one zero operand; an array for either, the adjoint of a tuple of
    numbers, adds its items)."""
    if _is_zero_number(a) or a is None:
        return list(b)
    if _is_zero_number(b) or b is None:
        return list(a)
    return [tree_add(p, q) for p, q in zip(a, b)]  # an array for either: its rows


def copy_input(x):
    """A private copy of an argument that the function writes into: arrays and lists are copied (lists
    element by element), and so are tuples, NamedTuples, dataclasses and other user objects holding
    arrays (``m.w``), so derivative code never changes the caller's data."""
    return _private(x, {})


_NOT_DATA = ("numpy", "s2sad", "math", "builtins", "scipy", "typing", "abc", "enum", "collections", "functools")


def _private(x, memo):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (str, bytes, int, float, complex, np.generic)) or x is None:
        return x
    if id(x) in memo:  # shared inside the argument (or a cycle): shared in the copy
        return memo[id(x)]
    if isinstance(x, list):
        out = memo[id(x)] = []
        out.extend(_private(v, memo) for v in x)
        return out
    if isinstance(x, dict):
        out = memo[id(x)] = {}
        out.update((k, _private(v, memo)) for k, v in x.items())
        return out
    if isinstance(x, tuple):
        items = [_private(v, memo) for v in x]
        if all(a is b for a, b in zip(items, x)):
            return x
        return tuple(items) if type(x) is tuple else type(x)._make(items) if hasattr(x, "_make") else x
    if (getattr(type(x), "__module__", "") or "").split(".")[0] in _NOT_DATA or isinstance(x, type):
        return x
    fields = dict(getattr(x, "__dict__", None) or {})  # an object: its attributes and slots
    for cls in type(x).__mro__:
        slots = vars(cls).get("__slots__", ())
        fields.update({k: getattr(x, k) for k in ((slots,) if isinstance(slots, str) else slots) if hasattr(x, k)})
    fields.pop("__dict__", None)
    fields.pop("__weakref__", None)
    try:
        out = copy.copy(x)
    except Exception:  # noqa: BLE001 -- a __getattr__ reading what the new object does not hold yet (recursion,
        # or a KeyError for __getstate__ on Python 3.10): the attributes themselves, copied
        out = object.__new__(type(x))
        vars(out).update(vars(x))
    memo[id(x)] = out
    changed = False
    for k, v in fields.items():
        new = _private(v, memo)
        if new is not v:
            object.__setattr__(out, k, new)  # (also a frozen dataclass)
            changed = True
    if not changed:
        memo[id(x)] = x
        return x
    return out


def number_item(x, what):
    """``x``, a list's item ``what`` about to be augmented (``what op= v``), checked to be a number (which
    ``op=`` rebinds); an array there, which other names may share, is refused (``op=`` would write into all)."""
    if isinstance(x, (int, float, complex, np.number)):
        return x
    raise _refusal(f"`{what} op= v` writes into an array that other values may share; write `{what} = {what} op v`")


def updates_in_place(x):
    """Whether ``x += v`` changes ``x``'s memory (an array) or rebinds ``x`` (a number), as Python decides."""
    if isinstance(x, np.ndarray):
        return True
    if isinstance(x, (int, float, complex, np.number)):
        return False
    raise _refusal(f"+= on a {type(x).__name__} that another name shares is not supported; write x = x + v")


def expect_array(x, message):
    """Nothing for a NumPy array ``x``; otherwise the refusal ``message`` at the user's line (generated code
    followed a slice of ``x`` as a view of its memory)."""
    if type(x) is not np.ndarray:
        raise _refusal(message)


def diagonal_index(a, val):
    """The index of what ``np.fill_diagonal(a, val)`` writes (without ``wrap``): ``a[i, i, ...]`` for ``i`` below
    the shortest axis (NumPy wants all axes equal beyond two).  A ``val`` of another size than one or the
    diagonal's, which NumPy repeats cyclically, is refused."""
    shape = np.shape(a)
    if len(shape) < 2 or len(shape) > 2 and len(set(shape)) != 1:
        raise _refusal("np.fill_diagonal needs an array of at least 2 axes, all of the same length beyond 2")
    k = min(shape)
    if np.size(val) not in (1, k):
        raise _refusal(f"np.fill_diagonal with {np.size(val)} values for a diagonal of {k} (NumPy repeats them)")
    return (np.arange(k),) * len(shape)


def expect_numbers(x, message):
    """Nothing for a number or a NumPy array of numbers (its items are numbers: a write into another
    object's items changes none of it); otherwise the refusal ``message`` at the user's line."""
    if not (isinstance(x, (int, float, complex, np.number)) or type(x) is np.ndarray and x.dtype.kind in "biufc"):
        raise _refusal(message)


def expect_no_own(x, method, message):
    """Nothing unless ``x`` is an object of a user class defining ``method`` (``__round__`` for
    ``round(x)``, ``__float__`` for ``math.sin(x)``), which Python calls there: s2sad's rule is a number's."""
    klass = next((k for k in type(x).__mro__ if method in vars(k)), None)
    if klass is not None and klass.__module__.split(".")[0] not in ("builtins", "numpy"):
        raise _refusal(
            f"{message} of an object of class {type(x).__qualname__}, which defines its own {method}: s2sad's "
            f"rule is for a number, not this object's method; call its {method}() in f (a method s2sad reads), "
            "or build the object in f where its class is named"
        )


def expect_plain(x, message):
    """Nothing when ``x`` has the operators and container methods of a number, a NumPy array, a list, a
    tuple or a dict (what s2sad's rules differentiate); otherwise the refusal ``message`` at the user's
    line, with why: ``x`` came from code s2sad does not differentiate (a user function called on
    constants), and an object with its own ``__rmul__`` would be taken for a number."""
    plain = (float, int, bool, complex, str, type(None), slice, np.ndarray, np.float64, np.float32, np.int64)
    if type(x) in plain:
        return
    try:
        from s2sad.foreign import value_refusal
    except ImportError:  # a --standalone module: anything else is refused
        plain = (
            isinstance(x, np.generic)
            or type(x) in (list, tuple, dict)
            and all(type(v) in plain or isinstance(v, np.generic) for v in (x.values() if type(x) is dict else x))
        )
        why = "" if plain else f"a {type(x).__qualname__}, not a number, an array, a list, a tuple or a dict"
    else:
        why = value_refusal(x)
    if why:
        raise _refusal(
            f"{message}, here {why}: s2sad's rule is for NumPy's and Python's own operation, not this value's; "
            "write the operation out in a function s2sad reads, pass np.asarray(...), or wrap the value in "
            "s2sad.stop_gradient where it needs no derivative"
        )


def expect_apart(x, a, message):
    """Nothing when ``x`` keeps its value through a write into the array ``a`` (a number, or an array
    sharing no memory with ``a``); otherwise the refusal ``message`` at the user's line.  A derivative
    differentiated again checks this for ``t = b[i]`` of a ``b`` since rebound (``x1 = x1_stack.pop()``),
    which may share ``a``'s memory by no exact relation."""
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return
    if isinstance(x, np.ndarray) and isinstance(a, np.ndarray) and not np.may_share_memory(x, a):
        return
    raise _refusal(message)


def expect_mutable(a, message):
    """Nothing unless ``a`` is a tuple: a write into a value read out of it (``v = xs[0]; v *= 2``) goes back
    into its item, which a tuple cannot take; the refusal ``message`` at the user's line."""
    if isinstance(a, tuple):
        raise _refusal(message)


def expect_field(x, field, message):
    """Nothing when ``x`` is a NamedTuple or dataclass with the field ``field``; otherwise the refusal
    ``message`` at the user's line (generated code followed ``w = x.field`` as that field)."""
    import dataclasses

    if isinstance(x, tuple) and field in getattr(type(x), "_fields", ()):
        return
    if dataclasses.is_dataclass(x) and not isinstance(x, type) and field in {f.name for f in dataclasses.fields(x)}:
        return
    raise _refusal(message)


def rebinds_a_number(x, message):
    """True when ``x += v`` rebinds ``x`` (a Python number); for an array (whose memory the generated code
    cannot follow there), the refusal ``message`` at the user's line."""
    if updates_in_place(x):
        raise _refusal(message)
    return True


def snapshot(x):
    """The values of ``x`` now, for the tape: an array copied (later writes into its memory do not
    reach the copy), a list or tuple item by item, a number as it is."""
    if isinstance(x, np.ndarray):
        return x.copy()
    if type(x) in (list, tuple):
        return type(x)(snapshot(v) for v in x)
    return x


def tape():
    """A new, empty list for the reverse sweep's saved values (``z_stack = tape()``).  Generated code
    pushes onto it in the primal sweep and pops in the adjoint sweep, after restoring every array
    written in between: a value popped holds what it held when it was pushed, even when it is a view
    of an array written since.  The alias analysis relies on that for the lists this function makes."""
    return []


def unshared(g, *inputs):
    """``g``, or a copy of it when it shares memory with one of the derivative ``inputs`` (tangents,
    seeds): a derivative handed back never lets the caller change what they passed in."""
    if type(g) in (list, tuple):
        return type(g)(unshared(v, *inputs) for v in g)
    if isinstance(g, np.ndarray) and any(isinstance(p, np.ndarray) and np.may_share_memory(g, p) for p in inputs):
        return g.copy()
    return g


def is_view(x, a, index=None, refusal=None):
    """Whether ``x``, read out of ``a`` with integer indices (``x = a[i]``), is a view of it (an array
    read out of an array, which shows later writes into ``a``) rather than a number copied out of an
    array or an item of a list (which keep their values when ``a[i]`` is assigned); also ``x`` that was
    read out of ``a`` on some paths only and holds an array of its own on the others (no shared memory).
    With ``index`` (a write into ``x`` going back to ``a[index]``): whether ``x`` holds the memory of
    ``a[index]``, an array item of a list, tuple or dict ``a`` too (``v = xs[0]; v *= 2`` writes into it);
    ``refusal`` (derivative code differentiated again, where such an item is a copy): refused for an array."""
    if index is not None and not isinstance(a, np.ndarray):  # a list's, a tuple's, a dict's item, or an object's
        if refusal is not None and isinstance(x, np.ndarray):  # (derivative code: a list's item is a copy there)
            raise _refusal(refusal)
        try:
            item = a[index]
        except (IndexError, KeyError, TypeError):
            return False
        if item is x and isinstance(x, (list, dict, tuple)):  # p["n"] of p["n"]["b"] *= v: a container's container
            raise _refusal(
                "an in-place write into an array inside a dict or list that another dict or list holds (p['n']['b'] "
                "*= v, then p read again) is not supported; write into a copy and store it (p['n']['b'] = new)"
            )
        return isinstance(x, np.ndarray) and isinstance(item, np.ndarray) and np.may_share_memory(x, item)
    return isinstance(a, np.ndarray) and isinstance(x, np.ndarray) and np.may_share_memory(x, a)


def stored(a, g):
    """The derivative ``g`` of a value written into ``a`` (``a[i] = v``) that the write keeps: ``g``
    itself, or zeros where ``a`` holds integers or bools (the write truncates ``v``). A dict's or a
    list's entry is rebound, whatever it held."""
    if isinstance(a, (dict, list)):
        return g
    kind = np.asarray(a).dtype.kind
    if kind in "fc":
        return g
    if kind == "O":  # an array of Python objects keeps the value itself: not a truncation
        raise _refusal(
            "writing a differentiated value into an array of dtype=object is not supported (its items may be "
            "arrays of any shape); keep the items in a list, or stack them (np.stack(rows))"
        )
    return zeros_like(g)


def cast_into(a, v):
    """``v`` (``a op w``, or a NumPy call's result given ``out=a``) as NumPy keeps it in the array ``a``'s
    memory: cast to ``a``'s dtype (a float32 array stays float32).  Where NumPy raises instead (``v``'s
    shape does not broadcast into ``a``'s; ``v``'s dtype does not cast to ``a``'s with casting='same_kind':
    floats into an integer array, complex values into a real one), the refusal at the user's line.
    ``v`` itself when ``a`` is not an array (a number, which ``op=`` rebinds)."""
    if type(a) is not np.ndarray:
        return v
    shape, dtype = np.shape(v), np.result_type(v)
    try:
        fits = np.broadcast_shapes(shape, a.shape) == a.shape
    except ValueError:
        fits = False
    if not fits:
        raise _refusal(
            f"NumPy raises here (ValueError): the result, of shape {shape}, does not fit the array of shape "
            f"{a.shape} it is written into in place; f fails at this line too"
        )
    if dtype == a.dtype:
        return v
    if not np.can_cast(dtype, a.dtype, "same_kind"):
        raise _refusal(
            f"NumPy raises here (UFuncTypeError): the result, of dtype {dtype}, cannot be written in place into "
            f"an array of dtype {a.dtype} (casting='same_kind'); f fails at this line too"
        )
    return v.astype(a.dtype) if type(v) is np.ndarray else a.dtype.type(v)


def last_writes(a, index):
    """For ``a[index] = v``: 1.0 where a position of ``v`` is the last write to its element of ``a``,
    0.0 where a later position writes the same element (NumPy keeps the last write). A dict's entry
    (``d[k] = v``, ``k`` a key) is one write."""
    if isinstance(a, dict):
        return 1.0
    ids = np.arange(np.size(a)).reshape(np.shape(a))[index]
    flat = np.ravel(ids)
    mask = np.zeros(flat.shape)
    _, last = np.unique(flat[::-1], return_index=True)
    mask[flat.size - 1 - last] = 1.0
    return mask.reshape(np.shape(ids))


def writable(t, like=None):
    """A copy of a tangent that the code then writes items into (``dd[k] = ...`` for ``d[k] = ...``): a dict's
    tangent is a dict (a list) of its items' tangents (copied, its items shared: they are replaced, not written into),
    anything else an array (``np.copy``), complex where the value ``like`` is (the tangent of ``u = x + 0j`` is
    ``dx``, real: a complex item written into it would lose its imaginary part)."""
    if isinstance(t, (dict, list)):  # a list's tangent is a list of its items' (hs[0] = v: dhs[0] = dv)
        return copy.copy(t)
    if like is not None and np.iscomplexobj(like) and not np.iscomplexobj(t):
        return np.array(t, dtype=np.result_type(t, like))
    return np.copy(t)


def appended_number(v, what="the item"):
    """``v``, an item ``a[i]`` of an array appended to a list that f then writes into ``a``: a copy (a
    number) when ``a`` has one axis; a row of ``a`` (a view, which the write changes) is refused."""
    if isinstance(v, np.ndarray):
        raise _refusal(
            f"{what} appended to a list is a row of an array with {v.ndim + 1} axes, a view that the later "
            "in-place write into that array changes; append a copy (np.copy(...)) or write into a copy"
        )
    return v


def own(g):
    """A copy of an adjoint that the code then writes into: an array copied, a list (or tuple) of
    adjoints copied item by item into a list (its items may have different shapes)."""
    if isinstance(g, (list, tuple)):
        return [own(v) for v in g]
    if is_tree(g):
        return g  # containers are never written into (add_at copies them)
    return np.array(g)


def median_weights(a, axis=None):
    """The weights ``w`` with ``np.median(a, axis) == np.sum(w * a, axis)`` near ``a``: 1 at the middle element
    of each sorted lane, 1/2 at each of the two middle ones for an even count; ties in np.sort's (stable) order."""
    a = np.asarray(a)
    axes = tuple(range(a.ndim)) if axis is None else ((axis,) if np.ndim(axis) == 0 else tuple(axis))
    axes = tuple(k % max(a.ndim, 1) for k in axes) if a.ndim else ()
    ends = tuple(range(a.ndim - len(axes), a.ndim))
    moved = np.moveaxis(a, axes, ends)
    lanes = moved.reshape(moved.shape[: a.ndim - len(axes)] + (-1,))
    n = lanes.shape[-1]
    order = np.argsort(lanes, axis=-1, kind="stable")
    w = np.zeros(lanes.shape)
    middle = sorted({(n - 1) // 2, n // 2}) if n else []
    for k in middle:
        np.put_along_axis(w, order[..., k : k + 1], 1.0 / len(middle), axis=-1)
    return np.moveaxis(w.reshape(moved.shape), ends, axes)
