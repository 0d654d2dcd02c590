"""Runtime helpers that stand for Python builtins and array methods in generated code (see
s2sad/runtime/__init__.py): ``x.item()``, ``x.tolist()``, which item ``max``/``min`` return, and
``math.hypot`` of other than two coordinates (one argument, a list, so one rule covers every count).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "ndarray_item",
    "ndarray_tolist",
    "hypot_of",
    "index_of_max",
    "index_of_min",
    "sorted_order",
    "listed",
    "unpacked_adjoint",
    "unpacked_tangent",
]


def ndarray_item(x, *index):
    """``x.item(*index)``: the element as a Python number."""
    return x.item(*index)


def ndarray_tolist(x):
    """``x.tolist()``: nested lists of Python numbers."""
    return x.tolist()


def hypot_of(items):
    """``math.hypot(*items)``: the length of the vector ``items``."""
    return math.hypot(*items)


def _keyed(items, key):
    if isinstance(items, dict):  # (generated code lists a dict it knows of first: max(list(d), key=d.get))
        raise TypeError("s2sad: max/min over a dict here; write max(list(d), key=...) for its keys")
    return items.__getitem__ if key is None else (lambda i: key(items[i]))


def index_of_max(items, key=None):
    """The position of the item ``max(items, key=key)`` returns: Python keeps the first of equal items."""
    return max(range(len(items)), key=_keyed(items, key))


def index_of_min(items, key=None):
    """The position of the item ``min(items, key=key)`` returns: Python keeps the first of equal items."""
    return min(range(len(items)), key=_keyed(items, key))


def sorted_order(items, key=None, reverse=False):
    """The positions of ``items`` in the order ``sorted(items, key=key, reverse=reverse)`` gives them
    (a stable sort, as Python's: equal items keep their order, also with ``reverse``)."""
    return sorted(range(len(items)), key=_keyed(items, key), reverse=reverse)


def _expect_items(x):
    """Refuse listing (``list(x)``, ``for v in x``, ``a, b = x``) an object whose iteration is its class's
    own code (``__iter__`` of a user class) holding differentiated values: s2sad does not read that code,
    so it cannot say which of its fields each item comes from."""
    for base in (dict, list, tuple, set, frozenset, range, str):  # (a subclass keeping the base's __iter__)
        if isinstance(x, base) and type(x).__iter__ is base.__iter__:
            return
    if type(x).__module__.split(".")[0] in ("builtins", "numpy"):
        return
    from .trees import _refusal

    raise _refusal(
        f"iterating over an object of class {type(x).__name__} (its own __iter__) whose data is differentiated is "
        "not supported: s2sad does not differentiate through __iter__; iterate over the list or array it holds "
        "in f, or keep the object a constant"
    )


def unpacked_adjoint(parts, x):
    """Adjoint of ``a, b, ... = x`` (and of ``list(x)``, ``tuple(x)``) from the adjoints of ``a, b, ...``:
    stacked into an array when ``x`` is an array (its rows were unpacked), zeros for a dict (its keys
    were unpacked), a list for a list, a tuple otherwise (of the rows of ``parts`` when ``parts`` is an
    array: the adjoint of this function itself)."""
    if isinstance(x, np.ndarray):
        return np.stack([np.broadcast_to(p, np.shape(x)[1:]) for p in parts])
    _expect_items(x)
    if isinstance(x, dict):  # its keys were unpacked: no derivative
        from .core import zeros_like

        return zeros_like(x)
    if isinstance(x, list):  # a new list: the adjoint sweep may pop items off it
        return list(parts)
    return tuple(parts)


def listed(g):
    """The adjoint of a list as a list: a NumPy rule on the whole list (``np.mean(vals)``) gives an array
    of its items' adjoints, which the adjoint sweep of ``vals.append(v)`` pops one by one."""
    return g if isinstance(g, list) else list(g)


def unpacked_tangent(dx, x):
    """Tangent of ``list(x)`` (``for v in x``) from the tangent ``dx`` of ``x``: its items, or zeros
    for a dict (its keys, which carry no derivative)."""
    _expect_items(x)
    if isinstance(x, dict):
        from .core import zeros_like

        return [zeros_like(k) for k in x]
    return list(dx)
