"""Runtime helpers for containers (pytrees): dicts, lists, tuples, NamedTuples and dataclasses whose
leaves are numbers and arrays (see s2sad/runtime/__init__.py).

An adjoint or tangent of a container is a container of the same structure.  Generated code never
writes into a container it did not make: ``add_item`` and ``set_item`` return a new container.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

__all__ = [
    "is_tree",
    "tree_add",
    "add_item",
    "set_item",
    "set_tangent",
    "unset_item",
    "item_of",
    "keys_of",
    "zip_length",
    "expect_indexed",
    "copy_dict",
    "copy_of",
    "deep_copy",
    "tree_zeros",
    "tree_astype",
    "tree_size",
    "jacobian_forward_first",
    "unit_tangents",
    "jacobian_of_columns",
    "jacobian_of_rows",
    "columns_of_jacobian",
    "rows_of_jacobian",
]


def _refusal(message):
    """A ``DifferentiationError`` at the user's line (``runtime/refusals.py``); a ``ValueError`` in a
    ``--standalone`` module run where s2sad is not installed."""
    try:
        from s2sad.runtime.refusals import refusal
    except ImportError:
        return ValueError(f"s2sad: {message}")
    return refusal(message)


def is_tree(x) -> bool:
    """Whether ``x`` is a container s2sad differentiates through (not an array, not a number)."""
    return isinstance(x, (dict, list, tuple)) or (dataclasses.is_dataclass(x) and not isinstance(x, type))


def _is_plain_object(x) -> bool:
    """An object that is neither a number, an array (or array-like), a container, a string nor a callable."""
    if x is None or isinstance(x, (str, bytes, int, float, complex, np.ndarray, np.generic)) or callable(x):
        return False
    return not (is_tree(x) or hasattr(x, "__array__") or hasattr(x, "__array_interface__"))


def _refuse_object(x):
    """Raise the refusal of a derivative w.r.t. a plain object, naming the argument of the generated
    function that holds it (found in the calling frames; only on this error path)."""
    import sys

    try:
        from s2sad.errors import DifferentiationError as error
    except ImportError:  # a standalone module: s2sad is not installed
        error = TypeError
    kind = type(x).__qualname__
    what = f"a value is an object of type {kind}"
    frame = sys._getframe(1)
    for _ in range(8):
        frame = frame.f_back
        if frame is None:
            break
        code = frame.f_code
        if code.co_filename.startswith("<s2sad"):
            params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            held = [p for p in params if frame.f_locals.get(p) is x]
            if held:
                what = f"{code.co_name}: argument '{held[0]}' is an object of type {kind}"
                break
    raise error(
        f"{what}; s2sad differentiates with respect to numbers, arrays and containers of them (dict, list, "
        f"tuple, NamedTuple, dataclass), as JAX does: make {kind} a dataclass or NamedTuple, pass its arrays "
        "in a dict, or keep the object a constant (differentiate with respect to another argument)"
    )


def _fields(x):
    """The differentiable parts of a dataclass instance, by name."""
    return [f.name for f in dataclasses.fields(x)]


def _rebuilt(x, items):
    """A container of ``x``'s type holding ``items`` (a dict by key for dicts and dataclasses, else a list)."""
    if isinstance(x, dict):
        return type(x)(items) if type(x) is not dict else items
    if isinstance(x, tuple):
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, list):
        return items
    new = copy.copy(x)  # a dataclass: fields set without running __init__ (frozen ones too)
    for k, v in items.items():
        object.__setattr__(new, k, v)
    return new


def _items(x):
    if isinstance(x, dict):
        return x
    if isinstance(x, (list, tuple)):
        return x
    return {k: getattr(x, k) for k in _fields(x)}


def tree_map(fn, x, *rest):
    """``fn`` applied leaf by leaf to containers of one structure, giving that structure."""
    items = _items(x)
    others = [_items(r) for r in rest]
    if isinstance(items, dict):
        return _rebuilt(x, {k: fn(v, *(o[k] for o in others)) for k, v in items.items()})
    return _rebuilt(x, [fn(v, *(o[i] for o in others)) for i, v in enumerate(items)])


def tree_zeros(x, leaf):
    """Zeros with ``x``'s structure, ``leaf(v)`` for each leaf."""
    return tree_map(lambda v: tree_zeros(v, leaf) if is_tree(v) else leaf(v), x)


def _is_zero_number(a) -> bool:
    return isinstance(a, (int, float, complex)) and not isinstance(a, bool) and a == 0


