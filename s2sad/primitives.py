"""What primitive each ANF statement applies: the bridge between statements and the rule table.

``classify(stmt, ns)`` gives an :class:`Op`: its kind, its rule (if any) and its arguments bound
as atoms.  The passes switch on ``Op.kind``, never on a particular primitive.
"""

from __future__ import annotations

import logging
import operator
import types
import warnings
from dataclasses import dataclass, field

import gast
import numpy as np

from .built import plain_class, record_problem
from .resolve import MISSING, Namespace, among, dotted
from .rules import lookup
from .rules.registry import Rule
from .star import (
    at_call,
    built_constant,
    method_of,
    static_of,
    static_rule_of,
    typed_arguments,
    typed_path,
    types_of,
)

_BINOPS = {
    gast.Add: operator.add,
    gast.Sub: operator.sub,
    gast.Mult: operator.mul,
    gast.Div: operator.truediv,
    gast.Pow: operator.pow,
    gast.MatMult: operator.matmul,
    gast.FloorDiv: operator.floordiv,
    gast.Mod: operator.mod,
    gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_,
    gast.BitXor: operator.xor,
    gast.LShift: operator.lshift,
    gast.RShift: operator.rshift,
}
_UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Invert: operator.invert}
OPERATOR_SYMBOLS = {
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.pow: "**",
    operator.matmul: "@",
    operator.floordiv: "//",
    operator.mod: "%",
    operator.neg: "unary -",
}
DATA_ATTRS = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides"}

COPY, RULE, CALL, GETITEM, BUILD, UNPACK, SETITEM, NONDIFF, UNKNOWN, OPAQUE = (
    "copy",
    "rule",
    "call",
    "getitem",
    "build",
    "unpack",
    "setitem",
    "nondiff",
    "unknown",
    "opaque",
)


@dataclass
class Op:
    kind: str
    stmt: object
    rule: Rule | None = None
    fn: object = None
    args: list = field(default_factory=list)
    keywords: dict = field(default_factory=dict)
    what: str = ""  # how to name the construct in messages
    refusal: str = ""  # an OPAQUE op's own refusal message, when it has one
    keys: list | None = None  # a dict display's keys (atoms), for BUILD


def opaque_message(op) -> str:
    """The refusal of an expression s2sad keeps whole (``op.kind == OPAQUE``) over differentiated values."""
    if op.refusal:
        return op.refusal
    if op.what in ("set comprehension", "set literal"):
        return (
            f"{op.what} over differentiated values is not supported: a set has no order, so it is not a "
            "differentiable container; build a list (or a dict) instead"
        )
    if op.what.endswith("dtype=<computed>)"):
        return (
            f"{op.what} of a differentiated value: its dtype is computed in the function, so s2sad cannot "
            "tell whether it is an integer dtype (no derivative) or a float one; give the dtype as a "
            "constant (dtype=float, dtype=np.int64)"
        )
    return f"{op.what} over differentiated values is not supported; write it as a for loop"


def is_user_function(obj) -> bool:
    if not isinstance(obj, types.FunctionType):
        return False
    module = getattr(obj, "__module__", "") or ""
    if module == "s2sad.generated":  # derivative code s2sad made: differentiated again like the user's
        return True
    return module.split(".")[0] not in ("numpy", "s2sad", "math", "builtins", "scipy") and not _in_stdlib(obj)


def is_user_class(obj) -> bool:
    """A class of user code (not Python's, NumPy's or s2sad's): the objects its call makes are read through
    their own ``__iter__``, ``__getitem__``, ``__round__``... (known only when the code runs)."""
    if not isinstance(obj, type):
        return False
    module = (getattr(obj, "__module__", "") or "").split(".")[0]
    return module not in _LIBRARIES


_LIBRARIES = frozenset(
    {"numpy", "s2sad", "math", "builtins", "scipy", "collections", "typing", "functools", "itertools", "fractions"}
    | {"decimal", "array", "enum", "dataclasses"}
)


def _stdlib_dirs() -> tuple[str, ...]:
    import os
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if k in paths)


_STDLIB = _stdlib_dirs()


def _in_stdlib(fn) -> bool:
    """A function of Python's standard library (``statistics.mean``, ``dataclasses.asdict``): a primitive
    without a rule (refused at the user's line), not code to differentiate through (it was refused at a
    line of the library's own file, for its ``try`` or its ``nonlocal``)."""
    import os

    path = os.path.realpath(fn.__code__.co_filename)
    return path.startswith(_STDLIB) and "site-packages" not in path and "dist-packages" not in path


