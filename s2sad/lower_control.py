"""lower_control: early exits the later passes cannot replay become flags and guarded blocks.

Takes the parsed gast ``FunctionDef``; gives a ``FunctionDef`` that means the same and in which
``anf`` can move the code after every ``break``, ``continue`` and ``return`` into the other branch of
its ``if`` (so each path through a block runs to its end, and the adjoint replays a path by replaying
branch decisions alone).  Three rewrites, in this order:

* ``return e`` inside a loop becomes ``returned = True; break``; after the loop comes
  ``if returned: break`` (inside another loop) or ``if returned: return e`` (in the function body).
  Nothing runs between the two, so ``e`` evaluated after the loop has the value it has at the
  ``return``.  With several such returns, ``returned = k`` says which (``if returned == k: ...``);
  a ``while True`` loop left only by returning needs no flag.
* ``for ... else`` and ``while ... else``: without a ``break`` the ``else`` block simply follows the
  loop; with one, each ``break`` sets ``broke = True`` first (``broke = False`` before the loop) and
  the block follows as ``if not broke: ...``.
* A jump inside nested ``if``s followed by more code (in a loop body, or a ``return`` in the function
  body) becomes a flag: ``broke = True`` for ``break``, ``skip = True`` for ``continue`` (reset at
  the top of each iteration), ``returned = True`` for ``return``.  Code after a statement that may
  set a flag runs under ``if not broke:``; right after the outermost such statement of the loop body
  comes ``if broke: break`` (``if returned: return e`` in the function body).

A ``raise`` that ends a path of the function gets a ``return None`` after it (never run), so that
every path ends in a ``return``.  Jumps that already end a branch are left as they are, and a
function with nothing to rewrite is given back unchanged (the same object), so its generated code
does not change.  Flag names are fresh
(``broke1`` if the function already uses ``broke``).
"""

from __future__ import annotations

import gast

from .anf import jumps
from .ir import copy_tree, walk
from .naming import Names, all_names, assign, const, name

_JUMPS = (gast.Break, gast.Continue, gast.Return)
_LOOPS = (gast.For, gast.While)


def lower_control(tree: gast.FunctionDef) -> gast.FunctionDef:
    if _ends_in_raise(tree.body):
        tree = copy_tree(tree)
        _return_after_raise(tree.body)
    if not _needs_lowering(tree.body):
        return tree
    tree = copy_tree(tree)
    lowering = _Lowering(Names(all_names(tree)))
    body = lowering.returns_in_loops(tree.body, in_loop=False)
    body = lowering.loop_else(body)
    body = lowering.loop_bodies(body)
    tree.body = lowering.finish(lowering.block(body, None))
    return tree


# ---- a path that ends by raising -------------------------------------------------------------


