"""sourcecheck: is the source s2sad reads the code that runs?

``matches_source(fn, lines)`` compiles the lines ``inspect`` gives for ``fn`` in the context ``fn``
was compiled in (inside a function that binds its closure variables, inside a class of the method's
class name for private-name mangling and ``super()``, with the file's ``__future__`` flags) and
compares the result with ``fn.__code__``: bytecode, names, constants (nested code too), arguments.
True / False, or None when the comparison cannot be made (then nothing is refused).
Qualified names are the one thing that context changes: Python 3.10 keeps a nested function's,
lambda's or comprehension's qualified name as a constant of its parent (``f.<locals>.<lambda>``), and
every version keeps a nested class's; in the reference they start with the reference's own qualified
name where the real ones start with ``fn``'s, and they are compared with that prefix swapped.

``transparent(wrapper, wrapped)``: the wrapper's code is ``return func(*args, **kwargs)`` over a
closure cell holding ``wrapped`` (what ``functools.wraps`` decorators that only pass through are).
"""

from __future__ import annotations
import __future__

import ast
import inspect
import linecache
import types

_FUTURE = 0
for _name in __future__.all_feature_names:
    _FUTURE |= getattr(__future__, _name).compiler_flag
_KIND = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE
_KIND |= inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
_FIELDS = (
    "co_code",
    "co_names",
    "co_varnames",
    "co_freevars",
    "co_cellvars",
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
)


def matches_source(fn, lines: list[str]) -> bool | None:
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType) or _rewritten(code):
        return None
    text = "".join(lines)
    indented = text[:1] in (" ", "\t")
    try:
        module = ast.parse("if 1:\n" + text if indented else text)
    except SyntaxError:
        return None
    body = module.body[0].body if indented else module.body
    if not body or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    node: ast.stmt = body[0]
    qualname = getattr(fn, "__qualname__", "").split(".")
    if len(qualname) >= 2 and qualname[-2] != "<locals>":
        node = _node(ast.ClassDef, name=qualname[-2], bases=[], keywords=[], body=[node], decorator_list=[])
    free = [n for n in code.co_freevars if n != "__class__"]
    if free:
        binds = [ast.Assign(targets=[ast.Name(n, ast.Store())], value=ast.Constant(None)) for n in free]
        empty = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        node = _node(ast.FunctionDef, name="_s2sad_context", args=empty, body=[*binds, node], decorator_list=[])
    imported = _module_imports(code.co_filename)
    if imported is None:
        return None
    # names the module binds by import are compiled as plain attribute loads (no LOAD_METHOD)
    imports = [ast.Import(names=[ast.alias(name=n, asname=None)]) for n in sorted(imported)]
    tree = ast.Module(body=[*imports, node], type_ignores=[])
    ast.fix_missing_locations(tree)
    try:
        compiled = compile(tree, code.co_filename, "exec", flags=code.co_flags & _FUTURE, dont_inherit=True)
    except (SyntaxError, ValueError, TypeError):
        return None
    found = _find(compiled, code.co_name)
    if found is None:
        return None
    found, qualname = found
    return _same(found, code, (qualname + ".", getattr(code, "co_qualname", fn.__qualname__) + "."))


def _rewritten(code) -> bool:
    """Code an import hook rewrote (pytest's asserts use names such as ``@py_assert1``): not its source."""
    return any(n.startswith("@") for c in _codes(code) for n in c.co_names + c.co_varnames)


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _module_imports(filename: str) -> set[str] | None:
    """Names the file's module scope binds with ``import`` (None if the file cannot be read)."""
    text = "".join(linecache.getlines(filename))
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    todo = list(module.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                todo += [s for s in getattr(stmt, field, []) or [] if isinstance(s, ast.AST)]
    return names


def _node(cls, **fields):
    if "type_params" in cls._fields:
        fields["type_params"] = []
    if cls is ast.FunctionDef:
        fields.setdefault("returns", None)
    return cls(**fields)


def _find(code, name):
    """The outermost code object named ``name`` inside module code ``code`` (breadth first), with its
    qualified name."""
    level = [(code, None)]
    while level:
        nested = []
        for parent, qualname in level:
            for c in parent.co_consts:
                if isinstance(c, types.CodeType):
                    nested.append((c, _qualname(c, qualname, parent.co_flags)))
        for c, qualname in nested:
            if c.co_name == name:
                return c, qualname
        level = nested
    return None


def _qualname(code, parent: str | None, parent_flags: int) -> str:
    """``code``'s qualified name (``co_qualname`` from Python 3.11) given its parent's."""
    if hasattr(code, "co_qualname"):
        return code.co_qualname
    if parent is None:
        return code.co_name
    # a function's locals are new locals; a class body's are not
    return f"{parent}.<locals>.{code.co_name}" if parent_flags & inspect.CO_NEWLOCALS else f"{parent}.{code.co_name}"


def _same(a, b, prefixes: tuple[str, str]) -> bool:
    """``a`` (the reference) and ``b`` (the code that runs) are the same code; ``prefixes`` are the
    qualified-name prefixes of code nested in ``a`` and in ``b``."""
    if any(getattr(a, f) != getattr(b, f) for f in _FIELDS):
        return False
    if a.co_flags & _KIND != b.co_flags & _KIND or len(a.co_consts) != len(b.co_consts):
        return False
    ours, theirs = prefixes
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not _same(x, y, prefixes):
                return False
        elif type(x) is str and type(y) is str and x.startswith(ours) and y == theirs + x[len(ours) :]:
            continue  # a nested qualified name
        elif type(x) is not type(y) or (x != y if isinstance(x, frozenset) else repr(x) != repr(y)):
            return False
    return True


def _reference(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


_PASS_THROUGH = _reference(None).__code__


def transparent(wrapper, wrapped) -> bool:
    code = getattr(wrapper, "__code__", None)
    if not isinstance(wrapper, types.FunctionType) or not isinstance(code, types.CodeType):
        return False
    ref = _PASS_THROUGH
    same = (
        code.co_code == ref.co_code
        and code.co_flags & _KIND == ref.co_flags & _KIND
        and (code.co_argcount, code.co_kwonlyargcount, code.co_posonlyargcount) == (0, 0, 0)
        and len(code.co_freevars) == 1
        and all(c is None or isinstance(c, str) for c in code.co_consts)
    )
    if not same:
        return False
    try:
        return wrapper.__closure__[0].cell_contents is wrapped
    except (TypeError, IndexError, ValueError):
        return False
