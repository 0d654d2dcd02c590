"""desugar: everyday Python syntax rewritten into the constructs the later passes know.

Takes the parsed ``FunctionDef`` (user line numbers) and its :class:`~s2sad.resolve.Namespace`;
gives the same function with, in every statement:

* list comprehensions (and generator expressions passed to ``sum``, ``min``, ``max``, ``list``,
  ``tuple``) turned into a ``for`` loop appending to a list, run just before the statement
  (nested ``for``s and ``if`` filters become nested loops and ``if``s; the comprehension's
  variables get fresh names, so they neither leak nor clash with the function's own);
* a walrus ``(y := e)`` turned into ``y = e`` before the statement;
* ``a, *rest = xs`` turned into indexing (``a = xs[0]``; ``rest`` a list of the remaining items);
* ``f(*xs)`` with a literal ``xs``, or with a user function ``f`` of fixed arity, spelled out;
* ``del name`` dropped (Python would raise on a later read, so nothing reads it);
* ``with np.errstate(...)`` turned into ``__enter__``/``__exit__`` calls around the block's
  statements (also before each ``return``, ``break`` and ``continue`` leaving it).

Only parts of an expression that Python evaluates exactly once, before the statement acts, are
moved: the right operand of ``and``/``or``, the branches of ``x if c else y``, the later operands of
a chained comparison and lambdas are left as they are (and refused later if they matter).  A
``while`` test that needs statements becomes ``while True:`` with those statements and
``if not test: break`` first.  Names this pass adds are added to ``ns.locals``.
"""

from __future__ import annotations

import builtins
import functools
import itertools
import math
import types

import gast
import numpy as np

from . import dunders, runtime, star
from .ir import VALUE_CONSUMERS, copy_tree, is_dict_view, out_arguments, walk
from .naming import Names, all_names, assign, const, name
from .primitives import is_user_class, is_user_function
from .resolve import MISSING, among, dotted

_METHODS = {"item": "ndarray_item", "tolist": "ndarray_tolist"}  # array methods spelled as helper calls


def _located(stmt, like):
    gast.copy_location(stmt, like)
    stmt.end_lineno = getattr(like, "end_lineno", None)
    for n in walk(stmt):
        if getattr(n, "lineno", None) is None and hasattr(n, "_attributes") and "lineno" in n._attributes:
            gast.copy_location(n, like)
    return stmt


def _needs_work(tree, ns) -> bool:
    if _dict_parameters(tree) or any(isinstance(n, gast.For) and _global_dict_view(n.iter, ns) for n in walk(tree)):
        return True
    if any(
        isinstance(n, gast.For) and is_dict_view(n.iter) and not isinstance(n.iter.func.value, gast.Name)
        for n in walk(tree)
    ):
        return True  # for v in {'a': x}.values(): the dict gets a name
    for n in walk(tree):
        if isinstance(n, gast.Call):
            callee = ns.lookup(n.func)
            if _is_user_partial(callee) or _is_chain(callee) or callee in (itertools.accumulate, *_COMBINATORIC):
                return True
    for n in walk(tree):
        if isinstance(n, gast.Call) and [k for k in n.keywords if k.arg == "out"] or _ufunc_outputs(n, ns):
            return True
        if isinstance(n, gast.Call) and ns.lookup(n.func) in (np.copyto, np.fill_diagonal):
            return True
        if isinstance(
            n, (gast.ListComp, gast.DictComp, gast.GeneratorExp, gast.NamedExpr, gast.Delete, gast.With, gast.Starred)
        ):
            return True
        if isinstance(n, gast.BoolOp) and not _is_boolean(n):
            return True
        if isinstance(n, gast.Call):
            if isinstance(n.func, gast.Name) and n.func.id in ("max", "min", "list", "tuple", "dict", "sorted"):
                return True
            if any(k.arg is None for k in n.keywords) or isinstance(n.func, gast.Attribute) and n.func.attr == "get":
                return True
            if isinstance(n.func, gast.Attribute) and n.func.attr in _METHODS:
                return True
            if _is_hypot_n(n, ns) or _spelled_call(n, ns) is not None or _is_sign(n, ns):
                return True
    if _mapping_method_params(tree):
        return True
    return dunders.reads_own(tree, ns)


# ufunc methods spelled as the NumPy function that computes the same (``np.add.reduce(x)`` is
# ``np.sum(x, axis=0)``: the method's axis defaults to 0, the function's to None)
_UFUNC_METHODS = {
    ("add", "reduce"): "sum",
    ("multiply", "reduce"): "prod",
    ("maximum", "reduce"): "max",
    ("minimum", "reduce"): "min",
    ("add", "accumulate"): "cumsum",
    ("multiply", "accumulate"): "cumprod",
}


def _spelled_call(call, ns):
    """``dict(a=x, b=y)`` as ``{"a": x, "b": y}``, ``divmod(a, b)`` as ``(a // b, a % b)`` (what Python
    computes, for ints and floats), and the
    ufunc methods of ``_UFUNC_METHODS`` as their NumPy function with ``axis=0`` unless given; None for
    other calls."""
    if not isinstance(call, gast.Call) or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    fn = ns.lookup(call.func)
    if fn is builtins.dict and not call.args and call.keywords and all(k.arg for k in call.keywords):
        keys = [gast.Constant(value=k.arg, kind=None) for k in call.keywords]  # dict(a=x, b=y): {"a": x, "b": y}
        return gast.Dict(keys=keys, values=[k.value for k in call.keywords])
    if fn is builtins.divmod and len(call.args) == 2 and not call.keywords:
        a, b = call.args
        return gast.Tuple(
            elts=[
                gast.BinOp(left=a, op=gast.FloorDiv(), right=b),
                gast.BinOp(left=copy_tree(a), op=gast.Mod(), right=copy_tree(b)),
            ],
            ctx=gast.Load(),
        )
    owner = getattr(fn, "__self__", None)
    if not isinstance(owner, np.ufunc) or not isinstance(call.func, gast.Attribute):
        return None
    spelled = _UFUNC_METHODS.get((owner.__name__, call.func.attr))
    if spelled is None or getattr(np, owner.__name__, None) is not owner or not call.args:
        return None
    if len(call.args) > 2 or any(k.arg not in ("axis", "dtype", "keepdims") for k in call.keywords):
        return None  # out=, initial=, where=: refused as before
    keywords = list(call.keywords)
    if len(call.args) == 2:
        keywords.append(gast.keyword(arg="axis", value=call.args[1]))
    elif not any(k.arg == "axis" for k in keywords):
        keywords.append(gast.keyword(arg="axis", value=gast.Constant(value=0, kind=None)))
    func = gast.Attribute(value=name("np"), attr=spelled, ctx=gast.Load())
    return gast.Call(func=func, args=[call.args[0]], keywords=keywords)


def _is_hypot_n(call, ns) -> bool:
    """``math.hypot`` of other than two coordinates (its rule takes two): run as ``hypot_of([...])``."""
    return ns.lookup(call.func) is math.hypot and (
        len(call.args) != 2 or any(isinstance(a, gast.Starred) for a in call.args)
    )


def _is_sign(call, ns) -> bool:
    """``np.sign(x)`` with one argument: run as ``real_sign(x)``, which refuses a complex ``x``."""
    return (
        ns.lookup(call.func) is np.sign
        and len(call.args) == 1
        and not call.keywords
        and not any(isinstance(a, gast.Starred) for a in call.args)
    )


