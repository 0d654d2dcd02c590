"""star: functions taking ``*args``/``**kwargs``, specialized to the arguments of one call.

Where such a function is called, the number of positional arguments and the keyword names are
known: inside ``f`` at each call site (``helper(x, x * x)``), for ``f`` itself when the derivative
is called.  A :class:`Specialized` function is the function for one such shape: one parameter per
actual argument (``xs_0, xs_1`` for ``*xs``; keyword-only ``kw_a`` for ``a=`` going into ``**kw``),
whose body begins by packing them (``xs = (xs_0, xs_1)``, ``kw = {'a': kw_a}``), which the tuple and
dict support differentiates.  ``parse`` gives its tree (:func:`specialize_tree`); ``primitives``
specializes user functions at call sites (:func:`at_call`); ``api`` makes the derivative of such an
``f`` a :func:`dispatcher` that specializes at each call (cached per shape).

Also here, the facts ``desugar`` uses to spell out calls: names bound once to a tuple display of
known length (``helper(*args)``) or to a dict display of string keys never changed (``g(**kw)``,
``kw.get('a', 1.0)``).
"""

from __future__ import annotations

import dis
import inspect
import types

import gast

from .errors import DifferentiationError

VAR_POS, VAR_KW = inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD


def takes_star(fn) -> bool:
    """Whether ``fn`` (a function, or what :mod:`callables` makes of one) has ``*args`` or ``**kwargs``."""
    if getattr(fn, "__s2sad_spec__", None) is not None:
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (VAR_POS, VAR_KW) for p in params)


class Specialized:
    """``function`` (with ``*args``/``**kwargs``) for calls with ``npos`` positional arguments and the
    keyword arguments ``keywords`` that go into ``**kwargs`` (in the call's order).

    It looks like the function to the passes (code, globals, closure, defaults read live); its
    signature has one parameter per argument; calling it calls the function."""

    def __init__(self, function, npos: int, keywords: tuple[str, ...], types: dict | None = None):
        self.function = function
        self.__s2sad_types__ = dict(types or {})  # parameter -> its class (``self`` of Model.loss)
        self.npos, self.keywords = npos, tuple(keywords)
        params = list(inspect.signature(function).parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = next((p for p in params if p.kind is VAR_POS), None)
        varkw = next((p for p in params if p.kind is VAR_KW), None)
        code = function.__code__
        taken = set(code.co_varnames) | set(code.co_names) | set(code.co_freevars) | set(code.co_cellvars)
        taken |= {p.name for p in params} | set(getattr(function, "__s2sad_bound__", None) or {})

        def fresh(base):
            while base in taken:
                base += "_"
            taken.add(base)
            return base

        extra = max(0, npos - len(positional))
        self.items = [fresh(f"{var.name}_{i}") for i in range(extra)] if var else []
        self.renamed = {k: fresh(f"{varkw.name}_{k}") for k in self.keywords} if varkw else {}
        self.var = var.name if var else None
        self.varkw = varkw.name if varkw else None
        new = []
        for p in positional:
            p = p.replace(kind=p.POSITIONAL_OR_KEYWORD)
            new.append(p.replace(default=p.empty) if extra else p)
        new += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in self.items]
        new += [p for p in params if p.kind is p.KEYWORD_ONLY]
        new += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in self.renamed.values()]
        self.__signature__ = inspect.Signature(new)
        bound = getattr(function, "__s2sad_bound__", None)
        if bound is not None:
            self.__s2sad_bound__ = bound
        self.__s2sad_spec__ = (npos, self.keywords, tuple(self.__s2sad_types__.items()))
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__module__ = function.__module__

    __code__ = property(lambda self: self.function.__code__)
    __globals__ = property(lambda self: self.function.__globals__)
    __closure__ = property(lambda self: self.function.__closure__)
    __defaults__ = property(lambda self: self.function.__defaults__)
    __kwdefaults__ = property(lambda self: self.function.__kwdefaults__)
    __builtins__ = property(lambda self: getattr(self.function, "__builtins__", None))

    def __eq__(self, other):
        return isinstance(other, Specialized) and (self.function, self.__s2sad_spec__) == (
            other.function,
            other.__s2sad_spec__,
        )

    def __hash__(self):
        return hash((self.function, self.__s2sad_spec__))

    def __call__(self, *args, **kwargs):
        call = self.__signature__.bind(*args, **kwargs).arguments
        back = {v: k for k, v in self.renamed.items()}
        positional = [
            call.pop(n)
            for n in list(call)
            if self.__signature__.parameters[n].kind is not inspect.Parameter.KEYWORD_ONLY
        ]
        return self.function(*positional, **{back.get(k, k): v for k, v in call.items()})

    def __repr__(self):
        types = {k: t.__qualname__ for k, t in self.__s2sad_types__.items()}
        return f"<{self.__qualname__} for {self.npos} positional arguments, keywords {list(self.keywords)}, {types}>"


