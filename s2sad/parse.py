"""parse: Python function -> gast ``FunctionDef`` whose line numbers are those of the user's file.

Takes a function object; gives a :class:`Parsed` (tree, file name, dedent, the function object that
runs).  A decorator made with ``functools.wraps`` is followed to the function it wraps only when it
is transparent (its code is ``return func(*args, **kwargs)``); other wrappers are refused, as are
lambdas, async functions, and functions whose source file no longer matches their code (``sourcecheck``).
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass

import gast

from .errors import DifferentiationError, Location
from .sourcecheck import matches_source, transparent


@dataclass
class Parsed:
    tree: gast.FunctionDef
    fn: object
    loc: Location


def parse_function(fn) -> Parsed:
    fn = unwrap(fn)
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
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(source.splitlines()[0]) - len(dedented.splitlines()[0])
    loc = Location(filename, indent)
    if fn.__name__ == "<lambda>":
        raise DifferentiationError(
            f"{filename}:{first}:{indent + 1}: lambda functions are not supported; define the function with def"
        )
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