def tree_add(a, b):
    """``a + b`` for adjoints or tangents that may be containers (added leaf by leaf); a number 0 (a
    zero written by generated code) added to a container gives the container."""
    if is_tree(a):
        if is_tree(b):
            if isinstance(a, (list, tuple)) and not isinstance(b, (list, tuple)):
                return tree_add(b, a)
            if isinstance(a, (list, tuple)) and not hasattr(a, "_fields") and hasattr(b, "_fields"):
                return tree_add(b, a)  # a NamedTuple's adjoint keeps its type (its fields are read by name)
            return tree_map(tree_add, a, b)
        if _is_zero_number(b) or b is None:
            return a
        return np.add(a, b)  # a nested list of numbers and its array adjoint
    if is_tree(b):
        return tree_add(b, a)
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _field(g, index):
    """Refuse ``index`` of a NamedTuple or dataclass ``g`` that is not one of its fields (a property, a
    method or another attribute): its derivative is not a part of ``g``'s adjoint or tangent."""
    fields = g._fields if isinstance(g, tuple) else _fields(g) if dataclasses.is_dataclass(g) else None
    if fields is not None and index not in fields:
        raise _refusal(
            f"'{index}' is not a field of {type(g).__name__} (a property or another attribute): s2sad "
            f"differentiates with respect to its fields {list(fields)}; read them in f (write the property's "
            "expression out) or keep the object a constant (differentiate with respect to another argument)"
        )


def item_of(g, index):
    """``g[index]``, where a string index of a NamedTuple or dataclass names a field."""
    if isinstance(index, str) and not isinstance(g, dict):
        _field(g, index)
        return getattr(g, index)
    return g[index]


def set_item(g, index, v):
    """A copy of the container ``g`` with ``v`` at ``index`` (a key, a position, or a field's name)."""
    if isinstance(g, dict):
        out = type(g)(g) if type(g) is not dict else dict(g)
        out[index] = v
        return out
    if isinstance(index, str) and not isinstance(g, dict):
        _field(g, index)
    if isinstance(g, (list, tuple)):
        if isinstance(index, str):
            index = g._fields.index(index)
        items = list(g)
        items[index] = v
        return items if isinstance(g, list) else _rebuilt(g, items)
    if dataclasses.is_dataclass(g):
        return _rebuilt(g, {index: v})
    raise TypeError(f"s2sad: cannot set item {index!r} of a {type(g).__name__}")


def add_item(g, index, v):
    """A copy of the container ``g`` with ``v`` added at ``index``."""
    return set_item(g, index, tree_add(item_of(g, index), v))


def set_tangent(dg, index, dv, like):
    """The tangent of ``set_item(g, index, v)`` (``like``): ``dg`` with ``dv`` at ``index``, where a
    number 0 for either stands for zeros of that part's structure."""
    from .core import zeros_like

    if _is_zero_number(dg):
        dg = zeros_like(like)
    if _is_zero_number(dv):
        dv = zeros_like(item_of(like, index))
    return set_item(dg, index, dv)


def unset_item(g, index, like):
    """The adjoint of the container ``like`` in ``z = set_item(like, index, v)`` from ``z``'s adjoint ``g``:
    ``g`` without what ``v`` replaced (zeros at ``index``, or no ``index`` if ``like`` had none)."""
    from .core import zeros_like

    if isinstance(like, dict) and index not in like:
        out = dict(g)
        del out[index]
        return out
    return set_item(g, index, zeros_like(item_of(like, index)))


def copy_dict(d):
    """A new dict holding ``d``'s items (``{**d}``)."""
    return dict(d)


def copy_of(v):
    """``v.copy()`` or ``copy.copy(v)`` of a value whose type is known at run time only: a new dict, list or
    array of ``v``'s type holding the same items (a number, the tangent or adjoint of a NumPy scalar, is its
    own copy)."""
    if isinstance(v, (dict, list, np.ndarray, np.generic)):
        return v.copy()
    return copy.copy(v)


def deep_copy(v):
    """``copy.deepcopy(v)``: a new value sharing nothing with ``v``."""
    return copy.deepcopy(v)


def keys_of(d):
    """The keys of a dict, as a list (what ``for k in d``, ``d.items()``, ``d.keys()`` iterate over)."""
    return list(d)


def zip_length(*lengths, strict=False):
    """How many items ``zip`` of sequences of these lengths gives; ``strict``: all lengths are equal,
    else ValueError, as ``zip(..., strict=True)`` raises."""
    if strict and len(set(lengths)) > 1:
        raise ValueError(f"zip(..., strict=True) of sequences of lengths {', '.join(map(str, lengths))}")
    return min(lengths)


