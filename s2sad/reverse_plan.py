"""reverse_plan: what reverse mode decides before it writes any code.

Takes the :class:`~s2sad.program.Program` and the symbolic shapes of one derivative request; gives a
:class:`Plan`: which statements overwrite a value the adjoint may need (their old value is pushed on a
stack), which cheap values are recomputed in the adjoint sweep instead, which names hold lists or
containers (their adjoints are accumulated item by item), which arrays the function created itself
(safe to write into), which lists are used as stacks, the loop variables of ``for`` loops, and what f
changes in place that the adjoint sweep does not undo (``unrestored``: a read of it is saved, not recomputed,
and ``reverse`` refuses an adjoint reading it again) or undoes though it carries no derivative (``shrunk``:
appends to f's own lists).
``reverse`` then only emits code from the plan.  Statements are keys by identity: the plan describes
the program's own statements, never copies of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from . import primitives as P
from . import runtime
from .containers import may_be_containers
from .effects import call_effect, function_effect
from .ir import ITERATOR_MAKERS, MODULES, MUTATORS, changed, is_pop, reads, targets, walk, walk_stmts
from .naming import name
from .param_writes import param_writes
from .resolve import among


@dataclass
class Plan:
    params: list[str]
    primal_vars: set[str]  # every name the program binds, and its parameters
    sequences: set[str]  # names holding tuples or lists (of adjoints, in generated code): items add up
    trees: set[str]  # names that may hold containers (dicts, lists, dataclasses): adjoints add part by part
    sites: set  # statements that may overwrite a value the adjoint needs
    remat: set  # ... of which these are recomputed in the adjoint sweep instead of saved
    remat_before: dict  # statement -> the recomputations to emit before its adjoint
    fresh_arrays: set[str]  # arrays the function created itself: safe to write into in place
    stack_lists: set[str]  # lists used as stacks (``x = lst.pop()``): their adjoints are stacks too
    range_vars: set[str]  # loop variables of ``for`` loops (integers): basic indices
    read_whole: set[str]  # names a rule reads whole (``np.mean(vals)``): a list's adjoint may be an array
    shrunk: set[str]  # lists f builds whose appends the adjoint sweep undoes though they carry no derivative
    unrestored: dict  # name -> the statements changing it in place that the adjoint sweep does not undo


def plan_reverse(program, shapes, active=frozenset()) -> Plan:
    tree, ns = program.tree, program.ns
    params = list(program.params)
    simple = [r.stmt for r in program.simple()]
    assigned = [s for s in simple if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)]
    # tuple and list displays (the program's), and lists of adjoints made by add_seq (generated code
    # differentiated again)
    sequences = set(program.sequences) | {
        s.targets[0].id
        for s in assigned
        if isinstance(s.value, gast.Call) and getattr(s.value.func, "id", None) == "add_seq"
    }
    sites = _overwrite_sites(tree.body, params, program)
    # f's own lists whose only changes are appends (and item writes): the adjoint sweep undoes them
    shrunk = {n for n in _local_lists(program) - set(active) if n not in _unrestored(program, active, {n})}
    unrestored = _unrestored(program, active, shrunk, shapes)
    remat, remat_before = _rematerializable(tree.body, sites, shapes, unrestored, program)
    return Plan(
        params=params,
        primal_vars={t for r in program.records.values() for t in r.targets} | set(params),
        sequences=sequences,
        trees=may_be_containers(program),
        sites=sites,
        remat=remat,
        remat_before=remat_before,
        fresh_arrays=_fresh_arrays(tree.body, ns),
        stack_lists={s.value.func.value.id for s in assigned if is_pop(s.value)},
        range_vars={r.stmt.target.id for r in program.records.values() if r.kind == "for"},
        read_whole={
            a.id for r in program.records.values() if r.kind == P.RULE for a in r.op.args if isinstance(a, gast.Name)
        },
        shrunk=shrunk,
        unrestored=unrestored,
    )


def in_place(stmt) -> set[str]:
    """The names ``stmt`` (one ANF statement) changes in place, not by binding them: ``a[i] = v``,
    ``lst.append(v)``, ``x = lst.pop()``, ``d.update(e)``, ``np.copyto(a, b)``, ``a += b``."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
        base = stmt.targets[0].value
        while isinstance(base, gast.Subscript):
            base = base.value
        return {base.id} if isinstance(base, gast.Name) else set()
    if isinstance(stmt, gast.AugAssign):
        t = stmt.target.value if isinstance(stmt.target, gast.Subscript) else stmt.target
        return {t.id} if isinstance(t, gast.Name) else set()
    value = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr)) else None
    if not isinstance(value, gast.Call):
        return set()
    f = value.func
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
        if f.value.id in MODULES:  # np.copyto(a, b), np.add(a, b, out=c)
            return changed([gast.Expr(value=value)]) - {f.value.id}
        if f.attr in MUTATORS:
            return {f.value.id}
    return set()


