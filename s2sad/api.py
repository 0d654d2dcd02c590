"""The public API: grad, value_and_grad, vjp, source (and the decorator forms).

Each call generates (or takes from the cache) a module of derivative code and returns the plain
Python function it defines; ``source(fn)`` gives that module's text.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import gast
import numpy as np

from . import codegen, live, star
from .call_aliases import unaliased
from .callables import FunctionLike, base_name, bound_checks, method_checks, normalize
from .compile import load
from .errors import DifferentiationError
from .ir import MUTATORS
from .param_writes import param_writes
from .parse import unwrap
from .pipeline import derive, derive_composite, param_names

Wrt = int | str | Sequence[int | str]

_CACHE: dict = {}


def _wrt_names(fn, wrt: Wrt) -> tuple[tuple[str, ...], bool]:
    """Normalize ``wrt`` (index, name, or a tuple of them) to parameter names; says if it was a tuple."""
    params = param_names(fn)
    many = isinstance(wrt, (tuple, list))
    items = list(wrt) if many else [wrt]
    out = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool):
            if not -len(params) <= w < len(params):
                raise DifferentiationError(f"wrt={w} is out of range: {fn.__qualname__} has parameters {params}")
            out.append(params[w])
        elif isinstance(w, str):
            if w not in params:
                raise DifferentiationError(
                    f"wrt='{w}' is not a parameter of {fn.__qualname__}; its parameters are {params}"
                )
            out.append(w)
        else:
            raise DifferentiationError(f"wrt must be a parameter index or name, or a tuple of them; got {w!r}")
    if len(set(out)) != len(out):
        raise DifferentiationError(f"wrt names a parameter twice: {out}")
    return tuple(out), many


def _key(fn):
    """What a generated module is bound to: the code, the globals dict and the closure cells it reads
    (by identity: generated code reads their current contents)."""
    holders = tuple(id(h) for h, _, _ in bound_checks(fn)[0])  # the dicts its checks read
    fn = unwrap(fn)
    cells = tuple(id(c) for c in fn.__closure__ or ())
    bound = tuple((k, id(v)) for k, v in (getattr(fn, "__s2sad_bound__", None) or {}).items())
    return (fn.__code__, id(fn.__globals__), cells, bound, getattr(fn, "__s2sad_spec__", None), holders)


def _function_name(kind: str, fn, wrt: tuple[str, ...]) -> str:
    base = base_name(fn)
    if kind.startswith("jacobian"):
        return f"jacobian_{base}"
    if kind in ("grad", "value_and_grad"):
        name = f"d{base}_" + "_".join(f"d{w}" for w in wrt)
        return name if kind == "grad" else f"{base}_and_{name}"
    return f"{kind}_{base}"


@contextlib.contextmanager
def _no_gc():
    """Generation makes many short-lived tree nodes and no cycles worth collecting: the cyclic
    collector would only rescan the process's objects again and again (15-20% of generation time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _build(fn, kind: str, wrt: Wrt, verbose: bool):
    fn = getattr(fn, "__s2sad_keywords_win__", fn)  # a partial's derivative: differentiated as generated
    dispatch = getattr(fn, "__s2sad_dispatch__", None)
    if dispatch is not None:  # a derivative of a function with *args/**kwargs: one more step per call
        return star.dispatcher(dispatch[0], [*dispatch[1], (kind, wrt, verbose)], _build)
    arrays = getattr(fn, "__s2sad_arrays__", None)
    if arrays is not None:  # a derivative of W.dot(x) code: each of its two derivatives again
        plain, dispatched, positions = arrays
        return _arrays_or_objects(_build(plain, kind, wrt, verbose), _build(dispatched, kind, wrt, verbose), positions)
    if isinstance(fn, functools.partial) and fn.keywords:
        return _keywords_win(fn, _build_normalized(normalize(fn), kind, wrt, verbose), kind, wrt, verbose)
    return _build_normalized(normalize(fn), kind, wrt, verbose)


