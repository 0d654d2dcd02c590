"""Small queries on ANF code shared by the analyses and the passes."""

from __future__ import annotations

import builtins
import math

import gast
import numpy as np

from . import runtime

_AST = gast.AST

# methods that change their receiver in place (lists, dicts, sets, arrays, generators)
MUTATORS = frozenset(
    {
        "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
        "update", "setdefault", "popitem", "add", "discard", "difference_update", "intersection_update",
        "symmetric_difference_update", "fill", "resize", "put", "itemset", "setfield", "partition",
        "__setitem__", "__delitem__", "__iadd__", "__imul__", "send",
    }
)  # fmt: skip
NONE_MUTATORS = MUTATORS - {"pop", "setdefault", "popitem", "send"}  # ... that return None
STORES = {"append", "extend", "insert", "add", "update", "setdefault", "__setitem__"}  # ... storing their arguments
ITERATOR_MAKERS = (map, filter, zip, enumerate, reversed, iter)  # builtins whose result is a one-pass iterator


def walk(node):
    """Every node under ``node`` (itself first), breadth first like ``ast.walk``, several times faster."""
    todo = [node]
    for n in todo:  # the list grows while it is read: a queue without a deque
        yield n
        fields = n.__dict__
        for f in n._fields:
            v = fields.get(f)
            if isinstance(v, list):
                todo.extend(c for c in v if isinstance(c, _AST))
            elif isinstance(v, _AST):
                todo.append(v)


def copy_tree(node):
    """A deep copy of an AST (or a list of them), several times faster than ``copy.deepcopy``."""
    if isinstance(node, list):
        return [copy_tree(v) for v in node]
    if isinstance(node, _AST):
        new = node.__class__.__new__(node.__class__)
        new.__dict__.update({k: copy_tree(v) for k, v in node.__dict__.items()})
        return new
    return node


class Transformer(gast.NodeTransformer):
    """``gast.NodeTransformer`` with a leaner ``generic_visit`` (same contract: a visit returns the
    node, a replacement, a list of nodes to splice into a list field, or None to remove it)."""

    def visit(self, node):
        return getattr(self, "visit_" + node.__class__.__name__, self.generic_visit)(node)

    def generic_visit(self, node):
        fields = node.__dict__
        for f in node._fields:
            old = fields.get(f)
            if isinstance(old, list):
                new = []
                for v in old:
                    if isinstance(v, _AST):
                        v = self.visit(v)
                        if v is None:
                            continue
                        if not isinstance(v, _AST):
                            new.extend(v)
                            continue
                    new.append(v)
                old[:] = new
            elif isinstance(old, _AST):
                new_node = self.visit(old)
                if new_node is None:
                    del fields[f]
                else:
                    fields[f] = new_node
        return node


def reads(node) -> list[str]:
    """Names a statement or expression reads, in order (duplicates kept out)."""
    seen = {}  # a dict keeps the order and answers membership in constant time
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            seen[n.id] = None
    return list(seen)


def targets(stmt) -> list[str]:
    """Names an assignment binds (``x = ...``, ``a, b = ...``); ``x[i] = ...`` writes into ``x``."""
    if isinstance(stmt, gast.Assign):
        t = stmt.targets[0]
        if isinstance(t, gast.Name):
            return [t.id]
        if isinstance(t, gast.Tuple):
            return [e.id for e in t.elts]
        if isinstance(t, gast.Subscript):
            return [t.value.id]
    if isinstance(stmt, gast.For):
        return [stmt.target.id]
    return []


def changed(stmts, mentioned: set | None = None) -> set[str]:
    """Names the statements bind or may change in place (``bt[1] = v``, ``bx += g``, ``add_at(bx, i, g)``,
    ``lst.append(v)``).  With ``mentioned``, every name they mention is added to it on the way."""
    out = set()
    for s in stmts:
        for n in walk(s):
            if isinstance(n, gast.Name):
                if mentioned is not None:
                    mentioned.add(n.id)
                if isinstance(n.ctx, gast.Store):
                    out.add(n.id)
            elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):  # bt[1] = v changes bt
                base = n.value
                while isinstance(base, gast.Subscript):
                    base = base.value
                if isinstance(base, gast.Name):
                    out.add(base.id)
            elif isinstance(n, gast.Call) and not _pure_call(n):  # add_at(bx, ...), lst.append(v)
                out.update(a.id for a in n.args if isinstance(a, gast.Name))
                out.update(a.id for a in out_arguments(n) if isinstance(a, gast.Name))
                if isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name):
                    if n.func.value.id not in MODULES:  # np.multiply(a, b, out=y) changes y, not np
                        out.add(n.func.value.id)
            elif isinstance(n, gast.AugAssign):
                target = n.target.value if isinstance(n.target, gast.Subscript) else n.target
                if isinstance(target, gast.Name):
                    out.add(target.id)
    return out


