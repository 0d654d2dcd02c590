"""reverse: reverse mode.  ANF function -> derivative function (primal sweep, then adjoint sweep).

Takes the :class:`~s2sad.program.Program`, the ``wrt`` parameter names, the active set and symbolic
shapes (and makes its :class:`~s2sad.reverse_plan.Plan` from them); gives a
``FunctionDef`` ``df_dx(x, ..., bout=1.0)`` and asks ``request_vjp`` for the adjoints of the user
functions it calls.  Conventions of the generated code:

* adjoints are ``b<name>``; an adjoint that is still zero does not exist (symbolic zero): its first
  contribution assigns it, later ones add to it;
* adjoints are summed back to their input's shape (``unbroadcast``) only where shapes may differ;
* a value that code inside ``if``/``for``/``while`` overwrites, and that the adjoint needs, is
  pushed on a list before the write and popped after the write's adjoint (``z_stack``);
* ``for i in range(...)`` loops run backwards as ``for i in reversed(range(...))``; ``while`` loops
  and loops with ``break`` count their iterations; an ``if`` replays the branch its condition chose.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from . import checkpointing
from . import primitives as P
from .aliases import makes_view
from .effects import argument_change, function_effect, iterated, repeated_effect_message
from .ir import MODULES, STORES, changed, changed_receiver, copy_tree, is_pop, reads, targets, walk, walk_stmts
from .naming import Role, assign, const, name
from .operands import operand_checks
from .optimize import fold
from .quiet import silenced
from .reverse_plan import has_break, plan_reverse
from .rules.registry import ELEMENTWISE, public_name
from .template import as_nodes, operands, substitute, template_locals, to_node

_LIVE_AT_START = object()


def _call(func: str, *args, **kwargs):
    f = name(func) if "." not in func else _dotted(func)
    return gast.Call(func=f, args=list(args), keywords=[gast.keyword(arg=k, value=v) for k, v in kwargs.items()])


def _dotted(path):
    root, *rest = path.split(".")
    node = name(root)
    for attr in rest:
        node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
    return node


def _method(obj: str, meth: str, *args):
    return gast.Call(func=gast.Attribute(value=name(obj), attr=meth, ctx=gast.Load()), args=list(args), keywords=[])


@dataclass
class LoopCount:
    """How the adjoint sweep knows how often a loop ran: a ``for`` loop over a sequence without
    ``break`` needs nothing; others count (``counter``), and a nested one pushes each count."""

    counter: str | None
    count_stack: str | None


class Reverse:
    def __init__(self, program, wrt, shapes, active, request_vjp):
        self.program = program
        tree, ns = program.tree, program.ns
        self.tree, self.wrt, self.ns, self.loc, self.names = tree, wrt, ns, program.loc, program.names
        self.shapes, self.active, self.request_vjp = shapes, active, request_vjp
        plan = plan_reverse(program, shapes, active)
        self.plan = plan
        self.checks = operand_checks(program, active, ns)  # expect_plain before a rule on an unseen type
        self.params, self.primal_vars = plan.params, plan.primal_vars
        self.sequences, self.trees = plan.sequences, plan.trees
        self.sites, self.remat, self.remat_before = plan.sites, plan.remat, plan.remat_before
        self.fresh_arrays, self.stack_lists, self.range_vars = plan.fresh_arrays, plan.stack_lists, plan.range_vars
        self.remat_copies: list = []  # (recomputation, variable): dropped if the adjoint never reads it
        # lists read by index (``hs[0]``): they may hold items besides those the adjoint pushes and pops
        self.indexed_lists = {
            n.value.id
            for n in walk(tree)
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and n.value.id in self.stack_lists
        }
        self._adj: dict[str, str] = {}
        self.live: set[str] = set()
        self.owned: set[str] = set()
        self.stacks: dict[str, str] = {}
        self.pops: list = []  # (pop statement, variable): dropped later if the variable is not needed
        self.shrinks: set = set()  # of which the undoing of appends to a list without derivatives
        self.loops: dict[gast.stmt, LoopCount] = {}  # each loop of the user's code -> how it is counted
        self.source_loop: dict = {}  # each loop written (primal and adjoint) -> the user's loop it runs
        self.depth = 0
        self.keep_live: set[str] = set()  # adjoints live throughout the enclosing loops' iterations
        self.copied: set[str] = set()  # adjoints copied to be written in place
        self.output_value = None  # name holding an overwritten statement's new value, while its old one is restored

    # ---- names -----------------------------------------------------------------------------
    def adj(self, var: str) -> str:
        if var not in self._adj:
            self._adj[var] = self.names.adjoint(var)
        return self._adj[var]

    def stack(self, var: str) -> str:
        if var not in self.stacks:
            self.stacks[var] = self.names.fresh(var + "_stack", Role.STACK, var)
        return self.stacks[var]

    def is_active(self, atom) -> bool:
        return isinstance(atom, gast.Name) and atom.id in self.active

    def error(self, node, msg):
        return self.loc.error(node, msg)

    # ---- accumulation ----------------------------------------------------------------------
    def accumulate(self, var: str, expr, out, sign=1, elementwise=False, atom=None):
        """Emit ``b<var> += expr`` honouring symbolic zeros, unbroadcast and sequences."""
        expr = fold(expr)  # before deciding ownership: ``bz * 1`` is ``bz`` itself, not a new array
        if elementwise and (out is None or self.shapes.get(atom) != out):
            expr = _call("unbroadcast", expr, name(var))
        b = self.adj(var)
        if b not in self.live and sign > 0 and isinstance(expr, gast.Name) and expr.id == b:
            self.live.add(b)  # s = s + t: the old s's adjoint is the new one's
            return []
        if b not in self.live:
            value = expr if sign > 0 else gast.UnaryOp(op=gast.USub(), operand=expr)
            self.live.add(b)
            self.owned.discard(b)
            if isinstance(expr, gast.BinOp) or sign < 0:
                self.owned.add(b)
            return [assign(b, value)]
        if var in self.sequences:
            return [assign(b, _call("add_seq", name(b), expr))]
        if var in self.trees:  # an adjoint that may be a container: added part by part
            self.owned.discard(b)
            part = expr if sign > 0 else gast.UnaryOp(op=gast.USub(), operand=expr)
            return [assign(b, _call("tree_add", name(b), part))]
        op = gast.Add() if sign > 0 else gast.Sub()
        # derivative code differentiated again mixes real and complex adjoints (a real value's adjoint may
        # receive a complex one): there every accumulation makes a new value instead of adding in place
        generated = getattr(self.ns.fn, "__module__", None) == "s2sad.generated"
        if b in self.owned and not self.shapes.is_scalar(name(var)) and not generated and _real_safe(expr):
            # b holds an array no other name shares: add in place, no new array (only a part that is real
            # where var is: a real value's adjoint may receive a complex part, bv += bu * 1j, which NumPy
            # cannot add into a real array in place; b = b + part keeps it, and its real part counts)
            return [gast.AugAssign(target=name(b, gast.Store()), op=op, value=expr)]
        self.owned.add(b)
        return [assign(b, gast.BinOp(left=name(b), op=op, right=expr))]

    def accumulate_index(self, var: str, index, expr):
        """Emit ``b<var>[index] += expr`` into an owned array."""
        b = self.adj(var)
        out = []
        if b not in self.live:
            if b in reads(expr):  # x = x[:2]: the part added is the adjoint of the new x, which bx holds
                held = self.names.temp()
                out.append(assign(held, expr))
                expr = name(held)
            out.append(assign(b, _call("zeros_like", name(var))))
            self.live.add(b)
            self.owned.add(b)
        elif b not in self.owned:
            if var in self.sequences:  # a tuple or list of adjoints: copied item by item into a list
                out.append(assign(b, _call("own", name(b))))
            else:
                zeros = _call("zeros_like", name(var))
                own = _call("tree_add", name(b), zeros) if var in self.trees else gast.BinOp(name(b), gast.Add(), zeros)
                out.append(assign(b, own))
            self.owned.add(b)
            self.copied.add(b)
        # a lone slice may select items of a list (``l[1:]``, ``parts[::-1]``): add_at adds item by item,
        # where ``bl[1:] += g`` would extend the list
        if (
            _basic_index(index, self.range_vars)
            and not _item_index(index)
            and not isinstance(index, gast.Slice)
            and (var in self.sequences or _real_safe(expr))
        ):
            target = gast.Subscript(value=name(b), slice=index, ctx=gast.Store())
            if var in self.sequences:
                # items of a list of adjoints: new values, not in-place adds (a real item's adjoint may
                # receive a complex one; only its real part counts, taken where it is used)
                load = gast.Subscript(value=name(b), slice=copy_tree(index), ctx=gast.Load())
                out.append(gast.Assign(targets=[target], value=gast.BinOp(load, gast.Add(), expr), type_comment=None))
            else:
                out.append(gast.AugAssign(target=target, op=gast.Add(), value=expr))
        else:
            out.append(assign(b, _call("add_at", name(b), _index_value(index), expr)))  # b stays owned
        return out

    def forget_shared(self, code):
        """Arithmetic makes new arrays; anything else (``bt = bv``, ``unbroadcast(bv, t)``, ``bz[0]``)
        may return an array another name holds too, and such an adjoint must not be added into in place."""
        for stmt in code:
            if (
                isinstance(stmt, gast.Assign)
                and not isinstance(stmt.value, (gast.BinOp, gast.UnaryOp))
                and not (isinstance(stmt.value, gast.Call) and getattr(stmt.value.func, "id", None) == "add_at")
            ):
                for n in _shareable_reads(stmt.value):
                    self.owned.discard(n)

    def zero(self, var: str):
        b = self.adj(var)
        self.live.add(b)
        self.owned.add(b)
        if var in self.stack_lists:  # a list used as a stack (x = lst.pop()): its adjoint is one too, with
            # a zero for each item it may hold here when it is read by index (``hs = [w]``, then ``hs[0]``)
            # or was a display (``hs = [x, u, v]`` popped twice: the adjoint of the display reads three)
            if var in self.indexed_lists or var in self.program.sequences:
                return assign(b, _call("zeros_like", name(var)))
            return assign(b, gast.List(elts=[], ctx=gast.Load()))
        if self.shapes.is_scalar(name(var)):
            return assign(b, const(0.0))
        return assign(b, _call("zeros_like", name(var)))

    # ---- statements ------------------------------------------------------------------------
    def adjoint_block(self, stmts) -> list:
        out = []
        for stmt in reversed(stmts):
            code = [copy_tree(d) for d in self.remat_before.get(stmt, ())]
            self.remat_copies += [(c, c.targets[0].id) for c in code]
            own = self.adjoint_stmt(stmt)
            self.refuse_changed_later(stmt, own)
            code += own
            self.forget_shared(code)
            for c in code:  # the user's line, for source maps and tracebacks
                if getattr(c, "lineno", None) is None:
                    gast.copy_location(c, stmt)
            out.extend(code)
        return out

    def refuse_changed_later(self, stmt, code):
        """The adjoint of ``stmt`` reads a list (dict, array) that f changes in place after ``stmt`` (or in a
        loop around both) by a change the adjoint sweep does not undo (``ks.insert(0, v)``): it would see the
        changed value, so it is refused at the user's line.  A called user function's derivative runs its
        code again: a global f changes so, which it may read, is refused the same way."""
        unrestored = self.plan.unrestored
        if not unrestored or isinstance(stmt, (gast.If, gast.While)):
            return
        if isinstance(stmt, gast.For):
            read = reads(stmt.iter)
        else:
            read = reads(gast.Module(body=code, type_ignores=[]))
            if code and stmt in self.program.records and self.program.op(stmt).kind == P.CALL:
                read += [n for n in unrestored if n not in self.primal_vars and n not in read]
        loops = set(self.program.records[stmt].loops) if stmt in self.program.records else set()
        for n in read:
            for m in unrestored.get(n, ()):
                if m is not stmt and (self.order[m] > self.order[stmt] or loops & set(self.program.records[m].loops)):
                    user = (self.names.users([n]) or [n])[0]
                    what = (
                        f"reads '{user}'" if n in self.primal_vars else f"runs code that may read the global '{user}'"
                    )
                    raise self.error(
                        stmt,
                        f"the derivative of this line {what} again after f has run, but f changes '{user}' in "
                        f"place later (line {m.lineno}), which s2sad cannot undo; build a new value instead of "
                        f"changing it (e.g. {user} = {user} + [v] for a list), or pass a copy",
                    )

    @property
    def order(self):
        if not hasattr(self, "_order"):
            self._order = {s: k for k, s in enumerate(walk_stmts(self.tree.body))}
        return self._order

    def adjoint_stmt(self, stmt) -> list:
        if isinstance(stmt, gast.If):
            return self.adjoint_if(stmt)
        if isinstance(stmt, gast.For):
            return self.adjoint_for(stmt)
        if isinstance(stmt, gast.While):
            return self.adjoint_while(stmt)
        if isinstance(stmt, (gast.Break, gast.Continue, gast.Pass, gast.Return, gast.Assert, gast.Raise)):
            return []
        if isinstance(stmt, gast.Expr):
            return self.adjoint_expr(stmt)
        restores = []
        for var in targets(stmt) if stmt in self.sites and stmt not in self.remat else ():
            if isinstance(stmt.targets[0], gast.Subscript):
                target = stmt.targets[0]
                restore = gast.Assign(
                    targets=[gast.Subscript(value=name(var), slice=target.slice, ctx=gast.Store())],
                    value=_method(self.stack(var), "pop"),
                    type_comment=None,
                )
            else:
                restore = assign(var, _method(self.stack(var), "pop"))
            self.pops.append((restore, var))
            restores.append(restore)
        target = stmt.targets[0]
        if restores and isinstance(target, gast.Name) and target.id in reads(stmt.value):
            # x = f(x): the rule needs the old x (restored first) and maybe the new one (kept aside)
            self.output_value = self.names.temp()
            code = self.adjoint_assign(stmt)
            keep = (
                [assign(self.output_value, name(target.id))]
                if self.output_value in reads(gast.Module(body=code, type_ignores=[]))
                else []
            )
            self.output_value = None
            return keep + restores + code if code else restores
        return self.adjoint_assign(stmt) + restores

    def adjoint_expr(self, stmt):
        """``lst.append(v)``: the adjoint pops ``v``'s adjoint off ``blst`` (and the primal list is
        shrunk back if the adjoint reads it); other calls on active values are refused."""
        call = stmt.value
        func = call.func
        receiver = func.value.id if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) else None
        receiver = None if receiver in MODULES else receiver  # np.f(..., out=y): a function, no receiver
        problem = (
            P.discarded_call_problem(self.program.op(stmt), self.active, self.program.names, self.program.shares)
            if receiver is None or receiver not in self.active and func.attr not in STORES  # (rng.shuffle(a))
            else None
        )
        if problem:
            raise self.error(stmt, problem)
        if receiver in self.plan.shrunk and func.attr == "append" and len(call.args) == 1 and not call.keywords:
            shrink = gast.Expr(value=_method(receiver, "pop"))  # (kept only when the adjoint reads the list)
            self.pops.append((shrink, receiver))
            self.shrinks.add(shrink)
            return [shrink]
        if receiver is None or receiver not in self.active:
            return []
        if func.attr != "append" or len(call.args) != 1 or call.keywords:
            raise self.error(stmt, _in_place(call, receiver, self.program.names))
        code = []
        item = call.args[0]
        blst = self.adj(receiver)
        if blst in self.live and receiver in self.plan.read_whole:  # np.mean(vals): blst may be an array
            code.append(assign(blst, _call("listed", name(blst))))
        if blst in self.live and self.is_active(item):
            code += self.accumulate(item.id, _method(blst, "pop"), item)
        elif blst in self.live:
            code.append(gast.Expr(value=_method(blst, "pop")))
        shrink = gast.Expr(value=_method(receiver, "pop"))
        self.pops.append((shrink, receiver))
        code.append(shrink)
        return code

    def adjoint_assign(self, stmt) -> list:
        outs = targets(stmt)
        changed = changed_receiver(stmt.value)
        if changed in self.active:
            raise self.error(stmt, _in_place(stmt.value, changed, self.program.names))
        if is_pop(stmt.value) and stmt.value.func.value.id in self.active:
            return self.adjoint_pop(stmt)  # even when the popped value is not used: the stacks stay aligned
        if not any(o in self.active for o in outs):
            return []
        op = self.program.op(stmt)
        if op.kind == P.SETITEM:
            problem = self.program.object_array_write(op, self.is_active(op.args[2]))
            if problem:
                raise self.error(stmt, problem)
            return self.adjoint_setitem(stmt, op)
        if op.kind == P.UNPACK:
            return self.adjoint_unpack(stmt, op)
        out = outs[0]
        bout = self.adj(out)
        if bout not in self.live:
            return []  # nothing flows back: symbolic zero
        if not any(r in self.active for r in reads(stmt.value)):
            self.live.discard(bout)  # a value made from inactive inputs only (np.zeros(n), a constant)
            return []
        self.live.discard(bout)  # the value before this assignment is another value: its adjoint starts at zero
        return self.adjoint_op(stmt, op, out, bout)

    def adjoint_op(self, stmt, op, out, bout):
        if op.kind == P.COPY:
            code = self.acc_atom(op.args[0], name(bout), out)
        elif op.kind == P.BUILD:
            code = []
            for i, elt in enumerate(op.args):
                if self.is_active(elt):
                    key = copy_tree(op.keys[i]) if op.keys is not None else const(i)
                    item = gast.Subscript(value=name(bout), slice=key, ctx=gast.Load())
                    if op.fn is not None:  # a NamedTuple or dataclass: its adjoint's field
                        item = _call("item_of", name(bout), key)
                    # a new value, not an in-place add: a real item's adjoint may receive a complex one
                    self.owned.discard(self.adj(elt.id))
                    code += self.accumulate(elt.id, item, name(out))
        elif op.kind == P.RULE:
            problem = self.program.sequence_arithmetic(op)
            if problem:
                raise self.error(stmt, problem)
            code = self.adjoint_rule(stmt, op, out, bout)
        elif op.kind == P.CALL:
            code = self.adjoint_call(stmt, op, out, bout)
        elif op.kind == P.NONDIFF:
            code = []
        else:
            raise self.error(stmt, self.no_rule_message(op))
        return code

    def no_rule_message(self, op):
        if op.kind == P.OPAQUE:
            return P.opaque_message(op)
        if P.is_checked_derivative(op.fn):
            return P.checked_derivative_message(op.fn)
        if op.fn is not None:
            return (
                f"no derivative rule for `{public_name(op.fn)}`; register one with s2sad.reverse_rule "
                "(and s2sad.forward_rule), or wrap inputs that need no derivative in s2sad.stop_gradient"
            )
        return (
            f"s2sad cannot differentiate {op.what} applied to a differentiated value; "
            "use a NumPy function or register a rule with s2sad.reverse_rule"
        )

    def acc_atom(self, atom, expr, out):
        if self.is_active(atom):
            return self.accumulate(atom.id, expr, name(out))
        return []

    def adjoint_pop(self, stmt):
        """``x = lst.pop()``: ``x``'s adjoint goes back onto ``blst`` (where the adjoint of the
        ``lst.append`` that pushed it takes it from), and ``x`` goes back onto ``lst``."""
        out = stmt.targets[0].id
        lst = stmt.value.func.value.id
        bout, blst = self.adj(out), self.adj(lst)
        code = []
        if blst not in self.live:
            code.append(self.zero(lst))
        item = name(bout) if bout in self.live else self.zero_value(out)
        self.live.discard(bout)
        code.append(gast.Expr(value=_method(blst, "append", item)))
        restore = gast.Expr(value=_method(lst, "append", name(out)))
        self.pops.append((restore, lst))
        return code + [restore]

    def zero_value(self, var):
        return const(0.0) if self.shapes.is_scalar(name(var)) else _call("zeros_like", name(var))

    def adjoint_setitem(self, stmt, op):
        """``a[i] = v``: ``v`` receives the adjoint of the slice it wrote, which then restarts at zero
        (the old values there no longer reach the output)."""
        array, index, value = op.args
        if array.id not in self.fresh_arrays and array.id not in self.program.writable:
            raise self.error(
                stmt,
                f"in-place write into '{array.id}', which may share memory with an input or another "
                f"array; make it a fresh array first (e.g. {array.id} = np.copy({array.id}) or np.zeros(...))",
            )
        b = self.adj(array.id)
        if b not in self.live:
            return []
        code = []
        whole = isinstance(index, gast.Constant) and index.value is Ellipsis  # (a 0-d array's adjoint may be a float)
        if b not in self.owned or whole and b not in self.copied:
            code.append(assign(b, _call("own", name(b))))
            self.owned.add(b)
            self.copied.add(b)
        if self.is_active(value) and array.id not in self.program.integral:  # an int array truncates
            part = gast.Subscript(value=name(b), slice=index, ctx=gast.Load())
            if not _basic_index(index, self.range_vars):  # a[[0, 0, 1]] = v: the last write wins
                part = gast.BinOp(left=part, op=gast.Mult(), right=_call("last_writes", name(b), _index_value(index)))
            # a copy: the slice of the adjoint is reset to zero right after
            if not self.shapes.is_scalar(value) or makes_view(index):
                expr = _call("unbroadcast", _call("np.copy", part), value)
            else:  # a number written at integer indices: a number, or a row it was broadcast over (summed)
                expr = _call("unbroadcast", part, value)
            if array.id not in self.program.inexact:  # its dtype is known at run time only
                expr = _call("stored", array, expr)
            code += self.accumulate(value.id, expr, value)
        zero = const(0.0)
        if array.id in self.program.sequences or array.id in self.plan.sequences:  # a list's item: of its shape
            zero = _call("zeros_like", gast.Subscript(value=name(b), slice=copy_tree(index), ctx=gast.Load()))
        code.append(
            gast.Assign(
                targets=[gast.Subscript(value=name(b), slice=index, ctx=gast.Store())], value=zero, type_comment=None
            )
        )
        return code

    def adjoint_unpack(self, stmt, op):
        src = op.args[0]
        outs = targets(stmt)
        live = [self.adj(o) in self.live for o in outs]
        if not any(live) or not self.is_active(src):
            for o in outs:
                self.live.discard(self.adj(o))
            return []
        code = []
        parts = []
        for o, is_live in zip(outs, live):
            if is_live:
                parts.append(name(self.adj(o)))
            else:
                parts.append(_call("zeros_like", name(o)))
            self.live.discard(self.adj(o))
        parts = gast.Tuple(elts=parts, ctx=gast.Load())
        if src.id not in self.sequences:  # an array's rows, or a tuple a call returned: known at run time
            parts = _call("unpacked_adjoint", parts, src)
        code += self.accumulate(src.id, parts, name(outs[0]))
        return code

    def adjoint_rule(self, stmt, op, out, bout):
        rule = op.rule
        mapping = None
        for template in rule.reverse:
            try:
                mapping = as_nodes(template.bind(op.args, op.keywords))
                break
            except TypeError as exc:
                error = exc
        if mapping is None:
            if not rule.reverse:
                raise self.error(
                    stmt, f"`{rule.name}` has no reverse-mode rule yet; register one with s2sad.reverse_rule"
                )
            raise self.error(stmt, f"cannot differentiate this call of `{rule.name}`: {error}")
        subs = dict(mapping)
        subs[template.out] = self.output_value or out
        subs["b" + template.out] = bout
        locals_ = template_locals(template.body, template.params)
        for loc in locals_:
            subs[loc] = self.names.temp()
        aliased = [p for p, a in mapping.items() if isinstance(a, gast.Name) and a.id == out]
        code, last = [], []
        for tstmt in template.body:
            acc = _accumulation(tstmt, template.params)
            if acc is None:  # a local helper value
                code.append(substitute(tstmt, subs))
                continue
            param, index, sign, expr = acc
            atom = mapping.get(param)
            if not self.is_active(atom):
                continue
            expr = substitute(expr, subs)
            (last if param in aliased else code).append((atom, index, sign, expr))
        result = []
        if len(last) > 1:
            tmp = self.names.temp()
            result.append(assign(tmp, name(bout)))
            last = [(a, i, s, substitute(e, {bout: tmp})) for a, i, s, e in last]
        # an elementwise result has the broadcast shape of its inputs, whatever else its name may hold
        value_shape = self.shapes.broadcast(operands(mapping))
        for item in code + last:
            if isinstance(item, gast.AST):
                result.append(item)
                continue
            atom, index, sign, expr = item
            if index is not None:
                result += self.accumulate_index(atom.id, substitute(index, subs), expr)
            else:
                result += self.accumulate(atom.id, expr, value_shape, sign, rule.kind == ELEMENTWISE, atom)
        return result

    def adjoint_call(self, stmt, op, out, bout):
        fn = op.fn
        import inspect

        try:
            bound = inspect.signature(fn).bind(*op.args, **op.keywords)
        except TypeError as exc:
            raise self.error(stmt, f"cannot call {op.what}: {exc}") from None
        active_params = [p for p, a in bound.arguments.items() if self.is_active(a)]
        effect = function_effect(fn)
        if effect is not None:
            raise self.error(stmt, repeated_effect_message(op.what, fn, effect))
        vjp_name, seed = self.request_vjp(fn, tuple(active_params), stmt)  # (refuses writes into attributes)
        effect = argument_change(fn)  # s.add(v), setattr(o, "n", v): its VJP would change the argument again
        if effect is not None:
            raise self.error(stmt, repeated_effect_message(op.what, fn, effect))
        checks = self.reiterable_checks(op, bound, active_params)
        call = gast.Call(
            func=name(vjp_name),
            args=[to_node(a) for a in op.args],
            keywords=[gast.keyword(arg=k, value=to_node(v)) for k, v in op.keywords.items()]
            + [gast.keyword(arg=seed, value=name(bout))],
        )
        atoms = [bound.arguments[p] for p in active_params]
        if len(atoms) == 1:
            return checks + self.accumulate(atoms[0].id, call, name(out))
        if all(self.adj(a.id) not in self.live for a in atoms) and len({a.id for a in atoms}) == len(atoms):
            elts = [name(self.adj(a.id), gast.Store()) for a in atoms]
            for a in atoms:
                self.live.add(self.adj(a.id))
            return checks + [
                gast.Assign(targets=[gast.Tuple(elts=elts, ctx=gast.Store())], value=call, type_comment=None)
            ]
        tmp = self.names.temp()
        code = checks + [assign(tmp, call)]
        for i, a in enumerate(atoms):
            code += self.accumulate(a.id, gast.Subscript(value=name(tmp), slice=const(i), ctx=gast.Load()), name(out))
        return code

    def reiterable_checks(self, op, bound, active_params) -> list:
        """``expect_reiterable(m, ...)`` for each argument whose items the callee may take (``sum(m)``,
        ``for a in m``): its VJP runs it again, and an iterator would be empty then."""
        checks = []
        for p in sorted(iterated(op.fn) - set(active_params)):
            given = bound.arguments.get(p)
            given = given.values() if isinstance(given, dict) else given if isinstance(given, tuple) else (given,)
            for a in given:
                if isinstance(getattr(a, "id", None), str):
                    message = f"the argument `{p}` of {op.what}, whose items it takes,"
                    checks.append(gast.Expr(value=_call("expect_reiterable", name(a.id), const(message))))
        return checks

    # ---- control flow ----------------------------------------------------------------------
    def adjoint_if(self, stmt):
        start, owned = set(self.live), set(self.owned)
        self.depth += 1
        body = self.adjoint_block(stmt.body)
        live_body, owned_body = set(self.live), set(self.owned)
        self.live, self.owned = set(start), set(owned)
        orelse = self.adjoint_block(stmt.orelse)
        live_else, owned_else = set(self.live), set(self.owned)
        self.depth -= 1
        merged = live_body | live_else
        body += [self.zero_at_join(stmt, 0, self._var_of(b)) for b in sorted(merged - live_body)]
        orelse += [self.zero_at_join(stmt, 1, self._var_of(b)) for b in sorted(merged - live_else)]
        # owned after the if only if owned after both branches (an adjoint a branch zeroes is owned there)
        self.owned = (owned_body | (merged - live_body)) & (owned_else | (merged - live_else))
        self.live = merged
        if not body and not orelse:
            return []
        return [gast.If(test=stmt.test, body=body or [gast.Pass()], orelse=orelse)]

    def zero_at_join(self, stmt, side: int, var: str):
        """The zero adjoint of ``var`` at the end of one branch of ``stmt`` (``side`` 0: body, 1: orelse).
        Where ``var`` is never bound on that path (every assignment of it sits in the other branch of an
        earlier ``if`` on the same condition name, outside loops: derivative code differentiated again
        replays one condition twice), nothing on the path reads its adjoint: it is ``None``."""
        if isinstance(stmt.test, gast.Name) and not self.program.records[stmt].loops:
            if (stmt.test.id, 1 - side) in self._only_under().get(var, ()):
                b = self.adj(var)
                self.live.add(b)
                return assign(b, const(None))
        return self.zero(var)

    def _only_under(self) -> dict:
        """var -> the (condition name, side) pairs such that every assignment of ``var`` is in that side
        of ``if`` s on that condition name, outside loops (and the condition name is assigned once);
        nested ``if`` s give several."""
        if getattr(self, "_branch_only", None) is None:
            assigned: dict = {}
            for s in walk_stmts(self.tree.body):
                for t in targets(s):
                    assigned[t] = assigned.get(t, 0) + 1
            sides: dict = {}
            for s in walk_stmts(self.tree.body):
                if isinstance(s, gast.If) and isinstance(s.test, gast.Name) and not self.program.records[s].loops:
                    for side, block in enumerate((s.body, s.orelse)):
                        for inner in walk_stmts(block):
                            for t in targets(inner):
                                key = (s.test.id, side)
                                sides.setdefault(t, {}).setdefault(key, 0)
                                sides[t][key] += 1
            self._branch_only = {
                var: {key for key, count in where.items() if count == assigned[var] and assigned.get(key[0]) == 1}
                for var, where in sides.items()
                if var not in self.params
            }
        return self._branch_only

    def _var_of(self, b):
        return next(v for v, a in self._adj.items() if a == b)

    def loop_body(self, body, before):
        """Adjoint of a loop body whose set of live adjoints is the same at every iteration.
        Adjoints first made live inside the loop are zeroed before it (owned arrays, added into in place)."""
        start = set(self.live)
        outer = self.keep_live
        owned_before = set(self.owned)
        owned_start = owned_before | (start - before)
        for _ in range(10):
            saved = list(self.pops)
            self.live = set(start)
            self.owned = set(owned_start) | (start - before)
            self.keep_live = outer | start
            self.depth += 1
            code = self.adjoint_block(body)
            self.depth -= 1
            end = set(self.live)
            shared = owned_start - self.owned  # owned at the start of an iteration but not at its end
            if end <= start and not shared:
                break
            start |= end
            owned_start -= shared
            self.pops = saved
        self.keep_live = outer
        # adjoints live at the start of an iteration but reset inside it: make them zero again
        code += [self.zero(self._var_of(b)) for b in sorted(start - end)]
        self.live = start
        self.owned = owned_before & self.owned
        return code, start

    def adjoint_loop(self, stmt, make_loop):
        """Adjoint of a loop.  Adjoints it writes into in place that were live before are copied
        once before the loop (not at every iteration)."""
        before, owned, pops, copied = set(self.live), set(self.owned), list(self.pops), set(self.copied)
        self.copied = set()
        code, start = self.loop_body(stmt.body, before)
        hoist = sorted(self.copied & before)
        if hoist:
            self.live, self.owned, self.pops = set(before), owned | set(hoist), pops
            code, start = self.loop_body(stmt.body, before)
        self.copied = copied | self.copied
        init = [assign(b, _call("own", name(b))) for b in hoist]
        init += [self.zero(self._var_of(b)) for b in sorted(start - before)]
        if not code:
            self.live = before | start
            return init
        return init + [make_loop(code)]

    def adjoint_for(self, stmt):
        info = self.loops[stmt]
        it = stmt.iter
        if info.counter is not None:  # a loop with break ran its first n_iter iterations
            it = gast.Subscript(value=it, slice=gast.Slice(None, self.count(info), None), ctx=gast.Load())

        def make_loop(code):
            loop = gast.For(target=stmt.target, iter=_call("reversed", it), body=code, orelse=[], type_comment=None)
            self.source_loop[loop] = stmt
            return loop

        return self.adjoint_loop(stmt, make_loop)

    def adjoint_while(self, stmt):
        info = self.loops[stmt]
        return self.adjoint_loop(
            stmt,
            lambda code: gast.For(
                target=name("_", gast.Store()),
                iter=_call("range", self.count(info)),
                body=code,
                orelse=[],
                type_comment=None,
            ),
        )

    def count(self, info):
        if info.count_stack:
            return _method(info.count_stack, "pop")
        return name(info.counter)

    # ---- primal sweep ----------------------------------------------------------------------
    def plan_loops(self, stmts, depth=0):
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                needs_counter = isinstance(stmt, gast.While) or has_break(stmt.body)
                counter = self.names.fresh("n_iter", Role.FLAG) if needs_counter else None
                stack = self.names.fresh(counter + "_stack", Role.STACK) if counter and depth else None
                self.loops[stmt] = LoopCount(counter, stack)
                self.plan_loops(stmt.body, depth + 1)
            elif isinstance(stmt, gast.If):
                self.plan_loops(stmt.body, depth)
                self.plan_loops(stmt.orelse, depth)

    def primal_block(self, stmts, needed, depth=0):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.If):
                out.append(
                    gast.If(
                        test=stmt.test,
                        body=self.primal_block(stmt.body, needed, depth + 1),
                        orelse=self.primal_block(stmt.orelse, needed, depth + 1),
                    )
                )
            elif isinstance(stmt, (gast.For, gast.While)):
                info = self.loops[stmt]
                body = self.primal_block(stmt.body, needed, depth + 1)
                if info.counter:
                    out.append(assign(info.counter, const(0)))
                    body.insert(
                        0, gast.AugAssign(target=name(info.counter, gast.Store()), op=gast.Add(), value=const(1))
                    )
                loop = gast.copy_location(type(stmt)(**{f: getattr(stmt, f) for f in stmt._fields}), stmt)
                loop.body = body
                self.source_loop[loop] = stmt
                out.append(loop)
                if info.count_stack:
                    out.append(gast.Expr(value=_method(info.count_stack, "append", name(info.counter))))
            else:
                if isinstance(stmt, gast.Assign):
                    for var in targets(stmt):
                        if var in needed and stmt in self.sites and stmt not in self.remat:
                            # the tape keeps the object itself: views of it taken before stay
                            # views of what the adjoint sweep restores (a copy would break that)
                            saved = name(var)
                            if isinstance(stmt.targets[0], gast.Subscript):
                                saved = _call(
                                    "np.copy",
                                    gast.Subscript(value=name(var), slice=stmt.targets[0].slice, ctx=gast.Load()),
                                )
                            out.append(gast.Expr(value=_method(self.stack(var), "append", saved)))
                out += self.checks.get(stmt, ())
                out.append(stmt)
        return out


def _shareable_reads(node) -> list[str]:
    """Names whose arrays ``node``'s value may share (all it reads, except inside ``np.copy(...)``)."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == "copy":
        return []
    if isinstance(node, gast.Name):
        return [node.id]
    out = []
    for child in gast.iter_child_nodes(node):
        out += _shareable_reads(child)
    return out


