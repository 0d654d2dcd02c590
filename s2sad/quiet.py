"""quiet: a user function's primal without its output, for the recomputations inside generated VJPs.

A callee's VJP recomputes the values it needs by running the callee's own code, and so would print (or log,
or warn) a second time what the caller's call already printed.  Takes the ANF tree of a user function and
its namespace; gives a copy named ``quiet_<name>`` without its output calls (``print``, ``logging``,
``warnings.warn``), whose calls of user functions that print call their own quiet copies in turn.
"""

from __future__ import annotations

import types

import gast

from . import primitives as P
from .ir import copy_tree, walk, walk_stmts
from .naming import name
from .resolve import MISSING


def output_calls(tree, ns) -> set:
    """The statements of ``tree`` (a function or module) whose only effect is output: ``print(...)``,
    ``logging.info(...)``, ``warnings.warn(...)``, and ``log.info(...)`` on a logger ``tree`` makes
    (``log = logging.getLogger("t")``)."""
    import logging

    stmts = list(walk_stmts(tree.body))
    loggers = {
        s.targets[0].id
        for s in stmts
        if isinstance(s, gast.Assign)
        and isinstance(s.targets[0], gast.Name)
        and isinstance(s.value, gast.Call)
        and ns.lookup(s.value.func) is logging.getLogger
    }

    def output(call):
        f = call.func
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id in loggers:
            return f.attr in P.LOG_METHODS
        return P.is_output(ns.lookup(f))

    return {
        s
        for s in stmts
        if isinstance(s, (gast.Expr, gast.Assign)) and isinstance(s.value, gast.Call) and output(s.value)
    }


def silenced(stmts, ns) -> list:
    """``stmts`` without their output calls: ``print(...)`` dropped, ``t = print(...)`` (a print inside an
    expression, ``(print(v), t * t)[1]``) made ``t = None``, the value every output call returns."""
    from .reverse import _drop

    calls = output_calls(gast.Module(body=stmts, type_ignores=[]), ns)
    values = {s for s in calls if isinstance(s, gast.Assign)}

    def none(stmts):
        out = []
        for s in stmts:
            if s in values:
                s = gast.copy_location(gast.Assign(targets=s.targets, value=gast.Constant(value=None, kind=None)), s)
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, none(getattr(s, field)))
            out.append(s)
        return out

    return _drop(none(stmts), calls - values)


def called_functions(tree, ns):
    """(call node, plain user function) for each call of a module-level or closed-over user function, and
    of a user method on an object whose class is known (``m.go(x)``: ``m`` a typed argument or a global
    object); :func:`redirect` makes such a call call another function."""
    from .star import method_of, typed_path, types_of

    for n in walk(tree):
        if isinstance(n, gast.Call) and isinstance(n.func, (gast.Name, gast.Attribute)):
            obj, n.s2sad_receiver = ns.lookup(n.func), False
            if isinstance(obj, types.MethodType) and isinstance(n.func, gast.Attribute):
                obj, n.s2sad_receiver = obj.__func__, True  # model.go of a global object: Model.go(model, ...)
            elif obj is MISSING and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name):
                path = typed_path(n.func.value.id, ns)  # m.go of an argument whose class is known
                cls = None if path is None else types_of(ns).get(path)
                found = None if cls is None else method_of(cls, n.func.attr)
                obj, n.s2sad_receiver = (MISSING, False) if found is None else (found[0], True)
            obj = _instance_call(n, obj, ns)
            if obj is not MISSING and isinstance(obj, types.FunctionType) and P.is_user_function(obj):
                if not P.is_output(obj):  # (logging.info is an output call itself, not user code)
                    yield n, _specialized(obj, n, ns)


def _instance_call(call, obj, ns):
    """For ``t(x)`` or ``self.lin(x)`` of a callable instance (typed, a global or a bound object's): its
    class's ``__call__``, the called expression its receiver; else ``obj``."""
    from .star import method_of, typed_path, types_of

    if obj is MISSING and isinstance(call.func, gast.Name):
        path = typed_path(call.func.id, ns)
        cls = None if path is None else types_of(ns).get(path)
    elif obj is not MISSING and not isinstance(obj, (type, types.FunctionType, types.MethodType)):
        cls = type(obj)
    else:
        return obj
    found = None if cls is None else method_of(cls, "__call__")
    if found is None:
        return obj
    call.s2sad_receiver = "call"
    return found[0]


def _receiver(call) -> list:
    """The receiver a redirected call passes first: ``m`` of ``m.go(x)``, ``t`` of a callable ``t(x)``."""
    kind = getattr(call, "s2sad_receiver", False)
    return [call.func] if kind == "call" else [call.func.value] if kind else []


def _specialized(fn, call, ns):
    """``fn`` as this call runs it: given the classes of the objects it is passed (whose methods it calls)."""
    from .star import at_call, typed_arguments

    args = _receiver(call) + list(call.args)
    if any(isinstance(a, gast.Starred) for a in args) or any(k.arg is None for k in call.keywords):
        return fn
    keywords = {k.arg: k.value for k in call.keywords}
    typed = typed_arguments(fn, args, keywords, ns)
    return fn if typed is None else at_call(fn, args, keywords, typed)[0]


def redirect(call, fname: str):
    """Make ``call`` (found by :func:`called_functions`) call ``fname``; a method's receiver becomes the
    first argument (``m.go(x)`` -> ``quiet_go(m, x)``)."""
    call.args = [*_receiver(call), *call.args]
    call.func = name(fname)


def quiet_copy(tree, ns, fname: str, quiet_name_of) -> gast.FunctionDef:
    """``tree`` (ANF) renamed ``fname``, without output calls; a call of a function for which
    ``quiet_name_of`` gives a name calls that name instead."""
    fn = copy_tree(tree)
    fn.name = fname
    fn.body = silenced(fn.body, ns) or [gast.Return(value=gast.Constant(value=None, kind=None))]
    for call, obj in list(called_functions(fn, ns)):
        quiet = quiet_name_of(obj)
        if quiet is not None:
            redirect(call, quiet)
    return gast.copy_location(fn, tree)