def _ufunc_outputs(call, ns) -> bool:
    fn = ns.lookup(call.func) if isinstance(call, gast.Call) else None
    return isinstance(fn, np.ufunc) and len(call.args) > fn.nin


_PREDICATES = {"isinstance", "issubclass", "callable", "hasattr", "bool", "any", "all"}


def _is_boolean(node) -> bool:
    """Whether ``node`` is certainly a bool (its value carries no derivative)."""
    if isinstance(node, gast.Compare) or isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return True
    if isinstance(node, gast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, gast.BoolOp):
        return all(_is_boolean(v) for v in node.values)
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in _PREDICATES


class _Desugar:
    def __init__(self, tree, ns, loc):
        self.ns, self.loc = ns, loc
        self.names = Names(all_names(tree) | set(ns.free) | {"np", "math"})
        self.added: set[str] = set()
        self.root = None  # the expression being desugared: a walrus must not be read before it
        self.dict_params = _dict_parameters(tree)
        self.mapping_params = _mapping_method_params(tree)
        self.built_dicts = _built_dicts(tree)  # names bound to a dict display or dict(...)
        self.built_objects = _built_objects(tree, ns)  # names bound to an object of a user class, or a user call
        self.classes = dunders.built_classes(tree, ns)  # names bound to objects of one user class only
        self.iterated = {id(n.iter) for n in walk(tree) if isinstance(n, (gast.For, gast.comprehension))}
        self.tuples, self.dicts = star.known_tuples(tree), star.known_dicts(tree)  # f(*t), f(**d), d.get

    def fresh(self, base: str) -> str:
        new = self.names.fresh(base)
        self.added.add(new)
        return new

    def error(self, node, msg):
        return self.loc.error(node, msg)

    def hypot(self, node):
        """``math.hypot(a, b, c)`` -> ``hypot_of([a, b, c])``, ``math.hypot(*xs)`` -> ``hypot_of(xs)``."""
        args = node.args
        items = gast.List(elts=args, ctx=gast.Load())
        if len(args) == 1 and isinstance(args[0], gast.Starred):
            items = args[0].value
        elif any(isinstance(a, gast.Starred) for a in args):
            return node  # math.hypot(a, *xs): refused later
        self.ns.scope.setdefault("hypot_of", runtime.hypot_of)
        return gast.copy_location(gast.Call(func=name("hypot_of"), args=[items], keywords=[]), node)

    # ---- statements ------------------------------------------------------------------------
    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            return [s]
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, gast.While):
                setattr(s, field, self.block(getattr(s, field)))
        if isinstance(s, gast.Delete):
            return self.delete(s)
        if isinstance(s, gast.With):
            return self.with_(s)
        if isinstance(s, gast.While):
            return self.while_(s)
        pre = []
        self.root = (
            s
            if isinstance(s, (gast.Assign, gast.AnnAssign, gast.AugAssign, gast.Expr, gast.Return))
            else (getattr(s, "test", None) or getattr(s, "iter", None))
        )
        if _builds_list(s):  # ys = [...]: the loop appends to ys itself
            return self.comprehension(s.value, [], s, into=s.targets[0].id)
        if isinstance(s, (gast.Assign, gast.AnnAssign, gast.AugAssign, gast.Expr, gast.Return)):
            if s.value is not None:
                s.value = self.expr(s.value, pre, s)
        elif isinstance(s, gast.If):
            s.test = self.expr(s.test, pre, s, True)
        elif isinstance(s, gast.For):
            s.iter = self.dict_loop(self.expr(s.iter, pre, s))
            if is_dict_view(s.iter) and not isinstance(s.iter.func.value, gast.Name):
                # {'a': x}.items(): the dict gets a name, so anf loops over it as over a named dict's items
                held = self.fresh("mapping")
                pre.append(_located(assign(held, s.iter.func.value), s))
                s.iter.func.value = name(held)
        elif isinstance(s, gast.Assert):
            s.test = self.expr(s.test, pre, s, True)
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and _starred_target(s.targets[0]):
            return pre + self.starred_assign(s)
        return pre + self.out_argument(s)

    def out_argument(self, s) -> list:
        """``y = np.f(a, b, out=o)`` (or a ufunc's positional output) as ``o[...] = cast_into(o, np.f(a, b))``
        then ``y = o``: the write into ``o`` is an in-place write like any other.  Only as a statement's
        whole value; elsewhere, with ``where=``, or with several outputs, refused."""
        call = getattr(s, "value", None)
        top = call if isinstance(s, (gast.Assign, gast.Expr, gast.Return)) and isinstance(call, gast.Call) else None
        for n in walk(s):
            if isinstance(n, gast.Call) and n is not top and self.outputs(n):
                raise self.error(n, "np.f(..., out=o) is supported only as a statement's value (y = np.f(x, out=o))")
        writer = self.ns.lookup(top.func) if top is not None and isinstance(s, gast.Expr) else None
        if writer is np.copyto or writer is np.fill_diagonal:
            return self.array_writer(writer, top, s)
        outs = self.outputs(top) if top is not None else []
        if not outs:
            return [s]
        if len(outs) > 1 or any(k.arg == "where" for k in top.keywords):
            raise self.error(top, "np.f(..., out=) with several outputs or with where= is not supported; assign it")
        (o,) = outs
        if not isinstance(o, (gast.Name, gast.Subscript)):
            raise self.error(top, "out= must name an array (out=a or out=a[i]); assign the result instead")
        fn = self.ns.lookup(top.func)
        nin = fn.nin if isinstance(fn, np.ufunc) else len(top.args)
        value = gast.Call(func=top.func, args=top.args[:nin], keywords=[k for k in top.keywords if k.arg != "out"])
        self.ns.scope.setdefault("cast_into", runtime.cast_into)  # o's dtype; refused where NumPy raises
        value = gast.Call(func=name("cast_into"), args=[copy_tree(o), value], keywords=[])
        # (o[...]: into the array o is, also out=L[0] of a list, whose item NumPy writes into, never replaces)
        target = gast.Subscript(value=copy_tree(o), slice=const(Ellipsis), ctx=gast.Store())
        out = [_located(gast.Assign(targets=[target], value=value, type_comment=None), s)]
        if isinstance(o, gast.Subscript):  # out=b[1] of a 1-d b: a NumPy scalar, which NumPy refuses (TypeError)
            self.ns.scope.setdefault("expect_array", runtime.expect_array)
            message = (
                "out= is given a value that is not an array (NumPy raises TypeError: return arrays must be arrays)"
            )
            check = gast.Call(func=name("expect_array"), args=[copy_tree(o), const(message)], keywords=[])
            out.insert(0, _located(gast.Expr(value=check), s))
        if isinstance(s, gast.Assign):
            out.append(_located(gast.Assign(targets=s.targets, value=copy_tree(o), type_comment=None), s))
        elif isinstance(s, gast.Return):
            out.append(_located(gast.Return(value=copy_tree(o)), s))
        return out

    def array_writer(self, writer, call, s) -> list:
        """``np.copyto(a, v)`` as ``a[...] = cast_into(a, v)`` (NumPy's same_kind casting and broadcasting;
        refused where NumPy raises), ``np.fill_diagonal(a, v)`` as ``a[diagonal_index(a, v)] = v``: writes
        like any other.  Only as statements of their own, with these two arguments."""
        what = "np.copyto(dst, src)" if writer is np.copyto else "np.fill_diagonal(a, val)"
        if len(call.args) != 2 or call.keywords or any(isinstance(a, gast.Starred) for a in call.args):
            raise self.error(call, f"{what} is supported with its two arguments only (no where=, casting= or wrap=)")
        dst, value = call.args
        if not isinstance(dst, gast.Name):
            raise self.error(call, f"{what} must be given a name for the array it writes into")
        self.ns.scope.setdefault("expect_array", runtime.expect_array)
        check = gast.Call(
            func=name("expect_array"), args=[name(dst.id), const(f"{what} writes into an array only")], keywords=[]
        )
        if writer is np.copyto:
            self.ns.scope.setdefault("cast_into", runtime.cast_into)
            index, value = const(Ellipsis), gast.Call(func=name("cast_into"), args=[name(dst.id), value], keywords=[])
        else:
            self.ns.scope.setdefault("diagonal_index", runtime.diagonal_index)
            held = self.fresh("diagonal")
            index = name(held)
        target = gast.Subscript(value=name(dst.id), slice=index, ctx=gast.Store())
        out = [_located(gast.Expr(value=check), s)]
        if writer is np.fill_diagonal:
            at = gast.Call(func=name("diagonal_index"), args=[name(dst.id), copy_tree(value)], keywords=[])
            out.append(_located(assign(held, at), s))
        out.append(_located(gast.Assign(targets=[target], value=value, type_comment=None), s))
        return out

    def outputs(self, call) -> list:
        """The arrays a NumPy call writes its result into (``out=o``, a ufunc's positional outputs)."""
        fn = self.ns.lookup(call.func)
        module = getattr(fn, "__module__", None) or ""
        if not (isinstance(fn, np.ufunc) or module.startswith("numpy")):
            return []
        return [o for o in out_arguments(call, fn) if not (isinstance(o, gast.Constant) and o.value is None)]

    def delete(self, s):
        for t in s.targets:
            if not isinstance(t, gast.Name):
                what = "an element" if isinstance(t, gast.Subscript) else "an attribute"
                raise self.error(
                    t, f"del of {what} changes a value in place, which s2sad cannot differentiate; build a new value"
                )
        return []  # nothing reads a deleted name afterwards (Python would raise)

    def while_(self, s):
        pre = []
        self.root = s.test
        test = self.expr(s.test, pre, s, True)
        body = self.block(s.body)
        if not pre:
            s.test, s.body = test, body
            return [s]
        stop = _located(gast.If(test=gast.UnaryOp(op=gast.Not(), operand=test), body=[gast.Break()], orelse=[]), s)
        s.test = const(True)
        s.body = pre + [stop] + body
        return [s]

    def with_(self, s):
        if len(s.items) != 1 or s.items[0].optional_vars is not None:
            return [s]  # refused by anf, naming the construct
        ctx = s.items[0].context_expr
        if not (isinstance(ctx, gast.Call) and self.ns.lookup(ctx.func) is np.errstate):
            return [s]
        for kw in ctx.keywords:
            if not (isinstance(kw.value, gast.Constant) and kw.value.value in ("ignore", "warn", "print", "log")):
                raise self.error(
                    kw.value,
                    "np.errstate inside a differentiated function takes 'ignore', 'warn', 'print' or 'log' "
                    "(s2sad cannot restore the error state when the block raises); move the with outside",
                )
        if ctx.args:
            raise self.error(ctx, "np.errstate inside a differentiated function takes keyword arguments only")
        pre = []
        self.root = ctx
        ctx = self.expr(ctx, pre, s)
        state = self.fresh("errstate")

        def call(method, *args):
            func = gast.Attribute(value=name(state), attr=method, ctx=gast.Load())
            return _located(gast.Expr(value=gast.Call(func=func, args=list(args), keywords=[])), s)

        def leave():
            return call("__exit__", const(None), const(None), const(None))

        body = _before_exits(s.body, leave, self)
        enter = [_located(assign(state, ctx), s), call("__enter__")]
        return pre + enter + body + [leave()]

    def starred_assign(self, s):
        """``a, *rest, z = value``: the items by index; ``rest`` is a list, as Python makes it."""
        target, value = s.targets[0], s.value
        elts = target.elts
        k = next(i for i, e in enumerate(elts) if isinstance(e, gast.Starred))
        before, after = elts[:k], elts[k + 1 :]
        star = elts[k].value
        if isinstance(value, (gast.Tuple, gast.List)) and not any(isinstance(e, gast.Starred) for e in value.elts):
            items = value.elts
            if len(items) < len(before) + len(after):
                raise self.error(
                    s, f"not enough values to unpack (expected at least {len(elts) - 1}, got {len(items)})"
                )
            middle = gast.List(elts=items[k : len(items) - len(after)], ctx=gast.Load())
            values = items[:k] + [middle] + items[len(items) - len(after) :]
            new = gast.Assign(
                targets=[gast.Tuple(elts=before + [star] + after, ctx=gast.Store())],
                value=gast.Tuple(elts=values, ctx=gast.Load()),
                type_comment=None,
            )
            return [_located(new, s)]
        out = []
        if isinstance(value, gast.Name):
            seq = value.id
        else:
            seq = self.fresh("seq")
            out.append(_located(assign(seq, value), s))
        n_fixed = len(before) + len(after)
        length = gast.Call(func=name("len"), args=[name(seq)], keywords=[])
        if after:  # a, *rest, z = [x]: Python raises instead of reading x twice
            msg = f"not enough values to unpack (expected at least {n_fixed})"
            short = gast.Compare(left=length, ops=[gast.Lt()], comparators=[const(n_fixed)])
            exc = gast.Call(func=name("ValueError"), args=[const(msg)], keywords=[])
            out.append(_located(gast.If(test=short, body=[gast.Raise(exc=exc, cause=None)], orelse=[]), s))
        for i, t in enumerate(before):
            out.append(_located(gast.Assign(targets=[t], value=_item(seq, i), type_comment=None), s))
        k_var = self.fresh("k")
        stop = gast.BinOp(left=copy_tree(length), op=gast.Sub(), right=const(len(after)))
        comp = gast.ListComp(
            elt=_item(seq, name(k_var)),
            generators=[
                gast.comprehension(
                    target=name(k_var, gast.Store()),
                    iter=gast.Call(func=name("range"), args=[const(len(before)), stop], keywords=[]),
                    ifs=[],
                    is_async=0,
                )
            ],
        )
        _located(comp, s)
        out += self.stmt(_located(gast.Assign(targets=[star], value=comp, type_comment=None), s))
        for i, t in enumerate(after):
            out.append(_located(gast.Assign(targets=[t], value=_item(seq, i - len(after)), type_comment=None), s))
        return out

    # ---- expressions -----------------------------------------------------------------------
    def expr(self, node, pre, stmt, test=False):
        """``node`` with what must run before ``stmt`` appended to ``pre`` (in evaluation order).
        ``test``: only the truth of the value matters (an ``if`` test)."""
        if isinstance(node, (gast.ListComp, gast.DictComp)):
            return self.comprehension(node, pre, stmt)
        if isinstance(node, gast.NamedExpr):
            value = self.expr(node.value, pre, stmt)
            target = node.target.id
            _check_not_read_before(node, self.root, target, self)
            pre.append(_located(assign(target, value), stmt))
            return name(target)
        if isinstance(node, gast.Call):
            spelled = star.spelled_get(node, self.dicts)
            if spelled is not None:
                return self.expr(spelled, pre, stmt)
            spelled = star.spelled_keywords(node, self.dicts)  # [] for **kw of no keys: f(x)
            node.keywords = node.keywords if spelled is None else spelled
            node.func = self.expr(node.func, pre, stmt)
            callee = self.ns.lookup(node.func)
            if _is_user_partial(callee) and dotted(node.func) is not None:
                node = _partial_spelled_out(node, callee)
                callee = self.ns.lookup(node.func)
            args = []
            for a in node.args:
                if isinstance(a, gast.GeneratorExp) and among(callee, VALUE_CONSUMERS) and not args:
                    args.append(self.comprehension(a, pre, stmt))
                elif isinstance(a, gast.Starred):
                    args.extend(self.starred_arg(a, node, callee, len(args), pre, stmt))
                else:
                    args.append(self.expr(a, pre, stmt))
            node.args = args
            for kw in node.keywords:
                kw.value = self.expr(kw.value, pre, stmt)
            spelled = dunders.rewritten(node, self.ns, self.classes, callee)
            if spelled is not None:  # round(w): w.__round__(), the method of w's class
                return spelled
            if callee in (builtins.max, builtins.min) and args and all(k.arg == "key" for k in node.keywords):
                return self.extremum(callee, args, pre, stmt, node.keywords)
            if callee is builtins.sorted and len(args) == 1 and all(k.arg in ("key", "reverse") for k in node.keywords):
                return self.sorted_(args[0], node.keywords, pre, stmt)
            if _is_chain(callee) and not node.keywords and not any(isinstance(a, gast.Starred) for a in args):
                return self.chained(args if callee is itertools.chain else None, args, pre, stmt)
            if callee is itertools.accumulate and _accumulate_args(node):
                return self.accumulate(node, pre, stmt)
            spelled = self.combinatoric(callee, node, pre, stmt)
            if spelled is not None:
                return self.expr(spelled, pre, stmt, test)
            if callee is math.hypot and _is_hypot_n(node, self.ns):
                return self.hypot(node)
            if _is_sign(node, self.ns):  # (np.sign(z) of a complex z is z / |z|: no zero derivative)
                self.ns.scope.setdefault("real_sign", runtime.real_sign)
                call = gast.Call(func=name("real_sign"), args=[self.expr(args[0], pre, stmt)], keywords=[])
                return gast.copy_location(call, node)
            spelled = _spelled_call(node, self.ns)
            if spelled is not None:
                self.ns.scope.setdefault("np", np)
                return self.expr(spelled, pre, stmt, test)
            pairs = self.pairs(callee, node)
            if pairs is not None:
                return self.comprehension(pairs, pre, stmt)
            method = node.func.attr if isinstance(node.func, gast.Attribute) else None
            spelled = self.mapping_method(node, method, pre, stmt)
            if spelled is not None:
                return self.expr(spelled, pre, stmt, test)
            if method in _METHODS and _is_local_value(node.func.value, self.ns):
                helper = _METHODS[method]
                self.ns.scope.setdefault(helper, getattr(runtime, helper))
                return gast.Call(func=name(helper), args=[node.func.value, *node.args], keywords=node.keywords)
            return node
        if isinstance(node, gast.BoolOp):  # only the first operand always runs
            if test or _is_boolean(node):
                node.values[0] = self.expr(node.values[0], pre, stmt, test)
                return node
            return self.bool_value(node, pre, stmt)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            node.operand = self.expr(node.operand, pre, stmt, True)
            return node
        if isinstance(node, gast.IfExp):
            node.test = self.expr(node.test, pre, stmt, True)
            return node
        if isinstance(node, gast.Compare):  # a < b < c: c runs only if a < b
            node.left = self.expr(node.left, pre, stmt)
            node.comparators[0] = self.expr(node.comparators[0], pre, stmt)
            return node
        if isinstance(node, (gast.Lambda, gast.GeneratorExp, gast.SetComp)):
            return node  # its own scope, or lazy: left as it is
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                setattr(node, field, [self.expr(v, pre, stmt) if isinstance(v, gast.expr) else v for v in value])
            elif isinstance(value, gast.expr):
                setattr(node, field, self.expr(value, pre, stmt))
        spelled = dunders.rewritten(node, self.ns, self.classes) if isinstance(node, gast.Subscript) else None
        return node if spelled is None else spelled  # w[i]: w.__getitem__(i)

    def mapping_method(self, call, method, pre, stmt):
        """``d.values()``, ``d.items()``, ``d.keys()`` and ``d.get(k, default)`` of a dict parameter
        where the value is used (not a loop's iterable, which anf follows as it is): the list a
        comprehension builds (``[v for v in d.values()]``) and ``d[k] if k in d else default``; the
        generated code first checks that ``d`` is a dict (``expect_dict``). None for other calls."""
        d = call.func.value if method is not None else None
        if not (isinstance(d, gast.Name) and d.id in self.mapping_params) or id(call) in self.iterated:
            return None
        if any(isinstance(a, gast.Starred) for a in call.args) or call.keywords:
            return None
        if method in ("values", "items", "keys") and not call.args:
            key, value = self.fresh("key"), self.fresh("value")
            target = {"values": name(value, gast.Store()), "keys": name(key, gast.Store())}.get(method)
            elt = {"values": name(value), "keys": name(key)}.get(method)
            if method == "items":
                target = gast.Tuple(elts=[name(key, gast.Store()), name(value, gast.Store())], ctx=gast.Store())
                elt = gast.Tuple(elts=[name(key), name(value)], ctx=gast.Load())
            self.iterated.add(id(call))
            gen = gast.comprehension(target=target, iter=call, ifs=[], is_async=0)
            spelled = gast.ListComp(elt=elt, generators=[gen])
        elif method == "get" and 1 <= len(call.args) <= 2:
            key = self.atom(call.args[0], pre, stmt)
            default = self.atom(call.args[1], pre, stmt) if len(call.args) == 2 else const(None)
            item = gast.Subscript(value=name(d.id), slice=copy_tree(key), ctx=gast.Load())
            test = gast.Compare(left=copy_tree(key), ops=[gast.In()], comparators=[name(d.id)])
            spelled = gast.IfExp(test=test, body=item, orelse=default)
        else:
            return None
        self.ns.scope.setdefault("expect_dict", runtime.expect_dict)
        check = gast.Call(func=name("expect_dict"), args=[name(d.id), const(f"{d.id}.{method}()")], keywords=[])
        pre.append(_located(gast.Expr(value=check), stmt))
        return spelled

    def dict_loop(self, it):
        """The iterable of a ``for``: ``d.keys()`` for a parameter ``d`` that f uses as a dict
        (``for k in params`` whose body need not read ``params[k]``); ``list(G.items())`` for the
        ``items()``/``keys()``/``values()`` of a global or closure dict (constants)."""
        if isinstance(it, gast.Name) and it.id in self.dict_params:
            return gast.Call(func=gast.Attribute(value=it, attr="keys", ctx=gast.Load()), args=[], keywords=[])
        if (
            _global_dict_view(it, self.ns)
            and it.func.value.id not in self.added  # a dict desugar built (``dict(enumerate(x))``) is local
            and self.ns.lookup_name("list") is builtins.list
        ):
            return gast.Call(func=name("list"), args=[it], keywords=[])
        return it

    def bool_value(self, node, pre, stmt):
        """``a and b`` whose value is used (``x > 0 and x * 3``): ``t = a``, then ``if t: t = b``
        (``if not t`` for ``or``), so the value that flows on is the operand Python returns."""
        result = self.fresh("value")
        block = pre
        for k, operand in enumerate(node.values):
            block.append(_located(assign(result, self.expr(operand, block, stmt)), stmt))
            if k < len(node.values) - 1:
                test = (
                    name(result) if isinstance(node.op, gast.And) else gast.UnaryOp(op=gast.Not(), operand=name(result))
                )
                branch = _located(gast.If(test=test, body=[], orelse=[]), stmt)
                block.append(branch)
                block = branch.body
        return name(result)

    def atom(self, node, pre, stmt):
        if isinstance(node, (gast.Name, gast.Constant)):
            return node
        tmp = self.names.temp()
        self.added.add(tmp)
        pre.append(_located(assign(tmp, node), stmt))
        return name(tmp)

    def extremum(self, callee, args, pre, stmt, keywords=()):
        """``max(a, b)`` as ``b if b > a else a`` (Python keeps the first of equal items); ``max(xs)``,
        ``max(a, b, c)`` and ``max(xs, key=k)`` as the item at ``index_of_max(..., key=k)``.  The
        derivative is the returned item's (the choice is piecewise constant, as for JAX's sort)."""
        if any(isinstance(a, gast.Starred) for a in args):
            args = [a if isinstance(a, gast.Starred) else self.atom(a, pre, stmt) for a in args]
            return gast.Call(func=name(callee.__name__), args=args, keywords=list(keywords))
        if len(args) == 2 and not keywords:
            a, b = (self.atom(a, pre, stmt) for a in args)
            op = gast.Gt() if callee is builtins.max else gast.Lt()
            test = gast.Compare(left=copy_tree(b), ops=[op], comparators=[copy_tree(a)])
            return gast.IfExp(test=test, body=b, orelse=a)
        if len(args) == 1 and self.own_iteration(args[0]):  # max(Sparse(d)): what its __iter__ gives
            args = [gast.Call(func=name("list"), args=args, keywords=[])]
        args = [a if isinstance(a, gast.Starred) else self.atom(a, pre, stmt) for a in args]
        seq = args[0] if len(args) == 1 else self.atom(gast.Tuple(elts=args, ctx=gast.Load()), pre, stmt)
        if len(args) == 1 and isinstance(seq, gast.Name) and self.may_be_mapping(seq.id):
            seq = self.atom(gast.Call(func=name("list"), args=[seq], keywords=[]), pre, stmt)  # max(d, key=d.get)
        helper = "index_of_max" if callee is builtins.max else "index_of_min"
        self.ns.scope.setdefault(helper, getattr(runtime, helper))
        k = self.fresh("k")
        pre.append(_located(assign(k, gast.Call(func=name(helper), args=[seq], keywords=list(keywords))), stmt))
        return gast.Subscript(value=copy_tree(seq), slice=name(k), ctx=gast.Load())

    def own_iteration(self, node) -> bool:
        """Whether iterating ``node`` may give other items than ``node[0], node[1], ...``: an object f
        builds of a user class (its own ``__iter__``), a user function's result, a name bound to one of
        these, a global or closure value that is not a list, tuple, array, range or string."""
        if isinstance(node, gast.Call):
            fn = self.ns.lookup(node.func)
            return is_user_class(fn) or is_user_function(fn)
        if isinstance(node, gast.Name) and node.id in self.ns.locals:
            return node.id in self.built_objects
        if isinstance(node, gast.Name):
            value = self.ns.user_value(node.id)
            return value is not MISSING and not isinstance(value, (np.ndarray, list, tuple, range, str))
        return False

    def may_be_mapping(self, n: str) -> bool:
        """A name of a dict f builds or a dict parameter (iterating it gives its keys, not ``d[0], d[1]``)."""
        return n in self.dicts or n in self.mapping_params or n in self.dict_params or n in self.built_dicts

    def listed(self, node, pre, stmt):
        """A generator expression as the list it yields (built before ``stmt``); other values as they are."""
        return self.comprehension(node, pre, stmt) if isinstance(node, gast.GeneratorExp) else node

    def loop_appending(self, result, iter_, stmt, item=None):
        """``for v in iter_: result.append(item(v))`` (``v`` itself without ``item``)."""
        v = self.fresh("v")
        value = name(v) if item is None else item(name(v))
        append = gast.Expr(
            value=gast.Call(
                func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()), args=[value], keywords=[]
            )
        )
        return _located(
            gast.For(
                target=name(v, gast.Store()), iter=iter_, body=[_located(append, stmt)], orelse=[], type_comment=None
            ),
            stmt,
        )

    def combinatoric(self, callee, call, pre, stmt):
        """``itertools.product(a, b)`` (``repeat=k``) of sequences that are not ranges as the comprehension
        ``[(u, v) for u in a for v in b]``; ``combinations(xs, r)``, ``permutations(xs, r)`` and
        ``combinations_with_replacement(xs, r)`` (a literal ``r``) as ``[(xs[c[0]], xs[c[1]]) for c in
        itertools.combinations(range(len(xs)), r)]``: the positions carry no derivative, the items do.
        None for other calls, and for products of ranges (iterated as they are)."""
        if callee not in _COMBINATORIC or any(isinstance(a, gast.Starred) for a in call.args):
            return None
        ranges = all(isinstance(a, gast.Call) and self.ns.lookup(a.func) is range for a in call.args)
        if callee is itertools.product:
            repeat = [k.value for k in call.keywords if k.arg == "repeat"]
            if ranges or any(k.arg != "repeat" for k in call.keywords) or not call.args:
                return None
            if repeat and not (isinstance(repeat[0], gast.Constant) and type(repeat[0].value) is int):
                return None
            seqs = [self.atom(a, pre, stmt) for a in call.args] * (repeat[0].value if repeat else 1)
            items = [self.fresh("item") for _ in seqs]
            gens = [
                gast.comprehension(target=name(v, gast.Store()), iter=copy_tree(q), ifs=[], is_async=0)
                for v, q in zip(items, seqs)
            ]
            return gast.ListComp(elt=gast.Tuple(elts=[name(v) for v in items], ctx=gast.Load()), generators=gens)
        given = dict(zip(("iterable", "r"), call.args)) | {k.arg: k.value for k in call.keywords}
        r = given.get("r")
        if set(given) - {"iterable", "r"} or "iterable" not in given:
            return None
        it = given["iterable"]
        if isinstance(it, gast.Call) and self.ns.lookup(it.func) is range:
            return None  # positions: iterated as they are
        if not (isinstance(r, gast.Constant) and type(r.value) is int and r.value >= 0):
            return None
        xs = self.atom(given["iterable"], pre, stmt)
        c = self.fresh("picked")
        positions = gast.Call(
            func=name("range"), args=[gast.Call(func=name("len"), args=[copy_tree(xs)], keywords=[])], keywords=[]
        )
        self.ns.scope.setdefault("itertools", itertools)
        picks = gast.Call(
            func=gast.Attribute(value=name("itertools"), attr=callee.__name__, ctx=gast.Load()),
            args=[positions, const(r.value)],
            keywords=[],
        )
        elt = gast.Tuple(
            elts=[
                gast.Subscript(
                    value=copy_tree(xs),
                    slice=gast.Subscript(value=name(c), slice=const(k), ctx=gast.Load()),
                    ctx=gast.Load(),
                )
                for k in range(r.value)
            ],
            ctx=gast.Load(),
        )
        gen = gast.comprehension(target=name(c, gast.Store()), iter=picks, ifs=[], is_async=0)
        return gast.ListComp(elt=elt, generators=[gen])

    def chained(self, parts, args, pre, stmt):
        """``itertools.chain(a, b)`` as the list ``items`` built by ``for v in a: items.append(v)`` then the
        same over ``b``; ``chain.from_iterable(xss)`` (``parts`` None) by ``for xs in xss: for v in xs: ...``."""
        result = self.fresh("items")
        pre.append(_located(assign(result, gast.List(elts=[], ctx=gast.Load())), stmt))
        if parts is None:
            xs = self.fresh("part")
            inner = self.loop_appending(result, name(xs), stmt)
            loops = [
                _located(
                    gast.For(
                        target=name(xs, gast.Store()),
                        iter=self.listed(args[0], pre, stmt),
                        body=[inner],
                        orelse=[],
                        type_comment=None,
                    ),
                    stmt,
                )
            ]
        else:
            loops = [self.loop_appending(result, self.listed(a, pre, stmt), stmt) for a in parts]
        root = self.root
        pre.extend(self.block(loops))
        self.root = root
        return name(result)

    def accumulate(self, call, pre, stmt):
        """``itertools.accumulate(xs, func, initial=a)`` as the list of running totals: ``total = a``
        (appended), then for each ``v``: ``total = func(total, v)`` (the first ``v`` itself when there is
        no ``initial``), appended.  ``func`` defaults to ``+``; a lambda is bound to a name first."""
        xs = self.listed(call.args[0], pre, stmt)
        func = call.args[1] if len(call.args) > 1 else None
        initial = None
        for k in call.keywords:
            if k.arg == "func":
                func = k.value
            elif not (isinstance(k.value, gast.Constant) and k.value.value is None):
                initial = k.value
        lam = func if isinstance(func, gast.Lambda) else None
        if lam is not None and not _two_plain_parameters(lam):
            raise self.error(lam, "itertools.accumulate's func: a lambda of two plain parameters (a, b) is needed")
        if func is not None and lam is None and not isinstance(func, (gast.Name, gast.Attribute)):
            bound = self.fresh("func")
            pre.append(_located(assign(bound, func), stmt))
            func = name(bound)
        result, total, v = self.fresh("items"), self.fresh("total"), self.fresh("v")
        pre.append(_located(assign(result, gast.List(elts=[], ctx=gast.Load())), stmt))

        def append():
            call = gast.Call(
                func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()), args=[name(total)], keywords=[]
            )
            return _located(gast.Expr(value=call), stmt)

        def step():
            if func is None:
                value = gast.BinOp(left=name(total), op=gast.Add(), right=name(v))
            elif lam is not None:  # the lambda's body with its parameters the running total and the item
                a, b = (p.id for p in lam.args.args)
                value = _renamed(lam.body, {a: total, b: v})
            else:
                value = gast.Call(func=copy_tree(func), args=[name(total), name(v)], keywords=[])
            return _located(assign(total, value), stmt)

        stmts = []
        if initial is not None:
            stmts += [_located(assign(total, initial), stmt), append()]
            body = [step(), append()]
        else:
            first = self.fresh("first")
            stmts.append(_located(assign(first, const(True)), stmt))
            branch = gast.If(
                test=name(first),
                body=[_located(assign(total, name(v)), stmt), _located(assign(first, const(False)), stmt)],
                orelse=[step()],
            )
            body = [_located(branch, stmt), append()]
        stmts.append(
            _located(gast.For(target=name(v, gast.Store()), iter=xs, body=body, orelse=[], type_comment=None), stmt)
        )
        root = self.root
        pre.extend(self.block(stmts))
        self.root = root
        return name(result)

    def sorted_(self, seq, keywords, pre, stmt):
        """``sorted(xs, key=k, reverse=r)`` as ``[items[i] for i in sorted_order(items, key=k, reverse=r)]``
        with ``items = list(xs)``: the permutation is piecewise constant, so the derivative follows the
        chosen order (as JAX's sort); ``key`` runs on the values, never differentiated."""
        items = self.fresh("items")
        listed = seq if isinstance(seq, gast.Name) and seq.id in self.added else None  # a comprehension's list
        if listed is None and is_dict_view(seq):  # d.items(): [(k, v) for k, v in d.items()], a loop anf knows
            parts = [self.fresh("part") for _ in range(2 if seq.func.attr == "items" else 1)]
            target = parts[0] if len(parts) == 1 else gast.Tuple(elts=[name(p) for p in parts], ctx=gast.Load())
            elt = name(target) if isinstance(target, str) else target
            store = name(target, gast.Store()) if isinstance(target, str) else copy_tree(target)
            for n in walk(store):
                if isinstance(n, gast.Name):
                    n.ctx = gast.Store()
            gen = gast.comprehension(target=store, iter=seq, ifs=[], is_async=0)
            listed = self.comprehension(gast.ListComp(elt=elt, generators=[gen]), pre, stmt)
        if listed is None:
            pre.append(_located(assign(items, gast.Call(func=name("list"), args=[seq], keywords=[])), stmt))
        else:
            items = listed.id
        self.ns.scope.setdefault("sorted_order", runtime.sorted_order)
        order = self.fresh("order")
        call = gast.Call(func=name("sorted_order"), args=[name(items)], keywords=list(keywords))
        pre.append(_located(assign(order, call), stmt))
        i = self.fresh("i")
        comp = gast.ListComp(
            elt=gast.Subscript(value=name(items), slice=name(i), ctx=gast.Load()),
            generators=[gast.comprehension(target=name(i, gast.Store()), iter=name(order), ifs=[], is_async=0)],
        )
        return self.comprehension(comp, pre, stmt)

    def starred_arg(self, arg, call, callee, position, pre, stmt):
        value = arg.value
        if isinstance(value, (gast.Tuple, gast.List)) and not any(isinstance(e, gast.Starred) for e in value.elts):
            return [self.expr(e, pre, stmt) for e in value.elts]
        n = self.tuples.get(value.id) if isinstance(value, gast.Name) else None
        n = _fixed_arity(callee, position, call) if n is None else n
        if n is None:
            return [arg]  # refused by anf
        seq = self.expr(value, pre, stmt)
        items = [self.fresh("arg") for _ in range(n)]
        # unpacking raises, as the call would, when the length is not n
        target = gast.Tuple(elts=[name(i, gast.Store()) for i in items], ctx=gast.Store())
        pre.append(_located(gast.Assign(targets=[target], value=seq, type_comment=None), stmt))
        return [name(i) for i in items]

    def pairs(self, callee, call):
        """``list(enumerate(a))``, ``tuple(zip(a, b))``, ``dict(zip(keys, a))``: the comprehension that
        builds the same value (``[(i, v) for i, v in enumerate(a)]``, ``{k: v for k, v in ...}``), whose
        loop is one ``anf`` differentiates; None for other calls."""
        if callee not in (builtins.list, builtins.tuple, builtins.dict) or len(call.args) != 1 or call.keywords:
            return None
        inner = call.args[0]
        maker = self.ns.lookup(inner.func) if isinstance(inner, gast.Call) else None
        if maker not in (enumerate, zip) or inner.keywords or any(isinstance(a, gast.Starred) for a in inner.args):
            return None
        width = 2 if maker is enumerate else len(inner.args)
        if callee is builtins.dict and width != 2:
            return None  # refused by anf, naming dict
        parts = [self.fresh("part") for _ in range(width)]
        target = gast.Tuple(elts=[name(p, gast.Store()) for p in parts], ctx=gast.Store())
        generators = [gast.comprehension(target=target, iter=inner, ifs=[], is_async=0)]
        if callee is builtins.dict:
            return gast.DictComp(key=name(parts[0]), value=name(parts[1]), generators=generators)
        elt = gast.Tuple(elts=[name(p) for p in parts], ctx=gast.Load())
        comp = gast.ListComp(elt=elt, generators=generators)
        if callee is builtins.list:
            return comp
        return gast.Call(func=call.func, args=[comp], keywords=[])  # tuple of the list: a rule

    def comprehension(self, node, pre, stmt, into=None):
        """``[elt for ... if ...]`` as loops appending to a fresh list (or ``into``), run before ``stmt``;
        ``{key: value for ... if ...}`` as loops writing ``result[key] = value`` into a fresh dict."""
        if isinstance(node, gast.Call):  # tuple([...]) from ``pairs``
            node.args = [self.comprehension(node.args[0], pre, stmt)]
            return node
        is_dict = isinstance(node, gast.DictComp)
        result = into or self.fresh("items")
        empty = gast.Dict(keys=[], values=[]) if is_dict else gast.List(elts=[], ctx=gast.Load())
        pre.append(_located(assign(result, empty), stmt))
        renames: dict[str, str] = {}
        loops = []
        for k, gen in enumerate(node.generators):
            if gen.is_async:
                raise self.error(node, "async comprehensions cannot be differentiated")
            iter_ = gen.iter if k == 0 else _renamed(gen.iter, renames)
            for n in walk(gen.target):
                if isinstance(n, gast.Name):
                    renames[n.id] = self.fresh(n.id)
                    self.ns.user_names[renames[n.id]] = n.id
            target = _renamed(gen.target, renames)
            ifs = [_renamed(c, renames) for c in gen.ifs]
            loops.append((target, iter_, ifs))
        if is_dict:  # Python evaluates the key, then the value
            slot = gast.Subscript(value=name(result), slice=_renamed(node.key, renames), ctx=gast.Store())
            append = gast.Assign(targets=[slot], value=_renamed(node.value, renames), type_comment=None)
        else:
            elt = _renamed(node.elt, renames)
            append = gast.Expr(
                value=gast.Call(
                    func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()), args=[elt], keywords=[]
                )
            )
        body = [_located(append, stmt)]
        for target, iter_, ifs in reversed(loops):
            for cond in reversed(ifs):
                body = [_located(gast.If(test=cond, body=body, orelse=[]), stmt)]
            body = [_located(gast.For(target=target, iter=iter_, body=body, orelse=[], type_comment=None), stmt)]
        root = self.root
        pre.extend(self.block(body))  # the loops' own comprehensions and walruses
        self.root = root
        return pre if into else name(result)


