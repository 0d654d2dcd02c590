"""optimize: clean generated code without changing what it computes.

Takes a derivative ``FunctionDef``; gives it back with constants folded (``2 - 1`` -> ``1``,
``x ** 1`` -> ``x``, ``e * 1`` -> ``e``), arguments that equal the callee's defaults dropped
(``unreduce(g, x, None, False)`` -> ``unreduce(g, x)``), a pure expression computed again with the same
operands replaced by the name holding it (CSE), copies folded away (``copies``) and dead assignments
removed.
"""

from __future__ import annotations

import inspect
import numbers

import gast

from . import runtime
from .copies import fold_copies
from .ir import Transformer, changed, reads, walk, walk_stmts
from .naming import Names, const


def optimize(
    fn: gast.FunctionDef, names: Names, primal: frozenset = frozenset(), effects: frozenset = frozenset()
) -> gast.FunctionDef:
    """``primal``: the names that hold the user's values (parameters and what the ANF code assigns).
    Their operations are the user's: ``x * 1.0`` there is a new array (and a dtype), never folded
    into an alias of ``x``; and an in-place write into one of them may change views of it.
    ``effects``: names of functions whose calls have an effect (a user function that prints), kept
    even where their result is not read."""
    folder = _Fold(fn, primal)  # one walk: folding, plain builtins, default arguments, facts for CSE
    fn = folder.visit(fn)
    if not folder.writes_into_arrays:
        _cse(fn.body, {}, {})
    fold_copies(fn, names)
    _twice(fn.body)
    _dead_code(fn, effects)
    return fn


# ---- an adjoint added twice --------------------------------------------------------------------


def _twice(body):
    """``bz = bz + e; bz = bz + e`` (the two operands of ``z * z``) as ``bz = bz + 2 * e``, and
    ``bh = e; bh += e`` as ``bh = 2 * e``: one operation less, the same value (doubling is exact)."""
    i = 0
    while i + 1 < len(body):
        merged = _merge_twice(body[i], body[i + 1])
        if merged is None:
            i += 1
        else:
            body[i : i + 2] = [gast.copy_location(merged, body[i])]
    for s in body:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            _twice(s.body)
            _twice(s.orelse)


