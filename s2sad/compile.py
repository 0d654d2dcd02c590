"""compile: generated source -> live functions, registered in ``linecache`` so tracebacks and
``inspect.getsource`` show the generated lines (which is also what lets s2sad differentiate its
own output).

Takes the module text, s2sad's own names for it (what its imports give, and any extra objects the
pipeline puts in), and per generated function its *origin* (the user function it differentiates,
with that function's :class:`~s2sad.resolve.Namespace`).  Gives the module's functions, each with a
:class:`~s2sad.live.LiveGlobals` over its origin (see ``live``): user names are read when they run.
A function whose origin reads no values (only functions and modules whose identity steered
generation, which the guard re-validates on every call) gets a plain dict of them instead:
CPython specializes global reads only for exact dicts.
Default arguments are the origin's own default objects (not the default expressions evaluated again).
"""

from __future__ import annotations

import ast
import builtins
import itertools
import linecache
import types

from .errors import DifferentiationError
from .live import live_globals, structure

_counter = itertools.count()
GENERATED_FROM: dict[str, str] = {}  # generated module's file name -> the user's file it derives
GENERATED_AT: dict[str, str] = {}  # generated module's (or guard's) file name -> the user's ``file:line`` of its origin


def load(source: str, namespace: dict, label: str, origins: dict | None = None) -> dict:
    """Execute ``source`` as a module; give its namespace.  ``label`` names the file in tracebacks.

    ``origins``: generated function name -> (user function, its Namespace or None).  Without it the
    module's functions run over ``namespace`` alone (a plain module)."""
    filename = f"<s2sad {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    tree = ast.parse(source, filename)
    default_nodes = _strip_defaults(tree) if origins else {}
    for origin, _ in (origins or {}).values():  # for refusals while differentiating this code again
        code = getattr(origin, "__code__", None)
        if code is not None and not code.co_filename.startswith("<s2sad"):
            GENERATED_FROM.setdefault(filename, code.co_filename)
            GENERATED_AT.setdefault(filename, f"{code.co_filename}:{code.co_firstlineno}")
        elif code is not None and code.co_filename in GENERATED_AT:  # a derivative of a derivative
            GENERATED_AT.setdefault(filename, GENERATED_AT[code.co_filename])
    base = dict(namespace)
    base["__name__"] = "s2sad.generated"
    base["__file__"] = filename
    exec(compile(tree, filename, "exec"), base)  # noqa: S102 - this is the product
    if not origins:
        return base
    own = {k: v for k, v in base.items() if k != "__builtins__"}
    made: dict[str, types.FunctionType] = {}
    spaces: dict[int, dict] = {}
    for name, (origin, ns) in origins.items():
        _check_names(origin, ns, own)
        key = (id(origin), ns is None)  # wrappers (no namespace) pin names of their own
        space = spaces.get(key)
        if space is None:
            pinned = {k for k, v in ns.steered.items() if structure(v) is None} if ns is not None else set()
            if ns is not None and not ns.free <= pinned:  # (a tuple of floats is read live: structure)
                space = live_globals(origin, own)  # it reads values: live
            else:  # it reads only names the guard re-validates on every call: a plain, faster dict
                space = {**(ns.used if ns is not None else {}), **own}
            space["__builtins__"] = getattr(origin, "__builtins__", builtins.__dict__)
            spaces[key] = space
        old = base[name]
        _pin_builtins(space, old.__code__, ns.free if ns is not None else set())
        new = types.FunctionType(old.__code__, space, name, None, None)
        new.__qualname__ = old.__qualname__
        new.__doc__ = old.__doc__
        new.__defaults__, new.__kwdefaults__ = _defaults(default_nodes[name], origin, space, filename)
        made[name] = new
    for space in spaces.values():
        space.update(made)
    base.update(made)
    return base