_DICT_METHODS = ("items", "keys", "values")


_COMBINATORIC = (itertools.product, itertools.combinations, itertools.permutations)
_COMBINATORIC += (itertools.combinations_with_replacement,)


def _is_chain(callee) -> bool:
    """``itertools.chain`` or ``itertools.chain.from_iterable``."""
    if callee is itertools.chain:
        return True
    return (
        isinstance(callee, types.BuiltinMethodType)
        and getattr(callee, "__self__", None) is itertools.chain
        and callee.__name__ == "from_iterable"
    )


def _two_plain_parameters(lam) -> bool:
    args = lam.args
    return (
        len(args.args) == 2
        and not (args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg or args.defaults)
        and all(isinstance(p, gast.Name) for p in args.args)
    )


def _accumulate_args(call) -> bool:
    """``accumulate(xs)``, ``accumulate(xs, func)``, with ``func=``/``initial=`` keywords, no ``*``/``**``."""
    kws = [k.arg for k in call.keywords]
    return (
        1 <= len(call.args) <= 2
        and not any(isinstance(a, gast.Starred) for a in call.args)
        and set(kws) <= {"func", "initial"}
        and not ("func" in kws and len(call.args) == 2)
    )


def _is_user_partial(obj) -> bool:
    """A ``functools.partial`` of a user function or method (its bound arguments are constants)."""
    from .primitives import is_user_function

    if not isinstance(obj, functools.partial):
        return False
    func = obj.func.__func__ if isinstance(obj.func, types.MethodType) else obj.func
    return is_user_function(func)


