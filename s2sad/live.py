"""live: the globals generated code runs with, and the guard that re-validates what steered generation.

Generated functions read the user's names at the time they run, as the user's functions do.  Each
generated function gets a :class:`LiveGlobals` for the user function it differentiates (its
*origin*): a dict whose own entries are s2sad's names (``np``, runtime helpers, the other generated
functions) and whose ``__missing__`` reads the origin's closure cells and globals dict (CPython's
``LOAD_GLOBAL`` calls ``__missing__`` of a dict subclass).  Without closure cells ``__missing__`` is
the globals dict's own ``__getitem__``, so a user name costs one C-level lookup more than in f.

Some names decided what code was generated (a called user function whose VJP was generated, a
module of called functions, a builtin with a rule); generated code keeps using what it was made
for, so :func:`checks` lists them, and :func:`guard` wraps the entry function in a check that they
still mean the same objects (and that the origins' defaults were not replaced), raising a
:class:`DifferentiationError` that says to call s2sad again otherwise.
"""

from __future__ import annotations

import builtins
import inspect
import itertools
import linecache
import types

from .errors import DifferentiationError
from .runtime.watch import value_structure as structure

_MISSING = object()
ABSENT = _MISSING  # what an "absent" check expects: the name is not in its holder
_counter = itertools.count()


class LiveGlobals(dict):
    """Globals of generated functions: own entries are s2sad's; other names are the origin's, read live."""

    __slots__ = ()
    origin = None  # set per subclass


def live_globals(origin, own: dict) -> LiveGlobals:
    """A :class:`LiveGlobals` over ``origin``'s closure cells and globals, with ``own`` entries."""
    user = origin.__globals__
    own = {**(getattr(origin, "__s2sad_bound__", None) or {}), **own}  # a bound method's self, a partial's args
    cells = dict(zip(origin.__code__.co_freevars, origin.__closure__ or ()))
    if cells:

        def __missing__(self, key):
            cell = cells.get(key)
            if cell is None:
                return user[key]
            try:
                return cell.cell_contents
            except ValueError:
                raise NameError(f"free variable '{key}' referenced before assignment") from None

    else:
        __missing__ = user.__getitem__  # C-level: no Python frame per user name
    cls = type("LiveGlobals", (LiveGlobals,), {"__slots__": (), "__missing__": __missing__, "origin": origin})
    return cls(own)


# ---- what steered generation ----------------------------------------------------------------------
class Check:
    """``holder`` (a globals dict, a closure cell, or a function for its defaults) still gives ``expected``
    (an object of the same :func:`structure` when ``structural``: a global tuple of floats rebound to
    another tuple of floats is read when the derivative runs, as ``f`` reads it)."""

    def __init__(self, kind: str, holder, name: str, expected, origin):
        self.kind, self.holder, self.name, self.expected, self.origin = kind, holder, name, expected, origin
        self.structure = structure(expected) if kind in ("global", "cell") else None

    def current(self):
        if self.kind == "global":
            return self.holder.get(self.name, getattr(builtins, self.name, _MISSING))
        if self.kind == "cell":
            try:
                return self.holder.cell_contents
            except ValueError:
                return _MISSING
        if self.kind == "absent":
            return self.holder.get(self.name, _MISSING)
        if self.kind == "kwdefault":  # f.__kwdefaults__['k'] = 3.0: the same dict, another default
            return (self.holder.__kwdefaults__ or {}).get(self.name, _MISSING)
        if self.kind == "partial":  # a functools.partial's keywords dict
            return self.holder.get(self.name, _MISSING)
        return getattr(self.holder, self.name)

    def ok(self) -> bool:
        current = self.current()
        if self.structure is not None:
            return structure(current) == self.structure
        return current is self.expected

    @property
    def guarded(self):
        """What the guard compares with: the object, or its structure."""
        return self.expected if self.structure is None else self.structure

    def failing(self, i: int) -> str:
        """Python code over ``_s2sad_h{i}`` (holder) and ``_s2sad_o{i}`` (expected) that is true when the
        check fails (it may raise KeyError, ValueError or AttributeError instead)."""
        if self.structure is not None:
            held = f"_s2sad_h{i}[{self.name!r}]" if self.kind == "global" else f"_s2sad_h{i}.cell_contents"
            return f"_s2sad_structure({held}) != _s2sad_o{i}"
        if self.kind == "global":
            if self.expected is getattr(builtins, self.name, _MISSING) and self.name not in self.holder:
                # a builtin: fails once the module defines the name, or builtins.max = min rebinds it
                return f"({self.name!r} in _s2sad_h{i} or _s2sad_builtins.{self.name} is not _s2sad_o{i})"
            return f"_s2sad_h{i}[{self.name!r}] is not _s2sad_o{i}"
        if self.kind == "cell":
            return f"_s2sad_h{i}.cell_contents is not _s2sad_o{i}"
        if self.kind == "absent":
            return f"{self.name!r} in _s2sad_h{i}"
        if self.kind == "kwdefault":
            return f"_s2sad_h{i}.__kwdefaults__[{self.name!r}] is not _s2sad_o{i}"
        if self.kind == "partial":
            return f"_s2sad_h{i}[{self.name!r}] is not _s2sad_o{i}"
        return f"_s2sad_h{i}.{self.name} is not _s2sad_o{i}"

    def message(self, fn, kind: str) -> str:
        where = f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}:1"
        made = f"{kind}({fn.__name__})"
        if self.kind == "partial":
            return (
                f"{where}: the keyword '{self.name}' of a functools.partial of {fn.__name__} was changed "
                f"(partial.keywords[{self.name!r}] = ...) after s2sad.{kind} of the partial was made (its "
                f"derivative code was generated for the old value); call s2sad.{kind} on the partial again"
            )
        if self.kind in ("defaults", "kwdefault"):
            what = f"the defaults of {self.holder.__name__} changed"
        elif self.kind == "code":
            what = f"the code of {self.holder.__name__} changed ({self.holder.__name__}.__code__ was replaced)"
        else:
            what = f"'{self.name}' was redefined"
            if self.structure is not None:
                what += " with items of other types, shapes or integer values"
        return (
            f"{where}: {what} after {made} was made (its derivative code was generated for the old "
            f"{_OLD.get(self.kind, 'object')}); call s2sad.{made} again"
        )