def classify(stmt, ns: Namespace) -> Op:
    if isinstance(stmt, gast.Expr):
        return _call(stmt.value, stmt, ns)
    target = stmt.targets[0]
    value = stmt.value
    if isinstance(target, gast.Tuple):
        return Op(UNPACK, stmt, args=[value], what="tuple unpacking")
    if isinstance(target, gast.Subscript):
        return Op(SETITEM, stmt, args=[target.value, target.slice, value], what="assignment into an array element")
    if isinstance(value, (gast.Name, gast.Constant)) or _is_dotted_global(value, ns):
        return Op(COPY, stmt, args=[value], what="assignment")
    if isinstance(value, gast.BinOp):
        fn = _BINOPS[type(value.op)]
        return _with_rule(fn, stmt, [value.left, value.right], {}, OPERATOR_SYMBOLS.get(fn, type(value.op).__name__))
    if isinstance(value, gast.UnaryOp):
        if isinstance(value.op, gast.Not):
            return Op(NONDIFF, stmt, what="not")
        fn = _UNARY[type(value.op)]
        return _with_rule(fn, stmt, [value.operand], {}, OPERATOR_SYMBOLS.get(fn, "~"))
    if isinstance(value, gast.Subscript):
        if not isinstance(value.value, gast.Name) or value.value.id not in ns.locals:
            obj = ns.lookup(value.value)
            if obj is not MISSING and not isinstance(obj, (np.ndarray, list, tuple, dict, np.number, float, int)):
                # np.r_[...], np.c_[...], an object's own __getitem__: no rule
                return Op(UNKNOWN, stmt, args=[value.slice], what=f"{dotted(value.value) or 'an object'}[...]")
        return _with_rule(operator.getitem, stmt, [value.value, value.slice], {}, "indexing")
    if isinstance(value, gast.Attribute):
        if value.attr in DATA_ATTRS:
            return Op(NONDIFF, stmt, what=f".{value.attr}")
        if isinstance(value.value, gast.Name) and built_constant(value.value.id, value.attr, ns):
            return Op(NONDIFF, stmt, what=f"attribute .{value.attr}")  # d.scale of the class of an object f built
        # p.w of a NamedTuple, dataclass or object: getattr(p, "w"), whose rules read or add one field
        attr = gast.Constant(value=value.attr, kind=None)
        return _with_rule(getattr, stmt, [value.value, attr], {}, f"attribute .{value.attr}")
    if isinstance(value, (gast.Tuple, gast.List)):
        return Op(BUILD, stmt, args=list(value.elts), what="tuple" if isinstance(value, gast.Tuple) else "list")
    if isinstance(value, gast.Dict):
        return Op(BUILD, stmt, args=list(value.values), keys=list(value.keys), what="dict")
    if isinstance(value, gast.Call):
        return _call(value, stmt, ns)
    if isinstance(value, (gast.Compare, gast.BoolOp)):
        return Op(NONDIFF, stmt, what="comparison")
    from .anf import construct_name

    return Op(OPAQUE, stmt, what=construct_name(value))


def _is_dotted_global(value, ns):
    if not isinstance(value, gast.Attribute):
        return False
    root = value
    while isinstance(root, gast.Attribute):
        root = root.value
    return isinstance(root, gast.Name) and root.id not in ns.locals