def _restored(stmt, active, shrunk) -> bool:
    """Whether the adjoint sweep undoes ``stmt``'s change in place: an item write (its old value is
    saved), ``lst.append(v)`` of a list ``active`` or ``shrunk``, ``x = lst.pop()`` of an active one."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
        return True
    value = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr)) else None
    if isinstance(stmt, gast.Assign) and is_pop(value):
        return value.func.value.id in active and isinstance(stmt.targets[0], gast.Name)
    return (
        isinstance(stmt, gast.Expr)
        and isinstance(value, gast.Call)
        and isinstance(value.func, gast.Attribute)
        and value.func.attr == "append"
        and isinstance(value.func.value, gast.Name)
        and (value.func.value.id in active or value.func.value.id in shrunk)
        and len(value.args) == 1
        and not value.keywords
    )


def _unrestored(program, active, shrunk, shapes=None) -> dict:
    """name -> the statements that change it in place where the adjoint sweep does not undo it
    (``ks.insert(0, v)``, ``ks.append(v)`` of a list that is not f's own and carries no derivative)."""
    same = _same_objects(program, shapes)
    out: dict = {}
    for r in program.records.values():
        if r.kind in ("if", "for", "while") or _restored(r.stmt, active, shrunk):
            continue
        for n in in_place(r.stmt):
            for m in same.get(n, {n}):
                out.setdefault(m, []).append(r.stmt)
    return out


def _same_objects(program, shapes=None) -> dict:
    """name -> the names a change in place of it may change too: those bound to the very same object
    (``js = ks``, joined transitively) and, for an item taken out of a container (``t = pair[0]`` of
    ``pair = [ks]``), with ``shapes``, the names sharing memory with it unless proved to be numbers."""
    group: dict[str, set] = {}
    for r in program.records.values():
        s = r.stmt
        if r.kind == P.COPY and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name):
            a, b = s.targets[0].id, s.value.id
            joined = group.get(a, {a}) | group.get(b, {b})
            for n in joined:
                group[n] = group.get(n, {n}) | joined
    for r in program.records.values() if shapes is not None else ():
        s = r.stmt
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Subscript):
            t = r.stmt.targets[0].id
            others = {m for m in program.shares.get(t, ()) if not shapes.is_scalar(name(m))}
            group[t] = group.get(t, {t}) | others
    return group


def _local_lists(program) -> set[str]:
    """Lists f builds itself (every binding a list display or ``list(...)``) that share memory with no
    other name: undoing an append to them in the adjoint sweep changes nothing the caller sees."""
    bound: dict[str, bool] = {}
    for r in program.records.values():
        s = r.stmt
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            continue  # an item write (undone in the adjoint sweep) does not bind the list
        for t in r.targets if r.kind not in ("if", "for", "while") else ():
            own = (
                isinstance(s, gast.Assign)
                and isinstance(s.targets[0], gast.Name)
                and (
                    isinstance(s.value, gast.List)
                    or isinstance(s.value, gast.Call)
                    and getattr(s.value.func, "id", None) == "list"
                    and program.ns.lookup_name("list") is list
                )
            )
            bound[t] = bound.get(t, True) and own
    return {
        n for n, own in bound.items() if own and n not in program.params and not (program.shares.get(n, set()) - {n})
    }