def specialize(fn, npos: int, keyword_names, types=None) -> Specialized:
    """``fn`` for a call with ``npos`` positional arguments and these keyword names (those that name
    a parameter bind it; the others go into ``**kwargs``); ``types``: parameters whose class is known."""
    params = inspect.signature(fn).parameters.values()
    if not any(p.kind is VAR_POS for p in params):
        npos = 0  # the same code for any number of positional arguments
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    keywords = tuple(k for k in keyword_names if k not in named) if any(p.kind is VAR_KW for p in params) else ()
    return Specialized(fn, npos, keywords, types)


def at_call(fn, args: list, keywords: dict, types=None):
    """A call site ``fn(*args, **keywords)`` (atoms) of a user function: the function to differentiate
    there and the keywords as its signature names them (``a=`` into ``**kw`` is ``kw_a=``).
    ``types``: parameter -> class, for a method called on an object of a known class."""
    if not takes_star(fn) and not types:
        return fn, keywords
    try:
        inspect.signature(fn).bind(*args, **keywords)
    except TypeError:
        return fn, keywords  # refused where the call is differentiated ("cannot call ...")
    spec = specialize(fn, len(args), list(keywords), types)
    return spec, {spec.renamed.get(k, k): v for k, v in keywords.items()}


# ---- methods called on a parameter of a known class (``self.predict(w)`` in ``Model.loss``) ----------
def receiver(fn) -> str | None:
    """The first parameter of a function defined in a class body (``Model.loss``) when its code calls
    a method on it (``self.predict(w)``): its class is known at call time, so the derivative is
    specialized per class, and ``self.predict(w)`` is a call of that class's ``predict``."""
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "__s2sad_spec__", None) is not None or getattr(fn, "__s2sad_bound__", None):
        return None
    if not isinstance(fn, types.FunctionType) or code.co_argcount == 0:
        return None
    if "." not in fn.__qualname__.replace("<locals>.", "") or code.co_varnames[0] != "self":
        return None
    previous = None
    for ins in dis.get_instructions(code):
        if previous is not None and (ins.opname == "LOAD_METHOD" or ins.opname == "LOAD_ATTR" and ins.arg & 1):
            return "self"  # self.name(...): LOAD_METHOD, or (3.12+) LOAD_ATTR with its method bit
        previous = ins if ins.opname == "LOAD_FAST" and ins.argval == "self" else None
    return None


def method_of(cls, attr):
    """The user function ``obj.attr(...)`` calls for an object of class ``cls`` (a plain function in
    the class or a base), and the class dicts to check: ``(function, [(class dict, attr, entry)])``."""
    from .primitives import is_user_function
    from .resolve import MISSING

    if cls.__getattribute__ is not object.__getattribute__:
        return None
    checks = []
    for c in cls.__mro__:
        entry = c.__dict__.get(attr, MISSING)
        checks.append((c.__dict__, attr, entry))
        if entry is not MISSING:
            if isinstance(entry, types.FunctionType) and is_user_function(entry):
                return entry, checks
            return None
    return None


def shadowed(obj) -> str | None:
    """An attribute of the object itself that hides a method of its class (``m.predict = ...``)."""
    own = getattr(obj, "__dict__", None)
    if not own:
        return None
    for c in type(obj).__mro__:
        for k, v in c.__dict__.items():
            if k in own and callable(v):
                return k
    return None


def specialize_tree(parsed, spec: Specialized) -> None:
    """The parsed function's signature made ``spec``'s, with the packing of ``*args``/``**kwargs`` first."""
    tree = parsed.tree
    args = tree.args
    where = args.vararg or args.kwarg or tree
    positional = list(getattr(args, "posonlyargs", None) or []) + list(args.args)
    prelude = []
    if spec.items:
        args.defaults = []
    if spec.var is not None:
        positional += [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in spec.items]
        elts = [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None) for n in spec.items]
        prelude.append(_assign(spec.var, gast.Tuple(elts=elts, ctx=gast.Load()), args.vararg))
    if spec.varkw is not None:
        keys = [gast.Constant(value=k, kind=None) for k in spec.keywords]
        values = [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None) for n in spec.renamed.values()]
        prelude.append(_assign(spec.varkw, gast.Dict(keys=keys, values=values), args.kwarg))
        for n in spec.renamed.values():
            args.kwonlyargs.append(gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None))
            args.kw_defaults.append(None)
    for a in positional + args.kwonlyargs:
        gast.copy_location(a, where)
    args.posonlyargs, args.args, args.vararg, args.kwarg = [], positional, None, None
    tree.body[:0] = prelude
    parsed.fn = spec
    stored = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    spec.__s2sad_types__ = {p: t for p, t in spec.__s2sad_types__.items() if p not in stored}