def _call(call, stmt, ns: Namespace) -> Op:
    args = list(call.args)
    keywords = {k.arg: k.value for k in call.keywords}
    path = dotted(call.func)
    if path is not None and path.split(".")[0] in getattr(ns, "user_names", {}):  # a comprehension's variable
        root, *rest = path.split(".")
        path = ".".join([ns.user_names[root], *rest])
    obj = ns.lookup(call.func)
    method = _typed_method(call.func, ns, stmt)
    if method is not None:  # ``self.predict(w)`` where the class of ``self`` is known: its function
        fn, checks, receiver = method
        ns.methods.extend(checks)
        args = [receiver, *args] if receiver is not None else args  # (none for a staticmethod)
        fn, keywords = at_call(fn, args, keywords, typed_arguments(fn, args, keywords, ns))
        return Op(CALL, stmt, fn=fn, args=args, keywords=keywords, what=f"{path}()")
    rule = _typed_static_rule(call.func, ns, stmt)
    if rule is not None:  # self.act(x) with act = staticmethod(np.tanh) on the class
        return _with_rule(rule, stmt, args, keywords, f"{path}()")
    if isinstance(call.func, gast.Name) and call.func.id in getattr(ns, "typed", {}):
        path = ns.typed[call.func.id]  # (messages name model.layer, not ANF's temporary)
    called = _typed_callable(call.func, ns)
    if called is not None and called[1] is _NOT_CALLABLE:  # act(x) of act=None: raises TypeError where it runs
        return Op(NONDIFF, stmt, args=args, keywords=keywords, what=f"{path}() of None")
    if called is not None and called[1] is _RULE:  # model.act = np.tanh
        return _with_rule(called[0], stmt, args, keywords, f"{path}()")
    if called is not None:  # fn(v), t(x) of an object of a known kind: a user function, a callable instance
        fn, receiver = called
        args = [receiver, *args] if receiver is not None else args
        fn, keywords = at_call(fn, args, keywords, typed_arguments(fn, args, keywords, ns))
        return Op(CALL, stmt, fn=fn, args=args, keywords=keywords, what=f"{path}()")
    if obj is MISSING:
        if isinstance(call.func, gast.Attribute):
            what = f"method .{call.func.attr}()"
        elif path and isinstance(call.func, gast.Name):  # l(x) of a local holding an object or function
            what = (
                f"{path}(), a call of an object or function s2sad cannot type where the code is generated (an "
                "item of a list of functions or layers reached through a slice, enumerate, reversed, zip, a "
                "comprehension or a global list: iterate `for layer in self.layers` over a parameter's or self's "
                "list, or pass the object as an argument),"
            )
        else:
            what = f"{path}()" if path else "a call of a computed function"
        if _of_no_items(call.func, ns):  # model.layers[i].f(a) of an empty list: never runs
            return Op(NONDIFF, stmt, args=args, keywords=keywords, what=what)
        refusal = _items_differ(call.func, ns)
        if refusal:
            return Op(OPAQUE, stmt, args=args, keywords=keywords, what=what, refusal=refusal)
        return Op(UNKNOWN, stmt, args=args, keywords=keywords, what=what)
    if is_output(obj):
        return Op(NONDIFF, stmt, fn=obj, args=args, keywords=keywords, what=f"{path}()")
    if is_tape(call, obj):  # the reverse sweep's stack: a new, empty list
        return Op(BUILD, stmt, args=[], what="list")
    if is_user_function(obj):  # *args/**kwargs, objects of known classes: specialized to this call
        fn, keywords = at_call(obj, args, keywords, typed_arguments(obj, args, keywords, ns))
        return Op(CALL, stmt, fn=fn, args=args, keywords=keywords, what=f"{path}()")
    method = _user_method(obj, call.func)
    if method is not None:  # ``model.predict(x)``: ``Model.predict(model, x)``, the object a constant
        fn, receiver = method
        ns.methods.append(_class_entry(obj, call.func))
        owner = obj.__self__ if isinstance(obj, types.MethodType) else obj
        if not isinstance(owner, type):  # obj.__class__ = B later: B's method, not the derivative's
            ns.methods.append((owner, "__class__", type(owner)))
        fn, keywords = at_call(fn, [receiver, *args], keywords, typed_arguments(fn, [receiver, *args], keywords, ns))
        return Op(CALL, stmt, fn=fn, args=[receiver, *args], keywords=keywords, what=f"{path}()")
    if is_record_class(obj):
        problem = record_problem(obj)
        if problem is None:
            return _record(obj, stmt, args, keywords, path)
        shown = getattr(obj, "__s2sad_twin_of__", obj)  # (a plain class's dataclass twin: the user's class)
        spelled = path if shown is obj else shown.__name__
        refusal = (
            f"`{spelled}(...)` builds an object of class {shown.__qualname__} from a differentiated value, and "
            f"building it does more than store its fields: {problem}; s2sad cannot follow that code; compute the "
            "value in f (or in a method) and store it as it is, or build the object outside the function and pass "
            "it in"
        )
        return Op(OPAQUE, stmt, fn=obj, args=args, keywords=keywords, what=f"{path}()", refusal=refusal)
    if plain_class(obj):  # Dense(W) of a class whose __init__ does more than store its parameters
        refusal = (
            f"`{path}(...)` builds an object of class {obj.__qualname__} from a differentiated value, and its "
            "__init__ does more than store each parameter under its own name (self.W = W), so s2sad cannot "
            "follow the value into the object's attributes; store the parameters as they are (compute in the "
            "methods), make the class a dataclass, or build the object outside the function and pass it in"
        )
        return Op(OPAQUE, stmt, fn=obj, args=args, keywords=keywords, what=f"{path}()", refusal=refusal)
    from .dtypes import dtype_arg, dtype_unknown, integral_dtype, object_dtype

    dtype = dtype_arg(obj, args, keywords)  # by keyword or by position: np.zeros(3, int)
    if integral_dtype(dtype, ns):  # np.cumsum(x, dtype=int): an integer result is a constant
        return Op(NONDIFF, stmt, fn=obj, args=args, keywords=keywords, what=f"{path}(..., dtype=...)")
    if object_dtype(dtype, ns):  # np.array(rows, dtype=object): an array of Python objects
        return Op(
            OPAQUE,
            stmt,
            fn=obj,
            args=args,
            keywords=keywords,
            what=f"{path}(..., dtype=object)",
            refusal=f"{path}(..., dtype=object) of differentiated values is not supported (an array of Python "
            "objects: its items may be arrays of any shape); keep the items in a list, or stack them (np.stack(rows))",
        )
    if dtype_unknown(dtype, ns) and lookup(obj) is not None and lookup(obj).differentiable:
        return Op(OPAQUE, stmt, fn=obj, args=args, keywords=keywords, what=f"{path}(..., dtype=<computed>)")
    return _with_rule(obj, stmt, args, keywords, path)