def has_break(body) -> bool:
    for stmt in body:
        if isinstance(stmt, gast.Break):
            return True
        if isinstance(stmt, gast.If) and (has_break(stmt.body) or has_break(stmt.orelse)):
            return True
    return False


def _overwrite_sites(body, params, program) -> set:
    """Statements whose assignment may destroy a value the adjoint needs: they assign a name
    that may already hold one (assigned earlier, or by the previous iteration of a loop), or write
    into it in place (``a[i] = v``, ``lst.append(v)``).  A loop-invariant value (the same at every
    iteration, e.g. ``t = np.tanh(W)`` inside the loop) destroys nothing."""
    defined = set(params)
    sites = set()
    counts: dict[str, int] = {}
    for s in walk_stmts(body):
        for v in targets(s) if isinstance(s, gast.Assign) else ():
            counts[v] = counts.get(v, 0) + 1

    def visit(stmts, loop_names, invariant):
        for s in stmts:
            if isinstance(s, (gast.For, gast.While)):
                # what the loop assigns, and the lists it appends to (hs[-1] differs at each iteration)
                inner = {v for x in walk_stmts([s]) for v in targets(x)} | {
                    v for x in walk_stmts(s.body) for v in in_place(x)
                }
                if not loop_names:  # outermost loop: what stays the same across all its iterations
                    invariant = _invariants(s, inner, counts, program)
                visit(s.body, loop_names | inner, invariant)
            elif isinstance(s, gast.If):
                # the branches exclude each other: neither overwrites what the other assigns
                entry = set(defined)
                visit(s.body, loop_names, invariant)
                after_body = set(defined)
                defined.clear()
                defined.update(entry)
                visit(s.orelse, loop_names, invariant)
                defined.update(after_body)
            elif isinstance(s, gast.Assign):
                vs = targets(s)
                if isinstance(s.targets[0], gast.Subscript) or any(
                    v in defined or v in loop_names and v not in invariant for v in vs
                ):
                    sites.add(s)
                defined.update(vs)
            elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
                sites.add(s)

    visit(body, set(), set())
    return sites


def _invariants(loop, assigned, counts, program) -> set[str]:
    """Names a loop assigns once, from values that do not change while it runs: pure computations of
    names the loop does not rebind.  A call that may not be pure (a user function or method, ``next``, a
    random draw, a call s2sad does not know) is never invariant, and where such a call may change state
    (anything but a user function without side effects) nothing in the loop is."""
    if any(_may_differ(program, s) == "state" for s in walk_stmts(loop.body)):
        return set()
    candidates = {}
    # a list filled by the loop (r = [] then r.append(v)) is a new list at every iteration
    filled = {
        n.func.value.id
        for n in walk(loop)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
    }
    for s in walk_stmts(loop.body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            v = s.targets[0].id
            if (
                counts.get(v) == 1
                and v not in filled
                and not any(
                    isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in ("pop", "append")
                    for n in walk(s.value)
                )
            ):
                if not _may_differ(program, s):
                    candidates[v] = reads(s.value)
    invariant = set()
    changed = True
    while changed:
        changed = False
        for v, deps in candidates.items():
            if v not in invariant and all(d not in assigned or d in invariant for d in deps):
                invariant.add(v)
                changed = True
    return invariant


def _may_differ(program, stmt) -> str:
    """Whether ``stmt`` may give another value when run again on the same values: "state" (it draws random
    numbers, advances an iterator, or calls what may change state: a user function with side effects, a
    method or function s2sad does not know), "call" (a call of a user function without side effects), or
    "" (a pure operation; ``lst.append(v)`` and ``lst.pop()`` on a name, whose changes the plan follows)."""
    record = program.records.get(stmt)
    op = record.op if record is not None else None
    if op is None:
        return ""
    call = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr)) else None
    if isinstance(call, gast.Call) and call_effect(call, program.ns):
        return "state"
    if isinstance(call, gast.Call) and iterated_names(program, call):
        return "call"  # list(m) of an iterator m: empty when run again
    if op.kind == P.CALL:  # (c.tick() writing into self.n: param_writes)
        return "state" if function_effect(op.fn) is not None or param_writes(op.fn) else "call"
    if op.kind in (P.UNKNOWN, P.OPAQUE):
        tracked = (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute)
            and call.func.attr in ("append", "pop")
            and isinstance(call.func.value, gast.Name)
        )
        return "" if tracked else "state"
    return ""