def _assign(target, value, like):
    stmt = gast.Assign(
        targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None, type_comment=None)],
        value=value,
        type_comment=None,
    )
    for n in gast.walk(stmt):
        if "lineno" in getattr(n, "_attributes", ()):
            gast.copy_location(n, like)
            n.end_lineno, n.end_col_offset = like.lineno, like.col_offset + len(getattr(like, "id", ""))
    return stmt


# ---- names of known length or keys --------------------------------------------------------------
def _stores(tree) -> dict:
    counts: dict = {}
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def known_tuples(tree) -> dict[str, int]:
    """Names bound once, to a tuple display without ``*`` (their length is that display's)."""
    counts = _stores(tree)
    out = {}
    for n in gast.walk(tree):
        if (
            isinstance(n, gast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], gast.Name)
            and isinstance(n.value, gast.Tuple)
            and not any(isinstance(e, gast.Starred) for e in n.value.elts)
            and counts.get(n.targets[0].id) == 1
        ):
            out[n.targets[0].id] = len(n.value.elts)
    return out


_READ_ONLY = {"get", "keys", "values", "items", "copy"}


def known_dicts(tree) -> dict[str, tuple[str, ...]]:
    """Names bound once to a dict display with string keys and only read (indexed, ``.get``,
    ``.keys()``/``.values()``/``.items()``, ``**d``, ``k in d``, iterated): their keys."""
    counts = _stores(tree)
    out = {}
    for n in gast.walk(tree):
        if (
            isinstance(n, gast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], gast.Name)
            and isinstance(n.value, gast.Dict)
            and all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in n.value.keys)
            and counts.get(n.targets[0].id) == 1
        ):
            out[n.targets[0].id] = tuple(k.value for k in n.value.keys)
    if not out:
        return out
    allowed = set()  # the Name nodes used in a way that cannot change the dict
    for n in gast.walk(tree):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Load):
            allowed.add(id(n.value))
        elif isinstance(n, gast.Attribute) and n.attr in _READ_ONLY:
            allowed.add(id(n.value))
        elif isinstance(n, gast.keyword) and n.arg is None:
            allowed.add(id(n.value))
        elif isinstance(n, gast.Compare):
            allowed |= {id(c) for op, c in zip(n.ops, n.comparators) if isinstance(op, (gast.In, gast.NotIn))}
        elif isinstance(n, gast.For):
            allowed.add(id(n.iter))
        elif isinstance(n, gast.Dict):
            allowed |= {id(v) for k, v in zip(n.keys, n.values) if k is None}
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len":
            allowed |= {id(a) for a in n.args}
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in out and id(n) not in allowed:
            del out[n.id]
    return out


def spelled_get(call, dicts):
    """``d.get('k', default)`` of a dict of known keys: ``d['k']`` or ``default``; None if not that."""
    func = call.func
    if not (
        isinstance(func, gast.Attribute)
        and func.attr == "get"
        and isinstance(func.value, gast.Name)
        and func.value.id in dicts
        and not call.keywords
        and 1 <= len(call.args) <= 2
        and isinstance(call.args[0], gast.Constant)
        and isinstance(call.args[0].value, str)
    ):
        return None
    default = call.args[1] if len(call.args) == 2 else gast.Constant(value=None, kind=None)
    if call.args[0].value in dicts[func.value.id]:
        if any(isinstance(n, gast.Call) for n in gast.walk(default)):
            return None  # Python evaluates it anyway: keep the call (refused if it matters)
        return gast.Subscript(value=func.value, slice=call.args[0], ctx=gast.Load())
    return default


def spelled_keywords(call, dicts):
    """``g(x, **kw)`` with ``kw`` of known keys: ``g(x, a=kw['a'], ...)``; None when it cannot be."""
    out = []
    for k in call.keywords:
        if k.arg is not None:
            out.append(k)
        elif isinstance(k.value, gast.Name) and k.value.id in dicts:
            for key in dicts[k.value.id]:
                if not key.isidentifier():
                    return None
                item = gast.Subscript(
                    value=gast.Name(id=k.value.id, ctx=gast.Load(), annotation=None, type_comment=None),
                    slice=gast.Constant(value=key, kind=None),
                    ctx=gast.Load(),
                )
                out.append(gast.copy_location(gast.keyword(arg=key, value=item), k.value))
        else:
            return None
    names = [k.arg for k in out]
    return out if len(set(names)) == len(names) else None