_OLD = {"defaults": "defaults", "kwdefault": "defaults", "code": "code"}


class PlainCheck(Check):
    """A global or closure value a rule takes as an operand (``x * T``) is still a value whose operators are
    NumPy's or Python's (``foreign.foreign``); rebound to another such value it is read live, as f reads it."""

    def __init__(self, kind: str, holder, name: str, origin):
        super().__init__(kind, holder, name, None, origin)
        self.structure = None

    def ok(self) -> bool:
        from .foreign import foreign

        current = self.current()
        return current is _MISSING or not foreign(current)

    @property
    def guarded(self):
        from .foreign import foreign

        return foreign

    def failing(self, i: int) -> str:
        held = f"_s2sad_h{i}.get({self.name!r})" if self.kind == "global" else f"_s2sad_h{i}.cell_contents"
        return f"_s2sad_o{i}({held})"

    def message(self, fn, kind: str) -> str:
        where = f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}:1"
        return (
            f"{where}: '{self.name}' was rebound to a value whose operators are its class's own after "
            f"{kind}({fn.__name__}) was made; call s2sad.{kind}({fn.__name__}) again"
        )


def _holder(origin, name: str):
    """Where ``origin``'s code reads ``name``: ("cell", cell), ("global", dict), or None (s2sad's own,
    or a constant bound to a parameter)."""
    if name in (getattr(origin, "__s2sad_bound__", None) or {}):
        return None
    cells = dict(zip(origin.__code__.co_freevars, origin.__closure__ or ()))
    if name in cells:
        return "cell", cells[name]
    g = origin.__globals__
    if not isinstance(g, LiveGlobals) and hasattr(origin, "__s2sad_checks__"):
        return None  # generated code over a plain dict of what its own checks cover
    if isinstance(g, LiveGlobals):
        if dict.__contains__(g, name):
            return None  # fixed by s2sad when that code was generated
        return _holder(type(g).origin, name)
    return "global", g


def plain_checks(operands) -> list[Check]:
    """The :class:`PlainCheck` of each ``(origin, name)`` whose value a rule takes as an operand."""
    out = []
    for origin, name in operands:
        where = _holder(origin, name)
        if where is not None:
            out.append(PlainCheck(where[0], where[1], name, origin))
    return out


