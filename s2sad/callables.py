"""callables: any Python callable -> the Python function s2sad differentiates.

Takes what the user hands to ``grad``/``jvp``/...: a function or lambda, a bound method or
classmethod (the bound object or class is a constant), a static method, a callable instance (its
``__call__``), a ``functools.partial`` (its bound arguments are constants; nested partials too), or a
built-in primitive with a rule (``np.sin``, ``math.exp``).  Gives a plain Python function, or a
:class:`BoundFunction`: a Python function with some parameters fixed to constant objects, which
the derivative reads as free names and does not take as parameters (``wrt`` counts the others,
as Python's own signature of the bound callable does).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import linecache
import types
from collections.abc import Mapping

from .errors import DifferentiationError

_counter = itertools.count()
_PRIMITIVES: dict = {}  # id(primitive) -> (primitive, the Python function made for it)


class FunctionLike:
    """What the passes read of a function (code, globals, closure, defaults: live), taken from
    ``self.function``: for objects that stand for a function with some parameters changed."""

    __code__ = property(lambda self: self.function.__code__)
    __globals__ = property(lambda self: self.function.__globals__)
    __closure__ = property(lambda self: self.function.__closure__)
    __defaults__ = property(lambda self: self.function.__defaults__)
    __kwdefaults__ = property(lambda self: self.function.__kwdefaults__)
    __builtins__ = property(lambda self: getattr(self.function, "__builtins__", None))


class BoundFunction(FunctionLike):
    """A Python function some of whose parameters are constants (``bound``: name -> object).

    It looks like the function to the passes (code, globals, closure, defaults read live); its
    signature is the function's without the bound parameters; calling it calls the function."""

    def __init__(self, function, bound: dict, kwonly: frozenset, signature: inspect.Signature):
        self.function = function
        self.__s2sad_bound__ = bound
        self.kwonly = kwonly  # positional parameters that became keyword-only (after a keyword-bound one)
        self.__signature__ = signature
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__module__ = function.__module__

    def __call__(self, *args, **kwargs):
        call = self.__signature__.bind(*args, **kwargs)
        lead, named = [], dict(self.__s2sad_bound__)
        for name in inspect.signature(self.function).parameters:  # bound by position: the leading ones
            if name not in named:
                break
            lead.append(named.pop(name))
        return self.function(*lead, *call.args, **call.kwargs, **named)

    def __repr__(self):
        consts = ", ".join(f"{k}={_short(v)}" for k, v in self.__s2sad_bound__.items())
        return f"<{self.__qualname__} with {consts}>"


def _short(obj) -> str:
    text = repr(obj)
    return text if len(text) < 40 else text[:37] + "..."


def base_name(fn) -> str:
    """A name for generated functions made from ``fn``: its own, or ``lambda``."""
    name = getattr(fn, "__name__", "")
    return name if name.isidentifier() else "lambda"


def normalize(obj):
    """The function (or :class:`BoundFunction`) that ``obj`` calls; DifferentiationError if none."""
    if isinstance(obj, BoundFunction) or getattr(obj, "__s2sad_spec__", None) is not None:
        return obj
    args: tuple = ()
    kwargs: dict = {}
    keywords = []  # (a partial's keywords dict, name, value): a dict its owner may change later
    calls = []  # (kind, holder, name, value): a callable instance's __call__ and class, checked per call
    what = obj
    for _ in range(100):
        if isinstance(obj, functools.partial):
            args = obj.args + args
            keywords += [(obj.keywords, k, v) for k, v in obj.keywords.items() if k not in kwargs]
            kwargs = {**obj.keywords, **kwargs}
            obj = obj.func
        elif isinstance(obj, types.MethodType):
            args = (obj.__self__,) + args
            obj = obj.__func__
        elif isinstance(obj, staticmethod):
            obj = obj.__func__
        elif isinstance(obj, types.FunctionType):
            break
        elif _has_rule(obj):
            obj = primitive_function(obj)
            break
        elif isinstance(obj, classmethod):
            raise DifferentiationError(
                f"{_where(obj.__func__)}got the classmethod object {obj.__func__.__qualname__} itself; "
                "differentiate it through its class (Class.method)"
            )
        elif isinstance(obj, type):
            raise DifferentiationError(
                f"s2sad differentiates functions; got the class {obj.__qualname__} (differentiate one of its methods)"
            )
        elif _user_call_method(obj):
            calls += _call_checks(obj)
            obj = obj.__call__
        else:
            raise DifferentiationError(
                f"s2sad differentiates Python functions and NumPy/math primitives with a rule; got "
                f"{type(obj).__name__} {_short(obj)}, whose code is not Python and which has no rule "
                "(register one with s2sad.reverse_rule and s2sad.forward_rule)"
            )
    if not args and not kwargs:
        return obj
    obj, kwargs = _into_kwargs(obj, kwargs)
    bound = _bind(obj, args, kwargs, what)
    bound.partial_keywords = tuple(keywords)  # checked on each call of the derivative (live.Check)
    bound.call_checks = tuple(calls)
    return bound


