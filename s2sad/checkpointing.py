"""checkpointing: trade time for memory in reverse mode over long loops.

A loop written ``for t in s2sad.checkpoint(range(n), every=k):`` (``checkpoint`` returns its
argument, so the function runs as before) is differentiated in segments of ``k`` iterations
(``every=None``: about sqrt(n)).  Takes the reverse pass's primal loop (which pushes what the
adjoint needs) and adjoint loop; gives

    checkpoints = []
    r = range(n)
    for t in r:                                   # the primal loop, pushing nothing
        if r.index(t) % k == 0:
            checkpoints.append((h, ...))          # the values the loop carries, at a segment start
        ...
    ...
    for s in reversed(range(0, len(r), k)):       # segments, last first
        h, ... = checkpoints.pop()
        for t in r[s:s + k]:                      # the segment again, pushing what its adjoint needs
            ...
        for t in reversed(r[s:s + k]):            # its adjoint
            ...

so the stacks hold at most ``k`` iterations and the checkpoints ``n / k`` states: O(sqrt(n))
memory for one more evaluation of the loop.
"""

from __future__ import annotations

import gast

from .ir import copy_tree, reads, targets, walk_stmts
from .naming import Role, assign, const, name
from .quiet import silenced


def checkpoint(iterable, every: int | None = None):
    """Mark a loop for checkpointing in reverse mode: ``for t in s2sad.checkpoint(range(n), every=10)``.

    Returns ``iterable`` unchanged; s2sad reads the mark from the source.  The adjoint then stores the
    loop's state every ``every`` iterations (about sqrt(n) when None) and recomputes each segment."""
    if every is not None and (not isinstance(every, int) or every < 1):
        raise ValueError(f"checkpoint(every=...) takes a positive integer; got {every!r}")
    return iterable


def apply(rev, primal: list, adjoint: list) -> tuple[list, set[str]]:
    """Rewrite every marked loop of ``primal``/``adjoint`` (top-level statements); give the new
    primal and the names that need a ``None`` definition before the first checkpoint."""
    carried_all: set[str] = set()
    for i, loop in enumerate(list(primal)):
        source = rev.source_loop.get(loop)
        if source is None or not rev.program[source].checkpointed:
            continue
        back = next((a for a in adjoint if rev.source_loop.get(a) is source), None)
        if back is None:
            continue  # nothing to differentiate in the loop: it runs as it is
        _check(rev, source)
        carried = _carried(rev, source)
        carried_all |= set(carried)
        names = rev.names
        ckpts, r, seg = names.fresh("checkpoints", Role.STACK), names.fresh("r", Role.FLAG), names.fresh("s", Role.FLAG)
        every = rev.program[source].every
        if every is None:
            k = names.fresh("k", Role.FLAG)
            size = gast.Call(func=name("len"), args=[name(r)], keywords=[])
            root = gast.BinOp(left=size, op=gast.Pow(), right=const(0.5))
            every_stmt = [assign(k, gast.Call(func=name("max"), args=[const(1), _call("int", root)], keywords=[]))]
            every = name(k)
        else:
            every_stmt = []
        state = gast.Tuple(elts=[name(v) for v in carried], ctx=gast.Load()) if len(carried) != 1 else name(carried[0])
        stacks = set(rev.stacks.values()) | {info.count_stack for info in rev.loops.values() if info.count_stack}
        plain = copy_tree(loop)
        plain.iter = name(r)
        plain.body = _without_pushes(plain.body, stacks)
        position = gast.Call(
            func=gast.Attribute(value=name(r), attr="index", ctx=gast.Load()), args=[name(loop.target.id)], keywords=[]
        )
        save = gast.If(
            test=gast.Compare(
                left=gast.BinOp(left=position, op=gast.Mod(), right=copy_tree(every)),
                ops=[gast.Eq()],
                comparators=[const(0)],
            ),
            body=[gast.Expr(value=_method(ckpts, "append", state))],
            orelse=[],
        )
        plain.body.insert(0, save)
        primal[i : i + 1] = [
            *_reiterable_checks(rev, source),
            assign(ckpts, gast.List(elts=[], ctx=gast.Load())),
            assign(r, copy_tree(source.iter)),
            *every_stmt,
            gast.copy_location(plain, loop),
        ]
        window = gast.Subscript(
            value=name(r),
            slice=gast.Slice(
                lower=name(seg), upper=gast.BinOp(left=name(seg), op=gast.Add(), right=copy_tree(every)), step=None
            ),
            ctx=gast.Load(),
        )
        # the segment runs again: quietly (f printed once; the session makes its helpers' calls quiet copies)
        replay = gast.For(
            target=loop.target, iter=window, body=silenced(copy_tree(loop.body), rev.ns), orelse=[], type_comment=None
        )
        replay.s2sad_replay = True
        reverse = gast.For(
            target=back.target,
            iter=_call("reversed", copy_tree(window)),
            body=back.body,
            orelse=[],
            type_comment=None,
        )
        restore = gast.Assign(
            targets=[
                gast.Tuple(elts=[name(v, gast.Store()) for v in carried], ctx=gast.Store())
                if len(carried) != 1
                else name(carried[0], gast.Store())
            ],
            value=_method(ckpts, "pop"),
            type_comment=None,
        )
        segments = gast.For(
            target=name(seg, gast.Store()),
            iter=_call("reversed", _call("range", const(0), _call("len", name(r)), copy_tree(every))),
            body=[restore, replay, reverse],
            orelse=[],
            type_comment=None,
        )
        for node in (replay, reverse, segments, restore):
            gast.copy_location(node, back)
        adjoint[adjoint.index(back)] = segments
    return primal, carried_all