def _partial_spelled_out(call, partial):
    """``g(x)`` with ``g = partial(h, c, a=2.0)`` as ``g.func(g.args[0], x, a=g.keywords['a'])``: a call
    of the user function whose bound arguments are read from the partial (keywords of the call win)."""
    g = call.func
    bound = [
        gast.Subscript(
            value=gast.Attribute(value=copy_tree(g), attr="args", ctx=gast.Load()), slice=const(i), ctx=gast.Load()
        )
        for i in range(len(partial.args))
    ]
    given = {k.arg for k in call.keywords}
    keywords = [
        gast.keyword(
            arg=k,
            value=gast.Subscript(
                value=gast.Attribute(value=copy_tree(g), attr="keywords", ctx=gast.Load()),
                slice=const(k),
                ctx=gast.Load(),
            ),
        )
        for k in partial.keywords
        if k not in given and None not in given
    ]
    func = gast.Attribute(value=g, attr="func", ctx=gast.Load())
    if isinstance(partial.func, types.MethodType):  # g.func.__func__(g.func.__self__, ...)
        bound.insert(0, gast.Attribute(value=copy_tree(func), attr="__self__", ctx=gast.Load()))
        func = gast.Attribute(value=func, attr="__func__", ctx=gast.Load())
    new = gast.Call(func=func, args=bound + call.args, keywords=keywords + call.keywords)
    return gast.copy_location(new, call)