def _accumulation(tstmt, params):
    """``b<p> += e`` -> (p, None, +1, e); ``b<p>[i] += e`` -> (p, i, +1, e); else None."""
    if not isinstance(tstmt, gast.AugAssign) or not isinstance(tstmt.op, (gast.Add, gast.Sub)):
        return None
    target, index = tstmt.target, None
    if isinstance(target, gast.Subscript):
        target, index = target.value, target.slice
    if isinstance(target, gast.Name) and target.id.startswith("b") and target.id[1:] in params:
        return target.id[1:], index, 1 if isinstance(tstmt.op, gast.Add) else -1, tstmt.value
    return None


def _basic_index(index, range_vars) -> bool:
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for p in parts:
        if isinstance(p, gast.Slice):
            continue
        if isinstance(p, gast.Constant) and (p.value is None or p.value is Ellipsis or isinstance(p.value, int)):
            continue
        if isinstance(p, gast.Name) and p.id in range_vars:
            continue
        return False
    return True


def _item_index(index) -> bool:
    """An index that may select an item of a list, tuple or dict (a position or a key), not only of
    an array: its adjoint goes through ``add_at``, which also accumulates into containers."""
    return isinstance(index, gast.Name) or isinstance(index, gast.Constant) and isinstance(index.value, (int, str))


