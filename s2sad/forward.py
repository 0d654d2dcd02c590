"""forward: forward mode.  ANF function -> tangent function (a tangent statement after each primal one).

Takes the :class:`~s2sad.program.Program`, the ``wrt`` parameter names, the active set and symbolic shapes; gives a
``FunctionDef`` ``jvp_f(x, ..., dx)`` returning ``(f(x, ...), directional derivative)`` and asks
``request_jvp`` for the tangent functions of the user functions it calls.  Conventions of the
generated code:

* the tangent of ``x`` is ``dx``; a tangent that is still zero does not exist (symbolic zero), and
  a rule's terms holding a zero tangent are dropped (forward templates are sums of terms, each
  linear in one tangent);
* control flow is the primal's own: the tangent code runs inside the same ``if``/``for``/``while``;
  a tangent that a loop carries from one iteration to the next is made a real zero before the loop;
* ``a[i] = v`` writes ``dv`` into ``da``, copying ``da`` first if another name shares it;
* ``lst.append(v)`` appends ``dv`` to ``dlst``; ``lst.pop()`` pops both.
"""

from __future__ import annotations

import inspect

import gast

from . import primitives as P
from .ir import MODULES, STORES, changed_receiver, copy_tree, is_pop, reads, targets, walk, walk_stmts
from .naming import assign, const, name
from .operands import operand_checks
from .reverse import _call, _in_place, _method
from .rules.registry import ELEMENTWISE, SCALAR, public_name
from .template import as_nodes, operands, substitute, template_locals, to_node

_ZERO = "__s2sad_zero__"  # stands for a symbolic-zero tangent inside an instantiated template
_LIVE = "__s2sad_tangent_"  # prefix standing for a nonzero tangent, until the template is simplified