# ---- derivatives of such an f: specialized per call -----------------------------------------------
def _trailing(kind: str, wrt) -> int:
    """How many positional arguments after f's own a derivative of this kind takes (seed, tangents)."""
    if kind in ("vjp", "hvp"):
        return 1
    if kind == "jvp":
        return len(wrt) if isinstance(wrt, (tuple, list)) else 1
    return 0


def dispatcher(fn, chain: list, build):
    """The derivative of ``fn`` (which takes ``*args``/``**kwargs``): ``chain`` is ``[(kind, wrt,
    verbose), ...]`` (a derivative of a derivative adds a step); ``build(fn, kind, wrt, verbose)`` is
    the API's cached generation.  Each call specializes ``fn`` to its arguments, generates (or takes
    from the cache) the derivative of that specialization, and calls it."""
    sig = inspect.signature(fn)
    typed = receiver(fn)
    kind0 = chain[-1][0]
    extra_count = sum(_trailing(kind, wrt) for kind, wrt, _ in chain)
    made: dict = {}  # (number of positional arguments, keyword names, class of self) -> (spec, derivative, ...)

    def derivative(*args, **kwargs):
        extra_count_now = extra_count
        seed = None
        if len(chain) == 1 and kind0 == "vjp" and "seed" in kwargs:
            seed, extra_count_now = kwargs.pop("seed"), 0
        if len(args) < extra_count_now:
            raise TypeError(
                f"{derivative.__name__}() takes the arguments of {fn.__qualname__}, then {extra_count_now} more"
            )
        split = len(args) - extra_count_now
        fargs, trailing = args[:split], args[split:]
        sig.bind(*fargs, **kwargs)  # TypeError as Python's call of fn would raise
        types = None
        if typed is not None and fargs:
            hidden = shadowed(fargs[0])
            if hidden is not None:
                code = fn.__code__
                raise DifferentiationError(
                    f"{code.co_filename}:{code.co_firstlineno}:1: the object passed as '{typed}' has its own "
                    f"attribute '{hidden}', which hides the method of its class {type(fargs[0]).__qualname__}; "
                    "s2sad differentiates the methods of the class: delete the attribute or rename it"
                )
            types = {typed: type(fargs[0])}
        key = (len(fargs), tuple(kwargs), types and types[typed])
        hit = made.get(key)
        if hit is not None and _valid(hit, fn):
            spec, g = hit[0], hit[1]
        else:
            spec = specialize(fn, len(fargs), list(kwargs), types)
            g = spec
            for kind, wrt, verbose in chain:
                g = build(g, kind, _wrt_of(wrt, spec, fn), verbose)
            made[key] = (spec, g, fn.__defaults__, fn.__kwdefaults__)
        derivative.__s2sad_last__ = g
        named = {spec.renamed.get(k, k): v for k, v in kwargs.items()}
        if seed is not None:
            return g(*fargs, seed, **named)
        return g(*fargs, *trailing, **named)

    derivative.__name__ = derivative.__qualname__ = f"{kind0}_{getattr(fn, '__name__', 'f')}"
    derivative.__doc__ = (
        f"The {kind0} of {fn.__qualname__}, which takes *args or **kwargs: specialized to the number of "
        "positional arguments and the keyword names of each call (s2sad.source shows the last one)."
    )
    derivative.__s2sad_dispatch__ = (fn, chain)
    return derivative


def _valid(hit, fn) -> bool:
    """A derivative made for an earlier call still is what generation would give now (as the API's cache
    checks its entries: the defaults, and every check of the guard)."""
    _, g, defaults, kwdefaults = hit
    if fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
        return False
    return all(check.ok() for check in getattr(g, "__s2sad_checks__", ()))


def _wrt_of(wrt, spec: Specialized, fn):
    """``wrt`` as the specialization names it: positions count as in Python's call; a keyword that
    went into ``**kwargs`` by its name."""
    if isinstance(wrt, (tuple, list)):
        return tuple(_wrt_of(w, spec, fn) for w in wrt)
    if isinstance(wrt, str) and wrt in spec.renamed:
        return spec.renamed[wrt]
    if isinstance(wrt, int) and not isinstance(wrt, bool):
        n = len(spec.__signature__.parameters)
        if not -n <= wrt < n:
            code = fn.__code__
            raise DifferentiationError(
                f"{code.co_filename}:{code.co_firstlineno}:1: wrt={wrt} is out of range: this call of "
                f"{fn.__qualname__} passes {n} arguments"
            )
    return wrt
