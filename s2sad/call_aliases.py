"""The call-time check of a derivative of a function that writes into a parameter in place.

Takes the generated derivative, the names of the parameters f may write into (``x *= 2``, ``x[i] = v``,
``out=x``, helpers that write into it) and the user functions it was generated from; gives the
derivative behind a check, run at each call, that no array inside a written argument shares memory
with another array f can reach: the derivative works on a private copy of a written argument
(``copy_input``), so any other way to the same memory would not see the writes as f does.

What f can reach, walked deep (lists, tuples, dicts, sets, dataclass / NamedTuple / object attributes,
bound methods, ``functools.partial``), once per call with a visited set and at most ``_LIMIT`` objects:
the other entries of the written argument itself (``f([z, z])``), the other arguments (``self.w``
passed as ``x``), and the globals, closure cells and defaults that f, its differentiated callees and
every user function reachable from their namespaces read (``GO.w``, a helper returning a global).
Modules, classes from outside user code and functions are not walked as data, but user functions'
namespaces and user classes' attributes are.  A derivative of a function that writes into no
parameter gets no check.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types

import numpy as np

from .errors import DifferentiationError
from .parse import unwrap

_LIMIT = 10000  # objects walked per call at most
_SKIP = (str, bytes, int, float, complex, bool, type(None), np.generic, np.dtype, types.ModuleType, range)


def _user(obj) -> bool:
    module = (getattr(obj, "__module__", "") or "").split(".")[0]
    return module not in ("numpy", "s2sad", "math", "builtins", "scipy", "typing", "abc", "enum", "collections")


_NAMES: dict[int, tuple] = {}  # id(code) -> (code, its names): hashing a code object is slow


def _read_names(code) -> tuple[str, ...]:
    """The global names a code object (and the code nested in it) reads."""
    hit = _NAMES.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    codes, out = [code], {}
    while codes:
        c = codes.pop()
        codes += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        out.update(dict.fromkeys(c.co_names))
    _NAMES[id(code)] = (code, tuple(out))
    return _NAMES[id(code)][1]


class _Walk:
    """The arrays reachable from some roots, each with a description of how it was reached."""

    def __init__(self):
        self.seen: set[int] = set()
        self.functions: set[int] = set()  # whose namespaces were walked
        self.found: list[tuple[str, np.ndarray]] = []
        self.count = 0
        self.truncated = False
        self.root = None  # f: its globals are named without "(read by ...)"
        self.data_only = False  # a written argument: its own arrays, not what its methods read

    def value(self, v, what, desc=None):
        """Walk ``v``, reached by the path ``what`` (``GO.w``) from a root ``desc`` names (see ``_label``)."""
        if isinstance(v, np.ndarray):  # the same array by two paths counts twice (``[z, z]``)
            if v.dtype != object:
                self.found.append(((desc, what), v))
                return
        if isinstance(v, _SKIP) or id(v) in self.seen:
            return
        if self.count >= _LIMIT:
            self.truncated = True  # not proved unshared: check() refuses
            return
        self.seen.add(id(v))
        self.count += 1
        if isinstance(v, np.ndarray):  # an object array: its items
            for i, item in enumerate(v.flat):
                self.value(item, f"{what}.flat[{i}]", desc)
        elif isinstance(v, (list, tuple)):
            for i, item in enumerate(v):
                self.value(item, f"{what}[{i}]", desc)
        elif isinstance(v, dict):
            for k, item in list(v.items()):
                self.value(item, f"{what}[{k!r}]", desc)
        elif isinstance(v, (set, frozenset)):
            for item in list(v):
                self.value(item, what, desc)
        elif isinstance(v, types.FunctionType):
            if not self.data_only:
                self.function(v)
        elif isinstance(v, types.MethodType):
            self.value(v.__func__, what, desc)
            self.value(v.__self__, what, desc)
        elif isinstance(v, functools.partial):
            self.value(v.func, what, desc)
            self.value(v.args, what, desc)
            self.value(v.keywords, what, desc)
        elif isinstance(v, type):
            if _user(v) and not self.data_only:  # a user class: its methods' namespaces and its class attributes
                for k, item in list(vars(v).items()):
                    if not (k.startswith("__") and k.endswith("__")):
                        self.value(item, f"{v.__qualname__}.{k}", desc)
        elif isinstance(v, (staticmethod, classmethod)):
            self.value(v.__func__, what, desc)
        elif isinstance(v, property):
            for part in (v.fget, v.fset):
                self.value(part, what, desc)
        elif _user(type(v)):  # an object: its attributes (``__dict__``, ``__slots__``), and its class
            fields = getattr(v, "__dict__", None)
            if isinstance(fields, dict):
                for k, item in list(fields.items()):
                    self.value(item, f"{what}.{k}", desc)
            for cls in type(v).__mro__:
                slots = vars(cls).get("__slots__", ())
                for k in (slots,) if isinstance(slots, str) else slots:
                    if hasattr(v, k):
                        self.value(getattr(v, k), f"{what}.{k}", desc)
            if dataclasses.is_dataclass(v) and not isinstance(fields, dict):
                for fld in dataclasses.fields(v):
                    self.value(getattr(v, fld.name, None), f"{what}.{fld.name}", desc)
            self.value(type(v), what, desc)

    def function(self, fn):
        """A user function: the globals, closure cells and defaults it reads (not the function itself)."""
        if id(fn) in self.functions or not _user(fn):
            return
        self.functions.add(id(fn))
        inner = getattr(fn, "__wrapped__", None)  # a decorated function: the one it wraps, too
        if inner is not None:
            self.value(inner, "", None)
        by = None if fn is self.root else fn
        scope = fn.__globals__
        for n in _read_names(fn.__code__):
            if n in scope:
                self.value(scope[n], n, ("the global", n, by))
        for n, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                self.value(cell.cell_contents, n, ("the closure variable", n, by))
            except ValueError:  # an empty cell
                pass
        for d in (fn.__defaults__ or ()) + tuple((fn.__kwdefaults__ or {}).values()):
            self.value(d, "default", ("a default argument", None, by))
        # a bound method's self, a classmethod's class, a callable instance, a partial's arguments
        for n, v in (getattr(fn, "__s2sad_bound__", None) or {}).items():
            self.value(v, n, ("the bound argument", n, by))


def _label(reached) -> str:
    """How an array was reached, for messages: ``self.w``, "the global 'GO' (GO.w)", "a default
    argument (read by helper)"."""
    desc, what = reached
    if desc is None:
        return what
    kind, root, by = desc
    text = f"{kind} '{root}'" if root is not None else kind
    if by is not None:
        text += f" (read by {by.__qualname__})"
    return text if root is None or what == root else f"{text} ({what})"