# runtime helpers whose result is real where their reference argument is (they take ``_real_for``)
_REAL_SAFE = {"unbroadcast", "unmatmul_x", "unmatmul_y", "undot_x", "undot_y"}


def _real_safe(expr) -> bool:
    """Whether ``expr`` is real where the value whose adjoint it is, is real: only then can it be added
    into that adjoint's array in place (else add_at, or a new array, takes or keeps its real part)."""
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id in _REAL_SAFE


def _index_value(index):
    """An index as a value expression: slices become slice(...) calls."""
    if isinstance(index, gast.Slice):
        return _call("slice", *[p if p is not None else const(None) for p in (index.lower, index.upper, index.step)])
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[_index_value(e) for e in index.elts], ctx=gast.Load())
    return index


def reverse(
    program, wrt, shapes, active, request_vjp, *, mode="grad", fname=None, seed=None, as_tuple=False, check_seed=False
):
    """Build the derivative function.  ``mode``: grad | value_and_grad | vjp (seed required, keyword-only
    when the function has keyword-only parameters)."""
    rev = Reverse(program, wrt, shapes, active, request_vjp)
    tree, ns, names = program.tree, program.ns, program.names
    ret = tree.body[-1]
    out = ret.value.id
    if seed:
        rev._adj[out] = seed
    bout = rev.adj(out)
    rev.plan_loops(tree.body[:-1])
    if out in active:
        rev.live.add(bout)
    adjoint = rev.adjoint_block(tree.body[:-1])
    results = []
    for w in wrt:
        b = rev.adj(w)
        if b not in rev.live:
            adjoint.append(assign(b, _call("zeros_like", name(w))))
        results.append(_call("astype_of", name(b), name(w)))  # a derivative has its argument's type
    # recomputations nothing reads go first; then what the adjoint reads decides what loops must save
    while True:
        read = set(reads(gast.Module(body=adjoint, type_ignores=[])))
        unread = {c for c, var in rev.remat_copies if var not in read}
        if not unread:
            break
        adjoint = _drop(adjoint, unread)
        rev.remat_copies = [(c, v) for c, v in rev.remat_copies if c not in unread]
    # (a list without derivatives is needed when the adjoint reads it besides undoing its appends)
    if rev.shrinks:
        read = {n for n in _reads_besides(adjoint, rev.shrinks)}
        adjoint = _drop(adjoint, {s for s in rev.shrinks if s.value.func.value.id not in read})
    adjoint_module = gast.Module(body=adjoint, type_ignores=[])
    needed = {n for n in reads(adjoint_module) if n in rev.primal_vars}
    # a write into one name changes every name sharing its memory: saving one saves them all
    needed |= {n for n in rev.primal_vars if program.shares.get(n, set()) & needed}
    keep = {p for p, var in rev.pops if var in needed}
    adjoint = _drop(adjoint, {p for p, _ in rev.pops} - keep)
    primal = rev.primal_block(tree.body[:-1], needed)
    if mode == "vjp_kw":  # a callee's VJP: its caller ran the primal, prints and logs included
        primal = silenced(primal, ns)
    primal, carried = checkpointing.apply(rev, primal, adjoint)
    stacks = [assign(rev.stacks[v], _call("tape")) for v in sorted(rev.stacks) if v in needed]
    for info in rev.loops.values():
        if info.count_stack:
            stacks.append(assign(info.count_stack, _call("tape")))
    # the zero adjoint of a name first bound inside a loop or branch may be made before it (zeros_like(None): 0.0)
    zeroed = {
        n.args[0].id
        for n in walk(adjoint_module)
        if isinstance(n, gast.Call)
        and isinstance(n.func, gast.Name)
        and n.func.id == "zeros_like"
        and n.args
        and isinstance(n.args[0], gast.Name)
    }
    predefine = _predefinitions(tree, {v for v in rev.stacks if v in needed} | carried | zeroed)
    if mode in ("grad", "value_and_grad"):  # (a scalar may be complex: checked at run time too)
        primal.append(gast.Expr(value=_call("expect_scalar", name(out), const(tree.name))))
    if check_seed:  # the user's seed (vjp): the output's shape, or refused
        primal.append(gast.Expr(value=_call("expect_seed", name(bout), name(out))))
    result = results[0] if len(results) == 1 and not as_tuple else gast.Tuple(elts=results, ctx=gast.Load())
    if mode == "value_and_grad":
        value = name(out)
        sharing = {out} | program.shares.get(out, set())  # (out = a[..., 0] is a view of a)
        if sharing & changed(adjoint):  # the adjoint sweep restores what loops and branches overwrote
            value = name(names.fresh("value"))
            keep = name(out)
            if any(_written_in_place(adjoint, n) for n in sharing):
                keep = _call("snapshot", keep)
            primal.append(assign(value.id, keep))
        result = gast.Tuple(elts=[value, result], ctx=gast.Load())
    body = predefine + stacks + primal + adjoint + [gast.Return(value=result)]
    args = _signature(tree, bout, mode)
    fn = gast.FunctionDef(
        name=fname, args=args, body=body, decorator_list=[], returns=None, type_comment=None, type_params=[]
    )
    return gast.copy_location(fn, tree), bout