class Forward:
    def __init__(self, program, wrt, shapes, active, request_jvp):
        self.program, tree = program, program.tree
        self.tree, self.wrt, self.ns, self.loc, self.names = tree, wrt, program.ns, program.loc, program.names
        self.shapes, self.active, self.request_jvp = shapes, active, request_jvp
        self._tan: dict[str, str] = {}
        self.live: set[str] = set()  # variables whose tangent is held in d<var>
        self.owned: set[str] = set()  # ... in an array no other name shares (safe to write into)
        self.typed: set[str] = set()  # ... owned and complex where the value is (zeros_like, writable: items fit)
        self.forced: set[str] = set()  # loop-carried: the tangent always exists, zero or not
        self.numbers: set[str] = set()  # names whose current value is a number constant
        self.defined: set[str] = {a.id for a in tree.args.args + tree.args.kwonlyargs}  # names bound here
        self.checks = operand_checks(program, active, program.ns)  # expect_plain before a rule on an unseen type
        self.items = _from_items(program)  # names whose tangent may be a constant's int 0 (tangent_times, tangent_over)

    # ---- names -----------------------------------------------------------------------------
    def tan(self, var: str) -> str:
        if var not in self._tan:
            self._tan[var] = self.names.tangent(var)
        return self._tan[var]

    def tangent(self, atom):
        """The tangent of an atom as an expression, or None for a (symbolic) zero."""
        if isinstance(atom, gast.Name) and atom.id in self.live:
            return name(self.tan(atom.id))
        return None

    def zero_of(self, var: str):
        if self.shapes.is_scalar(name(var)) or var in self.numbers:
            return const(0.0)
        return _call("zeros_like", name(var))

    def error(self, node, msg):
        return self.loc.error(node, msg)

    def set_tangent(self, var: str, expr, owned: bool = False) -> list:
        """``d<var> = expr``; a None expr is a zero: symbolic, or real if a loop carries it."""
        if expr is None:
            if var in self.forced:
                self.live.add(var)
                self.owned.add(var)
                return [assign(self.tan(var), self.zero_of(var))]
            self.live.discard(var)
            self.owned.discard(var)
            return []
        self.live.add(var)
        self.typed.discard(var)
        (self.owned.add if owned else self.owned.discard)(var)
        if not owned and not isinstance(expr, (gast.BinOp, gast.UnaryOp)):
            # ``da1 = da`` (the tangent of ``a1 = a + 1.0``): the two share an array, so neither may be
            # written into in place any more without a copy first
            shared = {n.id for n in walk(expr) if isinstance(n, gast.Name)}
            self.owned -= {v for v, t in self._tan.items() if t in shared}
        return [assign(self.tan(var), expr)]

    # ---- statements ------------------------------------------------------------------------
    def block(self, stmts) -> list:
        out = []
        for stmt in stmts:
            out += self.stmt(stmt)
        return out

    def stmt(self, stmt) -> list:
        if isinstance(stmt, gast.Assign):
            return [*self.checks.get(stmt, ()), *self.assign_stmt(stmt)]
        if isinstance(stmt, gast.Expr):
            return [*self.checks.get(stmt, ()), *self.expr_stmt(stmt)]
        if isinstance(stmt, gast.If):
            return self.if_stmt(stmt)
        if isinstance(stmt, (gast.For, gast.While)):
            return self.loop(stmt)
        return [stmt]

    def assign_stmt(self, stmt) -> list:
        outs = targets(stmt)
        self.defined.update(outs)
        for o in outs:  # s = 0.0 before a loop: its zero tangent is 0.0 too
            number = isinstance(stmt.value, gast.Constant) and isinstance(stmt.value.value, (int, float))
            (self.numbers.add if number and isinstance(stmt.targets[0], gast.Name) else self.numbers.discard)(o)
        changed = changed_receiver(stmt.value)
        if changed in self.live or changed in self.active:
            raise self.error(stmt, _in_place(stmt.value, changed, self.program.names))
        if not any(o in self.active for o in outs):
            if is_pop(stmt.value) and stmt.value.func.value.id in self.live:
                # the popped value is not used, but the list and its tangent must stay aligned
                return [stmt, gast.Expr(value=_method(self.tan(stmt.value.func.value.id), "pop"))]
            return [stmt]
        op = self.program.op(stmt)
        if op.kind == P.SETITEM:
            problem = self.program.object_array_write(op, self.tangent(op.args[2]) is not None)
            if problem:
                raise self.error(stmt, problem)
            return [stmt] + self.setitem(stmt, op)
        if op.kind == P.UNPACK:
            return [stmt] + self.unpack(stmt, op)
        out = outs[0]
        if op.kind == P.CALL:
            return self.call(stmt, op, out)
        if op.kind == P.UNKNOWN and is_pop(stmt.value):
            lst = stmt.value.func.value
            if lst.id not in self.live:
                return [stmt] + self.set_tangent(out, None)
            return [stmt] + self.set_tangent(out, _method(self.tan(lst.id), "pop"))
        if not any(isinstance(a, gast.Name) and a.id in self.live for a in _atoms(stmt.value)):
            if op.kind == P.BUILD:  # a list or tuple of constants: its tangent is zeros of its shape
                return [stmt] + self.set_tangent(out, self.build(op), owned=True)
            return [stmt] + self.set_tangent(out, None)
        if op.kind == P.RULE:
            return self.tangent_op(stmt, op, out)
        return [stmt] + self.tangent_op(stmt, op, out)

    def tangent_op(self, stmt, op, out) -> list:
        if op.kind == P.COPY:
            return self.set_tangent(out, self.tangent(op.args[0]))
        if op.kind == P.BUILD:
            return self.set_tangent(out, self.build(op), owned=True)
        if op.kind == P.RULE:
            problem = self.program.sequence_arithmetic(op)
            if problem:
                raise self.error(stmt, problem)
            return self.rule(stmt, op, out)  # with the primal statement: the order depends on the rule
        if op.kind == P.NONDIFF:
            return self.set_tangent(out, None)
        raise self.error(stmt, self.no_rule_message(op))

    def no_rule_message(self, op):
        if op.kind == P.OPAQUE:
            return P.opaque_message(op)
        if P.is_checked_derivative(op.fn):
            return P.checked_derivative_message(op.fn)
        if op.fn is not None:
            return (
                f"no derivative rule for `{public_name(op.fn)}`; register one with s2sad.forward_rule "
                "(and s2sad.reverse_rule), or wrap inputs that need no derivative in s2sad.stop_gradient"
            )
        return (
            f"s2sad cannot differentiate {op.what} applied to a differentiated value; "
            "use a NumPy function or register a rule with s2sad.forward_rule"
        )

    def build(self, op):
        """The tangent of a tuple or list display: the tangents of its items (zeros where inactive)."""
        elts = []
        for elt in op.args:
            t = self.tangent(elt)
            if t is None:  # a number's is the int 0, which tangent_times and tangent_over know for a constant's
                t = self.zero_of(elt.id) if isinstance(elt, gast.Name) else const(0.0)
                t = const(0) if isinstance(t, gast.Constant) else t
            elts.append(t)
        value = op.stmt.value
        if op.fn is not None:  # a NamedTuple or dataclass of tangents; zeros for the fields left to defaults
            out = op.stmt.targets[0].id
            given = {k.value: t for k, t in zip(op.keys, elts)}
            fields = {
                f: given[f] if f in given else _call("zeros_like", _call("item_of", name(out), const(f)))
                for f in P.record_fields(op.fn)
            }
            keywords = [gast.keyword(arg=f, value=t) for f, t in fields.items()]
            return gast.Call(func=copy_tree(value.func), args=[], keywords=keywords)
        if isinstance(value, gast.Dict):
            return gast.Dict(keys=[copy_tree(k) for k in value.keys], values=elts)
        return (gast.Tuple if isinstance(value, gast.Tuple) else gast.List)(elts=elts, ctx=gast.Load())

    def expr_stmt(self, stmt) -> list:
        """``lst.append(v)`` appends ``dv`` to ``dlst``; ``lst.pop()`` pops it; other calls on
        differentiated values are refused."""
        call = stmt.value
        func = getattr(call, "func", None)
        receiver = func.value.id if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) else None
        receiver = None if receiver in MODULES else receiver  # np.f(..., out=y): a function, no receiver
        problem = (
            P.discarded_call_problem(self.program.op(stmt), self.active, self.program.names, self.program.shares)
            if receiver is None or receiver not in self.active and func.attr not in STORES  # (rng.shuffle(a))
            else None
        )
        if problem:
            raise self.error(stmt, problem)
        if receiver is None or receiver not in self.active:
            return [stmt]
        if func.attr == "pop" and is_pop(call):
            return [stmt] + ([gast.Expr(value=_method(self.tan(receiver), "pop"))] if receiver in self.live else [])
        if func.attr != "append" or len(call.args) != 1 or call.keywords:
            raise self.error(stmt, _in_place(call, receiver, self.program.names))
        item = call.args[0]
        start = []
        if receiver not in self.live:
            if self.tangent(item) is None:
                return [stmt]
            # a list with no tangent yet (an argument not differentiated): its items' zeros, before the append
            start = self.set_tangent(receiver, _call("zeros_like", name(receiver)), owned=True)
        t = self.tangent(item)
        if t is None:
            t = self.zero_of(item.id) if isinstance(item, gast.Name) else const(0.0)
        return [*start, stmt, gast.Expr(value=_method(self.tan(receiver), "append", t))]

    def setitem(self, stmt, op) -> list:
        array, index, value = op.args
        var = array.id
        t = self.tangent(value) if var not in self.program.integral else None  # an int array truncates
        if t is not None and var not in self.program.inexact:  # its dtype is known at run time only
            t = _call("stored", array, t)
        if var not in self.live and t is None:
            return []
        code = []
        if var not in self.live:
            code += self.set_tangent(var, _call("zeros_like", name(var)), owned=True)
        elif var not in self.owned or var not in self.typed:
            # (an owned tangent made by arithmetic may be real where the value is complex: dx * 2 of z + 2 * x)
            code += self.set_tangent(var, _call("writable", name(self.tan(var)), name(var)), owned=True)
        self.typed.add(var)
        if t is None:  # (a zero of the value's shape: a list's item is read back as it is)
            t = self.zero_of(value.id) if isinstance(value, gast.Name) else const(0.0)
        code.append(
            gast.Assign(
                targets=[gast.Subscript(value=name(self.tan(var)), slice=index, ctx=gast.Store())],
                value=t,
                type_comment=None,
            )
        )
        return code

    def unpack(self, stmt, op) -> list:
        src = op.args[0]
        outs = targets(stmt)
        t = self.tangent(src)
        if t is None:
            return [c for o in outs for c in self.set_tangent(o, None)]
        elts = []
        for o in outs:
            elts.append(name(self.tan(o), gast.Store()))
            self.live.add(o)
            self.owned.discard(o)
        return [gast.Assign(targets=[gast.Tuple(elts=elts, ctx=gast.Store())], value=t, type_comment=None)]

    def rule(self, stmt, op, out) -> list:
        rule = op.rule
        mapping = None
        error = None
        for template in rule.forward:
            try:
                mapping = as_nodes(template.bind(op.args, op.keywords))
                break
            except TypeError as exc:
                error = exc
        if mapping is None:
            if not rule.forward:
                raise self.error(
                    stmt, f"`{rule.name}` has no forward-mode rule yet; register one with s2sad.forward_rule"
                )
            raise self.error(stmt, f"cannot differentiate this call of `{rule.name}`: {error}")
        subs = dict(mapping)
        overwrites = any(isinstance(a, gast.Name) and a.id == out for a in mapping.values())
        subs[template.out] = out
        if overwrites and _mentions(gast.Module(body=template.body, type_ignores=[]), lambda n: n == template.out):
            # y = f(y) whose tangent needs the new y and the old one: the new one goes to a temporary
            subs[template.out] = self.names.temp()
        markers = {}
        for p in template.inputs:
            t = self.tangent(mapping.get(p))
            subs["d" + p] = _ZERO
            if t is not None:
                subs["d" + p] = markers.setdefault(t.id, f"{_LIVE}{len(markers)}")
        unmark = {m: t for t, m in markers.items()}
        for loc in template_locals(template.body, template.params):
            subs[loc] = self.names.temp()
        code, result = [], None
        for tstmt in template.body:
            target = tstmt.targets[0].id if isinstance(tstmt, gast.Assign) and len(tstmt.targets) == 1 else None
            if target is None or not isinstance(tstmt.targets[0], gast.Name):
                raise self.error(stmt, f"the forward rule of `{rule.name}` must assign d{template.out} = ...")
            expr = _drop_zeros(substitute(tstmt.value, subs))
            expr = self.plain_products(substitute(expr, unmark), rule.kind) if expr is not None else None
            if target == "d" + template.out:
                result = expr
            else:
                code.append(assign(subs[target], expr if expr is not None else const(0.0)))
        if result is not None and rule.kind == ELEMENTWISE:
            result = self.broadcast(result, out, mapping)
        owned = isinstance(result, (gast.BinOp, gast.UnaryOp))
        tangent = code + self.set_tangent(out, result, owned=owned)
        if not overwrites:
            return [stmt] + tangent
        if subs[template.out] == out:  # the tangent reads the old y only: it goes first
            return tangent + [stmt]
        tmp = subs[template.out]
        return [assign(tmp, stmt.value)] + tangent + [gast.copy_location(assign(out, name(tmp)), stmt)]

    def plain_products(self, expr, kind):
        """``tangent_times(da, c)`` as ``da * c`` (``tangent_over``: ``da / c``, or ``np.divide(da, c)`` for the
        rules of Python floats, where ``/`` raises ZeroDivisionError) where ``da`` cannot be the int 0 of a
        constant taken out of a container (``self.items``): the check only where it can matter."""
        primal = {t: v for v, t in self._tan.items()}

        def plain(node):
            for field, value in gast.iter_fields(node):
                if isinstance(value, list):
                    setattr(node, field, [plain(v) if isinstance(v, gast.AST) else v for v in value])
                elif isinstance(value, gast.AST):
                    setattr(node, field, plain(value))
            if (
                isinstance(node, gast.Call)
                and isinstance(node.func, gast.Name)
                and node.func.id in _GUARDED
                and len(node.args) == 2
                and isinstance(node.args[0], gast.Name)
                and primal.get(node.args[0].id, node.args[0].id) not in self.items
            ):
                if node.func.id == "tangent_over" and kind == SCALAR:
                    return _call("np.divide", *node.args)
                return gast.BinOp(left=node.args[0], op=_GUARDED[node.func.id](), right=node.args[1])
            return node

        return plain(expr)

    def broadcast(self, expr, out, mapping):
        """An elementwise tangent has its output's shape, even when only a smaller input varies."""
        used = reads(expr)
        atoms = [name(n) for n in used if n in self.shapes.of and n != out]  # the output has the right shape
        atoms += [name(v) for v, t in self._tan.items() if t in used]
        if out in used:
            return expr
        have = self.shapes.broadcast(atoms)
        want = self.shapes.broadcast(operands(mapping))
        if have is not None and have == want:
            return expr
        return _call("broadcast_like", expr, name(out))

    def call(self, stmt, op, out) -> list:
        """``y = g(a, b)`` for a user function ``g``: ``y, dy = jvp_g(a, b, da=da)``."""
        fn = op.fn
        try:
            bound = inspect.signature(fn).bind(*op.args, **op.keywords)
        except TypeError as exc:
            raise self.error(stmt, f"cannot call {op.what}: {exc}") from None
        active = [p for p, a in bound.arguments.items() if self.tangent(a) is not None]
        if not active:
            return [stmt] + self.set_tangent(out, None)
        fname, tangent_params = self.request_jvp(fn, tuple(active), stmt)
        call = gast.Call(
            func=name(fname),
            args=[to_node(a) for a in op.args],
            keywords=[gast.keyword(arg=k, value=to_node(v)) for k, v in op.keywords.items()]
            + [gast.keyword(arg=tp, value=self.tangent(bound.arguments[p])) for p, tp in zip(active, tangent_params)],
        )
        self.live.add(out)
        self.owned.discard(out)
        pair = gast.Tuple(elts=[name(out, gast.Store()), name(self.tan(out), gast.Store())], ctx=gast.Store())
        return [gast.copy_location(gast.Assign(targets=[pair], value=call, type_comment=None), stmt)]

    # ---- control flow ----------------------------------------------------------------------
    def if_stmt(self, stmt) -> list:
        live, owned, defined, typed = set(self.live), set(self.owned), set(self.defined), set(self.typed)
        body = self.block(stmt.body)
        live_body, owned_body, typed_body = set(self.live), set(self.owned), set(self.typed)
        self.live, self.owned, self.defined, self.typed = set(live), set(owned), set(defined), set(typed)
        orelse = self.block(stmt.orelse)
        self.typed &= typed_body  # (typed on every path only)
        merged = live_body | self.live
        # a tangent nonzero after one branch is made a real zero at the end of the other, where the
        # variable exists (defined before the if, or in that branch)
        zeroed = set()
        for branch, live_after, code in ((stmt.body, live_body, body), (stmt.orelse, self.live, orelse)):
            for var in sorted(merged - live_after):
                if var in defined or var in _assigned(branch):
                    code += self.zero_assign(var)
                    zeroed.add(var)
        self.owned = (owned_body & self.owned) | zeroed
        self.live = merged
        self.defined = defined | (_assigned(stmt.body) & _assigned(stmt.orelse))
        return [gast.If(test=stmt.test, body=body or [gast.Pass()], orelse=orelse)]

    def zero_assign(self, var):
        return [assign(self.tan(var), self.zero_of(var))]

    def loop(self, stmt) -> list:
        """The loop runs as it is, with tangent code inside.  Tangents the loop assigns are carried
        from one iteration to the next, so they always exist: zeros before the loop if needed."""
        # (and lists the body appends to: ``blst = zeros_like(lst)`` has no tangent yet, and its first
        # append must not start one inside the loop)
        appended = {
            n.func.value.id
            for n in walk(gast.Module(body=stmt.body, type_ignores=[]))
            if isinstance(n, gast.Call)
            and isinstance(n.func, gast.Attribute)
            and n.func.attr == "append"
            and isinstance(n.func.value, gast.Name)
        }
        carried = {v for v in _assigned(stmt.body) | appended if v in self.active}
        init = []
        for var in sorted(carried - self.live):
            if var in self.defined:
                init += self.zero_assign(var)
                self.owned.add(var)
        outer = self.forced
        self.forced = outer | carried
        self.live |= carried
        owned_start, typed_start = set(self.owned), set(self.typed)
        for _ in range(10):
            self.owned, self.typed = set(owned_start), set(typed_start)
            self.live |= carried
            body = self.block(stmt.body)
            if owned_start <= self.owned and typed_start <= self.typed:
                break
            owned_start &= self.owned
            typed_start &= self.typed
        self.owned = owned_start & self.owned
        self.typed = typed_start & self.typed
        self.forced = outer
        self.defined |= _assigned(stmt.body)
        if isinstance(stmt, gast.For):
            new = gast.For(target=stmt.target, iter=stmt.iter, body=body, orelse=[], type_comment=None)
        else:
            new = gast.While(test=stmt.test, body=body, orelse=[])
        return init + [gast.copy_location(new, stmt)]


