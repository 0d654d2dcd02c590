"""real_output: when grad's output is proved a real number, so the derivative need not compute it.

Takes a :class:`~s2sad.program.Program`; gives None (not proved) or ``(numbers, arrays)``: parameters such
that, when each of ``numbers`` is a real number (``float``, ``int``, ``bool``, a NumPy real scalar) and each
of ``arrays`` a real number or a real ``np.ndarray`` at call time, f's output is a real number: not None,
not complex, not an array.  ``grad`` then tests those types (``real_numbers``, ``real_arrays``: a few
``type`` checks) and computes and checks f's output (``expect_scalar``) only when they fail.

The proof follows the types of values, not their values: an output is proved only through operations whose
result type is decided by their operands' types and that give a real result for real operands (arithmetic,
NumPy ufuncs, full reductions, ``math`` functions, ``X.shape[0]``), from real constants and parameters.
Anything else (a global, a user function, a container, a dtype=, a power of a Python number that may be
complex: ``(-8.0) ** 0.5``) leaves the output unproved.  Two sets per name, a least fixpoint over all its
bindings: the parameters whose realness makes it real (``dtype``), and those that must be numbers for it
to be one (``shape``); None is unknown.
"""

from __future__ import annotations

import math
import numbers
import operator

import gast
import numpy as np

from . import primitives as P
from .ir import reads, targets, walk
from .resolve import among

_ELEMENTWISE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod}
_ELEMENTWISE |= {operator.neg, operator.pos, abs}
_REDUCTIONS = {np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.prod}
_MATH = {getattr(math, n) for n in "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh".split()}
_MATH |= {getattr(math, n) for n in "exp expm1 log log1p log2 log10 sqrt pow hypot fabs erf erfc".split()}
_MATH |= {math.gamma, math.lgamma, math.degrees, math.radians, math.copysign, math.fmod, float, len}
_EMPTY = frozenset()


class _Facts:
    def __init__(self, dtype, shape, numpy=False, shape_tuple=False):
        self.dtype, self.shape = dtype, shape  # frozensets of parameters, or None (unknown)
        self.numpy = numpy  # always an ndarray or a NumPy scalar (arithmetic on it never raises)
        self.shape_tuple = shape_tuple  # ``X.shape``: a tuple of ints

    def key(self):
        return (self.dtype, self.shape, self.numpy, self.shape_tuple)


_UNKNOWN = _Facts(None, None)
_REAL_CONSTANT = _Facts(_EMPTY, _EMPTY)


def _union(*parts):
    return None if any(p is None for p in parts) else frozenset().union(*parts)


