"""parse: Python function -> gast ``FunctionDef`` whose line numbers are those of the user's file.

Takes a function object; gives a :class:`Parsed` (tree, file name, dedent, the function object that
runs).  A lambda becomes ``def <lambda>(args): return body``; a
:class:`~s2sad.callables.BoundFunction` loses its bound parameters from the signature.  A decorator
made with ``functools.wraps`` is followed to the function it wraps only when it
is transparent (its code is ``return func(*args, **kwargs)``); other wrappers are refused, as are
async functions, and functions whose source file no longer matches their code (``sourcecheck``).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass

import gast

from .errors import DifferentiationError, Location
from .ir import copy_tree, walk
from .sourcecheck import matches_source, transparent


@dataclass
class Parsed:
    tree: gast.FunctionDef
    fn: object
    loc: Location


def parse_function(fn) -> Parsed:
    fn = unwrap(fn)
    if getattr(fn, "__s2sad_spec__", None) is not None:  # *args/**kwargs specialized to one call
        from .star import specialize_tree

        parsed = parse_function(fn.function)
        specialize_tree(parsed, fn)
        return parsed
    lifted = getattr(fn, "__s2sad_lifted__", None)
    if lifted is not None:  # a local function s2sad lifted (``lift``): its tree, in the user's file
        return Parsed(copy_tree(lifted.tree), fn, lifted.loc)
    bound = getattr(fn, "__s2sad_bound__", None)
    if bound:
        parsed = parse_function(fn.function)
        _bind(parsed, fn)
        return parsed
    code = getattr(fn, "__code__", None)
    if code is None:
        raise DifferentiationError(f"s2sad differentiates Python functions; got {type(fn).__name__} {fn!r}")
    filename = code.co_filename
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise DifferentiationError(
            f"{filename}:{code.co_firstlineno}:1: cannot read the source of {fn.__qualname__} ({exc}); "
            "s2sad needs functions defined in a file (not typed at an interactive prompt or built with exec)"
        ) from None
    if fn.__name__ == "<lambda>":
        return Parsed(lambda_tree(fn), fn, Location(filename))
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(source.splitlines()[0]) - len(dedented.splitlines()[0])
    loc = Location(filename, indent)
    module = gast.parse(dedented)
    gast.increment_lineno(module, first - 1)
    tree = module.body[0]
    if isinstance(tree, gast.AsyncFunctionDef):
        raise loc.error(tree, f"async function {fn.__name__} cannot be differentiated; use a plain def")
    if not isinstance(tree, gast.FunctionDef):
        raise loc.error(tree, f"expected a def statement for {fn.__name__}")
    if not filename.startswith("<s2sad ") and matches_source(fn, lines) is False:
        raise DifferentiationError(
            f"{filename}:{first}:{indent + 1}: the source of {fn.__qualname__} in {filename} does not match "
            "the code that runs (was the file edited after it was imported?); reload the module "
            "(importlib.reload) or restart Python, then differentiate it again"
        )
    tree.decorator_list = []
    tree.returns = None
    for arg in tree.args.args + tree.args.kwonlyargs:
        arg.annotation = None
    return Parsed(tree, fn, loc)


def lambda_tree(fn) -> gast.FunctionDef:
    """A lambda's ``FunctionDef`` (``def <lambda>(args): return body``), found in its whole file by line,
    parameter names and the columns its code comes from."""
    code = fn.__code__
    filename, line = code.co_filename, code.co_firstlineno
    where = f"{filename}:{line}:1"
    text = "".join(linecache.getlines(filename))
    try:
        module = gast.parse(text)
    except (SyntaxError, ValueError):
        module = None
    found = [n for n in walk(module) if isinstance(n, gast.Lambda) and n.lineno == line] if module else []
    names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    found = [n for n in found if [a.id for a in n.args.args + n.args.kwonlyargs] == names]
    if len(found) > 1 and hasattr(code, "co_positions"):
        spots = [(p[0], p[2]) for p in code.co_positions() if None not in p and (p[1], p[3]) > (p[0], p[2])]
        if spots:
            first = min(spots)  # where the body's code starts: inside one lambda's body only
            found.sort(key=lambda n: (n.body.lineno, n.body.col_offset))
            found = [n for n in found if (n.body.lineno, n.body.col_offset) <= first][-1:]
    elif len(found) > 1:
        # Python 3.10 records no columns: the lambdas whose source compiles to this code (the same
        # bytecode, names and constants: any of them is this lambda); none when the file was edited
        matches = [_matches(fn, text, n) for n in found]
        if None in matches and True not in matches:
            raise DifferentiationError(
                f"{where}: cannot tell apart the lambdas with parameters ({', '.join(names)}) on this line "
                "on Python 3.10; put them on separate lines or give them different parameter names"
            )
        found = [n for n, same in zip(found, matches) if same] or found[:1]
    if not found:
        raise DifferentiationError(
            f"{where}: cannot read the source of this lambda; s2sad needs functions defined in a file "
            "(not typed at an interactive prompt or built with exec)"
        )
    lam = found[0]
    loc = Location(filename)
    if _matches(fn, text, lam) is False:
        raise DifferentiationError(
            f"{loc.of(lam)}: the source of this lambda in {filename} does not match the code that runs "
            "(was the file edited after it was imported?); reload the module or restart Python"
        )
    body = gast.Return(value=lam.body)
    gast.copy_location(body, lam.body)
    tree = gast.FunctionDef(
        name="<lambda>", args=lam.args, body=[body], decorator_list=[], returns=None, type_comment=None
    )
    if "type_params" in gast.FunctionDef._fields:
        tree.type_params = []
    return gast.copy_location(tree, lam)


def _matches(fn, text: str, lam: gast.Lambda) -> bool | None:
    """Does the source of ``lam`` in ``text`` compile to ``fn``'s code (None: cannot tell)?"""
    segment = ast.get_source_segment(text, lam, padded=False)
    if segment is None:
        return None
    return matches_source(fn, [f"def _s2sad_lambda():\n    return ({segment})\n"])