def _added(stmt):
    """``(x, e, kind)`` for ``x = x + e`` ("add"), ``x += e`` ("aug") and ``x = e`` ("set"), else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) and isinstance(stmt.target, gast.Name):
        return stmt.target.id, stmt.value, "aug"
    if not isinstance(stmt, gast.Assign) or not isinstance(stmt.targets[0], gast.Name):
        return None
    x, v = stmt.targets[0].id, stmt.value
    if isinstance(v, gast.BinOp) and isinstance(v.op, gast.Add) and isinstance(v.left, gast.Name) and v.left.id == x:
        return x, v.right, "add"
    return x, v, "set"


def _doubled(e):
    two = gast.Constant(value=2, kind=None)
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.Mult):  # 2 * b * z, not 2 * (b * z)
        return gast.BinOp(left=gast.BinOp(left=two, op=gast.Mult(), right=e.left), op=gast.Mult(), right=e.right)
    return gast.BinOp(left=two, op=gast.Mult(), right=e)


def _merge_twice(s, t):
    a, b = _added(s), _added(t)
    if a is None or b is None or a[0] != b[0] or b[2] == "set" or _structure(a[1]) != _structure(b[1]):
        return None
    x, e, kind = a
    if not isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Call)) or not _cse_candidate(e) or x in reads(e):
        return None
    target = gast.Name(id=x, ctx=gast.Store(), annotation=None, type_comment=None)
    if kind == "set":  # (a new value: e is an operation, not a name that ``+=`` would write into)
        return gast.Assign(targets=[target], value=_doubled(e), type_comment=None)
    if kind != b[2]:
        return None
    if kind == "aug":
        return gast.AugAssign(target=target, op=gast.Add(), value=_doubled(e))
    left = gast.Name(id=x, ctx=gast.Load(), annotation=None, type_comment=None)
    return gast.Assign(
        targets=[target], value=gast.BinOp(left=left, op=gast.Add(), right=_doubled(e)), type_comment=None
    )


# ---- common subexpressions ---------------------------------------------------------------------


def _cse_candidate(value) -> bool:
    """Arithmetic and NumPy/math functions (not random draws, not methods such as ``stack.pop()``)."""
    for n in walk(value):
        if isinstance(n, gast.Call):
            f = n.func
            if not (isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id in ("np", "math")):
                return False
        if isinstance(n, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)):
            return False
    return isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Call, gast.Subscript))


def _cse(body, avail: dict, version: dict):
    """Replace a pure expression computed again, with the same operand values, by the name holding it."""
    for stmt in body:
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            inner = changed([stmt])
            for n in inner:
                version[n] = version.get(n, 0) + 1
            for field in ("body", "orelse"):
                # inside, only what the compound statement never changes stays available
                _cse(getattr(stmt, field), dict(avail), dict(version))
            continue
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and _cse_candidate(stmt.value):
            key = (_structure(stmt.value), tuple((n, version.get(n, 0)) for n in reads(stmt.value)))
            known = avail.get(key)
            if known is not None and version.get(known[0], 0) == known[1]:
                stmt.value = gast.Name(id=known[0], ctx=gast.Load(), annotation=None, type_comment=None)
            target = stmt.targets[0].id
            version[target] = version.get(target, 0) + 1
            if known is None and target not in reads(stmt.value):
                avail[key] = (target, version[target])
            continue
        if _may_change_state(stmt):  # helper() may change a global (or what a name shares): G[-1] is read again
            avail.clear()
        for n in changed([stmt]):
            version[n] = version.get(n, 0) + 1


_PURE_BUILTINS = {"len", "float", "int", "abs", "range", "isinstance", "bool", "complex", "tuple", "list", "type"}


def _may_change_state(stmt) -> bool:
    """A call of a function (user code, an unknown one) that may change state no name it is given shows."""
    from .ir import _PURE_HELPERS

    return any(
        isinstance(n, gast.Call)
        and isinstance(n.func, gast.Name)
        and n.func.id not in _PURE_HELPERS
        and n.func.id not in _PURE_BUILTINS
        for n in walk(stmt)
    )


def _structure(node):
    """A hashable key equal for structurally equal expressions (what ``gast.dump`` says, faster)."""
    if isinstance(node, list):
        return tuple(_structure(v) for v in node)
    if isinstance(node, gast.AST):
        fields = node.__dict__
        return (node.__class__.__name__, *(_structure(fields.get(f)) for f in node._fields))
    return (type(node), node)  # 1, 1.0 and True are equal, but not the same constant


def fold(node):
    """Constant-fold one expression (``2 - 1`` -> ``1``, ``e * 1`` -> ``e``)."""
    return _Fold().visit(node)


def _num(node):
    return (
        isinstance(node, gast.Constant) and isinstance(node.value, numbers.Number) and not isinstance(node.value, bool)
    )


class _Fold(Transformer):
    """Constant folding, and (given the whole function) ``builtins.sum`` -> ``sum``, call arguments
    equal to the callee's defaults dropped, and whether the code writes into primal arrays."""

    def __init__(self, fn=None, primal=frozenset()):
        self.fn = fn
        self.primal = primal
        self._user_op = None
        self._written_names = None
        self._bound = None
        self.writes_into_arrays = False

    def visit_Assign(self, node):
        target = node.targets[0]
        # in-place writes into primal arrays (a[i] = v) may change views of them: no CSE then
        while isinstance(target, gast.Subscript):
            target = target.value
        if target is not node.targets[0] and (not isinstance(target, gast.Name) or target.id in self.primal):
            self.writes_into_arrays = True
        if isinstance(target, gast.Name) and (target.id in self.primal or target.id in self._written()):
            # ``a = x * 1.0`` is the user's: a new array, maybe of another dtype; and ``da = dx * 1``
            # must stay a new array when ``da`` is written into: folded, the write would change ``dx``
            self._user_op = node.value
        return self.generic_visit(node)

    def _written(self):
        if self._written_names is None:
            self._written_names = set()
            for n in walk(self.fn) if self.fn is not None else ():
                target = None
                if isinstance(n, gast.Assign):
                    target = n.targets[0]
                elif isinstance(n, gast.AugAssign):
                    target = n.target
                if isinstance(n, gast.AugAssign) and isinstance(target, gast.Name):
                    self._written_names.add(target.id)
                while isinstance(target, gast.Subscript):
                    target = target.value
                    if isinstance(target, gast.Name):
                        self._written_names.add(target.id)
        return self._written_names

    def _keeps(self, node) -> bool:
        return node is self._user_op

    def visit_Attribute(self, node):
        """``builtins.sum`` (rules spell builtins so: their own names shadow them) -> ``sum``,
        unless the function binds that name itself."""
        self.generic_visit(node)
        if self.fn is None or not (isinstance(node.value, gast.Name) and node.value.id == "builtins"):
            return node
        if self._bound is None:
            self._bound = {n.id for n in walk(self.fn) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        if node.attr in self._bound:
            return node
        return gast.Name(id=node.attr, ctx=node.ctx, annotation=None, type_comment=None)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.fn is not None:
            _drop_default_arguments(node)
        return _power_derivative(node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        if _num(left) and _num(right) and isinstance(op, (gast.Add, gast.Sub, gast.Mult)):
            value = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b, gast.Mult: lambda a, b: a * b}[
                type(op)
            ](left.value, right.value)
            return gast.Constant(value=value, kind=None)
        if self._keeps(node):
            return node
        if isinstance(op, (gast.Pow, gast.Mult, gast.Div)) and _num(right) and right.value == 1:
            return left
        if isinstance(op, gast.Mult) and _num(left) and left.value == 1:
            return right
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.USub) and _num(node.operand):
            return gast.Constant(value=-node.operand.value, kind=None)
        if (
            isinstance(node.op, gast.USub)
            and isinstance(node.operand, gast.UnaryOp)
            and isinstance(node.operand.op, gast.USub)
        ):
            return node.operand.operand
        return node