# builtins that take the items of what they are given
_ITEM_TAKERS = (list, tuple, sorted, sum, min, max, any, all, set, frozenset, dict, enumerate, zip, map, filter)


def iterated_names(program, call) -> list[str]:
    """The names that may hold an iterator whose items ``call`` takes (``list(m)``, ``sum(m)``): a parameter,
    or a local bound by a call that may give one (a user function, ``map``, a generator expression)."""
    if not any(program.ns.lookup(call.func) is b for b in _ITEM_TAKERS):
        return []
    return [a.id for a in call.args if isinstance(a, gast.Name) and _may_be_iterator(program, a.id)]


def _binders(program) -> dict:
    """Name -> the assignments binding it (made once per program: the plan asks for every call)."""
    found = program.__dict__.get("_binders")
    if found is None:
        found = {}
        for r in program.records.values():
            if isinstance(r.stmt, gast.Assign):
                for t in r.targets:
                    found.setdefault(t, []).append(r)
        program.__dict__["_binders"] = found
    return found


def _may_be_iterator(program, var) -> bool:
    if var in program.sequences:
        return False
    binders = _binders(program).get(var, ())
    if not binders:
        return var in program.params
    for r in binders:
        value = r.stmt.value
        if r.kind == P.CALL or r.kind in (P.UNKNOWN, P.OPAQUE) or isinstance(value, gast.GeneratorExp):
            return True
        if isinstance(value, gast.Call) and any(program.ns.lookup(value.func) is b for b in ITERATOR_MAKERS):
            return True
    return False