def _reiterable_checks(rev, loop) -> list:
    """``expect_reiterable(m, ...)`` for each name the loop takes the items of (``for a in m``, ``sum(m)``)
    that may hold an iterator and that the loop does not rebind: a replayed segment would find it empty."""
    from .reverse_plan import iterated_names

    assigned = {t for s in walk_stmts(loop.body) for t in targets(s)}
    found = []
    for s in walk_stmts(loop.body):
        if isinstance(s, (gast.Assign, gast.Expr)) and isinstance(s.value, gast.Call):
            found += [n for n in iterated_names(rev.program, s.value) if n not in assigned and n not in found]
    message = "`{}`, whose items a checkpointed loop takes,"
    return [gast.Expr(value=_call("expect_reiterable", name(n), const(message.format(n)))) for n in found]


def _carried(rev, loop) -> list[str]:
    """The state a segment starts from: names the loop assigns that an iteration reads before it
    assigns them (``h`` in ``h = tanh(h @ W)``), or that existed before the loop (the adjoint of the
    code before the loop sees them as they were)."""
    assigned = {t for s in walk_stmts(loop.body) for t in targets(s)} - {loop.target.id}
    before = {a.id for a in rev.tree.args.args + rev.tree.args.kwonlyargs}
    for stmt in rev.tree.body:
        if stmt is loop:
            break
        before |= {t for s in walk_stmts([stmt]) for t in targets(s)}
    exposed, done = set(), set()
    for stmt in loop.body:
        exposed |= {r for r in reads(stmt) if r not in done}
        if isinstance(stmt, gast.Assign):
            done |= set(targets(stmt))  # definitely assigned from here on (not inside if/for)
    return sorted(assigned & (exposed | before))


def _check(rev, loop):
    """Segments are replayed from saved states: refuse what a replay would repeat or miss."""
    if rev.loops[loop].counter is not None:
        raise rev.error(loop, "a checkpointed loop cannot break or return early; remove s2sad.checkpoint or the break")
    # lists made again by every iteration before they are changed (a list comprehension's): a replay remakes them
    fresh = {
        t
        for s in loop.body
        if isinstance(s, gast.Assign) and isinstance(s.value, gast.List) and not s.value.elts
        for t in targets(s)
    } - set(_carried(rev, loop))
    for s in walk_stmts(loop.body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            raise rev.error(
                s,
                "in-place writes inside a checkpointed loop are not supported; "
                "build new arrays, or drop s2sad.checkpoint",
            )
        if (
            isinstance(s, gast.Expr)
            and isinstance(s.value, gast.Call)
            and isinstance(s.value.func, gast.Attribute)
            and not _fresh_each_iteration(s.value.func.value, fresh)
        ):
            raise rev.error(
                s,
                f"method .{s.value.func.attr}() inside a checkpointed loop would run again when the loop is "
                "replayed; collect values outside the loop, or drop s2sad.checkpoint",
            )
        why = _effect(rev.program, s)
        if why:
            raise rev.error(
                s,
                f"a call inside a checkpointed loop gives another value when the loop is replayed ({why}): the "
                "derivative would use other values than f did; draw the random numbers (or advance the state) "
                "before the loop and index them in it (`noise = rng.normal(size=n)`, then `noise[t]`), or drop "
                "s2sad.checkpoint",
            )
        if isinstance(s, (gast.For, gast.While)) and hasattr(s, "checkpoint"):
            raise rev.error(s, "checkpointed loops cannot be nested; mark the outer loop only")


def _fresh_each_iteration(receiver, fresh) -> bool:
    return isinstance(receiver, gast.Name) and receiver.id in fresh


def _effect(program, stmt) -> str:
    """Why running ``stmt`` again may give another value (a random draw, ``next``, a user function with side
    effects), or ""."""
    from . import primitives as P
    from .effects import call_effect, function_effect

    if isinstance(stmt, (gast.Assign, gast.Expr)) and isinstance(stmt.value, gast.Call):
        why = call_effect(stmt.value, program.ns)
        if why:
            return why
    record = program.records.get(stmt)
    op = record.op if record is not None else None
    if op is not None and op.kind == P.CALL:
        found = function_effect(op.fn)
        if found is not None:
            return f"{op.what} has side effects: {found[1]}, line {found[0]}"
    return ""


def _without_pushes(stmts, stacks):
    out = []
    for s in stmts:
        if (
            isinstance(s, gast.Expr)
            and isinstance(s.value, gast.Call)
            and isinstance(s.value.func, gast.Attribute)
            and isinstance(s.value.func.value, gast.Name)
            and s.value.func.value.id in stacks
        ):
            continue
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body = _without_pushes(s.body, stacks) or [gast.Pass()]
            s.orelse = _without_pushes(s.orelse, stacks)
        out.append(s)
    return out


def _call(func, *args):
    return gast.Call(func=name(func), args=list(args), keywords=[])


def _method(obj, meth, *args):
    return gast.Call(func=gast.Attribute(value=name(obj), attr=meth, ctx=gast.Load()), args=list(args), keywords=[])