def _written_in_place(stmts, var) -> bool:
    """Whether ``stmts`` write into ``var``'s array (``var[i] = v``, ``var += v``) rather than rebind it."""
    for n in walk(gast.Module(body=stmts, type_ignores=[])):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and _root(n) == var:
            return True
        if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) and n.target.id == var:
            return True
    return False


def _root(node):
    while isinstance(node, gast.Subscript):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _reads_besides(stmts, skip: set):
    """The names ``stmts`` read, leaving out the statements in ``skip`` (at any depth)."""
    for s in stmts:
        if s in skip:
            continue
        for field, value in gast.iter_fields(s):
            if field in ("body", "orelse") and isinstance(value, list):
                yield from _reads_besides(value, skip)
            elif isinstance(value, gast.AST):
                yield from reads(value)
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, gast.AST):
                        yield from reads(v)


def _drop(stmts, drop: set):
    """``stmts`` without the statements in ``drop`` (at any depth), and without loops left empty."""
    out = []
    for s in stmts:
        if s in drop:
            continue
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, gast.Module):
                setattr(s, field, _drop(getattr(s, field), drop))
        if isinstance(s, (gast.For, gast.While)) and not s.body:
            continue
        if isinstance(s, gast.If) and not s.body and not s.orelse:
            continue
        if isinstance(s, gast.If) and not s.body:
            s.body = [gast.Pass()]
        out.append(s)
    return out