_GUARDED = {
    "tangent_times": gast.Mult,
    "tangent_over": gast.Div,
}  # runtime helpers: a product unless a tangent is int 0


def _from_items(program) -> set[str]:
    """Names whose value may be or come from an item of a list, tuple, dict or record (or a user function's
    result, or an unpacking), directly or through what is computed from one: their tangents may be or hold the
    int 0 a container's tangent holds for a constant (``(2, x)`` has the tangent ``(0, dx)``)."""
    found = set()
    for r in program.simple():
        op = r.op
        if op.kind in (P.BUILD, P.UNPACK, P.CALL, P.UNKNOWN):  # (an item of an argument: the caller's tangent)
            found.update(r.targets)
    changed = True
    while changed:
        changed = False
        for r in program.simple():
            if not set(r.targets) <= found and found.intersection(r.reads):
                found.update(r.targets)
                changed = True
    return found


def _may_hold_items(program, out) -> bool:
    """``out`` is (or holds) a container's item as it is, not computed from one: ``(2, x)``, ``p[0]``, a user
    function's result, ``out = t`` of one of these (a NumPy result is an array, ``astype_of`` a float)."""
    import operator

    seen = set()
    while out not in seen:
        seen.add(out)
        ops = [r.op for r in program.simple() if out in r.targets]
        if any(op.kind in (P.BUILD, P.UNPACK, P.CALL, P.UNKNOWN) for op in ops):
            return True
        if any(op.kind == P.RULE and op.fn in (operator.getitem, getattr) for op in ops):
            return True
        copies = [op.args[0].id for op in ops if op.kind == P.COPY and op.args and isinstance(op.args[0], gast.Name)]
        if not copies:
            return False
        out = copies[0]
    return False


