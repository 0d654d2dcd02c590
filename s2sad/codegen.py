"""codegen: gast trees -> Python source text, with a source map in comments.

Takes the generated ``FunctionDef`` trees (and the user functions they come from); gives the text of
the module: imports it needs, then the functions.  One function turns a tree into text: astor,
verified by re-parsing (the AST must be equal), and ``ast.unparse`` where astor fails or differs
(astor is unmaintained and mishandles 3.12+ syntax).

Source map: each block of generated statements that comes from one line of the user's code is
preceded by a comment quoting that line, ``# z = x * y + math.sin(x)  (model.py:12)``.  Comments are
not AST nodes, so they are added to the text: the text is parsed again, its statements are paired
with the generated ones (same structure, same order) and a comment line goes above each statement
whose user line differs from the one the last comment named.  Derivatives of generated code (a
Hessian is forward mode over the generated gradient) reuse the comment the generated line sits under,
so they too name the user's line.  ``to_html`` renders a module for IPython.
"""

from __future__ import annotations

import ast
import copy
import html
import linecache
import math
import os
import re
import warnings

import gast

with warnings.catch_warnings():  # astor 0.8.1 imports deprecated ast names on 3.12+
    warnings.simplefilter("ignore", DeprecationWarning)
    import astor

from . import runtime
from .ir import walk

COMMENT_WIDTH = 100  # source-map comments are cut to this many columns
_MAP_COMMENT = re.compile(r"^\s*# .*  \([^()]+:\d+\)$")


# gast nodes whose conversion to ast is not a field-for-field copy (gast.gast_to_ast handles them)
_SPECIAL = {"FunctionDef", "AsyncFunctionDef", "ClassDef", "arguments", "ExceptHandler", "TypeVar"}
_SPECIAL |= {"TypeVarTuple", "ParamSpec", "alias", "Name", "Assign"}


def to_ast(tree):
    """A gast tree as a standard ``ast`` tree (without source positions: the text is compiled, not it).

    The statements and expressions s2sad emits map field for field and are copied here directly;
    anything else goes through ``gast.gast_to_ast``, which is general but several times slower."""
    if isinstance(tree, list):
        return [to_ast(n) for n in tree]
    if not isinstance(tree, gast.AST):
        return tree
    kind = tree.__class__.__name__
    if kind == "Name":
        return ast.Name(tree.id, _CTX.get(tree.ctx.__class__) or to_ast(tree.ctx))
    if kind == "Assign":
        return ast.Assign([to_ast(t) for t in tree.targets], to_ast(tree.value), type_comment=None)
    if kind == "FunctionDef":  # gast converts the signature, the body is copied here
        shell = copy.copy(tree)
        shell.body = []
        out = gast.gast_to_ast(shell)
        out.body = to_ast(tree.body)
        return out
    if kind in _SPECIAL:
        return gast.gast_to_ast(tree)
    fields = tree.__dict__
    return getattr(ast, kind)(**{f: to_ast(fields[f]) for f in tree._fields if f in fields})


_CTX = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}


def _one_line(parts) -> str:
    """astor's line breaking splits expressions at odd places (``np.\\n shape(x)``): keep one line."""
    return "".join(parts)