def _strip_defaults(tree) -> dict:
    """Replace each top-level function's default expressions by None; give them by function and parameter."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        args = node.args
        positional = args.posonlyargs + args.args
        found = {}
        for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
            found[arg.arg] = default
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            if default is not None:
                found[arg.arg] = default
        args.defaults = [ast.copy_location(ast.Constant(None), d) for d in args.defaults]
        args.kw_defaults = [d if d is None else ast.copy_location(ast.Constant(None), d) for d in args.kw_defaults]
        out[node.name] = (found, [a.arg for a in positional[len(positional) - len(args.defaults) :]])
    return out


def _defaults(nodes, origin, space, filename):
    """A parameter the origin has gets the origin's default object; s2sad's own (``bout=1.0``) its value."""
    found, positional = nodes
    theirs = dict(getattr(origin, "__kwdefaults__", None) or {})
    code = origin.__code__
    names = code.co_varnames[: code.co_posonlyargcount + code.co_argcount]
    own_defaults = origin.__defaults__ or ()
    theirs.update(zip(names[len(names) - len(own_defaults) :], own_defaults))
    values = {}
    for param, node in found.items():
        if param in theirs:
            values[param] = theirs[param]
        else:
            values[param] = eval(compile(ast.Expression(node), filename, "eval"), space)  # noqa: S307
    pos = tuple(values[p] for p in positional) or None
    kw = {p: v for p, v in values.items() if p not in positional} or None
    return pos, kw


def _check_names(origin, ns, own):
    """A name of the user's that generated code also uses for its own object must mean that object."""
    if ns is None:
        return
    for name, obj in ns.used.items():
        if name in own and own[name] is not obj and not name.startswith("__") and not _same_lifted(own[name], obj):
            raise DifferentiationError(
                f"{origin.__code__.co_filename}:{origin.__code__.co_firstlineno}:1: the name '{name}' in "
                f"{origin.__qualname__} means {_short(obj)}, but the derivative code uses '{name}' for "
                f"{_short(own[name])}; rename it in your code"
            )
        if name in own:
            ns.steered[name] = obj


def _same_lifted(a, b, depth=0, assumed=None) -> bool:
    """Two functions s2sad lifted from the same local ``def`` for two derivatives made together (a
    ``jacobian`` makes its forward and reverse ones): the same code over equivalent cells.  A recursive
    one's cells hold the function itself (or its twin): a pair met again is assumed the same."""
    if a is b:
        return True
    assumed = set() if assumed is None else assumed
    if (id(a), id(b)) in assumed:
        return True
    assumed.add((id(a), id(b)))
    if depth > 8 or not (hasattr(a, "__s2sad_lifted__") and hasattr(b, "__s2sad_lifted__")):
        return False
    if a.__code__ != b.__code__ or a.__globals__ is not b.__globals__ or a.__qualname__ != b.__qualname__:
        return False
    kw_a, kw_b = a.__kwdefaults__ or {}, b.__kwdefaults__ or {}
    if kw_a.keys() != kw_b.keys() or not _same_values(a.__defaults__ or (), b.__defaults__ or ()):
        return False
    if not _same_values([kw_a[k] for k in kw_a], [kw_b[k] for k in kw_a]):
        return False
    cells = zip(a.__closure__ or (), b.__closure__ or ())
    if len(a.__closure__ or ()) != len(b.__closure__ or ()):
        return False
    return all(c is d or _same_lifted(_content(c), _content(d), depth + 1, assumed) for c, d in cells)


def _same_values(xs, ys) -> bool:
    plain = (int, float, complex, str, bool, type(None))
    return len(xs) == len(ys) and all(
        x is y or (type(x) is type(y) and isinstance(x, plain) and x == y) for x, y in zip(xs, ys)
    )


def _content(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _short(obj) -> str:
    text = repr(obj)
    return text if len(text) < 60 else text[:57] + "..."


def _pin_builtins(space, code, user_free: set):
    """Builtins the generated code reads that the user's code does not: s2sad's, never the user's
    global of that name."""
    for c in _codes(code):
        for name in c.co_names:
            if name not in user_free and not dict.__contains__(space, name) and hasattr(builtins, name):
                space[name] = getattr(builtins, name)


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)