class _Proof:
    def __init__(self, program):
        self.program = program
        self.params = set(program.params)
        self.facts: dict[str, _Facts] = {}

    def atom(self, a) -> _Facts:
        if isinstance(a, gast.Constant):
            v = a.value
            real = isinstance(v, (int, float)) and not isinstance(v, complex)
            return _REAL_CONSTANT if real else _UNKNOWN
        if isinstance(a, gast.Name):
            return self.facts.get(a.id, _UNKNOWN)
        return _UNKNOWN  # a global's attribute (read when the derivative runs)

    def value(self, rec) -> _Facts:
        if rec is None:
            return _UNKNOWN
        if rec.kind == "for":
            return _REAL_CONSTANT  # an index of range(...)
        op, value = rec.op, rec.stmt.value
        if op.kind == P.COPY:
            return self.atom(op.args[0])
        if isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name):
            base = self.atom(value.value)
            if value.attr == "shape":
                return _Facts(base.dtype, None, shape_tuple=True)
            if value.attr in ("ndim", "size"):
                return _Facts(base.dtype, _EMPTY if base.dtype is not None else None)
            return _UNKNOWN
        if op.kind not in (P.RULE, P.NONDIFF) or op.fn is None:
            return _UNKNOWN
        fn, args, kw = op.fn, op.args, op.keywords
        parts = [self.atom(a) for a in args]
        numpy = any(p.numpy for p in parts)
        if among(fn, _ELEMENTWISE) and not kw:
            return _Facts(_union(*(p.dtype for p in parts)), _union(*(p.shape for p in parts)), numpy)
        if fn is operator.pow and not kw and len(args) == 2 and (numpy or _real_power(*args)):
            return _Facts(_union(*(p.dtype for p in parts)), _union(*(p.shape for p in parts)), numpy)
        if isinstance(fn, np.ufunc) and fn.nout == 1 and len(args) == fn.nin and not kw:
            shape = _union(*(p.shape for p in parts)) if fn.signature is None else None
            return _Facts(_union(*(p.dtype for p in parts)), shape, True)
        if fn in (operator.matmul, np.dot) and len(args) == 2 and not kw:  # (np.matmul: a ufunc)
            return _Facts(_union(*(p.dtype for p in parts)), None, True)
        if among(fn, _REDUCTIONS) and 1 <= len(args) <= 2 and set(kw) <= {"axis", "keepdims"}:
            axis = kw.get("axis", args[1] if len(args) == 2 else None)
            full = (axis is None or _constant(axis, None)) and _constant(kw.get("keepdims"), None, False)
            return _Facts(parts[0].dtype, _EMPTY if full else None, True)
        if among(fn, _MATH) and not kw:  # a float (or an int: len), or an error
            return _REAL_CONSTANT
        if fn is operator.getitem and len(args) == 2:
            index = _constant_int(args[1]) and parts[0].shape_tuple
            return _Facts(parts[0].dtype, _EMPTY if index else None)
        return _UNKNOWN

    def prove(self):
        """``(numbers, arrays)`` for the output, or None."""
        bindings = self.bindings()
        if bindings is None:
            return None
        for p in self.params:
            self.facts[p] = _Facts(frozenset([p]), frozenset([p]))
        for n in bindings:
            if n not in self.params:
                self.facts[n] = _Facts(_EMPTY, _EMPTY, True, True)  # the top: lowered to a fixpoint
        while True:
            before = {n: f.key() for n, f in self.facts.items()}
            for n, recs in bindings.items():
                found = [self.value(r) for r in recs]
                if n in self.params:
                    found.append(_Facts(frozenset([n]), frozenset([n])))
                self.facts[n] = _Facts(
                    _union(*(f.dtype for f in found)),
                    _union(*(f.shape for f in found)),
                    all(f.numpy for f in found),
                    all(f.shape_tuple for f in found),
                )
            if {n: f.key() for n, f in self.facts.items()} == before:
                break
        out = self.facts.get(self.program.output, _UNKNOWN)
        if out.dtype is None or out.shape is None:
            return None
        return out.shape, out.dtype - out.shape

    def bindings(self):
        """name -> the records binding it; None when a name is bound some other way (a tuple target,
        ``x += v``, ``with ... as x``) or a loop runs over something other than ``range``."""
        out: dict[str, list] = {}
        known: dict[str, int] = {}
        for rec in self.program.records.values():
            stmt = rec.stmt
            if rec.kind == "for":
                if not _is_range(stmt.iter) or not isinstance(stmt.target, gast.Name):
                    return None
                names = [stmt.target.id]
            elif isinstance(stmt, gast.Assign) and rec.kind != P.SETITEM:
                names = [
                    n.id for n in walk(stmt.targets[0]) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
                ]
                if not isinstance(stmt.targets[0], gast.Name):  # a, b = v: each unknown
                    rec = None
            else:
                continue
            for n in names:
                out.setdefault(n, []).append(rec)
                known[n] = known.get(n, 0) + 1
        stores: dict[str, int] = {}
        for node in walk(self.program.tree):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
            if isinstance(node, gast.AugAssign):
                return None
        if any(stores[n] != known.get(n, 0) for n in stores if n in out or n == self.program.output):
            return None
        return out