def _global_dict_view(it, ns) -> bool:
    """``G.items()``, ``G.keys()`` or ``G.values()`` of a name f does not bind."""
    return is_dict_view(it) and isinstance(it.func.value, gast.Name) and it.func.value.id not in ns.locals


def _dict_parameters(tree) -> set[str]:
    """Parameters f never rebinds and uses as dicts: read with a string key (``params["w"]``), or
    through ``.items()``, ``.keys()``, ``.values()``, ``.get()`` or ``{**params}``."""
    args = tree.args
    params = {a.id for a in args.args + args.kwonlyargs + getattr(args, "posonlyargs", [])}
    if args.kwarg is not None:
        params.add(args.kwarg.id)
    stored = {n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    out = set()
    for n in walk(tree):
        if isinstance(n, gast.Subscript) and isinstance(n.slice, gast.Constant) and isinstance(n.slice.value, str):
            held = n.value
        elif isinstance(n, gast.Attribute) and n.attr in (*_DICT_METHODS, "get"):
            held = n.value
        elif isinstance(n, gast.Dict):
            out |= {v.id for k, v in zip(n.keys, n.values) if k is None and isinstance(v, gast.Name)}
            continue
        else:
            continue
        if isinstance(held, gast.Name):
            out.add(held.id)
    loops = {n.iter.id for n in walk(tree) if isinstance(n, gast.For) and isinstance(n.iter, gast.Name)}
    return (out & params & loops) - stored


def _bound_to(tree, made) -> set[str]:
    """The names f binds (``name = value``, one target) to a value for which ``made(value)`` holds."""
    return {
        n.targets[0].id
        for n in walk(tree)
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) and made(n.value)
    }


