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
The result of a differentiated call of a user function is not unseen either: its arguments are checked
here, and the callee's operations are checked in its own derivative.
"""

from __future__ import annotations

import operator

import gast

from . import primitives as P
from .ir import targets
from .naming import const, name


def _passes(op) -> bool:
    """Whether ``op`` reads an item or attribute of a container: what it holds."""
    return op.fn is operator.getitem or op.fn is getattr


_FILLS = {"append", "extend", "insert", "update", "setdefault", "add"}  # methods storing their arguments


def _names(atoms) -> list[str]:
    return [a.id for a in atoms if isinstance(a, gast.Name)]


def _library(fn) -> bool:
    """Whether ``fn`` is Python's or NumPy's own (``slice``, ``np.r_``...): its results are their values."""
    module = getattr(fn, "__module__", None) or getattr(type(fn), "__module__", "") or ""
    return module.split(".")[0] in ("builtins", "numpy", "math", "s2sad")


def _unseen_value(op, active: bool, unseen: set) -> bool:
    """Whether the value ``op`` gives may be of unseen type, given the names ``unseen`` so far."""
    held = [*op.args, *op.keywords.values()]
    if active:  # a differentiated operation: its operands are checked
        passes = op.kind in (P.COPY, P.GETITEM, P.BUILD, P.UNPACK) or _passes(op)
        return passes and _any(held, unseen)
    if op.kind in (P.CALL, P.UNKNOWN, P.OPAQUE) and not _library(op.fn):
        return True
    return op.kind != P.NONDIFF and _any(held, unseen)  # (NONDIFF: ints, bools, shapes, output calls)


def _any(atoms, unseen) -> bool:
    return any(n in unseen for n in _names(atoms))


def unseen_names(program, active: set) -> set[str]:
    """The names that may hold a value whose type is seen only at run time (least fixpoint over every
    binding of each name)."""
    unseen: set[str] = set()
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
                elif _unseen_value(op, any(o in active for o in outs), unseen):
                    unseen.update(outs)
            elif isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Attribute):
                receiver, method = stmt.value.func.value, stmt.value.func.attr
                stored = _names([*stmt.value.args, *(k.value for k in stmt.value.keywords)])
                if isinstance(receiver, gast.Name) and method in _FILLS and any(n in unseen for n in stored):
                    unseen.add(receiver.id)
        if len(unseen) == before:
            return unseen


def operand_checks(program, active: set, ns) -> dict:
    """Statement -> the ``expect_plain`` checks to put before it: one per unseen name that a
    differentiated operation takes as an operand, a differentiated call passes to a user function, or
    a differentiated write or ``append`` stores into."""
    unseen = unseen_names(program, active)
    if not unseen:
        return {}
    checks: dict = {}
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
        checks[stmt] = [
            gast.Expr(value=gast.Call(func=name("expect_plain"), args=[name(n), const(message)], keywords=[]))
            for n in seen_here
        ]
    return checks