def _is_range(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "range"


def _constant(node, *values) -> bool:
    return node is None or isinstance(node, gast.Constant) and any(node.value is v for v in values)


def _constant_int(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is int


def _real_power(base, exponent) -> bool:
    """``b ** e`` of Python numbers is real when e is an integer or b is not negative: ``(-8.0) ** 0.5``
    is complex."""
    if isinstance(exponent, gast.Constant) and isinstance(exponent.value, numbers.Real):
        if float(exponent.value).is_integer():
            return True
    return isinstance(base, gast.Constant) and isinstance(base.value, numbers.Real) and base.value >= 0


class Proved:
    """f's output is a real number when ``numbers`` are real numbers and ``arrays`` real numbers or arrays."""

    def __init__(self, numbers, arrays, facts):
        self.numbers, self.arrays, self.facts = numbers, arrays, facts

    def number(self, name) -> bool:
        """Whether ``name`` holds a real number when the tested parameters are real."""
        f = self.facts.get(name)
        return f is not None and f.dtype is not None and f.shape is not None and f.shape <= set(self.numbers)

    def real(self, name) -> bool:
        f = self.facts.get(name)
        return f is not None and f.dtype is not None

    def numpy(self, name) -> bool:
        f = self.facts.get(name)
        return f is not None and f.numpy


def proved_real_output(program) -> Proved | None:
    """The parameters to test when the derivative is called (see the module), in the order of f's
    parameters; None when f's output is not proved a real number."""
    proof = _Proof(program)
    found = proof.prove()
    if found is None:
        return None
    numbers_, arrays = found
    order = program.params
    return Proved([p for p in order if p in numbers_], [p for p in order if p in arrays], proof.facts)


# ---- the derivative without f's output ---------------------------------------------------------------


def without_output(fn: gast.FunctionDef, proved: Proved, names, effects=frozenset()) -> gast.FunctionDef:
    """``fn`` (a grad, optimized) computing f's output and calling ``expect_scalar`` only when the tested
    parameters are not all real (``check_output = not real_arrays(W, b)``, then ``if check_output:``
    around those statements); without them when nothing is to test.  Unchanged when a statement to skip
    might raise where f would (a division of Python numbers, ``math.log``, a broadcast of two arrays, a
    name a loop may not have bound), so a call f refuses is never given a gradient."""
    from .naming import Role
    from .optimize import _dead_code

    check = next((s for s in fn.body if _is_check(s)), None)
    if check is None:
        return fn
    lists = _statement_lists(fn.body)
    saved = [(body, list(body)) for body in lists]
    fn.body.remove(check)
    _dead_code(fn, effects)
    kept = {id(s) for body in lists for s in body}
    for body, before in saved:
        body[:] = before
    skipped = {id(s): s for _, before in saved for s in before if id(s) not in kept}
    tested = set(proved.numbers) | set(proved.arrays)
    while True:  # what might raise stays, with what it reads
        unsafe = _unsafe(fn.body, skipped, proved, tested, check)
        if not unsafe:
            break
        while unsafe:  # (and what those read, and so on)
            needed = set().union(*(reads(s.value) for s in unsafe))
            for s in unsafe:
                del skipped[id(s)]
            unsafe = [s for s in skipped.values() if isinstance(s, gast.Assign) and set(targets(s)) & needed]
    if not _worth_skipping(fn.body, skipped, proved):
        return fn
    if not proved.numbers and not proved.arrays:
        for body in lists:
            body[:] = [s for s in body if id(s) not in skipped]
        return fn
    flag = names.fresh("check_output", Role.FLAG)
    for body in lists:
        body[:] = _guarded(body, skipped, flag)
    tests = []
    if proved.numbers:
        tests.append(_call("real_numbers", proved.numbers))
    if proved.arrays:
        tests.append(_call("real_arrays", proved.arrays))
    test = tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)
    first = gast.Assign(
        targets=[gast.Name(id=flag, ctx=gast.Store(), annotation=None, type_comment=None)],
        value=gast.UnaryOp(op=gast.Not(), operand=test),
        type_comment=None,
    )
    fn.body.insert(0, first)
    return fn


def _is_check(stmt) -> bool:
    return (
        isinstance(stmt, gast.Expr)
        and isinstance(stmt.value, gast.Call)
        and isinstance(stmt.value.func, gast.Name)
        and stmt.value.func.id == "expect_scalar"
    )


def _name(n):
    return gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)


def _call(func, args):
    return gast.Call(func=_name(func), args=[_name(a) for a in args], keywords=[])


def _statement_lists(body) -> list:
    out = [body]
    for s in body:
        for field in ("body", "orelse"):
            sub = getattr(s, field, None)
            if isinstance(sub, list) and isinstance(s, (gast.If, gast.For, gast.While)):
                out += _statement_lists(sub)
    return out


def _guarded(body, skipped, flag) -> list:
    """``body`` with each run of skipped statements inside ``if <flag>:`` (a skipped assignment moved after
    the plain assignments that follow it and share no name with it, so runs join: one ``if``)."""
    body = list(body)
    moved = True
    while moved:
        moved = False
        for i in range(len(body) - 2):
            s, k = body[i], body[i + 1]
            if id(s) in skipped and id(k) not in skipped and any(id(x) in skipped for x in body[i + 2 :]):
                if _plain(s) and _plain(k) and _independent(s, k):
                    body[i], body[i + 1] = k, s
                    moved = True
    out, run = [], []
    for s in body + [None]:
        if s is not None and id(s) in skipped:
            run.append(s)
            continue
        if run:
            out.append(gast.copy_location(gast.If(test=_name(flag), body=run, orelse=[]), run[0]))
            run = []
        if s is not None:
            out.append(s)
    return out