def expect_indexed(seq):
    """Refuse a loop that writes in place while iterating a value (a user function's result) whose
    items are not ``seq[0], seq[1], ...``: a dict, a set, an iterator."""
    if not isinstance(seq, (list, tuple, np.ndarray, range, str)):
        raise _refusal(
            f"a loop that writes in place over a {type(seq).__name__} (not a list, tuple or array) is not "
            "supported; iterate over list(...) of it, or move the writes out of the loop"
        )


def tree_astype(g, x, astype_of):
    """The derivative ``g`` with the structure and leaf types of the argument ``x``."""
    if isinstance(x, (list, tuple)) and not is_tree(g):
        g = list(g)  # an array adjoint of a nested list of numbers: split along its first axis
    return tree_map(lambda xv, gv: astype_of(gv, xv), x, g)


def tree_leaves(x) -> list:
    """The numbers and arrays of ``x``, in order (``x`` itself when it is not a container)."""
    if not is_tree(x):
        return [x]
    items = _items(x)
    return [leaf for v in (items.values() if isinstance(items, dict) else items) for leaf in tree_leaves(v)]


def tree_unflatten(x, leaves):
    """``x``'s structure holding ``leaves`` (in ``tree_leaves`` order)."""
    it = iter(leaves)

    def rebuild(v):
        return tree_map(rebuild, v) if is_tree(v) else next(it)

    return rebuild(x)


def tree_size(x) -> int:
    """How many numbers ``x`` holds."""
    return sum(int(np.size(leaf)) for leaf in tree_leaves(x))


def unit_tangents(x):
    """One tangent per number of ``x``, with ``x``'s structure: 1 there, 0 elsewhere (the columns of
    the identity, shaped like ``x``)."""
    if not is_tree(x):
        if _is_plain_object(x):
            _refuse_object(x)
        shape = np.shape(x)
        dtype = x.dtype if isinstance(x, np.ndarray | np.generic) and x.dtype.kind in "fc" else float
        return [e.reshape(shape) for e in np.eye(np.size(x), dtype=dtype)]
    leaves = tree_leaves(x)
    out = []
    for k, leaf in enumerate(leaves):
        for e in unit_tangents(leaf):
            parts = [np.zeros(np.shape(v)) for v in leaves]
            parts[k] = e
            out.append(tree_unflatten(x, parts))
    return out


def _split(_, x):
    """The sizes of ``x``'s leaves as consecutive ranges."""
    bounds, start = [], 0
    for leaf in tree_leaves(x):
        bounds.append((start, start + int(np.size(leaf))))
        start += int(np.size(leaf))
    return bounds


# ---- complex Jacobians.  A JVP along the unit tangents (1 at one number) gives only df/dx of a complex
# argument x + iy, and a VJP seeded with them only the derivatives of the output's real part.  So forward
# mode builds Jacobians w.r.t. real arguments (complex outputs are exact: complex columns), reverse mode
# Jacobians of real outputs (a complex argument gets grad's convention per row, df_i/dx - i df_i/dy); the
# default picks the one that applies, and a complex output of a complex argument is refused (its Jacobian
# is df/dz only where f is holomorphic, which s2sad does not check).


def _any_complex(x) -> bool:
    return any(np.iscomplexobj(leaf) for leaf in tree_leaves(x))


def _complex_refusal(mode: str):
    if mode == "both":
        what = (
            "s2sad.jacobian of a complex output with respect to a complex argument is refused: it is df/dz only "
            "where f is holomorphic, which s2sad does not check (a Hessian w.r.t. a complex argument is such a "
            "Jacobian, of the complex gradient); use s2sad.jvp along 1 and 1j, s2sad.vjp with seeds 1 and 1j, "
            "or pass and return real and imaginary parts separately"
        )
    elif mode == "forward":
        what = (
            "s2sad.jacobian in forward mode needs real arguments (a JVP along 1 gives only df/dx of a complex "
            "one): the Jacobian of a real output with respect to a complex argument (each row grad's "
            "df_i/dx - i df_i/dy) is built by mode='reverse', which the default mode picks"
        )
    else:
        what = (
            "s2sad.jacobian in reverse mode needs a real output (a VJP seeded with 1 gives only the "
            "derivatives of its real part): the Jacobian of a complex output with respect to a real "
            "argument is built by mode='forward', which the default mode picks"
        )
    try:
        from s2sad.runtime.refusals import refusal
    except ImportError:
        return ValueError(f"s2sad: {what}")
    return refusal(what)


def jacobian_forward_first(out, x) -> bool:
    """Whether the default ``jacobian`` builds columns (forward mode): when ``x`` (the ``wrt`` arguments)
    holds no more numbers than ``out``, or ``out`` is complex; not when ``x`` is complex (reverse mode,
    grad's convention, also refuses a complex ``out``)."""
    if _any_complex(x):
        return _any_complex(out)  # (both refuse that: forward mode says why)
    return _any_complex(out) or tree_size(x) <= tree_size(out)