def _keywords_win(p, derivative, kind: str, wrt: Wrt, verbose: bool):
    """The derivative of the partial ``p`` whose calls may give again a keyword ``p`` binds: as in Python,
    the call's value wins (``s2sad.grad(p)(x, c=1.0)`` is the derivative of ``partial(p, c=1.0)``, made
    once per value given)."""
    bound = {key for _, key, _ in getattr(normalize(p), "partial_keywords", ())}
    made = {}  # ((name, id(value)), ...) -> (values, derivative)

    def call(*args, **kwargs):
        given = {k: kwargs.pop(k) for k in list(kwargs) if k in bound}
        if not given:
            return derivative(*args, **kwargs)
        key = tuple(sorted((k, id(v)) for k, v in given.items()))
        if key not in made:
            if len(made) > 32:
                made.clear()
            made[key] = (given, _build(functools.partial(p, **given), kind, wrt, verbose))
        return made[key][1](*args, **kwargs)

    functools.update_wrapper(call, derivative)
    del call.__wrapped__
    call.__signature__ = inspect.signature(derivative)
    call.__s2sad_keywords_win__ = derivative
    return call


def _build_normalized(fn, kind: str, wrt: Wrt, verbose: bool):
    if star.takes_star(fn) or star.receivers(fn):  # specialized to the arguments of each call
        if not star.takes_star(fn):
            _wrt_names(fn, wrt)  # refused now, as for any function
            if set(star.receivers(fn)) <= star.array_receivers(fn):  # W.dot(x): arrays get the plain one
                dispatched = star.dispatcher(fn, [(kind, wrt, verbose)], _build)
                params = list(inspect.signature(fn).parameters.values())
                positions = [(i, p.name, p.default) for i, p in enumerate(params) if p.name in star.receivers(fn)]
                return _arrays_or_objects(_build_plain(fn, kind, wrt, verbose), dispatched, positions)
        return star.dispatcher(fn, [(kind, wrt, verbose)], _build)
    return _build_plain(fn, kind, wrt, verbose)


_ARRAYS = (np.ndarray, np.generic, float, int, complex)


def _arrays_or_objects(plain, dispatched, positions):
    """The derivative of a function calling NumPy's method names on a parameter (``W.dot(x)``): the plain
    one (what ``source`` and the command line show) when those arguments are arrays or numbers, the one
    specialized to their classes otherwise (``model.sum(x)`` of a user object)."""

    def derivative(*args, **kwargs):
        for i, name, default in positions:
            value = args[i] if i < len(args) else kwargs.get(name, default)
            if not isinstance(value, _ARRAYS):
                return dispatched(*args, **kwargs)
        return plain(*args, **kwargs)

    functools.update_wrapper(derivative, plain)
    del derivative.__wrapped__  # (it is not a transparent wrapper: parse must not follow it)
    derivative.__signature__ = inspect.signature(plain)
    derivative.__s2sad_arrays__ = (plain, dispatched, positions)
    return derivative


def _build_plain(fn, kind: str, wrt: Wrt, verbose: bool):
    names, many = _wrt_names(fn, wrt)
    key = (_key(fn), names, many, kind)
    hit = _CACHE.get(key)
    inner = unwrap(fn)
    if hit is not None and _still_valid(hit, inner):
        result = hit[0]
    else:
        with _no_gc():
            result = _generate(fn, kind, names, many)
        # the cache holds what the key names by id, so the ids stay taken
        kw = inner.__kwdefaults__
        _CACHE[key] = (result, inner, inner.__defaults__, None if kw is None else dict(kw))
    if verbose:
        print(result.__s2sad_source__)
    return result


def _still_valid(hit, fn) -> bool:
    result, _, defaults, kwdefaults = hit
    if fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
        return False  # (a keyword default changed in place: its "kwdefault" check)
    return all(check.ok() for check in result.__s2sad_checks__)


