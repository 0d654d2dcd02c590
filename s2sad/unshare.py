"""unshare: derivatives handed back to the caller never share memory with what the caller passed in.

Takes the generated entry function (the one the user calls), the names of its derivative inputs
(tangents and seeds: its parameters that are not the user's) and the namespace; gives it back with
each returned derivative that may be one of those inputs, or a view of one (``dout = dx`` for the
identity, ``bx = unbroadcast(bout, x)`` for ``x + y``), wrapped in ``unshared(g, dx)``: a copy when
the two share memory at run time, ``g`` itself otherwise.  Derivatives made by arithmetic are new
arrays and are returned as they are; the primal value keeps Python's meaning (``f(x) = x`` returns
``x``).
"""

from __future__ import annotations

import gast

from . import runtime
from .aliases import may_share
from .ir import walk
from .resolve import MISSING, among

# runtime helpers that always make a new array (the others may hand back their argument)
_FRESH_HELPERS = {runtime.zeros_like, runtime.own}


def _may_return_argument(call, ns) -> bool:
    obj = ns.lookup(call.func) if ns is not None else MISSING
    if obj is MISSING:
        return True
    if (getattr(obj, "__module__", None) or "").startswith("s2sad.runtime"):
        return not among(obj, _FRESH_HELPERS)
    return may_share(obj)


def _shares(value, sharing, ns) -> bool:
    """Whether the expression ``value`` may be (a view of) a name in ``sharing``."""
    if isinstance(value, gast.Name):
        return value.id in sharing
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.Constant)):
        return False
    if isinstance(value, gast.Call) and not _may_return_argument(value, ns):
        return False
    return any(isinstance(n, gast.Name) and n.id in sharing for n in walk(value))


def unshare_returns(fn: gast.FunctionDef, inputs: list[str], ns, derivative_slots=None) -> gast.FunctionDef:
    """``derivative_slots``: the positions in a returned tuple that hold derivatives (None: the whole
    returned value is the derivative)."""
    sharing = set(inputs)
    grew = True
    while grew:  # names that may hold an input's memory, through copies, views and helpers
        grew = False
        for s in walk(fn):
            if isinstance(s, gast.Assign) and _shares(s.value, sharing, ns):
                for t in s.targets:
                    for n in walk(t):
                        if isinstance(n, gast.Name) and n.id not in sharing:
                            sharing.add(n.id)
                            grew = True
    ret = fn.body[-1]
    if not isinstance(ret, gast.Return) or ret.value is None:
        return fn
    if derivative_slots is None:
        slots = [(ret, "value")]
    elif isinstance(ret.value, gast.Tuple):
        slots = [(ret.value.elts, i) for i in derivative_slots if i < len(ret.value.elts)]
    else:
        return fn
    wrapped = False
    for holder, key in slots:
        expr = holder[key] if isinstance(holder, list) else getattr(holder, key)
        if not _shares(expr, sharing, ns):
            continue
        call = gast.Call(
            func=gast.Name(id="unshared", ctx=gast.Load(), annotation=None, type_comment=None),
            args=[expr, *(gast.Name(id=p, ctx=gast.Load(), annotation=None, type_comment=None) for p in inputs)],
            keywords=[],
        )
        if isinstance(holder, list):
            holder[key] = call
        else:
            setattr(holder, key, call)
        wrapped = True
    if wrapped and ns is not None:
        ns.scope.setdefault("unshared", runtime.unshared)
    return fn