def _typed_receiver(func, ns):
    """For ``p.name`` with ``p`` a name of an object whose class is known (:mod:`star`): ``(path, types,
    class)``; ``(None, None, None)`` otherwise."""
    if not isinstance(func, gast.Attribute) or not isinstance(func.value, gast.Name):
        return None, None, None
    path = typed_path(func.value.id, ns)
    types = types_of(ns) if path is not None else None
    return path, types, None if types is None else types.get(path)


def _typed_method(func, ns, stmt):
    """For ``p.name(...)`` where the class of the object ``p`` holds is known (a parameter, ``model.layer``:
    :mod:`star`): the user function it calls and the class dicts to check; else None."""
    path, types, cls = _typed_receiver(func, ns)
    found = None if cls is None else method_of(cls, func.attr)
    if found is not None:
        types.method(path, func.attr, ns.loc.of(stmt) if getattr(ns, "loc", None) else "?")
        return (*found, func.value)
    static = None if cls is None else static_of(cls, func.attr)
    if static is None:
        return None
    types.method(path, func.attr, ns.loc.of(stmt) if getattr(ns, "loc", None) else "?")
    fn, checks, takes_class = static
    if not takes_class:
        return fn, checks, None
    owner = f"_s2sad_class_{cls.__name__}"  # cls of a classmethod: the class, a constant of the module
    while ns.scope.get(owner, cls) is not cls:
        owner += "_"
    ns.scope[owner] = ns.lifted[owner] = cls  # (lifted: put into the generated module)
    return fn, checks, gast.Name(id=owner, ctx=gast.Load(), annotation=None, type_comment=None)


def _typed_static_rule(func, ns, stmt):
    """For ``p.act(...)`` where the class of ``p`` is known and has ``act = staticmethod(np.tanh)``: the
    primitive (the class dicts checked on each call, and that ``p`` does not hide it); else None."""
    path, types, cls = _typed_receiver(func, ns)
    found = None if cls is None else static_rule_of(cls, func.attr)
    if found is None:
        return None
    types.method(path, func.attr, ns.loc.of(stmt) if getattr(ns, "loc", None) else "?")
    ns.methods.extend(found[1])
    return found[0]


def _of_no_items(func, ns) -> bool:
    """Whether ``func`` is a method or a call of an item of a list or tuple that is empty (recorded: the
    derivative is for that length): ``model.layers[i].f(a)`` in ``while i < len(model.layers)``."""
    receiver = func.value if isinstance(func, gast.Attribute) else func
    path = typed_path(receiver.id, ns) if isinstance(receiver, gast.Name) else None
    if path is None or "[*]" not in path:
        return False
    return types_of(ns).length(path[: path.index("[*]")]) == 0