# the names generated and ANF code use for modules (a user's local with one of these names is renamed)
MODULES = frozenset({"np", "math"})

# NumPy functions that write into an argument; every other ``np.f(...)`` without ``out=`` does not
_NUMPY_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"}
# runtime helpers make new arrays; add_at writes into its first argument
_PURE_HELPERS = {n for n, f in vars(runtime).items() if callable(f) and not n.startswith("_")} - {"add_at"}


def out_arguments(call, fn=None) -> list:
    """The argument nodes a NumPy call writes its result into: ``out=y`` (or a tuple of them), or a
    ufunc's positional outputs (``np.multiply(a, b, y)``).  ``fn``: the callee, when known; else
    ``np.<name>`` is looked up in NumPy."""
    f = call.func
    if fn is None and isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == "np":
        fn = getattr(np, f.attr, None)
    outs = [k.value for k in call.keywords if k.arg == "out"]
    if isinstance(fn, np.ufunc) and len(call.args) > fn.nin:
        outs += call.args[fn.nin :]
    return [n for o in outs for n in (o.elts if isinstance(o, gast.Tuple) else [o])]


def _pure_call(call) -> bool:
    """A call known to change none of its arguments: ``np.sum(x)``, ``math.sin(x)``, ``unbroadcast(g, x)``."""
    f = call.func
    if out_arguments(call):
        return False
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
        return f.value.id == "math" or f.value.id == "np" and f.attr not in _NUMPY_WRITERS
    return isinstance(f, gast.Name) and f.id in _PURE_HELPERS


def is_dict_view(node) -> bool:
    """``d.items()``, ``d.keys()`` or ``d.values()`` of any ``d`` (``for block in model.blocks.values()``)."""
    return (
        isinstance(node, gast.Call)
        and isinstance(node.func, gast.Attribute)
        and node.func.attr in ("items", "keys", "values")
        and not node.args
        and not node.keywords
    )


def changed_receiver(value):
    """``lst.pop(0)``, ``d.pop(k)``, ``d.setdefault(k, v)`` used as a value: the local name whose value the
    call changes in place (None for ``lst.pop()``, which derivative code follows, and for other values)."""
    func = value.func if isinstance(value, gast.Call) else None
    if not (isinstance(func, gast.Attribute) and func.attr in MUTATORS and isinstance(func.value, gast.Name)):
        return None
    return None if func.value.id in MODULES or is_pop(value) else func.value.id


def is_pop(value) -> bool:
    """``lst.pop()`` (a list used as a stack, as in s2sad's own generated code)."""
    return (
        isinstance(value, gast.Call)
        and isinstance(value.func, gast.Attribute)
        and value.func.attr == "pop"
        and isinstance(value.func.value, gast.Name)
        and not value.args
        and not value.keywords
    )


def walk_stmts(body):
    """Every simple statement in ``body``, in source order, descending into compound ones."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            yield from walk_stmts(stmt.body)
            yield from walk_stmts(stmt.orelse)


def value_reads(stmt) -> list[str]:
    """Names whose values flow into what the statement assigns."""
    if isinstance(stmt, gast.Assign):
        names = reads(stmt.value)
        t = stmt.targets[0]
        if isinstance(t, gast.Subscript):
            names += [n for n in reads(t.slice) if n not in names]
            names.append(t.value.id)  # the untouched part of the array flows through
        return names
    if isinstance(stmt, gast.For):
        return reads(stmt.iter)
    if isinstance(stmt, gast.Expr):
        return reads(stmt.value)
    return []


# the builtins (and math functions) that take a sequence's values: a generator passed to them is made
# a list first (desugar), and a dict's .values() given to them is a list of its values (anf)
VALUE_CONSUMERS = (
    builtins.sum,
    builtins.min,
    builtins.max,
    builtins.list,
    builtins.tuple,
    builtins.sorted,
    math.fsum,
    math.prod,
)


def is_super_call(func) -> bool:
    """``super().m`` (no arguments to ``super``)."""
    return (
        isinstance(func, gast.Attribute)
        and isinstance(func.value, gast.Call)
        and isinstance(func.value.func, gast.Name)
        and func.value.func.id == "super"
        and not func.value.args
        and not func.value.keywords
    )