def _ends_in_raise(stmts) -> bool:
    """Whether a path through the end of ``stmts`` (the last statement, into the branches of a last
    ``if``) ends with ``raise``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, gast.Raise):
        return True
    return isinstance(last, gast.If) and (_ends_in_raise(last.body) or _ends_in_raise(last.orelse))


def _return_after_raise(stmts) -> None:
    """``return None`` after each ``raise`` that ends the function on a path: it never runs (the
    ``raise`` leaves first), but it makes every path end in a ``return``, as ``anf`` needs."""
    last = stmts[-1] if stmts else None
    if isinstance(last, gast.Raise):
        stmts.append(gast.copy_location(gast.Return(value=None), last))
    elif isinstance(last, gast.If):
        _return_after_raise(last.body)
        _return_after_raise(last.orelse)


# ---- queries ---------------------------------------------------------------------------------


def _structured(stmts) -> bool:
    """Whether ``anf.restructure`` can move the code after each jump of ``stmts`` into the other
    branch: no ``if`` one of whose branches only sometimes jumps is followed by more code."""
    for k, s in enumerate(stmts):
        if isinstance(s, _JUMPS):
            return True
        if isinstance(s, gast.If):
            if not (_structured(s.body) and _structured(s.orelse)):
                return False
            a, b = jumps(s.body), jumps(s.orelse)
            if k + 1 < len(stmts) and "maybe" in (a, b):
                return False
            if a == b == "always":
                return True
    return True


def _needs_lowering(body) -> bool:
    def visit(stmts, in_loop):
        for s in stmts:
            if isinstance(s, gast.Return) and in_loop:
                return True
            if isinstance(s, _LOOPS):
                if s.orelse or not _structured(s.body) or visit(s.body, True) or visit(s.orelse, in_loop):
                    return True
            elif isinstance(s, gast.If) and (visit(s.body, in_loop) or visit(s.orelse, in_loop)):
                return True
        return False

    return not _structured(body) or visit(body, False)


def _own(stmts, kinds):
    """The statements of ``kinds`` in ``stmts`` and its ``if``s (not in nested loops)."""
    for s in stmts:
        if isinstance(s, kinds):
            yield s
        elif isinstance(s, gast.If):
            yield from _own(s.body, kinds)
            yield from _own(s.orelse, kinds)


def _at(node, where):
    node = gast.copy_location(node, where)
    for n in walk(node):
        if isinstance(n, (gast.stmt, gast.expr)) and getattr(n, "lineno", None) is None:
            gast.copy_location(n, where)
    return node


def _not(flags):
    test = name(flags[0]) if len(flags) == 1 else gast.BoolOp(op=gast.Or(), values=[name(f) for f in flags])
    return gast.UnaryOp(op=gast.Not(), operand=test)


def _if(test, body, where):
    return _at(gast.If(test=test, body=body, orelse=[]), where)


class _Lowering:
    def __init__(self, names: Names):
        self.names = names
        self._returned = None
        # tables keyed by the statements themselves (by identity)
        self.break_flag: dict = {}  # loop -> its break flag
        self.skip_flag: dict = {}  # loop -> its continue flag
        self.sites: list = []  # the deferred returns: (the `returned = k` statement, the Return)
        self.site_of: dict = {}  # `returned = k` -> k
        self.exits: dict = {}  # `if returned: ...` -> the sites it covers (function level)
        self.certain: set = set()  # ... of which these follow a loop that ends only by returning

    # ---- names ---------------------------------------------------------------------------------
    @property
    def returned(self):
        self._returned = self._returned or self.names.fresh("returned")
        return self._returned

    def flag_of(self, loop):
        if loop not in self.break_flag:
            self.break_flag[loop] = self.names.fresh("broke")
        return self.break_flag[loop]

    # ---- deferred returns ----------------------------------------------------------------------
    def site(self, node):
        """``returned = k`` for the k-th deferred ``return``: nothing runs between it and the exit
        that evaluates the returned expression, so the expression sees the values it would have."""
        stmt = _at(assign(self.returned, const(len(self.sites) + 1)), node)
        self.sites.append((stmt, node))
        self.site_of[stmt] = len(self.sites)
        return stmt

    def exit(self, in_loop, stmts, where, certain=False):
        """After a loop (or an ``if``) that may have set ``returned``: leave the enclosing loop, or
        return (a placeholder until every site is known, see :meth:`finish`).  ``certain``: the
        loop ends only by returning (``while True`` without a break of its own)."""
        if in_loop:
            if certain:
                return _at(gast.Break(), where)
            stmt = _if(name(self.returned), [_at(gast.Break(), where)], where)
            self.exits[stmt] = None
        else:
            # a placeholder that jumps, as the returns it becomes do
            stmt = _if(name(self.returned), [_at(gast.Return(value=name(self.returned)), where)], where)
            self.exits[stmt] = self.sites_in(stmts)
            if certain:
                self.certain.add(stmt)
        return stmt

    def sites_in(self, stmts):
        return [k for s in stmts for n in walk(s) if (k := self.site_of.get(n))]

    def finish(self, body):
        """``returned = True`` and ``if returned: return e`` for one deferred return; ``returned = k``
        and ``if returned == k: return e_k`` for several; ``returned = False`` before the first."""
        if not self.sites:
            return body
        single = len(self.sites) == 1
        for stmt, _ in self.sites:
            stmt.value = const(True if single else self.site_of[stmt])

        def fill(stmts):
            out = []
            for s in stmts:
                if self.exits.get(s):
                    for k in self.exits[s]:
                        ret = self.sites[k - 1][1]
                        value = ret.value if ret.value is not None else const(None)
                        ret = _at(gast.Return(value=value), ret)
                        if s in self.certain and k == self.exits[s][-1]:  # the loop ended by returning
                            out.append(ret)
                            break
                        test = name(self.returned)
                        if not single:
                            test = gast.Compare(left=test, ops=[gast.Eq()], comparators=[const(k)])
                        out.append(_if(test, [ret], s))
                    continue
                if isinstance(s, (gast.If, *_LOOPS)):
                    s.body, s.orelse = fill(s.body), fill(s.orelse)
                out.append(s)
            return out

        body = fill(body)
        flag = self.returned
        if not any(isinstance(n, gast.Name) and n.id == flag and isinstance(n.ctx, gast.Load) for n in walk_all(body)):
            return _drop(body, {stmt for stmt, _ in self.sites})  # `while True` loops left by returning
        first = next(k for k, s in enumerate(body) if self.sites_in([s]))
        init = _at(assign(self.returned, const(False if single else 0)), body[first])
        return body[:first] + [init] + body[first:]

    # ---- return inside loops -------------------------------------------------------------------
    def returns_in_loops(self, stmts, in_loop):
        out = []
        for s in stmts:
            if isinstance(s, gast.Return) and in_loop:
                out += [self.site(s), _at(gast.Break(), s)]
                break
            if isinstance(s, gast.If):
                s.body = self.returns_in_loops(s.body, in_loop)
                s.orelse = self.returns_in_loops(s.orelse, in_loop)
            elif isinstance(s, _LOOPS):
                before = len(self.sites)
                endless = (
                    isinstance(s, gast.While)
                    and isinstance(s.test, gast.Constant)
                    and bool(s.test.value)
                    and not any(True for _ in _own(s.body, gast.Break))
                )
                own_break = any(True for _ in _own(s.body, gast.Break))
                s.body = self.returns_in_loops(s.body, True)
                s.orelse = self.returns_in_loops(s.orelse, in_loop)
                # ``for ... else: return e2`` with no break of its own: past the loop, it has returned
                certain = endless or not in_loop and not own_break and bool(s.orelse) and jumps(s.orelse) == "always"
                if len(self.sites) > before:
                    out += [s, self.exit(in_loop, [s], s, certain=certain)]
                    continue
            out.append(s)
        return out

    # ---- for ... else, while ... else ----------------------------------------------------------
    def loop_else(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                s.body, s.orelse = self.loop_else(s.body), self.loop_else(s.orelse)
            elif isinstance(s, _LOOPS):
                s.body = self.loop_else(s.body)
                orelse, s.orelse = self.loop_else(s.orelse), []
                if orelse and any(True for _ in _own(s.body, gast.Break)):
                    flag = self.flag_of(s)
                    s.body = self.set_before_breaks(s.body, flag)
                    out += [_at(assign(flag, const(False)), s), s, _if(_not([flag]), orelse, orelse[0])]
                    continue
                out += [s, *orelse]
                continue
            out.append(s)
        return out

    def set_before_breaks(self, stmts, flag):
        out = []
        for s in stmts:
            if isinstance(s, gast.Break):
                out.append(_at(assign(flag, const(True)), s))
            elif isinstance(s, gast.If):
                s.body, s.orelse = self.set_before_breaks(s.body, flag), self.set_before_breaks(s.orelse, flag)
            out.append(s)
        return out

    # ---- jumps inside nested ifs followed by more code -----------------------------------------
    def loop_bodies(self, stmts):
        """Every loop in ``stmts``, innermost first, with a body ``anf`` can restructure."""
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                s.body, s.orelse = self.loop_bodies(s.body), self.loop_bodies(s.orelse)
            elif isinstance(s, _LOOPS):
                s.body = self.loop_bodies(s.body)
                had_flag = s in self.break_flag
                body = self.block(s.body, s)
                if s in self.skip_flag:  # continue's flag: reset at the top of each iteration
                    body.insert(0, _at(assign(self.skip_flag[s], const(False)), s.body[0]))
                s.body = body
                if s in self.break_flag and not had_flag:
                    out.append(_at(assign(self.break_flag[s], const(False)), s))
            out.append(s)
        return out

    def block(self, stmts, loop):
        """A loop body (``loop`` given) or the function body (``loop`` None) whose top-level ``if``s
        that ``anf`` cannot restructure have their jumps made flags."""
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, _JUMPS):
                out.append(s)
                break
            rest = stmts[k + 1 :]
            if not isinstance(s, gast.If) or (
                _structured([s]) and not (rest and "maybe" in (jumps(s.body), jumps(s.orelse)))
            ):
                out.append(s)
                continue
            flagged, flags = self.flagged([s], loop)
            out += flagged
            skip = self.skip_flag.get(loop)
            for flag in flags:
                if loop is None:
                    out.append(self.exit(False, flagged, s))
                elif flag != skip:  # a break, or a return inside this loop: leave the loop
                    out.append(_if(name(flag), [_at(gast.Break(), s)], s))
            if rest:
                rest = self.block(rest, loop)
                if skip in flags:
                    rest = [_if(_not([skip]), rest, rest[0])]
                out += rest
            break
        return out

    def flagged(self, stmts, loop):
        """``stmts`` with every jump of ``loop`` (of the function when None) made a flag, and what
        follows a statement that may set a flag guarded by ``if not flag``; gives (stmts, flags)."""
        out, flags = [], []
        for k, s in enumerate(stmts):
            if isinstance(s, gast.Break):
                if out and out[-1] in self.site_of:  # a return inside the loop: returned is set
                    return out, [self.returned]
                flag = self.flag_of(loop)
                if not _sets(out[-1:], flag):
                    out.append(_at(assign(flag, const(True)), s))
                return out, [flag]
            if isinstance(s, gast.Continue):
                if loop not in self.skip_flag:
                    self.skip_flag[loop] = self.names.fresh("skip")
                flag = self.skip_flag[loop]
                return [*out, _at(assign(flag, const(True)), s)], [flag]
            if isinstance(s, gast.Return):
                return [*out, self.site(s)], [self.returned]
            new = []
            if s in self.exits:  # `if returned: ...` after a loop: the flag is set already
                new = [self.returned]
            elif isinstance(s, gast.If):
                s.body, body_flags = self.flagged(s.body, loop)
                s.orelse, else_flags = self.flagged(s.orelse, loop)
                s.body = s.body or [_at(gast.Pass(), s)]
                new = _union(body_flags, else_flags)
                out.append(s)
            else:
                out.append(s)
            flags = _union(flags, new)
            rest = stmts[k + 1 :]
            if new and rest:
                rest, rest_flags = self.flagged(rest, loop)
                if rest:
                    out.append(_if(_not(new), rest, rest[0]))
                return out, _union(flags, rest_flags)
        return out, flags


def walk_all(stmts):
    for s in stmts:
        yield from walk(s)


def _drop(stmts, drop: set):
    out = []
    for s in stmts:
        if s in drop:
            continue
        if isinstance(s, (gast.If, *_LOOPS)):
            s.body, s.orelse = _drop(s.body, drop) or [gast.copy_location(gast.Pass(), s)], _drop(s.orelse, drop)
        out.append(s)
    return out


def _sets(stmts, flag) -> bool:
    return any(
        isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == flag for s in stmts
    )


def _union(a, b):
    return a + [f for f in b if f not in a]