def _predefinitions(tree, pushed):
    """``v = None`` for pushed (or zeroed) variables not bound before the first loop iteration reads them."""
    defined = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    out = []
    for stmt in tree.body:
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            for s in walk_stmts([stmt]):
                for v in targets(s) if isinstance(s, (gast.Assign, gast.For)) else []:  # (an inner loop's k)
                    if v in pushed and v not in defined and v not in {n.targets[0].id for n in out}:
                        out.append(assign(v, const(None)))
        elif isinstance(stmt, gast.Assign):
            defined.update(targets(stmt))
    return out


def _signature(tree, bout, mode):
    a = tree.args
    seed = name(bout, gast.Param())
    args = gast.arguments(
        args=list(a.args),
        posonlyargs=[],
        vararg=a.vararg,
        kwonlyargs=list(a.kwonlyargs),
        kw_defaults=list(a.kw_defaults),
        kwarg=a.kwarg,
        defaults=list(a.defaults),
    )
    if mode == "vjp_kw" or a.kwonlyargs:
        args.kwonlyargs.append(seed)
        args.kw_defaults.append(None if mode.startswith("vjp") else const(1.0))
    elif mode == "vjp":
        if a.defaults:
            args.kwonlyargs.append(seed)
            args.kw_defaults.append(None)
        else:
            args.args.append(seed)
    else:
        args.args.append(seed)
        args.defaults.append(const(1.0))
    return args


def _in_place(call, receiver: str, names) -> str:
    """The refusal of ``receiver.method(...)`` changing a differentiated list or dict in place."""
    return (
        f"method .{call.func.attr}() changes {_what(receiver, names)} in place, which s2sad cannot differentiate; "
        "build a new value instead (list.append and lst.pop() of the last item are supported)"
    )


def _what(receiver: str, names) -> str:
    """The receiver as the user knows it: 'y' (a version y1 is y), or "a part of an array" for a temporary."""
    users = names.users([receiver])
    return f"'{users[0]}'" if users else "a part of an array (a slice or view)"
