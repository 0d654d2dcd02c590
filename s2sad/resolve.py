"""resolve: bind every non-local name the function reads to the object it means.

Takes a :class:`~s2sad.parse.Parsed` function; gives a :class:`Namespace` that maps dotted names
(``np.sin``, ``la.norm``, ``helper``) to objects through the function's globals, closure and
builtins, plus the set of global names the function reads (the generated module needs them).
Method calls on local values (``x.sum()``) are left to ``anf``, which knows which names are local.
"""

from __future__ import annotations

import builtins

import gast

from .ir import walk
from .parse import Parsed

_MISSING = object()


def dotted(node) -> str | None:
    """``np.linalg.norm`` for an Attribute chain rooted at a Name, else None."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def local_names(tree: gast.FunctionDef) -> set[str]:
    names = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    for extra in (tree.args.vararg, tree.args.kwarg):
        if extra is not None:
            names.add(extra.id)
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del, gast.Param)):
            names.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node is not tree:
            names.add(node.name)
    return names


class Namespace:
    """What the function's free names mean: globals, closure cells, builtins."""

    def __init__(self, fn, locals_: set[str]):
        self.fn = fn
        self.locals = locals_
        self.scope = dict(fn.__globals__)
        code = fn.__code__
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                self.scope[name] = cell.cell_contents
            except ValueError:  # cell not yet filled
                pass
        self.closure_names = set(code.co_freevars)
        self.used: dict[str, object] = {}

    def lookup_name(self, name: str):
        if name in self.scope:
            return self.scope[name]
        return getattr(builtins, name, _MISSING)

    def lookup(self, node):
        """The object a Name/Attribute chain denotes, or _MISSING (local value, unknown name)."""
        path = dotted(node)
        if path is None:
            return _MISSING
        root, *attrs = path.split(".")
        if root in self.locals:
            return _MISSING
        obj = self.lookup_name(root)
        for attr in attrs:
            if obj is _MISSING:
                break
            obj = getattr(obj, attr, _MISSING)
        return obj


def resolve(parsed: Parsed) -> Namespace:
    ns = Namespace(parsed.fn, local_names(parsed.tree))
    for node in walk(parsed.tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in ns.locals:
            obj = ns.lookup_name(node.id)
            if obj is _MISSING:
                raise parsed.loc.error(node, f"name '{node.id}' is not defined")
            if node.id in ns.scope:
                ns.used[node.id] = obj
    return ns


MISSING = _MISSING
