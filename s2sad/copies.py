"""copies: fold away the copies and negations that rule templates leave behind.

Takes a generated ``FunctionDef`` (after constant folding, before dead-code removal); gives it back
computing the same values, with

* two names that are each assigned once and joined by a copy (``w1 = bv1 / u1`` ... ``bw = w1``)
  merged into one, keeping the more telling name (an adjoint's over a temporary's): ``bw = bv1 / u1``;
* a copy that the next statement touching its name updates (``bv = bt1`` then ``bv = bv + e``)
  folded into that update: ``bv = bt1 + e``;
* a negation read once, by a sum (``bt1 = -(w1 * v1)`` then ``bv = bt1 + e``), folded into it:
  ``bv = e - w1 * v1``, one array operation fewer (``e + -a`` and ``e - a`` are the same number).

The copies themselves are left for dead-code removal.
"""

from __future__ import annotations

import bisect

import gast

from .ir import changed, walk
from .naming import Names

_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.FunctionDef)
_SCOPES += (gast.ClassDef, gast.Global, gast.Nonlocal, gast.Delete)


def fold_copies(fn: gast.FunctionDef, names: Names) -> None:
    """``names``: who made each name (which of two merged names stays is decided by their roles)."""
    binds: dict[str, int] = {}
    for n in walk(fn):
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, gast.Store):
                binds[n.id] = binds.get(n.id, 0) + 1
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            binds[n.target.id] = binds.get(n.target.id, 0) + 1
        elif isinstance(n, _SCOPES) and n is not fn:
            return  # names may mean other things in inner scopes: leave the function as it is
    loads = _merge(fn, binds, names.rank)
    _blocks(fn.body, loads)


def _is_copy(stmt) -> bool:
    return (
        isinstance(stmt, gast.Assign)
        and isinstance(stmt.targets[0], gast.Name)
        and isinstance(stmt.value, gast.Name)
        and stmt.targets[0].id != stmt.value.id
    )


def _rename_and_count(fn, parent) -> dict[str, int]:
    """Rename merged names to the name that stays; how often each name is read."""
    counts: dict[str, int] = {}
    for n in walk(fn):
        if isinstance(n, gast.Name):
            if n.id in parent:
                n.id = _root(parent, n.id)
            if isinstance(n.ctx, gast.Load):
                counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _root(parent, v):
    while v in parent:
        v = parent[v]
    return v


# ---- names assigned once, joined by a copy ------------------------------------------------------