def _same(a, b) -> bool:
    """Structural equality of two ast trees, ignoring source positions (``ast.dump(a) == ast.dump(b)``)."""
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if not isinstance(a, ast.AST):
        return a == b and type(a) is type(b)  # 1 == 1.0 == True, but they print differently
    return all(_same(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)


def to_source(tree) -> str:
    """The text of a tree: astor's, when re-parsing it gives the tree back, else ``ast.unparse``'s."""
    return _printed(tree)[0]


def _printed(tree):
    """``(text, parsed)``: the text of a tree and the ``ast`` tree its re-parse gave (or None)."""
    node = _Signed().visit(to_ast(tree) if isinstance(tree, gast.AST) else tree)

    def parsed(source):
        module = ast.parse(source)
        return module.body[0] if isinstance(node, ast.stmt) else module

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            text = astor.to_source(node, pretty_source=_one_line)
        reparsed = parsed(text)
        # the same tree as the one printed (usually), or as ast.unparse's text gives (normalized)
        if _same(reparsed, node) or _same(reparsed, parsed(_unparse(node))):
            return text, reparsed
    except Exception:  # noqa: BLE001 - astor raises many kinds of errors on syntax it does not know
        pass
    text = _unparse(node) + "\n"
    return text, parsed(text)


class _Signed(ast.NodeTransformer):
    """A negative number constant (folded by s2sad, ``-2.0``) as ``-(2.0)``: astor and ``ast.unparse``
    print the constant without brackets, so ``(-2.0) ** 2.0`` would read back as ``-(2.0 ** 2.0)``."""

    def visit_Constant(self, node):
        v = node.value
        if type(v) in (int, float) and (v < 0 or (v == 0 and math.copysign(1.0, v) < 0)):
            return ast.UnaryOp(ast.USub(), ast.Constant(-v))
        if type(v) is complex and v.real == 0 and math.copysign(1.0, v.real) > 0 and v.imag < 0:
            return ast.UnaryOp(ast.USub(), ast.Constant(-v))  # (-2j: a pure imaginary; -1+2j prints bracketed)
        return node


def _unparse(node) -> str:
    ast.fix_missing_locations(node)  # ast.unparse looks up type comments by line
    return ast.unparse(node)


HELPERS = sorted(
    n
    for n in vars(runtime)
    if not n.startswith("_")
    and callable(getattr(runtime, n))
    and getattr(getattr(runtime, n), "__module__", "").startswith(runtime.__name__ + ".")
)


# ---- source map ---------------------------------------------------------------------------------
def _statements(node):
    """Statements nested in ``node``, depth first in source order (the same for gast and ast trees)."""
    for field in ("body", "orelse", "handlers", "finalbody"):
        for child in getattr(node, field, None) or ():
            if isinstance(child, (gast.stmt, ast.stmt, gast.excepthandler, ast.excepthandler)):
                yield child
                yield from _statements(child)


def _comment(filename: str, line: int) -> str | None:
    """The source-map comment for ``filename:line`` (without indentation), or None."""
    if filename.startswith("<s2sad"):  # generated code: the comment that line sits under
        lines = linecache.getlines(filename)
        if not 0 < line <= len(lines):
            return None
        indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
        for text in reversed(lines[: line - 1]):
            stripped = text.strip()
            if stripped.startswith("def "):
                return None
            if _MAP_COMMENT.match(text) and len(text) - len(text.lstrip()) <= indent:
                return stripped
        return None
    code = linecache.getline(filename, line).strip()
    if not code:
        return None
    return f"# {code}  ({os.path.basename(filename)}:{line})"


def _fit(comment: str, indent: int) -> str:
    if indent + len(comment) <= COMMENT_WIDTH:
        return comment
    code, where = comment[2:].rsplit("  (", 1)
    room = COMMENT_WIDTH - indent - len(where) - 8
    return f"# {code[: max(room, 10)].rstrip()} ...  ({where}"


def function_source(tree, filename: str | None = None) -> str:
    """The text of one generated function; with ``filename`` (the user's file), with source-map comments."""
    text, reparsed = _printed(tree)
    if filename is None:
        return text
    generated = list(_statements(tree))
    printed = list(_statements(reparsed))
    assert len(generated) == len(printed), "re-parsed text has other statements than the tree"
    inserts = {}  # printed line -> comment line
    last, last_indent = None, 0
    for gen, out in zip(generated, printed):
        line = getattr(gen, "lineno", None)
        if line is None or isinstance(out, ast.excepthandler):
            continue
        indent = out.col_offset
        comment = _comment(filename, line)
        if comment is None or (comment == last and last_indent <= indent):
            continue
        inserts[out.lineno] = " " * indent + _fit(comment, indent)
        last, last_indent = comment, indent
    lines = text.splitlines()
    result = []
    for number, code in enumerate(lines, 1):
        if number in inserts:
            result.append(inserts[number])
        result.append(code)
    return "\n".join(result) + "\n"


# ---- modules ------------------------------------------------------------------------------------
def module_source(functions, header: str = "", imports: list[str] | None = None) -> str:
    """The module defining ``functions``: imports of ``math``, ``numpy`` and runtime helpers they use,
    then the functions, two blank lines apart, with source-map comments for those that carry
    ``origin_file`` (the user's file, set by the pipeline)."""
    body = "\n\n\n".join(function_source(f, getattr(f, "origin_file", None)).rstrip("\n") for f in functions)
    names = {n.id for f in functions for n in walk(f) if isinstance(n, gast.Name)}
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
    lines += _aliases(functions)
    lines += imports or []
    return "\n".join(lines) + ("\n\n\n" if lines else "") + body + "\n"


def _aliases(functions) -> list[str]:
    """A function whose parameter is named like a global generated code reads (``np``) reads that
    global by another name (``np1``): the lines binding it (``import numpy as np1``)."""
    aliases = {}
    for f in functions:
        aliases.update({alias: original for original, alias in getattr(f, "global_aliases", {}).items()})
    lines = []
    for alias, original in sorted(aliases.items()):
        if original == "np":
            lines.append(f"import numpy as {alias}")
        elif original == "math":
            lines.append(f"import math as {alias}")
        elif original in HELPERS:
            lines.append(f"from s2sad.runtime import {original} as {alias}")
        else:  # a builtin
            lines.append(f"{alias} = {original}")
    return lines


def to_html(source: str) -> str:
    """A module's text as HTML for Jupyter/IPython: highlighted by pygments when it is installed."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return f"<pre>{html.escape(source)}</pre>"
    return highlight(source, PythonLexer(), HtmlFormatter(noclasses=True))