def _power_derivative(node):
    """``pow_deriv(x, n, k)`` with integers ``n > k >= 1``: ``c * x ** (n - k)``, ``c = n (n-1) ... (n-k+1)``
    (the same number: a positive integer power has no 0 * inf to avoid), as one writes it by hand."""
    if not (isinstance(node.func, gast.Name) and node.func.id == "pow_deriv" and len(node.args) == 3):
        return node
    _, n, k = node.args
    if not (_int(n) and _int(k) and n.value > k.value >= 1):
        return node
    c = 1
    for j in range(k.value):
        c *= n.value - j
    power = node.args[0] if n.value - k.value == 1 else gast.BinOp(node.args[0], gast.Pow(), const(n.value - k.value))
    return gast.BinOp(const(c), gast.Mult(), power)


def _int(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is int


_HELPERS = {name: obj for name, obj in vars(runtime).items() if inspect.isfunction(obj) and not name.startswith("_")}


def _defaults_of(func):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return [
        (p.name, p.default)
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def _same(node, default):
    return (
        isinstance(node, gast.Constant)
        and default is not inspect.Parameter.empty
        and type(node.value) is type(default)
        and node.value == default
    )


def _drop_default_arguments(call):
    import numpy as np

    func = call.func
    obj = None
    if isinstance(func, gast.Name) and func.id in _HELPERS:
        obj = _HELPERS[func.id]
    elif isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == "np":
        obj = getattr(np, func.attr, None)
    if obj is None:
        return
    params = _defaults_of(obj)
    if params is None:
        return
    # numpy marks "not given" with a sentinel; not keeping the dimensions is its meaning
    defaults = {k: (False if k == "keepdims" and v is getattr(np, "_NoValue", None) else v) for k, v in params}
    call.keywords = [k for k in call.keywords if not (k.arg in defaults and _same(k.value, defaults[k.arg]))]
    if not call.keywords:
        while call.args and len(call.args) <= len(params) and _same(call.args[-1], params[len(call.args) - 1][1]):
            call.args.pop()


def _dead_code(fn, effects=frozenset()):
    """Remove assignments whose names nothing reads (flow-insensitive, so safe inside loops).  Statements
    are visited last to first and a removal releases what it read, so a dead chain goes in one pass."""
    used = _reads_everywhere(fn)
    # straight-line code and branches are done in one pass; a loop may read at its top what its
    # bottom assigns, so a removal inside a loop can free statements the pass has already kept
    loops = any(isinstance(s, (gast.For, gast.While)) for s in walk_stmts(fn.body))
    while _remove_unused(fn.body, used, effects) and loops:
        pass


def _reads_everywhere(fn):
    counts = {}
    for node in walk(fn):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            counts[node.target.id] = counts.get(node.target.id, 0) + 1
    return counts


def _loads(node) -> list[str]:
    return [n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]


def _remove_unused(body, used, effects=frozenset()) -> bool:
    removed = False
    keep = []
    for stmt in reversed(body):
        if isinstance(stmt, gast.Assign) and not isinstance(stmt.targets[0], gast.Subscript):
            names = [n.id for n in walk(stmt.targets[0]) if isinstance(n, gast.Name)]
            # read elsewhere only by itself (``s = s + 1`` with s never read again) counts as unread
            loads = _loads(stmt.value) if any(used.get(n, 0) for n in names) else ()
            if all(used.get(n, 0) - loads.count(n) <= 0 for n in names) and _pure(stmt.value, effects):
                loads = loads or _loads(stmt.value)
                for n in loads:
                    used[n] -= 1
                removed = True
                continue
        for field in ("body", "orelse"):
            sub = getattr(stmt, field, None)
            if isinstance(sub, list):
                removed |= _remove_unused(sub, used, effects)
                if not sub and field == "body":
                    sub.append(gast.Pass())
        keep.append(stmt)
    body[:] = keep[::-1]
    return removed


def _pure(value, effects=frozenset()) -> bool:
    """Whether ``value`` may be dropped when nothing reads it: NumPy's and ``math``'s functions (not
    ``np.random``), runtime helpers, pure builtins and array methods.  Calls that may have effects are kept:
    ``stack.pop()``, calls of ``effects``, a method of another object (``rng.normal()``, ``next(it)``), a
    user function (``_ = draw()`` of f runs as f runs it)."""
    from .ir import _PURE_HELPERS

    for n in walk(value):
        if not isinstance(n, gast.Call):
            continue
        func = n.func
        if isinstance(func, gast.Name):
            if func.id in (*effects, "number_item"):
                return False  # (number_item refuses an array: the check stays where its value is unused)
            if func.id not in _PURE_HELPERS and func.id not in _PURE_BUILTINS and not func.id.startswith(_MADE):
                return False
        elif isinstance(func, gast.Attribute):
            root = func.value
            while isinstance(root, gast.Attribute):
                root = root.value
            module = isinstance(root, gast.Name) and root.id in ("np", "math", "numpy", "cmath")
            if module and "random" not in _dotted_names(func):
                continue
            if func.attr not in _PURE_METHODS:
                return False
    return True


_MADE = ("vjp_", "jvp_", "quiet_")  # functions generated code defines (derivatives, quiet copies)
_PURE_METHODS = {"copy", "reshape", "astype", "transpose", "conj", "conjugate", "sum", "mean", "ravel", "index"}
_PURE_METHODS |= {"item", "tolist", "dot", "squeeze", "flatten", "max", "min", "prod", "std", "var", "get"}
_PURE_METHODS |= {"keys", "values", "items", "count"}


def _dotted_names(node) -> list[str]:
    out = []
    while isinstance(node, gast.Attribute):
        out.append(node.attr)
        node = node.value
    return out
