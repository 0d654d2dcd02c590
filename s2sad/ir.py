"""Small queries on ANF code shared by the analyses and the passes."""

from __future__ import annotations

import gast


def reads(node) -> list[str]:
    """Names a statement or expression reads, in order (duplicates kept out)."""
    seen = {}  # a dict keeps the order and answers membership in constant time
    for n in gast.walk(node):
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