def _items_differ(func, ns) -> str:
    """For ``layer.forward(x)`` or ``t(x)`` on every item of a list (``[*]``) whose items differ where the
    call needs them (their classes, the functions stored on them): why it is refused, else ""."""
    receiver = func.value if isinstance(func, gast.Attribute) else func
    path = typed_path(receiver.id, ns) if isinstance(receiver, gast.Name) else None
    found = types_of(ns).differing(path) if path is not None else None
    if not found:
        return ""
    full, kinds = found
    seq = full[: full.rindex("[*]")]
    rest = full[len(seq) + 3 :]
    if rest:
        subject = f"a call of '{rest}' of the items of '{seq}', which differ ({', '.join(kinds)})"
    elif isinstance(func, gast.Attribute):
        subject = f"`.{func.attr}()` on the items of '{seq}', which differ ({', '.join(kinds)})"
    else:
        subject = f"a call of the items of '{seq}', which differ ({', '.join(kinds)})"
    return (
        f"{subject}: one loop body cannot call a different function per item, and s2sad writes a loop "
        "over such items out item by item only for `for item in seq` (or over a dict's keys, values or items) "
        "without break, continue or return, over at most 64 items; make the items alike (one class, the "
        "same functions stored on them), or write the loop without break, continue and return"
    )


def _typed_callable(func, ns):
    """For ``t(...)`` where ``t`` holds an object of a known kind (:mod:`star`): a user function (itself,
    no receiver), a primitive with a rule (``model.act = np.tanh``: itself, ``_RULE``), or an instance
    whose class has a user ``__call__`` (with ``t`` as its receiver); else None."""
    if not isinstance(func, gast.Name):
        return None
    path = typed_path(func.id, ns)
    typing = types_of(ns) if path is not None else None
    cls = None if typing is None else typing.get(path)
    if cls is None:
        return None
    obj = typing.obj(path)
    if obj is None:  # (its branch, `if act is not None:`, does not run; if it does, Python's TypeError)
        return None, _NOT_CALLABLE
    if is_user_function(obj):
        return obj, None
    if isinstance(obj, (types.BuiltinFunctionType, np.ufunc)) and lookup(obj) is not None:
        return obj, _RULE
    found = method_of(cls, "__call__")
    if found is None:
        return None
    ns.methods.extend(found[1])
    return found[0], func


_RULE = object()  # (what _typed_callable says of a primitive with a rule)
_NOT_CALLABLE = object()  # (what _typed_callable says of None)


def is_tape(call, obj) -> bool:
    """``tape()``: the runtime helper that makes the reverse sweep's stacks (an empty list)."""
    from .runtime import tape

    return obj is tape and not call.args and not call.keywords


def _user_method(obj, func):
    """For a bound method of user code reached through an attribute (``self.layer``, ``Model.cm``,
    ``model`` called as a callable instance): the function and the expression of what it is bound to."""
    if isinstance(obj, types.MethodType) and is_user_function(obj.__func__) and isinstance(func, gast.Attribute):
        return obj.__func__, func.value
    call = type(obj).__dict__.get("__call__") or getattr(type(obj), "__call__", None)  # noqa: B004
    if isinstance(call, types.FunctionType) and is_user_function(call) and not isinstance(obj, type):
        return call, func
    return None


def _class_entry(obj, func):
    """Where the class of a called method's object keeps it: (class ``__dict__``, name, entry), so
    generated code can check that the method was not replaced since."""
    owner = obj.__self__ if isinstance(obj, types.MethodType) else obj
    attr = func.attr if isinstance(obj, types.MethodType) else "__call__"
    cls = owner if isinstance(owner, type) else type(owner)
    home = next((c for c in cls.__mro__ if attr in c.__dict__), None)
    if home is None and isinstance(obj, types.MethodType):  # self.fn = other.fwd: the method's own name
        attr = obj.__func__.__name__
        home = next((c for c in cls.__mro__ if c.__dict__.get(attr) is obj.__func__), None)
    if home is None:  # (a function stored under another name: the attribute chain is checked where read)
        return cls.__dict__, f"<{attr}>", MISSING
    return home.__dict__, attr, home.__dict__[attr]


def is_record_class(obj) -> bool:
    """A NamedTuple class or a dataclass: calling it builds a container of its fields."""
    import dataclasses

    return isinstance(obj, type) and (
        issubclass(obj, tuple) and hasattr(obj, "_fields") or dataclasses.is_dataclass(obj)
    )


def record_fields(cls) -> list[str]:
    """The fields a NamedTuple or dataclass takes in its constructor, in order."""
    import dataclasses

    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if f.init]
    return list(cls._fields)