def jacobian_of_columns(columns, out, x):
    """The Jacobian from one tangent of ``out`` per number of ``x`` (``unit_tangents`` order), shaped
    ``out_leaf.shape + x_leaf.shape`` for each pair of leaves, nested as ``out``'s structure holding
    ``x``'s structure (JAX's layout); a plain array ``out.shape + x.shape`` for arrays.  Refused for a
    complex ``x``: its columns are df/dx only."""
    if _any_complex(x):
        raise _complex_refusal("both" if _any_complex(out) else "forward")
    if not is_tree(out) and not is_tree(x):
        return np.moveaxis(np.array(columns), 0, -1).reshape(np.shape(out) + np.shape(x))
    x_leaves, out_leaves = tree_leaves(x), tree_leaves(out)
    flat = [tree_leaves(c) for c in columns]
    blocks = []
    for i, o in enumerate(out_leaves):
        row = []
        for (a, b), leaf in zip(_split(len(x_leaves), x), x_leaves):
            part = np.array([flat[c][i] for c in range(a, b)]).reshape((b - a,) + np.shape(o))
            row.append(np.moveaxis(part, 0, -1).reshape(np.shape(o) + np.shape(leaf)))
        blocks.append(tree_unflatten(x, row))
    return tree_unflatten(out, blocks)


def jacobian_of_rows(rows, out, x):
    """The Jacobian from one cotangent of ``x`` per number of ``out`` (``unit_tangents`` order); laid
    out as ``jacobian_of_columns``.  Refused for a complex ``out``: its rows are those of its real part."""
    if _any_complex(out):
        raise _complex_refusal("both" if _any_complex(x) else "reverse")
    if not is_tree(out) and not is_tree(x):
        return np.array(rows).reshape(np.shape(out) + np.shape(x))
    x_leaves, out_leaves = tree_leaves(x), tree_leaves(out)
    flat = [tree_leaves(r) for r in rows]
    blocks = []
    for (a, b), o in zip(_split(len(out_leaves), out), out_leaves):
        row = []
        for k, leaf in enumerate(x_leaves):
            part = np.array([flat[r][k] for r in range(a, b)])
            row.append(part.reshape(np.shape(o) + np.shape(leaf)))
        blocks.append(tree_unflatten(x, row))
    return tree_unflatten(out, blocks)


def _parts_at(g, like) -> list:
    """The parts of ``g`` found at the leaves of ``like`` (``g`` has ``like``'s structure at the top and
    anything below its leaves), in ``tree_leaves`` order."""
    if not is_tree(like):
        return [g]
    items, parts = _items(like), _items(g)
    keys = items.keys() if isinstance(items, dict) else range(len(items))
    return [p for k in keys for p in _parts_at(parts[k], items[k])]


def columns_of_jacobian(g, out, x):
    """The transpose of ``jacobian_of_columns``: from a Jacobian-shaped ``g``, one part per number of
    ``x`` (``unit_tangents`` order), each with ``out``'s structure."""
    if not is_tree(out) and not is_tree(x):
        return list(np.moveaxis(np.reshape(g, np.shape(out) + (tree_size(x),)), -1, 0))
    out_leaves = tree_leaves(out)
    columns = [[None] * len(out_leaves) for _ in range(tree_size(x))]
    for i, (o, block) in enumerate(zip(out_leaves, _parts_at(g, out))):
        for (a, b), part in zip(_split(0, x), tree_leaves(block)):
            flat = np.reshape(part, np.shape(o) + (b - a,))
            for c in range(a, b):
                columns[c][i] = flat[..., c - a]
    return [tree_unflatten(out, column) for column in columns]


def rows_of_jacobian(g, out, x):
    """The transpose of ``jacobian_of_rows``: from a Jacobian-shaped ``g``, one part per number of
    ``out`` (``unit_tangents`` order), each with ``x``'s structure."""
    if not is_tree(out) and not is_tree(x):
        return list(np.reshape(g, (tree_size(out),) + np.shape(x)))
    x_leaves = tree_leaves(x)
    rows = [[None] * len(x_leaves) for _ in range(tree_size(out))]
    for (a, b), block in zip(_split(0, out), _parts_at(g, out)):
        for k, (leaf, part) in enumerate(zip(x_leaves, tree_leaves(block))):
            flat = np.reshape(part, (b - a,) + np.shape(leaf))
            for r in range(a, b):
                rows[r][k] = flat[r - a]
    return [tree_unflatten(x, row) for row in rows]