def _plain(stmt) -> bool:
    """``name = <expression>`` calling only NumPy and ``math`` functions: no write into an array."""
    if not isinstance(stmt, gast.Assign) or not isinstance(stmt.targets[0], gast.Name):
        return False
    for n in walk(stmt.value):
        if isinstance(n, gast.Call):
            f = n.func
            if not (isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id in ("np", "math")):
                return False
    return True


def _independent(s, k) -> bool:
    """Whether the plain assignments ``s; k`` may run as ``k; s``."""
    ws, wk = s.targets[0].id, k.targets[0].id
    return ws != wk and ws not in reads(k.value) and wk not in reads(s.value)


_NEVER_RAISE = (gast.Add, gast.Sub, gast.Mult)  # on real numbers (floats overflow to inf)
_MAY_RAISE = (gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)  # of Python numbers: ZeroDivisionError, OverflowError
_SUMS = {"sum", "mean", "prod"}


def _unsafe(body, skipped, proved, tested, check) -> list:
    """The skipped statements that might raise, or read a name not surely bound before them."""
    out = []

    def visit(stmts, bound):
        for s in stmts:
            if id(s) in skipped and s is not check and not _skippable(s, proved, bound):
                out.append(s)
            if isinstance(s, gast.Assign) and not _is_none(s.value):
                bound = bound | {n.id for n in walk(s.targets[0]) if isinstance(n, gast.Name)}
            elif isinstance(s, (gast.For, gast.While)):
                inner = bound | (
                    {s.target.id} if isinstance(s, gast.For) and isinstance(s.target, gast.Name) else set()
                )
                visit(s.body, inner)  # (a loop may not run: what it binds is not surely bound after)
            elif isinstance(s, gast.If):
                bound = visit(s.body, bound) & visit(s.orelse, bound)
        return bound

    visit(body, set(tested))
    return out


def _worth_skipping(body, skipped, proved) -> bool:
    """Whether a skipped statement runs in a loop or computes with an array (skipping a few operations
    on numbers saves less than the test of the arguments costs)."""

    def visit(stmts, in_loop):
        for s in stmts:
            if id(s) in skipped and isinstance(s, gast.Assign):
                if in_loop or not all(proved.number(n) for n in reads(s.value) if n != "np"):
                    return True
            if isinstance(s, (gast.For, gast.While, gast.If)):
                loop = in_loop or not isinstance(s, gast.If)
                if visit(s.body, loop) or visit(s.orelse, loop):
                    return True
        return False

    return visit(body, False)


def _is_none(value) -> bool:
    return isinstance(value, gast.Constant) and value.value is None


def _skippable(stmt, proved, bound) -> bool:
    if not isinstance(stmt, gast.Assign) or not isinstance(stmt.targets[0], gast.Name):
        return False
    target, value = stmt.targets[0].id, stmt.value
    read = [n.id for n in walk(value) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    operands = [r for r in read if r not in ("np",)]
    if not all(r in bound and proved.real(r) for r in operands) or not proved.real(target):
        return False
    if isinstance(value, gast.Call):  # np.sum(v): never raises for a real array or number
        f = value.func
        numpy_fn = isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == "np"
        if numpy_fn and f.attr in _SUMS and len(value.args) == 1 and not value.keywords:
            return True
        if not (numpy_fn and isinstance(getattr(np, f.attr, None), np.ufunc)):
            return False
    if len(set(operands)) > 1 and not proved.number(target):
        return False  # arrays of shapes that may not broadcast
    for n in walk(value):
        if isinstance(n, gast.BinOp) and not isinstance(n.op, _NEVER_RAISE):
            numpy_operand = any(isinstance(o, gast.Name) and proved.numpy(o.id) for o in (n.left, n.right))
            if not (isinstance(n.op, _MAY_RAISE) and numpy_operand):
                return False
        if isinstance(n, gast.UnaryOp) and not isinstance(n.op, (gast.USub, gast.UAdd)):
            return False
        if not isinstance(n, (gast.BinOp, gast.UnaryOp, gast.Name, gast.Constant, gast.Call, gast.Attribute)):
            if not isinstance(n, (gast.expr_context, gast.operator, gast.unaryop)):
                return False
    return True
