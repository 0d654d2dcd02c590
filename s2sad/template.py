"""Instantiating rule templates at a call site: parameter names -> the site's atoms and adjoints."""

from __future__ import annotations

import gast

from .ir import copy_tree, walk
from .naming import const


def to_node(value):
    """A bound argument as an expression: atoms stay, Python defaults become constants."""
    if isinstance(value, gast.AST):
        return copy_tree(value)
    if isinstance(value, tuple):
        return gast.Tuple(elts=[to_node(v) for v in value], ctx=gast.Load())
    return const(value)


def as_nodes(mapping: dict) -> dict:
    """A template's bound arguments with Python defaults (``None``, ``"L"``, ``(0, 1)``) as constants,
    so that only names stand for names when the template is instantiated."""
    return {k: v if isinstance(v, gast.AST) else to_node(v) for k, v in mapping.items()}


def operands(mapping: dict) -> list:
    """The bound arguments that are values of the computation (names, numbers and the values f reads
    from attributes: ``A.T``, ``self.X``), not options such as ``axis=None`` or ``UPLO="L"``: their
    shapes make an elementwise result's shape."""
    return [
        a
        for a in mapping.values()
        if isinstance(a, (gast.Name, gast.Attribute))
        or isinstance(a, gast.Constant)
        and isinstance(a.value, (int, float, complex))
        and not isinstance(a.value, bool)
    ]


def substitute(node, mapping: dict):
    """Copy of ``node`` with each Name in ``mapping`` replaced by (a copy of) its expression.

    The copy carries no source positions: the rule file's line numbers mean nothing at the call site."""

    def copy(n):
        if isinstance(n, list):
            return [copy(v) for v in n]
        if not isinstance(n, gast.AST):
            return n
        if isinstance(n, gast.Name) and n.id in mapping:
            repl = mapping[n.id]
            if isinstance(repl, str):
                return gast.Name(id=repl, ctx=n.ctx, annotation=None, type_comment=None)
            return _unplaced(repl) if isinstance(repl, gast.AST) else to_node(repl)
        new = n.__class__.__new__(n.__class__)
        new.__dict__.update({k: copy(v) for k, v in n.__dict__.items() if k not in _POSITION})
        return new

    return copy(node)


_POSITION = frozenset(("lineno", "col_offset", "end_lineno", "end_col_offset"))


def _unplaced(n):
    """A deep copy of ``n`` without source positions."""
    if isinstance(n, list):
        return [_unplaced(v) for v in n]
    if not isinstance(n, gast.AST):
        return n
    new = n.__class__.__new__(n.__class__)
    new.__dict__.update({k: _unplaced(v) for k, v in n.__dict__.items() if k not in _POSITION})
    return new


def template_locals(body, params) -> list[str]:
    """Names a template assigns that are neither adjoints nor tangents of its parameters."""
    key = (id(body), tuple(params))
    hit = _LOCALS.get(key)
    if hit is None or hit[0] is not body:
        special = {p for p in params} | {"b" + p for p in params} | {"d" + p for p in params}
        out = []
        for stmt in body:
            for n in walk(stmt):
                stored = isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
                if stored and n.id not in special and n.id not in out:
                    out.append(n.id)
        hit = _LOCALS[key] = (body, out)
    return list(hit[1])


_LOCALS: dict = {}  # templates are parsed once; their locals are looked up at every call site
