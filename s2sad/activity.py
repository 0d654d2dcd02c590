"""activity: which variables carry derivatives.

Takes the :class:`~s2sad.program.Program` and the names of the ``wrt`` parameters; gives the set of *active*
names: those that depend on a ``wrt`` input (varied) and influence the returned value (useful).
Inactive statements are kept as they are in the primal and get no derivative code.
"""

from __future__ import annotations

import gast

from .aliases import shape_reads
from .ir import reads, walk
from .primitives import NONDIFF, SETITEM


def _flows(program):
    """(inputs, outputs) pairs: derivatives may flow from each input name to each output name."""
    pairs = []
    for rec in program.records.values():
        stmt = rec.stmt
        if rec.kind == "for":  # (``for k in range(len(x))``: k is an index, it carries no derivative)
            pairs.append(
                ([r for r in reads(stmt.iter) if r not in _shape_only_reads(stmt.iter, program.ns)], rec.targets)
            )
        elif rec.op is not None:
            if rec.kind == NONDIFF or rec.kind == SETITEM and rec.targets[0] in program.integral:
                continue  # (a write into an integer or bool array truncates: it stores no derivative)
            outs = rec.targets
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
                # a call whose result is dropped may change its receiver (lst.append(v)) or its
                # arguments (np.add.at(a, i, v)): derivatives flow into them (or it is refused)
                outs = sorted(rec.changes)
            pairs.append(([r for r in rec.reads if r not in _shape_only_reads(stmt, program.ns)], outs))
    return pairs


def _shape_only_reads(stmt, ns) -> set[str]:
    """Names the statement (or expression) reads only through ``len(x)``, ``x.shape``, ``zeros_like(x)`` and
    the like (the alias analysis's notion too): their values carry no derivative (``n = min(len(xs), len(ys))``)."""
    value = stmt.value if isinstance(stmt, gast.stmt) else stmt
    nodes = shape_reads(value, ns.lookup)
    loads = [n for n in walk(value) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    return {n.id for n in nodes} - {n.id for n in loads if n not in nodes}


def activity(program, wrt: list[str]) -> set[str]:
    forward, backward = {}, {}
    for ins, outs in _flows(program):
        for i in ins:
            forward.setdefault(i, set()).update(outs)
        for o in outs:
            backward.setdefault(o, set()).update(ins)
    varied = _reach(set(wrt), forward)
    useful = _reach({program.output}, backward)
    return varied & useful


def _reach(start: set[str], edges: dict) -> set[str]:
    """Every name reachable from ``start`` along ``edges`` (a graph search: linear in the code)."""
    seen, todo = set(start), list(start)
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
