"""dunders: Python's reads of an object that call its class's own method, spelled as that call.

``round(w)``, ``math.floor(w)``, ``math.ceil(w)``, ``math.trunc(w)``, ``float(w)`` and ``w[i]`` of an object
f builds of a user class (``w = W(x[0])``, or ``W(x[0])`` itself) call ``W.__round__``, ``W.__floor__``,
``W.__ceil__``, ``W.__trunc__``, ``W.__float__`` and ``W.__getitem__``: code s2sad reads.  For :mod:`desugar`:
``rewritten(node)`` gives that method call (``w.__round__(2)``, ``float(w.__float__())``,
``w.__getitem__(i)``), which the later passes differentiate as any method of a built object, or None.
A name counts only when every binding in f gives it an object of the same user class.
"""

from __future__ import annotations

import builtins
import collections
import math

import gast

from .ir import walk
from .primitives import is_user_class
from .resolve import dotted

_CONVERSIONS = {builtins.round: "__round__", math.floor: "__floor__", math.ceil: "__ceil__", math.trunc: "__trunc__"}


def built_classes(tree, ns) -> dict:
    """Name -> the user class of the object every binding in f gives it (``w = W(v)``)."""
    stores = collections.Counter(
        n.id for n in walk(tree) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
    )
    found: dict = {}
    counts = collections.Counter()
    for n in walk(tree):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
            cls = built_class(n.value, ns)
            if cls is not None and found.setdefault(n.targets[0].id, cls) is cls:
                counts[n.targets[0].id] += 1
    return {k: cls for k, cls in found.items() if counts[k] == stores[k]}


def built_class(node, ns):
    """The user class ``node``, a call ``Cls(...)`` of a free name, builds an object of; else None."""
    if not isinstance(node, gast.Call) or dotted(node.func) is None:
        return None
    if dotted(node.func).split(".")[0] in ns.locals:
        return None
    cls = ns.lookup(node.func)
    return cls if is_user_class(cls) else None


def _own(cls, method) -> bool:
    """Whether ``cls`` defines ``method`` in user code (not a builtin base's: a list subclass's ``[i]``)."""
    for klass in cls.__mro__:
        if method in vars(klass):
            return klass.__module__ != "builtins"
    return False


def rewritten(node, ns, classes: dict, callee=None):
    """The method call Python makes for ``node`` (a call of round/floor/ceil/trunc/float, or an item read)
    of an object f builds of a user class defining that method; else None."""
    if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
        cls = _class_of(node.value, ns, classes)
        if cls is None or not _own(cls, "__getitem__"):
            return None
        index = node.slice
        if isinstance(index, gast.Slice):  # w[1:3]: w.__getitem__(slice(1, 3, None))
            parts = [
                p if p is not None else gast.Constant(value=None, kind=None)
                for p in (index.lower, index.upper, index.step)
            ]
            index = gast.Call(
                func=gast.Name(id="slice", ctx=gast.Load(), annotation=None, type_comment=None), args=parts, keywords=[]
            )
        return _method(node.value, "__getitem__", [index])
    if not isinstance(node, gast.Call) or node.keywords or not node.args:
        return None
    if any(isinstance(a, gast.Starred) for a in node.args):
        return None
    method = "__float__" if callee is builtins.float else _CONVERSIONS.get(callee) if _hashable(callee) else None
    if method is None or len(node.args) > (2 if method == "__round__" else 1):
        return None
    cls = _class_of(node.args[0], ns, classes)
    if cls is None or not _own(cls, method):
        return None
    call = _method(node.args[0], method, node.args[1:])
    if method == "__float__":  # (float() checks that it is a float; a float gives itself)
        return gast.Call(func=node.func, args=[call], keywords=[])
    return call


def _hashable(obj) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def _class_of(node, ns, classes):
    if isinstance(node, gast.Name):
        return classes.get(node.id)
    return built_class(node, ns)


def _method(receiver, attr, args):
    return gast.Call(func=gast.Attribute(value=receiver, attr=attr, ctx=gast.Load()), args=list(args), keywords=[])


def reads_own(tree, ns) -> bool:
    """Whether f has a read that :func:`rewritten` spells as a method call."""
    calls = [n for n in walk(tree) if isinstance(n, gast.Call) and built_class(n, ns) is not None]
    if not calls:
        return False
    classes = built_classes(tree, ns)
    return any(
        rewritten(n, ns, classes, ns.lookup(n.func) if isinstance(n, gast.Call) else None) is not None
        for n in walk(tree)
        if isinstance(n, (gast.Call, gast.Subscript))
    )