def _merge(fn, binds, rank) -> dict[str, int]:
    """Merge names joined by copies; gives how often each name is read afterwards."""
    params = {a.id for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    params |= {a.id for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
    defined: set[str] = set()  # bound once, by a statement at the function's top level, so far
    parent: dict[str, str] = {}  # merged names: a forest, each tree one value
    copies = set()  # the copy statements
    for stmt in fn.body:
        if _is_copy(stmt):
            a, b = stmt.targets[0].id, stmt.value.id
            if b in defined and binds.get(a) == 1 and binds.get(b) == 1 and a not in params:
                ra, rb = _root(parent, a), _root(parent, b)
                keep, drop = (ra, rb) if rank(ra) < rank(rb) else (rb, ra)
                if keep != drop:
                    parent[drop] = keep
                copies.add(stmt)
        if isinstance(stmt, gast.Assign):
            t = stmt.targets[0]
            defined.update([t.id] if isinstance(t, gast.Name) else (n.id for n in walk(t) if isinstance(n, gast.Name)))
    counts = _rename_and_count(fn, parent)
    if parent:
        kept = [s for s in fn.body if not (s in copies and s.targets[0].id == s.value.id)]
        for s in fn.body:
            if s in copies and s.targets[0].id == s.value.id:
                counts[s.value.id] -= 1  # the copy goes, and its read with it
        fn.body[:] = kept
    return counts


# ---- within one block -----------------------------------------------------------------------------


def _blocks(body, loads):
    for stmt in body:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                _blocks(inner, loads)
    # copies first: a negation's one reader may be a copy that folds into an update.  A fold rewrites
    # a later statement, but only in names no statement before it touches: the index stays true
    facts = [_facts(s) for s in body]
    index = _Uses(body, facts)
    keep = [not (_is_copy(s) and _into_update(index, i, loads)) for i, s in enumerate(body)]
    body[:] = [s for s, k in zip(body, keep) if k]
    index = _Uses(body, [f for f, k in zip(facts, keep) if k])
    keep = [not (_is_negation(s, loads) and _into_sum(index, i)) for i, s in enumerate(body)]
    body[:] = [s for s, k in zip(body, keep) if k]


def _facts(stmt):
    """(names a statement mentions, names it changes)."""
    mentioned: set[str] = set()
    return mentioned, changed([stmt], mentioned)


class _Uses:
    """Where each name is mentioned and changed in one block, to find a name's next use quickly."""

    def __init__(self, body, facts):
        self.body, self.facts = body, facts
        self.mentions: dict[str, list[int]] = {}
        self.changes: dict[str, list[int]] = {}
        for i, (mentioned, changes) in enumerate(facts):
            for n in mentioned:
                self.mentions.setdefault(n, []).append(i)
            for n in changes:
                self.changes.setdefault(n, []).append(i)

    def next_use(self, i, read, changes):
        """The first statement after ``body[i]`` that mentions one of ``read`` or changes one of
        ``changes`` (its position), or None."""
        first = None
        for names, table in ((read, self.mentions), (changes, self.changes)):
            for n in names:
                at = table.get(n, ())
                k = bisect.bisect_right(at, i)
                if k < len(at) and (first is None or at[k] < first):
                    first = at[k]
        return first


def _into_update(index, i, loads) -> bool:
    """``a = b; ...; a = f(a)`` with nothing touching a or b between -> ``a = f(b)``."""
    a, b = index.body[i].targets[0].id, index.body[i].value.id
    j = index.next_use(i, {a}, {a, b})
    nxt = None if j is None else index.body[j]
    if not (
        isinstance(nxt, gast.Assign)
        and isinstance(nxt.targets[0], gast.Name)
        and nxt.targets[0].id == a
        and not changed([gast.Expr(value=nxt.value)]) & {a, b}
    ):
        return False
    reads = [n for n in walk(nxt.value) if isinstance(n, gast.Name) and n.id == a]
    if not reads:
        return False
    for n in reads:
        n.id = b
    index.facts[j][0].add(b)  # for the negation pass, which indexes the block again
    loads[a] = loads.get(a, 0) - len(reads)
    loads[b] = loads.get(b, 0) + len(reads) - 1  # the copy read b once
    return True


def _is_negation(stmt, loads) -> bool:
    return (
        isinstance(stmt, gast.Assign)
        and isinstance(stmt.targets[0], gast.Name)
        and isinstance(stmt.value, gast.UnaryOp)
        and isinstance(stmt.value.op, gast.USub)
        and loads.get(stmt.targets[0].id) == 1
    )


def _into_sum(index, i) -> bool:
    """``a = -e; ...; c = y + a`` (a read nowhere else, nothing e reads changed between) -> ``c = y - e``."""
    a, e = index.body[i].targets[0].id, index.body[i].value.operand
    watched = {a} | {n.id for n in walk(e) if isinstance(n, gast.Name)}
    j = index.next_use(i, {a}, watched)
    nxt = None if j is None else index.body[j]
    if not (isinstance(nxt, gast.Assign) and isinstance(nxt.value, gast.BinOp)):
        return False
    if changed([gast.Expr(value=nxt.value)]) & watched:
        return False
    s = nxt.value
    if not isinstance(s.op, (gast.Add, gast.Sub)):
        return False
    if isinstance(s.right, gast.Name) and s.right.id == a:
        other, op = s.left, gast.Sub() if isinstance(s.op, gast.Add) else gast.Add()
    elif isinstance(s.left, gast.Name) and s.left.id == a and isinstance(s.op, gast.Add):
        other, op = s.right, gast.Sub()
    else:
        return False
    nxt.value = gast.BinOp(left=other, op=op, right=e)
    return True
