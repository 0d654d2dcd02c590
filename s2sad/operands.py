"""operands: values whose type is seen only when the code runs, checked where a rule takes them as operands.

s2sad's rules take ``x * s`` for the product of numbers or NumPy arrays.  Where ``s`` is a global, a
closure value or an argument, its type is checked when the code is generated (``program``) or when the
derivative is called (``live.guard``).  A value that f gets from code s2sad does not differentiate has a
type seen only at run time: ``s = make_scale()`` (a user function called on constants), ``m.get()``, an
object's attribute, an item of a list holding one.  If it is an object with operators of its own
(``__rmul__``), the rule for ``*`` would differentiate NumPy's product instead of its: a wrong number.

Takes a :class:`~s2sad.program.Program` and the names active for one derivative request; gives, for each
statement that differentiates an operation on such a value, the checks to run just before it:
``expect_plain(s, message)`` (runtime/pyvalues.py), which refuses at the user's line a value whose
operators or container methods are its own, and lets numbers, arrays, lists, tuples and dicts through.

A name is *unseen* when some binding of it gives a value of unseen type: the result of a call s2sad does
not differentiate (a user function called on constants, a class, a function with no rule), an item or
attribute of an unseen value, a copy of one, a container holding one, or the result of an operation not
differentiated on one.  A differentiated operation's result is not unseen: its operands were checked.
The result of a call of a user function is seen when its arguments are and the function is proved to
return what its rules compute from its parameters and constants (``returns_seen``, read from its code).
"""

from __future__ import annotations

import builtins
import math
import operator

import gast

from . import primitives as P
from .foreign import constant_value, foreign_class, value_refusal
from .ir import STORES, targets
from .naming import const, name


def _passes(op) -> bool:
    """Whether ``op`` reads an item or attribute of a container: what it holds."""
    return op.fn is operator.getitem or op.fn is getattr


def _names(atoms) -> list[str]:
    return [a.id for a in atoms if isinstance(a, gast.Name)]


def _library(fn) -> bool:
    """Whether ``fn`` is Python's or NumPy's own (``slice``, ``np.r_``...): its results are their values."""
    module = getattr(fn, "__module__", None) or getattr(type(fn), "__module__", "") or ""
    return module.split(".")[0] in ("builtins", "numpy", "math", "s2sad")


def _unseen_value(op, active: bool, unseen: set, ns, memo: dict) -> bool:
    """Whether the value ``op`` gives may be of unseen type, given the names ``unseen`` so far."""
    held = [*op.args, *op.keywords.values()]
    if any(_holds_foreign(a, ns, memo) for a in held):  # (an operand: refused where it is one, program.py)
        return True
    if isinstance(op.fn, type) and foreign_class(op.fn):  # an object of a class with its own operators
        return True
    if active and op.kind != P.CALL:  # a differentiated operation: its operands are checked
        passes = op.kind in (P.COPY, P.GETITEM, P.BUILD, P.UNPACK) or _passes(op)
        return passes and _any(held, unseen)
    if op.kind == P.CALL and not _library(op.fn):
        return _any(held, unseen) or not returns_seen(op.fn)
    if op.kind in (P.CALL, P.UNKNOWN, P.OPAQUE) and not _library(op.fn):
        return True
    return op.kind != P.NONDIFF and _any(held, unseen)  # (NONDIFF: ints, bools, shapes, output calls)


def _any(atoms, unseen) -> bool:
    return any(n in unseen for n in _names(atoms))


def _holds_foreign(atom, ns, memo: dict) -> bool:
    """Whether ``atom`` is a global, closure or bound value (or an attribute of one) that has, or holds a
    value that has, operators of its own (``self`` holding ``self.s = Scale()``)."""
    if not isinstance(atom, (gast.Name, gast.Attribute)):
        return False
    value = constant_value(atom, ns)
    if value is None:
        return False
    if id(value) not in memo:
        memo[id(value)] = (value, bool(value_refusal(value)))  # (the value kept: its id stays its own)
    return memo[id(value)][1]


_RETURNS: dict = {}  # code object -> whether the function returns values of seen type (None: being decided)


def returns_seen(fn) -> bool:
    """Whether the user function ``fn``, given values of seen type, returns one: its output is computed by
    rules from its parameters and constants (no object it builds or gets from code s2sad cannot read)."""
    key = getattr(fn, "__code__", None)
    if key is not None and key in _RETURNS:
        return bool(_RETURNS[key])  # (a recursive call while deciding: not proved)
    if key is not None:
        _RETURNS[key] = None
    try:
        from .pipeline import prepare

        program = prepare(fn).program
        seen = program.output not in unseen_names(program, set())
    except Exception:  # code s2sad cannot read: not proved
        seen = False
    if key is not None:
        if len(_RETURNS) > 4096:
            _RETURNS.clear()
        _RETURNS[key] = seen
    return seen