def _built_dicts(tree) -> set[str]:
    """The names f binds to a dict display, a dict comprehension or ``dict(...)``."""
    return _bound_to(
        tree,
        lambda v: (
            isinstance(v, (gast.Dict, gast.DictComp))
            or isinstance(v, gast.Call)
            and isinstance(v.func, gast.Name)
            and v.func.id == "dict"
        ),
    )


def _built_objects(tree, ns) -> set[str]:
    """The names f binds to an object of a user class or a user function's result (``sp = Sparse(d)``)."""

    def made(v):
        if not isinstance(v, gast.Call) or dotted(v.func) is None or dotted(v.func).split(".")[0] in ns.locals:
            return False
        return is_user_class(ns.lookup(v.func)) or is_user_function(ns.lookup(v.func))

    return _bound_to(tree, made)


def _mapping_method_params(tree) -> set[str]:
    """Parameters f never rebinds, and names f binds to a dict it builds, that f calls ``.values()``,
    ``.items()``, ``.keys()`` or ``.get()`` on: dicts, checked when the derivative runs."""
    args = tree.args
    params = {a.id for a in args.args + args.kwonlyargs + getattr(args, "posonlyargs", [])}
    stored = {n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    used = {
        n.func.value.id
        for n in walk(tree)
        if isinstance(n, gast.Call)
        and isinstance(n.func, gast.Attribute)
        and n.func.attr in ("values", "items", "keys", "get")
        and isinstance(n.func.value, gast.Name)
    }
    dicts = _built_dicts(tree)  # a dict f builds (checked to be one when the code runs, as a parameter is)
    return ((used & params) - stored) | (used & dicts)


def _is_local_value(node, ns) -> bool:
    """Not a module or global object (``np.random``): a value the function computes."""
    path = dotted(node)
    return path is None or path.split(".")[0] in ns.locals


def _builds_list(s) -> bool:
    """``ys = [... for ...]`` where the comprehension does not read ``ys``."""
    return (
        isinstance(s, gast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], gast.Name)
        and isinstance(s.value, (gast.ListComp, gast.DictComp))
        and s.targets[0].id not in {n.id for n in walk(s.value) if isinstance(n, gast.Name)}
    )