def _record(cls, stmt, args, keywords, what) -> Op:
    """``Point(x, y=v)``: a BUILD whose keys are the fields given (the others keep their defaults)."""
    import inspect

    try:
        bound = inspect.signature(cls).bind(*args, **keywords)
    except TypeError:
        return Op(UNKNOWN, stmt, fn=cls, args=args, keywords=keywords, what=what)
    keys = [gast.Constant(value=k, kind=None) for k in bound.arguments]
    return Op(BUILD, stmt, fn=cls, args=list(bound.arguments.values()), keys=keys, what=what)


def _with_rule(fn, stmt, args, keywords, what) -> Op:
    rule = lookup(fn)
    if rule is None:
        if isinstance(fn, type) and issubclass(fn, (int, bool, range)) or among(fn, _NONDIFF_BUILTINS) or is_output(fn):
            return Op(NONDIFF, stmt, fn=fn, args=args, keywords=keywords, what=what)
        return Op(UNKNOWN, stmt, fn=fn, args=args, keywords=keywords, what=what)
    kind = RULE if rule.differentiable else NONDIFF
    return Op(kind, stmt, rule=rule, fn=fn, args=args, keywords=keywords, what=what)


# enumerate and zip are not here: their values carry derivatives (loops over them are lowered by anf, and
# list(...)/tuple(...)/dict(...) of them by desugar); used any other way with differentiated values, refused
_NONDIFF_BUILTINS = {len, range, isinstance, print, type, id, hash, np.shape, np.ndim, np.size}
LOG_METHODS = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}


def is_output(fn) -> bool:
    """``print``, ``logging`` calls (module functions and logger methods) and ``warnings.warn``: kept
    where they run, never differentiated."""
    if fn is print or fn is warnings.warn:
        return True
    if isinstance(getattr(fn, "__self__", None), (logging.Logger, logging.LoggerAdapter)):
        return getattr(fn, "__name__", "") in LOG_METHODS
    return getattr(fn, "__module__", None) == "logging" and getattr(fn, "__name__", "") in LOG_METHODS


def writes_arguments(fn) -> bool:
    """NumPy functions and generator methods that change an argument in place and return None
    (``np.fill_diagonal(A, 0)``, ``np.copyto(a, b)``, ``rng.shuffle(a)``)."""
    from .ir import _NUMPY_WRITERS

    if fn is None or fn is MISSING:
        return False
    if any(fn is getattr(np, n, None) for n in _NUMPY_WRITERS) or fn is np.random.shuffle:
        return True
    owner = getattr(fn, "__self__", None)
    return getattr(fn, "__name__", "") == "shuffle" and isinstance(owner, (np.random.Generator, np.random.RandomState))


def discarded_call_problem(op: Op, active, names, shares=None) -> str | None:
    """Why the call statement ``op.stmt`` (its result not used, not ``lst.append``/``lst.pop``) cannot be
    differentiated, or None when it changes no differentiated value.  A call whose result is dropped
    matters only through what it changes in place (``np.add.at(a, i, x)``, a helper that writes into
    its argument): such a call is refused, never skipped."""
    from .ir import changed

    if op.kind == NONDIFF and not writes_arguments(op.fn):  # (rng.shuffle(a) changes a)
        return None
    written = changed([op.stmt])
    for n in list(written - set(active)):  # b = a; rng.shuffle(b) changes a
        written |= (shares or {}).get(n, set())
    touched = written & set(active)
    if not touched:
        return None
    users = names.users(touched)  # the user's variables, never ANF's versions or temporaries
    what = ", ".join(users) if users else "its arguments"
    if op.fn is not None and op.rule is None and op.kind != CALL:
        from .rules.registry import public_name

        return (
            f"no derivative rule for `{public_name(op.fn)}`, which may change {what} in place; "
            "register one with s2sad.reverse_rule and s2sad.forward_rule, or build a new value instead of "
            f"changing {what} in place"
        )
    return (
        f"{op.what} may change {what} in place and its result is not used, which s2sad "
        "cannot differentiate; build a new value and assign it instead"
    )


def is_checked_derivative(fn) -> bool:
    """A derivative behind the call-time check of :mod:`call_aliases` (its function writes into a parameter)."""
    return getattr(fn, "__module__", None) == "s2sad.call_aliases"


def checked_derivative_message(fn) -> str:
    return (
        f"the derivative `{fn.__name__}` of a function that writes into its argument in place (checked at each "
        "call for arrays sharing its memory) cannot be differentiated again this way; s2sad.jacobian("
        "s2sad.hessian(f)) gives the third derivatives, or build new arrays instead of writing into views"
    )