def _generate(fn, kind: str, names: tuple[str, ...], many: bool):
    """The compiled derivative function, behind a guard of what steered its generation."""
    fname = _function_name(kind, fn, names)
    if kind in ("hessian", "jacobian", "jacobian_forward", "jacobian_reverse"):
        _refuse_effects(fn, kind)
    if kind in ("grad", "value_and_grad", "vjp", "jvp"):
        gen = derive(fn, names, kind, fname, as_tuple=many)
    elif kind in ("hessian", "hvp"):
        if many and kind == "hessian":  # JAX's layout: ((d2f/dx dx, d2f/dx dy), (d2f/dy dx, d2f/dy dy))
            gradient = _build(fn, "grad", names, False)
            gen = derive_composite(gradient, names, "jacobian_forward", fname, as_tuple=True, signature_of=fn)
        elif many:
            raise DifferentiationError(f"{kind} takes one argument in wrt; got {names}")
        elif kind == "hessian" and getattr(fn, "__s2sad_source__", None) is not None:
            # a generated derivative (a Hessian, a Jacobian, a gradient) may return an array: JAX's
            # definition, the forward Jacobian of the reverse Jacobian (out.shape + x.shape + x.shape)
            rows = _build(fn, "jacobian_reverse", names[0], False)
            gen = derive_composite(rows, names, "jacobian_forward", fname, signature_of=fn)
        else:
            gradient = _build(fn, "grad", names[0], False)
            gen = derive_composite(gradient, names, kind, fname, signature_of=fn)
    else:
        gen = derive_composite(fn, names, kind, fname, as_tuple=many)
    text = codegen.module_source(gen.functions)  # with source-map comments
    module = load(text, gen.namespace, f"{fname} of {fn.__qualname__}", gen.origins)
    impl = module[fname]
    for name, (origin, _) in gen.origins.items():  # Model.loss: the class of ``self``, for differentiating again
        if getattr(origin, "__s2sad_types__", None) and name in module:
            module[name].__s2sad_types__ = origin.__s2sad_types__
    origins = [origin for origin, _ in gen.origins.values()]
    steered = [(o, n, obj) for o, ns in gen.origins.values() if ns is not None for n, obj in ns.steered.items()]
    found = live.checks(origins, steered)
    pinned = {(id(c.holder), c.name) for c in found}
    operands = [(o, n) for o, ns in gen.origins.values() if ns is not None for n in ns.operands]
    found += [c for c in live.plain_checks(operands) if (id(c.holder), c.name) not in pinned]
    found += method_checks(ns for _, ns in gen.origins.values() if ns is not None)
    keywords, calls = bound_checks(fn)
    for holder, key, value in keywords:  # p.keywords['y'] = 5.0 later
        found.append(live.Check("partial", holder, key, value, unwrap(fn)))
    for check, holder, key, value in calls:  # C.__call__ = g later: grad(c) is stale
        found.append(live.Check(check, holder, key, value, unwrap(fn)))
    result = live.guard(impl, found, unwrap(fn), kind)
    written = _written_params(fn, param_names(fn)) | set(param_writes(_python_function(unwrap(fn))))  # (helpers)
    if written:
        result = unaliased(result, written, unwrap(fn), origins)
    if kind == "vjp":  # (after the check, which binds the seed by name)
        result = _seed_last(result, gen.seed, param_names(fn))
    if kind == "jvp":
        result = _tangents_last(_tangents_shaped(result, names, param_names(fn)), param_names(fn))
    if kind == "hvp":  # the vector has its argument's shape, as a tangent
        result = _tangents_shaped(result, names, param_names(fn))
    for f in {impl, result}:
        f.__s2sad_source__ = text
        f.__s2sad_impl__ = impl
        f.__s2sad_checks__ = found
        f.__s2sad_origins__ = origins
        f.__s2sad_module__ = module
        f.__wrapped_function__ = fn
        f._repr_html_ = functools.partial(codegen.to_html, text)  # IPython shows the source
    if getattr(impl, "__s2sad_types__", None):  # hessian(grad(m.loss)) differentiates the guard's call
        result.__s2sad_types__ = impl.__s2sad_types__
    return result