def _call_checks(obj) -> list:
    """For a callable instance ``obj``: its class's ``__call__`` stays the one found (``C.__call__ = g``
    later, or a subclass given one, makes ``obj(x)`` run other code) and ``obj`` stays of its class."""
    from .live import ABSENT

    cls = type(obj)
    out = [("attribute", obj, "__class__", cls)]
    for c in cls.__mro__:
        if "__call__" in vars(c):
            return [*out, ("global", vars(c), "__call__", vars(c)["__call__"])]
        out.append(("absent", vars(c), "__call__", ABSENT))
    return out


def bound_checks(fn) -> tuple[tuple, tuple]:
    """The partial keywords and callable-instance checks of ``fn`` (a :class:`BoundFunction`, or a
    specialization of one: the checks of the function it stands for)."""
    for _ in range(100):
        keywords = getattr(fn, "partial_keywords", None)
        if keywords is not None:
            return keywords, getattr(fn, "call_checks", ())
        if not isinstance(fn, FunctionLike):
            break
        fn = fn.function
    return (), ()


def _user_call_method(obj) -> bool:
    """An instance of a user class with a ``__call__`` in Python (not a library's, such as ``np.vectorize``)."""
    from .primitives import is_user_function

    call = type(obj).__dict__.get("__call__") or getattr(type(obj), "__call__", None)  # noqa: B004
    if isinstance(call, staticmethod | classmethod):
        call = call.__func__
    return isinstance(call, types.FunctionType) and is_user_function(call)


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}:1: " if code is not None else ""


def _into_kwargs(fn, kwargs: dict):
    """``partial(f, scale=2.0)`` of ``def f(x, **kw)``: ``f`` specialized to calls giving ``scale`` into
    ``**kw`` (its parameter ``kw_scale``, which is then bound), and the keywords renamed so."""
    from .parse import unwrap
    from .star import VAR_KW, VAR_POS, Specialized

    inner = unwrap(fn)
    try:
        params = list(inspect.signature(inner).parameters.values())
    except (TypeError, ValueError):
        return fn, kwargs
    named = {p.name for p in params if p.kind not in (VAR_POS, VAR_KW)}
    extra = [k for k in kwargs if k not in named]
    if not extra or not any(p.kind is VAR_KW for p in params) or any(p.kind is VAR_POS for p in params):
        return fn, kwargs  # (refused by _bind, naming the keyword, when it does not fit)
    spec = Specialized(inner, 0, tuple(extra))
    return spec, {spec.renamed.get(k, k): v for k, v in kwargs.items()}


