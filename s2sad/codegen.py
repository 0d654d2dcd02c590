"""codegen: gast trees -> Python source text.

One function turns a tree into text: astor, verified by re-parsing (the AST must be equal), and
``ast.unparse`` where astor fails or differs (astor is unmaintained and mishandles 3.12+ syntax).
``module_source`` assembles the generated module: header, imports it needs, functions.
"""

from __future__ import annotations

import ast
import warnings

import gast

with warnings.catch_warnings():  # astor 0.8.1 imports deprecated ast names on 3.12+
    warnings.simplefilter("ignore", DeprecationWarning)
    import astor

from . import runtime


def to_ast(tree):
    node = gast.gast_to_ast(tree)
    ast.fix_missing_locations(node)
    return node


def to_source(tree) -> str:
    node = to_ast(tree) if isinstance(tree, gast.AST) else tree
    ast.fix_missing_locations(node)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            text = astor.to_source(node)
        if ast.dump(ast.parse(text)) == ast.dump(ast.parse(ast.unparse(node))):
            return text
    except Exception:  # noqa: BLE001 - astor raises many kinds of errors on syntax it does not know
        pass
    return ast.unparse(node) + "\n"


HELPERS = sorted(
    n
    for n in vars(runtime)
    if not n.startswith("_")
    and callable(getattr(runtime, n))
    and getattr(getattr(runtime, n), "__module__", "").startswith(runtime.__name__ + ".")
)


def module_source(functions, header: str = "", imports: list[str] | None = None) -> str:
    body = "\n\n".join(to_source(f).rstrip("\n") for f in functions)
    names = {n.id for f in functions for n in gast.walk(f) if isinstance(n, gast.Name)}
    lines = []
    if header:
        lines += [header.rstrip("\n"), ""]
    if "math" in names:
        lines.append("import math")
    if "np" in names:
        lines.append("import numpy as np")
    helpers = [h for h in HELPERS if h in names]
    if helpers:
        lines.append("from s2sad.runtime import " + ", ".join(helpers))
    lines += imports or []
    return "\n".join(lines) + ("\n\n\n" if lines else "") + body + "\n"