def _refuse_effects(fn, kind):
    """A Jacobian or Hessian runs f's derivative once per column: refuse f when a run may draw other random
    numbers or change state the next run reads (``effects.function_effect``)."""
    from .effects import function_effect, method_change

    inner = _python_function(unwrap(fn))
    if getattr(inner, "__module__", None) == "s2sad.generated":  # (f itself was checked: its stacks are its own)
        return
    objects = getattr(getattr(fn, "__s2sad_types__", None), "objects", None)  # (the call's: obj.f is D.f)
    found = function_effect(inner, objects=objects) if inspect.isfunction(inner) else None
    if found is None and objects and inspect.isfunction(inner):  # c.tick() changing the argument c's state
        found = method_change(inner, objects)
    if found is None:
        return
    line, why, col = found
    raise DifferentiationError(
        f"{inner.__code__.co_filename}:{line}:{col}: {inner.__name__} has side effects ({why}), and {kind} runs "
        "its derivative once per column: each column would see other random numbers or another state; draw the "
        "random numbers in f from a generator it makes (`rng = np.random.default_rng(seed)`) or pass them in as "
        "an argument (grad, vjp and jvp run f once)"
    )


def _python_function(fn):
    """The Python function a bound method, partial or specialized function stands for (its source is
    that function's): its parameters include the bound ones, which no call binds."""
    while isinstance(fn, FunctionLike):
        fn = fn.function
    return fn


def _written_params(fn, params) -> set:
    """The parameters whose memory f may write into (``x += v``, ``x[i] = v``, ``x.append(v)``,
    also through a local name given ``x`` or a slice of it), read from f's own code."""
    from .parse import parse_function

    tree = parse_function(fn).tree
    root = {p: p for p in params}  # name -> the parameter whose memory it may hold

    def base(node):
        while isinstance(node, (gast.Subscript, gast.Attribute)):
            node = node.value
        return root.get(node.id) if isinstance(node, gast.Name) else None

    out = set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            r = base(node.value) if isinstance(node.value, (gast.Name, gast.Subscript, gast.Attribute)) else None
            if r is not None:
                root[node.targets[0].id] = r
        targets = (
            node.targets if isinstance(node, gast.Assign) else [node.target] if isinstance(node, gast.AugAssign) else []
        )
        for t in targets:
            if isinstance(t, gast.Subscript) or isinstance(node, gast.AugAssign):
                r = base(t)
                if r is not None:
                    out.add(r)
        for k in node.keywords if isinstance(node, gast.Call) else ():
            if k.arg == "out":  # np.f(..., out=x) writes into x
                outs = k.value.elts if isinstance(k.value, gast.Tuple) else [k.value]
                out.update(r for r in map(base, outs) if r is not None)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            r = base(node.func.value)
            if r is not None and node.func.attr in MUTATORS:
                out.add(r)
    return out


def _seed_last(vjp_fn, seed: str, params):
    """``vjp(f)(*args, seed)``: the seed is the last positional argument, or ``seed=``, or its own name
    (``bout=``), also when ``f`` has defaults or keyword-only parameters, which make the generated seed
    keyword-only.  When ``f`` has a parameter named ``seed``, ``seed=`` is that parameter's: the seed is
    then given last or by its own name."""
    sig = inspect.signature(vjp_fn)
    keyword_only = sig.parameters[seed].kind is inspect.Parameter.KEYWORD_ONLY
    alias = "seed" if "seed" not in params and seed != "seed" else None
    if not keyword_only and alias is None:
        return vjp_fn

    def vjp_entry(*args, **kwargs):
        if alias is not None and alias in kwargs:
            if seed in kwargs:
                raise TypeError(f"{vjp_fn.__name__}() got the seed twice (seed= and {seed}=)")
            kwargs[seed] = kwargs.pop(alias)
        elif keyword_only and seed not in kwargs:
            if not args:
                raise TypeError(f"{vjp_fn.__name__}() needs the seed (shaped like the output) as its last argument")
            *args, kwargs[seed] = args
        return vjp_fn(*args, **kwargs)

    vjp_entry.__name__ = vjp_fn.__name__
    vjp_entry.__qualname__ = vjp_fn.__qualname__
    vjp_entry.__doc__ = vjp_fn.__doc__
    vjp_entry.__signature__ = sig
    return vjp_entry