def _bind(fn, args: tuple, kwargs: dict, what) -> BoundFunction:
    """``fn`` with its first ``len(args)`` positional parameters and the ``kwargs`` fixed, as Python's
    ``functools.partial`` binds them (parameters after a keyword-bound one become keyword-only)."""
    from .parse import unwrap

    fn = unwrap(fn)
    params = list(inspect.signature(fn).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    name = getattr(what, "__qualname__", None) or type(what).__name__
    if len(args) > len(positional):
        raise DifferentiationError(
            f"{_where(fn)}{name} binds {len(args)} positional arguments but {fn.__qualname__} takes "
            f"{len(positional)} by position; s2sad binds constants to named parameters only"
        )
    bound = {p.name: a for p, a in zip(positional, args)}
    names = {p.name: p for p in params}
    for k, v in kwargs.items():
        p = names.get(k)
        if p is None or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise DifferentiationError(
                f"{_where(fn)}{name} binds '{k}', which is not a named parameter of {fn.__qualname__}; "
                "s2sad binds constants to named parameters only"
            )
        if k in bound:
            raise DifferentiationError(f"{_where(fn)}{name} binds '{k}' twice (by position and by name)")
        if p.kind is p.POSITIONAL_ONLY:
            raise DifferentiationError(f"{_where(fn)}{name} binds the positional-only parameter '{k}' by name")
        bound[k] = v
    rest, kwonly, after_kw = [], set(), False
    for p in params:
        if p.name in bound:
            after_kw = after_kw or (p.name in kwargs and p.kind is p.POSITIONAL_OR_KEYWORD)
            continue
        if after_kw and p.kind is p.POSITIONAL_OR_KEYWORD:
            kwonly.add(p.name)
            p = p.replace(kind=p.KEYWORD_ONLY)
        elif after_kw and p.kind is p.VAR_POSITIONAL:
            raise DifferentiationError(
                f"{_where(fn)}{name} binds '{next(iter(kwargs))}' by name before *{p.name}; "
                "bind it by position or keep it a parameter"
            )
        rest.append(p)
    return BoundFunction(fn, bound, frozenset(kwonly), inspect.Signature(rest))


# ---- built-in primitives ----------------------------------------------------------------------------
def _has_rule(obj) -> bool:
    from .rules.registry import lookup

    try:
        rule = lookup(obj)
    except TypeError:  # unhashable
        return False
    return rule is not None and rule.differentiable


def primitive_function(prim):
    """A tiny Python function ``def sin(x): return np.sin(x)`` calling ``prim`` with the required
    inputs of its rule (registered in ``linecache``, so it is read and differentiated like user code)."""
    hit = _PRIMITIVES.get(id(prim))
    if hit is not None and hit[0] is prim:
        return hit[1]
    import math

    import numpy as np

    from .rules.registry import lookup

    rule = lookup(prim)
    template = (rule.reverse or rule.forward)[0]
    params = [
        p.name
        for p in list(template.signature.parameters.values())[1:]
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    short = getattr(prim, "__name__", "") or rule.name.rsplit(".", 1)[-1]
    fname = short if short.isidentifier() else "primitive"
    if getattr(np, short, None) is prim:
        callee = f"np.{short}"
    elif getattr(math, short, None) is prim:
        callee = f"math.{short}"
    else:
        callee = "_primitive"
    text = f"def {fname}({', '.join(params)}):\n    return {callee}({', '.join(params)})\n"
    filename = f"<s2sad primitive {rule.name} #{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    space = {"np": np, "math": math, "_primitive": prim, "__name__": "s2sad.primitive"}
    exec(compile(text, filename, "exec"), space)  # noqa: S102 - a wrapper s2sad writes
    fn = space[fname]
    _PRIMITIVES[id(prim)] = (prim, fn)
    return fn


def method_checks(namespaces) -> list:
    """Checks that the methods of user classes called on objects inside the differentiated code
    (``self.layer(x)``, ``model.predict(x)``), and the user functions reached through attributes
    (``helpmod.helper``), are still the ones their derivatives were made from: not rebound, and not
    shadowed by an instance attribute since."""
    from .live import ABSENT, Check
    from .resolve import MISSING

    out, seen = [], set()
    for ns in namespaces:
        found = [(h, n, e) for h, n, e in ns.methods] + list(ns.attributes)
        for holder, name, entry in found:
            if (id(holder), name) not in seen:
                seen.add((id(holder), name))
                if entry is MISSING:  # found on the class: must not be shadowed by the object itself
                    out.append(Check("absent", holder, name, ABSENT, ns.fn))
                elif not isinstance(holder, Mapping):  # (an object, "__class__", its class)
                    out.append(Check("attribute", holder, name, entry, ns.fn))
                else:
                    out.append(Check("global", holder, name, entry, ns.fn))
    return out