def _share(a, b) -> bool:
    return np.may_share_memory(a, b) and np.shares_memory(a, b)


def _error(fn, p, text):
    code = fn.__code__
    name = fn.__qualname__
    return DifferentiationError(
        f"{code.co_filename}:{code.co_firstlineno}:1: {text}, and {name} writes into '{p}': its derivative "
        "works on a private copy, which would not share that memory; pass a copy (np.copy) or change "
        f"{name} to build new arrays"
    )


def check(bound: dict, written, fn, functions) -> None:
    """Refuse (``DifferentiationError`` at f's line) when an array inside a written argument shares
    memory with another array f can reach."""
    name = fn.__qualname__
    reached, walks = {}, []
    for p in written:
        if p in bound:
            own = _Walk()
            walks.append(own)
            own.data_only = True
            own.value(bound[p], p)
            if own.found:
                reached[p] = own.found
    if not reached:  # (a written number, a list of numbers)
        return
    for q, value in bound.items():
        if q not in reached:
            other = _Walk()
            walks.append(other)
            other.value(value, q)
            reached[q] = other.found
    outer = _Walk()
    outer.root = fn
    for g in functions:
        outer.function(g)
    if outer.truncated or any(w.truncated for w in walks):
        p = next(iter(reached))
        raise _error(fn, p, f"{name} can reach more than {_LIMIT} objects, too many to check for memory '{p}' shares")
    for p in written:
        mine = reached.get(p, ())
        for i, (wa, a) in enumerate(mine):  # entries of the argument itself
            for wb, b in mine[i + 1 :]:
                if _share(a, b):
                    raise _error(fn, p, f"{_label(wa)} and {_label(wb)} in the argument '{p}' of {name} share memory")
        if mine:
            for q, found in reached.items():
                if q != p:
                    _compare(fn, p, mine, found, q)
            _compare(fn, p, mine, outer.found, None)


def _compare(fn, p, mine, found, q):
    for wa, a in mine:
        for wb, b in found:
            if _share(a, b):
                inside = "" if _label(wa) == p else f" ({_label(wa)})"
                if q is not None:
                    there = "" if _label(wb) == q else f" ({_label(wb)})"
                    text = f"the arguments '{p}'{inside} and '{q}'{there} of {fn.__qualname__} share memory"
                else:
                    text = (
                        f"the argument '{p}'{inside} of {fn.__qualname__} shares memory with {_label(wb)}, "
                        f"which {fn.__qualname__} reads"
                    )
                raise _error(fn, p, text)


def unaliased(deriv, written: set, fn, origins=()):
    """``deriv`` behind the check of :func:`check` at each call."""
    sig = inspect.signature(deriv)
    functions = [fn] + [unwrap(o) for o in origins if isinstance(unwrap(o), types.FunctionType) and unwrap(o) is not fn]

    kinds = [p.kind for p in sig.parameters.values()]
    simple = all(k in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY) for k in kinds)
    positional = [p.name for p in sig.parameters.values() if p.kind is not inspect.Parameter.KEYWORD_ONLY]

    def checked(*args, **kwargs):
        if simple and len(args) <= len(positional):  # (inspect's bind costs more than the check)
            check({**dict(zip(positional, args)), **kwargs}, written, fn, functions)
            return deriv(*args, **kwargs)
        try:
            bound = sig.bind_partial(*args, **kwargs).arguments
        except TypeError:  # the derivative reports its own wrong call
            return deriv(*args, **kwargs)
        extra = {}
        for k, v in bound.items():  # **kwargs: each entry is an argument of its own
            if sig.parameters[k].kind is inspect.Parameter.VAR_KEYWORD:
                extra.update(v)
            elif sig.parameters[k].kind is inspect.Parameter.VAR_POSITIONAL:
                extra.update({f"{k}[{i}]": item for i, item in enumerate(v)})
            else:
                extra[k] = v
        check(extra, written, fn, functions)
        return deriv(*args, **kwargs)

    checked.__name__, checked.__qualname__, checked.__doc__ = deriv.__name__, deriv.__qualname__, deriv.__doc__
    checked.__signature__ = sig
    checked.__s2sad_checked__ = deriv
    return checked