def _item(seq, index):
    index = const(index) if isinstance(index, int) else index
    return gast.Subscript(value=name(seq), slice=index, ctx=gast.Load())


def _starred_target(target) -> bool:
    return isinstance(target, (gast.Tuple, gast.List)) and any(isinstance(e, gast.Starred) for e in target.elts)


def _fixed_arity(callee, position, call):
    """How many positional parameters ``*xs`` at ``position`` fills in a call of ``callee``, when
    that is certain (a Python function without ``*args`` and without defaults left to fill)."""
    import inspect

    from .primitives import is_user_function

    if callee is MISSING or not is_user_function(callee):
        return None
    if any(isinstance(a, gast.Starred) for a in call.args[position + 1 :]):
        return None
    params = list(inspect.signature(callee).parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    later = len(call.args) - position - 1  # positional arguments after *xs
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = {k.arg for k in call.keywords}
    free = [p for p in positional[position:] if p.name not in named]
    n = len(free) - later
    if n < 0 or any(p.default is not p.empty for p in free):
        return None
    return n


def _renamed(node, renames):
    """A copy of ``node`` with the comprehension's variables renamed (not inside a lambda or an inner
    comprehension that binds the same name again)."""
    node = copy_tree(node)

    def visit(n, names):
        if isinstance(n, gast.Name) and n.id in names:
            n.id = names[n.id]
            return
        if isinstance(n, gast.Lambda):  # its defaults run in the enclosing scope, its body in its own
            for d in n.args.defaults + [d for d in n.args.kw_defaults if d is not None]:
                visit(d, names)
            bound = {
                a.id for a in [*n.args.args, *n.args.posonlyargs, *n.args.kwonlyargs, n.args.vararg, n.args.kwarg] if a
            }
            visit(n.body, {k: v for k, v in names.items() if k not in bound})
            return
        if isinstance(n, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)):
            for gen in n.generators:
                visit(gen.iter, names)
                bound = {x.id for x in walk(gen.target) if isinstance(x, gast.Name)}
                names = {a: b for a, b in names.items() if a not in bound}
                for c in gen.ifs:
                    visit(c, names)
            for field in ("elt", "key", "value"):
                if getattr(n, field, None) is not None:
                    visit(getattr(n, field), names)
            return
        for child in gast.iter_child_nodes(n):
            visit(child, names)

    visit(node, renames)
    return node