def _atoms(value):
    return [n for n in walk(value) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]


def _assigned(stmts) -> set[str]:
    return {t for s in walk_stmts(stmts) for t in targets(s)}


def _drop_zeros(node):
    """``node`` with the terms holding a zero tangent removed; None when nothing is left.

    Tangents appear in ``node`` as marker names (``_ZERO`` for a zero one, ``_LIVE``-prefixed
    for the others), so a call's arguments can be told apart: a call all of whose tangent
    arguments are zero is zero (it is linear in them); otherwise a zero argument becomes 0.0.
    """
    if isinstance(node, gast.Name):
        return None if node.id == _ZERO else node
    if isinstance(node, gast.BinOp):
        left, right = _drop_zeros(node.left), _drop_zeros(node.right)
        if isinstance(node.op, (gast.Add, gast.Sub)):
            if left is None and right is None:
                return None
            if left is None:
                return right if isinstance(node.op, gast.Add) else gast.UnaryOp(op=gast.USub(), operand=right)
            if right is None:
                return left
        elif left is None or right is None:
            return None  # a product (or quotient) with a zero factor
        node.left, node.right = left, right
        return node
    if isinstance(node, gast.UnaryOp):
        operand = _drop_zeros(node.operand)
        if operand is None:
            return None
        node.operand = operand
        return node
    if isinstance(node, gast.Call):
        parts = list(node.args) + [k.value for k in node.keywords]
        with_tangents = [p for p in parts if _mentions(p, _is_tangent)]
        dropped = {p: _drop_zeros(p) for p in parts}
        if with_tangents and all(dropped[p] is None for p in with_tangents):
            return None
        node.args = [dropped[a] if dropped[a] is not None else const(0.0) for a in node.args]
        for k in node.keywords:
            k.value = dropped[k.value] if dropped[k.value] is not None else const(0.0)
        return node
    if isinstance(node, gast.Subscript):
        value = _drop_zeros(node.value)
        if value is None:
            return None
        node.value = value
        return node
    if isinstance(node, (gast.Tuple, gast.List)):
        elts = [_drop_zeros(e) for e in node.elts]
        if all(e is None for e in elts):
            return None
        node.elts = [e if e is not None else const(0.0) for e in elts]
        return node
    if _mentions(node, lambda n: n == _ZERO):
        return None
    return node