def checks(origins, steered) -> list[Check]:
    """The checks for a generated module: ``steered`` is ``[(origin, name, object)]``; ``origins``
    the user functions its code differentiates (their defaults are checked; generated origins bring
    the checks made for them)."""
    out: list[Check] = []
    seen = set()

    def add(check):
        key = (check.kind, id(check.holder), check.name)
        if key not in seen:
            seen.add(key)
            out.append(check)

    for origin, name, obj in steered:
        where = _holder(origin, name)
        if where is not None:
            add(Check(where[0], where[1], name, obj, origin))
    for origin in origins:
        inherited = getattr(origin, "__s2sad_checks__", None)
        if inherited is not None:
            for check in inherited:
                add(check)
            continue
        for attr in ("__defaults__", "__kwdefaults__"):
            if getattr(origin, attr) is not None:
                check = Check("defaults", origin, attr, getattr(origin, attr), origin)
                add(check)
        for key, value in (origin.__kwdefaults__ or {}).items():  # (a dict: changed in place too)
            add(Check("kwdefault", origin, key, value, origin))
        add(Check("code", origin, "__code__", origin.__code__, origin))  # IPython's autoreload replaces it
    return out


# ---- the guard ------------------------------------------------------------------------------------
def guard(impl, found: list[Check], fn, kind: str, arguments: bool = True):
    """``impl`` behind a check of ``found`` on every call, and (``arguments``) of its arguments' types
    (``foreign.refuse_arguments``, when one is not a float, an int or an exact ndarray: no value whose
    operators or methods are its class's own); ``impl``
    itself when there is nothing to check."""
    from .foreign import PLAIN, refuse_arguments

    if not found and not arguments:
        return impl
    sig = inspect.signature(impl)
    params, args = [], []
    star = False
    plist = list(sig.parameters.values())
    for i, p in enumerate(plist):
        if p.kind is p.VAR_POSITIONAL:
            params.append(f"*{p.name}")
            args.append(f"*{p.name}")
            star = True
        elif p.kind is p.VAR_KEYWORD:
            params.append(f"**{p.name}")
            args.append(f"**{p.name}")
        elif p.kind is p.KEYWORD_ONLY:
            if not star:
                params.append("*")
                star = True
            params.append(p.name)
            args.append(f"{p.name}={p.name}")
        else:
            params.append(p.name)
            args.append(p.name)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(plist) or plist[i + 1].kind is not p.POSITIONAL_ONLY):
            params.append("/")
    condition = " or ".join(c.failing(i) for i, c in enumerate(found))
    text = f"def {impl.__name__}({', '.join(params)}):\n"
    if found:
        text += (
            f"    try:\n"
            f"        if {condition}:\n"
            f"            _s2sad_stale()\n"
            f"    except (KeyError, ValueError, AttributeError):\n"
            f"        _s2sad_stale()\n"
        )
    names = [p.name for p in plist]
    if arguments and names:
        values = ", ".join(names) + ","
        suspect = " or ".join(f"type({n}) not in _s2sad_plain" for n in names)  # (cheap: most calls stop here)
        text += f"    if {suspect}:\n        _s2sad_refuse_arguments(({values}))\n"
    text += f"    return _s2sad_impl({', '.join(args)})\n"
    filename = f"<s2sad guard of {impl.__name__} #{next(_counter)}>"
    from .compile import GENERATED_AT

    impl_file = getattr(getattr(unwrap_checked(impl), "__code__", None), "co_filename", "")
    if impl_file in GENERATED_AT:  # refusals in its derivative name the user's function
        GENERATED_AT[filename] = GENERATED_AT[impl_file]
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)

    def stale():
        for check in found:
            if not check.ok():
                raise DifferentiationError(check.message(fn, kind))

    ns = {"__name__": "s2sad.generated", "_s2sad_impl": impl, "_s2sad_stale": stale, "_s2sad_structure": structure}
    ns["_s2sad_plain"] = PLAIN
    ns["_s2sad_refuse_arguments"] = lambda values: refuse_arguments(fn, names, values)
    ns["_s2sad_builtins"] = builtins
    for i, c in enumerate(found):
        ns[f"_s2sad_h{i}"], ns[f"_s2sad_o{i}"] = c.holder, c.guarded
    exec(compile(text, filename, "exec"), ns)  # noqa: S102
    made = ns[impl.__name__]
    wrapped = types.FunctionType(made.__code__, ns, impl.__name__, impl.__defaults__, None)
    wrapped.__kwdefaults__ = impl.__kwdefaults__
    wrapped.__qualname__ = impl.__qualname__
    wrapped.__doc__ = impl.__doc__
    return wrapped


def unwrap_checked(fn):
    """The generated derivative behind :func:`call_aliases.unaliased`'s check (or ``fn`` itself)."""
    return getattr(fn, "__s2sad_checked__", fn)