def _check_not_read_before(walrus, stmt, target, pass_):
    """``y + (y := 2)`` reads the old ``y`` first: moving the assignment before the statement would
    change that, so it is refused."""
    where = (walrus.lineno, walrus.col_offset)
    for n in walk(stmt):
        if (
            isinstance(n, gast.Name)
            and n.id == target
            and isinstance(n.ctx, gast.Load)
            and (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)) < where
        ):
            raise pass_.error(
                walrus,
                f"'{target}' is read before the walrus operator assigns it in the same statement; "
                "assign it on its own line",
            )


def _before_exits(stmts, leave, pass_, loop_depth=0):
    """The block's statements with ``leave()`` run before each ``return`` (and ``break``/``continue``
    of an enclosing loop) that leaves it."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Return):
            if s.value is not None and not isinstance(s.value, (gast.Name, gast.Constant)):
                tmp = pass_.fresh("out")
                out.append(_located(assign(tmp, s.value), s))
                s.value = name(tmp)
            out += [leave(), s]
        elif isinstance(s, (gast.Break, gast.Continue)) and loop_depth == 0:
            out += [leave(), s]
        else:
            inner = loop_depth + isinstance(s, (gast.For, gast.While))
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, _before_exits(getattr(s, field), leave, pass_, inner))
            out.append(s)
    return out


def desugar(tree: gast.FunctionDef, ns, loc) -> gast.FunctionDef:
    if not _needs_work(tree, ns):
        return tree  # unchanged: code without these constructs is generated as before
    pass_ = _Desugar(tree, ns, loc)
    tree.body = pass_.block(tree.body)
    ns.locals |= pass_.added
    return tree