def unseen_names(program, active: set) -> set[str]:
    """The names that may hold a value whose type is seen only at run time (least fixpoint over every
    binding of each name)."""
    unseen: set[str] = set()
    memo: dict = {}
    while True:
        before = len(unseen)
        for stmt, record in program.records.items():
            op = record.op
            if op is None:
                continue
            if isinstance(stmt, gast.Assign):
                outs = targets(stmt)
                if op.kind == P.SETITEM:
                    value = op.args[2]
                    if isinstance(value, gast.Name) and value.id in unseen:
                        unseen.update(outs)
                elif _unseen_value(op, any(o in active for o in outs), unseen, program.ns, memo):
                    unseen.update(outs)
            elif isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Attribute):
                receiver, method = stmt.value.func.value, stmt.value.func.attr
                stored = _names([*stmt.value.args, *(k.value for k in stmt.value.keywords)])
                if isinstance(receiver, gast.Name) and method in STORES and any(n in unseen for n in stored):
                    unseen.add(receiver.id)
        if len(unseen) == before:
            return unseen


def operand_checks(program, active: set, ns) -> dict:
    """Statement -> the ``expect_plain`` checks to put before it: one per unseen name that a
    differentiated operation takes as an operand, a differentiated call passes to a user function, or
    a differentiated write or ``append`` stores into."""
    unseen = unseen_names(program, active)
    checks: dict = step_checks(program, unseen, ns)
    if not unseen:
        return checks
    for stmt, record in program.records.items():
        op = record.op
        if op is None or not isinstance(stmt, (gast.Assign, gast.Expr)):
            continue
        involved = [*targets(stmt), *_names([*op.args, *op.keywords.values()])]
        if not any(n in active for n in involved):
            continue
        if op.kind == P.RULE and not _passes(op) or op.kind == P.CALL:
            operands = _names([*op.args, *op.keywords.values()])
        elif op.kind == P.SETITEM:
            operands = _names(op.args[:1])
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            func = stmt.value.func
            operands = _names([func.value]) if isinstance(func, gast.Attribute) else []
        else:
            continue
        seen_here: list[str] = []
        for operand in operands:
            if operand in unseen and operand not in seen_here:
                seen_here.append(operand)
        if not seen_here:
            continue
        from .runtime import expect_plain

        ns.scope.setdefault("expect_plain", expect_plain)
        message = f"{op.what or 'this operation'} of a value whose type s2sad sees only when the code runs"
        checks.setdefault(stmt, []).extend(
            gast.Expr(value=gast.Call(func=name("expect_plain"), args=[name(n), const(message)], keywords=[]))
            for n in seen_here
        )
    return checks


_STEPS = {builtins.round: "__round__", math.floor: "__floor__", math.ceil: "__ceil__", math.trunc: "__trunc__"}


def _step(fn):
    """The method of its operand's class that ``fn`` calls (``round``: ``__round__``; ``float`` and the
    other functions of ``math``: ``__float__``), or None."""
    try:
        method = _STEPS.get(fn)
    except TypeError:  # (an unhashable callable)
        return None
    if method is None and (fn is builtins.float or getattr(fn, "__module__", None) == "math"):
        return "__float__"
    return method


def step_checks(program, unseen: set, ns) -> dict:
    """Statement -> ``expect_no_own`` before ``round(w)`` (``math.floor``, ``ceil``, ``trunc``: a step of
    derivative 0 for a number; ``float(w)``, ``math.sin(w)``: ``w.__float__()``) of a name that may hold
    an object whose class defines that method itself: an unseen value, an object of a user class f builds
    (where :mod:`dunders` did not spell the call as its method), a user function's result (its twin
    objects are seen), an item, attribute or copy of one."""
    steps = [(s, r.op) for s, r in program.records.items() if r.op is not None and _step(r.op.fn)]
    steps = [(s, op) for s, op in steps if op.args and isinstance(op.args[0], gast.Name)]
    if not steps:
        return {}
    objects = set(unseen)
    while True:
        before = len(objects)
        for stmt, record in program.records.items():
            op = record.op
            if op is None or not isinstance(stmt, gast.Assign):
                continue
            made = P.is_user_class(op.fn) or op.kind in (P.CALL, P.UNKNOWN, P.OPAQUE) and not _library(op.fn)
            passes = op.kind in (P.COPY, P.GETITEM, P.BUILD, P.UNPACK) or _passes(op)
            if made or passes and _any([*op.args, *op.keywords.values()], objects):
                objects.update(targets(stmt))
        if len(objects) == before:
            break
    checks: dict = {}
    from .runtime import expect_no_own

    for stmt, op in steps:
        method = _step(op.fn)
        what = f"{getattr(op.fn, '__name__', 'this function')}(...)"
        operands = op.args[:1] if method != "__float__" else op.args  # (math.atan2(y, x): both)
        for a in _names(operands):
            if a in objects:
                ns.scope.setdefault("expect_no_own", expect_no_own)
                call = gast.Call(func=name("expect_no_own"), args=[name(a), const(method), const(what)], keywords=[])
                checks.setdefault(stmt, []).append(gast.Expr(value=call))
    return checks
