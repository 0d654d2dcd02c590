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

    return {s for s in stmts if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and output(s.value)}


def called_functions(tree, ns):
    """(call node, plain user function) for each call of a module-level or closed-over user function."""
    for n in walk(tree):
        if isinstance(n, gast.Call) and isinstance(n.func, (gast.Name, gast.Attribute)):
            obj = ns.lookup(n.func)
            if obj is not MISSING and isinstance(obj, types.FunctionType) and P.is_user_function(obj):
                if not P.is_output(obj):  # (logging.info is an output call itself, not user code)
                    yield n, obj


def quiet_copy(tree, ns, fname: str, quiet_name_of) -> gast.FunctionDef:
    """``tree`` (ANF) renamed ``fname``, without output calls; a call of a function for which
    ``quiet_name_of`` gives a name calls that name instead."""
    from .reverse import _drop

    fn = copy_tree(tree)
    fn.name = fname
    fn.body = _drop(fn.body, output_calls(fn, ns)) or [gast.Return(value=gast.Constant(value=None, kind=None))]
    for call, obj in list(called_functions(fn, ns)):
        quiet = quiet_name_of(obj)
        if quiet is not None:
            call.func = name(quiet)
    return gast.copy_location(fn, tree)