def _bind(parsed: Parsed, fn) -> None:
    """Remove the parameters a :class:`~s2sad.callables.BoundFunction` fixes from the tree's
    signature (they become free names holding constants); make the ones after a keyword-bound
    parameter keyword-only, as Python's ``functools.partial`` does."""
    from .resolve import local_names

    bound, kwonly = fn.__s2sad_bound__, fn.kwonly
    args = parsed.tree.args
    first_default = len(args.args) - len(args.defaults)
    positional, defaults = [], []
    for i, a in enumerate(args.args):
        default = args.defaults[i - first_default] if i >= first_default else None
        if a.id in bound:
            continue
        if a.id in kwonly:
            args.kwonlyargs.append(a)
            args.kw_defaults.append(default)
        else:
            positional.append(a)
            if default is not None:
                defaults.append(default)
    kept = [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if a.id not in bound]
    moved = [(a, d) for a, d in kept if a.id in kwonly]
    kept = moved + [(a, d) for a, d in kept if a.id not in kwonly]
    args.args, args.defaults = positional, defaults
    args.kwonlyargs, args.kw_defaults = [a for a, _ in kept], [d for _, d in kept]
    parsed.fn = fn
    assigned = local_names(parsed.tree) & set(bound)
    if assigned:
        stores = (n for n in walk(parsed.tree) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load))
        node = next(n for n in stores if n.id in assigned)
        raise parsed.loc.error(
            node,
            f"'{node.id}' is bound to a constant ({fn!r}) and assigned in {fn.__qualname__}; "
            "use another name for the new value",
        )


def unwrap(fn):
    """The function that runs: s2sad's guard -> its generated function; transparent decorators -> the
    function they wrap.  Other decorators (``__wrapped__`` set) are refused."""
    fn = getattr(fn, "__s2sad_impl__", None) or fn
    while getattr(fn, "__wrapped__", None) is not None:
        inner = fn.__wrapped__
        if not transparent(fn, inner):
            code = getattr(inner, "__code__", None)
            where = f"{code.co_filename}:{code.co_firstlineno}:1: " if code is not None else ""
            name = getattr(inner, "__qualname__", repr(inner))
            outer = getattr(fn, "__code__", None)
            by = f" ({outer.co_name} in {outer.co_filename}:{outer.co_firstlineno})" if outer is not None else ""
            raise DifferentiationError(
                f"{where}{name} is wrapped by a decorator{by} that does more than call it, so s2sad cannot "
                f"differentiate what runs; differentiate the undecorated function ({name}.__wrapped__, or "
                "define it without the decorator) and apply the decorator to the derivative yourself"
            )
        fn = inner
    return fn