def _shapes(v):
    """The structure and leaf shapes of a value (a pytree): what a tangent must share with its primal."""
    from .runtime.trees import _items, is_tree

    if is_tree(v):
        items = _items(v)
        if isinstance(v, dict):  # (any key order, any dict class)
            return ("dict", tuple(sorted(((repr(k), _shapes(x)) for k, x in items.items()), key=lambda p: p[0])))
        kind = "sequence" if type(v) in (list, tuple) else type(v).__name__
        keys = list(items) if isinstance(items, dict) else range(len(items))
        return (kind, tuple((k, _shapes(items[k])) for k in keys))
    return np.shape(v)


def _tangents_shaped(jvp_fn, wrt, params):
    """``jvp(f)(x, dx)`` refuses a tangent whose shape (or pytree structure) is not its primal's: NumPy
    would broadcast it and the product would be a number of no meaning (JAX refuses it too)."""
    sig = inspect.signature(jvp_fn)
    tangents = [n for n in sig.parameters if n not in params]
    pairs = list(zip(wrt, tangents))

    def jvp_checked(*args, **kwargs):
        try:
            given = sig.bind(*args, **kwargs).arguments
        except TypeError:
            return jvp_fn(*args, **kwargs)  # (Python's own message)
        for primal, tangent in pairs:
            if primal in given and tangent in given and _shapes(given[primal]) != _shapes(given[tangent]):
                from .runtime.trees import _shown

                raise DifferentiationError(
                    f"{jvp_fn.__name__}: the tangent {tangent} is {_shown(given[tangent])}, but {primal} "
                    f"is {_shown(given[primal])}; a tangent has its argument's shape"
                )
        return jvp_fn(*args, **kwargs)

    functools.update_wrapper(jvp_checked, jvp_fn)
    del jvp_checked.__wrapped__
    jvp_checked.__signature__ = sig
    return jvp_checked


def _tangents_last(jvp_fn, params):
    """``jvp(f)(*args, *tangents)``: the tangents are the last positional arguments, also when ``f`` has
    defaults, which the generated function puts after its tangents (``jvp_g(x, dx, a=2.0)``: a call
    ``(x, 3.0, dx)`` took 3.0 for the tangent and dx for ``a``)."""
    sig = inspect.signature(jvp_fn)
    names = list(sig.parameters)
    tangents = [n for n in names if n not in params]
    if not tangents or all(n in tangents for n in names[names.index(tangents[0]) :]):
        return jvp_fn  # the tangents are last already
    if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in sig.parameters.values()):
        return jvp_fn
    keyword_only = inspect.Parameter.KEYWORD_ONLY
    positional = [n for n in names if n not in tangents and sig.parameters[n].kind is not keyword_only]
    k = len(tangents)

    def jvp_entry(*args, **kwargs):
        if any(t in kwargs for t in tangents):
            given = dict(zip(positional, args))
        else:
            if len(args) < k:
                raise TypeError(f"{jvp_fn.__name__}() needs the tangents as its last {k} positional argument(s)")
            given = dict(zip(positional, args[: len(args) - k]))
            given.update(zip(tangents, args[len(args) - k :]))
            if len(args) - k > len(positional):
                raise TypeError(f"{jvp_fn.__name__}() takes {len(positional)} arguments and {k} tangent(s)")
        return jvp_fn(**given, **kwargs)

    jvp_entry.__name__ = jvp_fn.__name__
    jvp_entry.__qualname__ = jvp_fn.__qualname__
    jvp_entry.__doc__ = jvp_fn.__doc__
    jvp_entry.__signature__ = sig
    return jvp_entry


def _entry(kind: str, doc: str):
    def entry(fn: Callable | None = None, wrt: Wrt = 0, *, verbose: bool = False) -> Callable[..., Any]:
        if fn is None:
            return functools.partial(entry, wrt=wrt, verbose=verbose)
        if not callable(fn):
            raise DifferentiationError(f"{kind} expects a function; got {type(fn).__name__}")
        return _build(fn, kind, wrt, verbose)

    entry.__name__ = entry.__qualname__ = kind
    entry.__doc__ = doc
    return entry


