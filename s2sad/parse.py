"""parse: Python function -> gast ``FunctionDef`` whose line numbers are those of the user's file.

Takes a function object; gives a :class:`Parsed` (tree, file name, dedent, the function object).
Decorators are dropped (they are what called s2sad); lambdas and async functions are refused.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass

import gast

from .errors import DifferentiationError, Location


@dataclass
class Parsed:
    tree: gast.FunctionDef
    fn: object
    loc: Location


def parse_function(fn) -> Parsed:
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
    tree.decorator_list = []
    tree.returns = None
    for arg in tree.args.args + tree.args.kwonlyargs:
        arg.annotation = None
    return Parsed(tree, fn, loc)