def _is_tangent(identifier: str) -> bool:
    return identifier == _ZERO or identifier.startswith(_LIVE)


def _mentions(node, test) -> bool:
    return any(isinstance(n, gast.Name) and test(n.id) for n in walk(node))


def forward(program, wrt, shapes, active, request_jvp, *, fname=None, kwonly=False):
    """Build the tangent function ``fname(*params, d<wrt>...) -> (out, dout)`` (tangents keyword-only
    when ``kwonly``: the functions called from other generated code)."""
    fwd = Forward(program, wrt, shapes, active, request_jvp)
    tree = program.tree
    for w in wrt:
        fwd.live.add(w)
        fwd.tan(w)  # named first, in order: a recursive call is made before the body is done (request_jvp)
    # a tangent has its argument's type, as a derivative does (float32 stays float32): cast on entry
    cast = [
        assign(fwd.tan(w), _call("astype_of", name(fwd.tan(w)), name(w)))
        for w in wrt
        if not fwd.shapes.is_scalar(name(w))
    ]
    body = cast + fwd.block(tree.body[:-1])
    out = tree.body[-1].value.id
    dout = fwd.tangent(name(out))
    if dout is None:
        dout = fwd.zero_of(out) if out in fwd.shapes.of else _call("zeros_like", name(out))
    elif not kwonly and _may_hold_items(program, out):  # what the user gets: the int 0s as 0.0
        dout = _call("float_zeros", dout)
    body.append(gast.Return(value=gast.Tuple(elts=[name(out), dout], ctx=gast.Load())))
    # a tangent nothing reads is still checked, as reverse mode checks its zero adjoint (an object refused)
    unread = {fwd.tan(w) for w in wrt} - {n.id for s in body[len(cast) :] for n in walk(s) if isinstance(n, gast.Name)}
    body[: len(cast)] = [gast.Expr(value=c.value) if c.targets[0].id in unread else c for c in cast]
    args = _signature(tree, [fwd.tan(w) for w in wrt], kwonly)
    fn = gast.FunctionDef(
        name=fname, args=args, body=body, decorator_list=[], returns=None, type_comment=None, type_params=[]
    )
    return gast.copy_location(fn, tree), [fwd.tan(w) for w in wrt]


def _signature(tree, tangents, kwonly):
    """The primal's parameters plus the tangents: keyword-only when ``kwonly``, else positional
    right after the parameters without defaults (``jvp_f(x, dx, n=3)`` for ``f(x, n=3)``)."""
    a = tree.args
    params = [name(t, gast.Param()) for t in tangents]
    required = a.args[: len(a.args) - len(a.defaults)]
    optional = a.args[len(required) :]
    args = gast.arguments(
        args=required + ([] if kwonly else params) + optional,
        posonlyargs=[],
        vararg=a.vararg,
        kwonlyargs=list(a.kwonlyargs) + (params if kwonly else []),
        kw_defaults=list(a.kw_defaults) + ([None] * len(params) if kwonly else []),
        kwarg=a.kwarg,
        defaults=list(a.defaults),
    )
    return args