grad = _entry(
    "grad",
    """Gradient of a scalar function with respect to ``wrt`` (indices or names; a tuple gives a tuple).

``grad(f)(x, y)`` returns df/dx shaped like ``x``; ``grad(f, wrt=(0, 1))`` returns ``(df/dx, df/dy)``.
Works as ``@grad`` and ``@grad(wrt=...)``.  The result is a generated Python function: see ``source``.
""",
)

value_and_grad = _entry("value_and_grad", """Like ``grad``, returning ``(f(*args), gradient)`` from one sweep.""")

vjp = _entry("vjp", """Vector-Jacobian product: ``vjp(f)(*args, seed)`` with ``seed`` shaped like f's output.""")

jvp = _entry(
    "jvp",
    """Forward mode: ``jvp(f, wrt)(*args, *tangents)`` returns ``(f(*args), J @ tangents)``.

One tangent per ``wrt`` argument, shaped like it, after the arguments (keyword arguments
``d<name>=`` when ``f`` has default or keyword-only parameters).
""",
)


def source(fn: Callable) -> str:
    """The source text of the module that defines a function made by s2sad."""
    text = getattr(fn, "__s2sad_source__", None)
    if text is None and getattr(fn, "__s2sad_dispatch__", None) is not None:
        last = getattr(fn, "__s2sad_last__", None)
        if last is None:
            origin = unwrap(fn.__s2sad_dispatch__[0])
            code = getattr(origin, "__code__", None)
            where = f"{code.co_filename}:{code.co_firstlineno}:1: " if code is not None else ""
            raise DifferentiationError(
                f"{where}{fn.__qualname__} is generated for each call's number of arguments and keyword names "
                "(its function takes *args or **kwargs, or calls methods of an argument): call it once, "
                "then s2sad.source shows the code for that call's arguments"
            )
        text = last.__s2sad_source__
    if text is None:
        raise DifferentiationError(f"{getattr(fn, '__qualname__', fn)!r} was not generated by s2sad")
    return text


def jacobian(
    fn: Callable | None = None, wrt: Wrt = 0, *, mode: str | None = None, verbose: bool = False
) -> Callable[..., Any]:
    """The Jacobian ``d f(*args) / d args[wrt]``, shaped ``out.shape + arg.shape`` (a tuple for a tuple ``wrt``).

    ``mode="forward"`` builds it from one JVP per input element, ``"reverse"`` from one VJP per output
    element; by default the generated function picks the cheaper one at run time.
    """
    if fn is None:
        return functools.partial(jacobian, wrt=wrt, mode=mode, verbose=verbose)
    if mode not in (None, "forward", "reverse"):
        raise DifferentiationError(f"jacobian mode must be 'forward' or 'reverse'; got {mode!r}")
    kind = "jacobian" if mode is None else f"jacobian_{mode}"
    return _build(_checked(fn, "jacobian"), kind, wrt, verbose)


def hessian(fn: Callable | None = None, wrt: Wrt = 0, *, verbose: bool = False) -> Callable[..., Any]:
    """The Hessian of a scalar function w.r.t. one argument, shaped ``x.shape + x.shape``:
    forward mode over the generated reverse-mode gradient."""
    if fn is None:
        return functools.partial(hessian, wrt=wrt, verbose=verbose)
    return _build(_checked(fn, "hessian"), "hessian", wrt, verbose)


def hvp(fn: Callable | None = None, wrt: Wrt = 0, *, verbose: bool = False) -> Callable[..., Any]:
    """Hessian-vector product ``hvp(f)(*args, v)`` without forming the Hessian (forward over reverse)."""
    if fn is None:
        return functools.partial(hvp, wrt=wrt, verbose=verbose)
    return _build(_checked(fn, "hvp"), "hvp", wrt, verbose)


def _checked(fn, kind):
    if not callable(fn):
        raise DifferentiationError(f"{kind} expects a function; got {type(fn).__name__}")
    return fn