def _rematerializable(body, sites, shapes, unrestored, program):
    """Cheap scalar values a loop overwrites (``t = 0.5 * z``) are recomputed in the adjoint instead
    of pushed: the copy of the statement goes right before the adjoint of its last use, where every
    operand holds the value it had at the definition (nothing assigns them in between).
    Gives (such definitions, {last use: [definitions to recompute before it]})."""
    counts: dict[str, int] = {}
    for s in walk_stmts(body):
        for v in targets(s) if isinstance(s, gast.Assign) else ():
            counts[v] = counts.get(v, 0) + 1
    remat, before = set(), {}
    stateful = any(_may_differ(program, s) == "state" for s in walk_stmts(body))
    mutated = _mutated(body)
    recomputed: dict[str, tuple] = {}  # name -> (its definition, its block, its position, its last use's)

    def visit(block):
        for a, s in enumerate(block):
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    visit(getattr(s, field))
            if s not in sites or not isinstance(s, gast.Assign) or not isinstance(s.targets[0], gast.Name):
                continue
            t = s.targets[0].id
            value = s.value
            scalar_op = (
                isinstance(value, gast.BinOp)
                and all(isinstance(o, (gast.Name, gast.Constant)) for o in (value.left, value.right))
                and shapes.is_scalar(gast.Name(id=t, ctx=gast.Load(), annotation=None, type_comment=None))
            )
            view = (
                isinstance(value, gast.Subscript)
                and isinstance(value.value, gast.Name)
                and isinstance(value.slice, (gast.Name, gast.Constant, gast.Slice, gast.Tuple))
                and not stateful  # (a call may change the object, which the adjoint sweep does not restore)
                and value.value.id not in mutated  # (lst.append(v): lst[-1] is another item by then)
            )
            if not (scalar_op or view) or counts.get(t) != 1:
                continue
            if view and value.value.id in unrestored:
                continue  # ks[-1] of a list f changes in place, not back in the adjoint sweep: saved
            uses = [b for b in range(len(block)) if t in reads(block[b])]
            if not uses or min(uses) <= a or any(t in reads(x) for x in _outside(body, block)):
                continue
            operands = set(reads(value))
            last = max(uses)
            between = _assigned(block[a + 1 : last + 1]) | {
                v for x in block[a + 1 : last + 1] for y in walk_stmts([x]) for v in in_place(y)
            }
            if operands & between or t in operands:
                continue  # an operand must hold its value where the copy goes
            # an operand recomputed itself (``u = i - 1`` before ``w = a[u]``) and used last before this
            # one's last use is recomputed here instead, first, when its own operands still hold their values
            if all(holds(o, block, last) for o in operands & set(recomputed)):
                for o in sorted(operands & set(recomputed)):
                    move(o, block, last)
                remat.add(s)
                recomputed[t] = (s, block, a, last)
                before.setdefault(block[last], []).append(s)

    def holds(o, block, last) -> bool:
        """Whether the recomputation of ``o`` may go before the adjoint of ``block[last]``."""
        d, where, k, _ = recomputed[o]
        operands = set(reads(d.value))
        later = block[k + 1 : last + 1]
        if where is not block or operands & (_assigned(later) | {v for x in walk_stmts(later) for v in in_place(x)}):
            return False
        return all(holds(p, block, last) for p in operands & set(recomputed))

    def move(o, block, last):
        d, where, k, used = recomputed[o]
        if used >= last:
            return  # already recomputed before that adjoint
        for p in sorted(set(reads(d.value)) & set(recomputed)):
            move(p, block, last)
        before[block[used]].remove(d)
        before.setdefault(block[last], []).append(d)
        recomputed[o] = (d, where, k, last)

    visit(body)
    return remat, before


def _mutated(body) -> set[str]:
    """Names whose objects a method of ``body`` changes in place (``lst.append(v)``, ``d.update(e)``), which
    ``_assigned`` does not see (``a[i] = v`` binds ``a``: it is)."""
    out = set()
    for n in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name):
            if n.func.value.id not in MODULES and n.func.attr in MUTATORS:
                out.add(n.func.value.id)
    return out


def _assigned(stmts) -> set[str]:
    return {v for x in stmts for y in walk_stmts([x]) for v in targets(y)}


def _outside(body, block):
    """What every statement of the function except those of ``block`` (and their nested ones) reads
    itself: a compound statement contributes its test or iterable only."""
    inside = {y for x in block for y in walk_stmts([x])}
    for x in walk_stmts(body):
        if x in inside:
            continue
        if isinstance(x, (gast.If, gast.While)):
            yield x.test
        elif isinstance(x, gast.For):
            yield x.iter
        else:
            yield x


_FRESH = {
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "copy",
    "array",
    "eye",
    "identity",
    "arange",
    "linspace",
    "tile",
    "repeat",
    "concatenate",
    "stack",
}


_FRESH_HELPERS = (list, runtime.zeros_like, runtime.own, runtime.add_at)  # add_at returns its owned argument


def _fresh_arrays(body, ns) -> set[str]:
    """Arrays created inside the function by a NumPy constructor or copy: safe to write in place."""
    import numpy as np

    fresh = set()
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call):
            obj = ns.lookup(s.value.func)
            if any(obj is getattr(np, f, None) for f in _FRESH) or among(obj, _FRESH_HELPERS):
                fresh.add(s.targets[0].id)
            elif isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "copy":
                fresh.add(s.targets[0].id)
    return fresh
