"""watch: the check a module written by the command line (not ``--standalone``) runs first in each
derivative: ``_unchanged = watched(command, (label, holder, key[, literals]), ...)`` takes a snapshot of
what each ``holder`` (a dict: its entry; else an attribute) holds when the module is imported, and
``_unchanged()`` refuses once any holds another object, as ``s2sad.grad`` refuses in-process (see
``s2sad/watch.py``).  ``literals``: the defaults written into the module as literals, by index or name, as
``(type name, repr)``, a function's code as ``(name, first line, digest)`` (``code_digest``: of its source
text), ``"absent"``, or ``"structure: float"`` (a global number, string, array or tuple of them, read when
the code runs: another value of the same ``value_structure`` is not stale); another value there when the
module is imported makes the snapshot stale at once, and ``_unchanged()`` then refuses."""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["code_digest", "value_structure", "watched"]

_PROXY = type(vars(type))  # (a class's __dict__)
_ABSENT = object()


def _now(holder, key):
    try:
        return holder.get(key, _ABSENT) if isinstance(holder, (dict, _PROXY)) else getattr(holder, key, _ABSENT)
    except ValueError:  # (an empty closure cell)
        return _ABSENT


def value_structure(v) -> str | None:
    """What derivative code may depend on of a number, a string, an array, or a tuple or list of them (their
    types, and the shapes and dtypes of arrays, not the float values it reads when it runs), as text; None
    for other objects (whose identity is checked).  Ints and strings count by value (a length, an axis, an
    einsum spec): ``SCALE = 3.0`` after the derivative was made is read when it runs, as ``f`` reads it."""
    if type(v) in (tuple, list):
        items = [value_structure(item) for item in v]
        return None if None in items else f"{type(v).__name__}({', '.join(items)})"
    if type(v) is np.ndarray:
        return f"array{v.shape}{v.dtype.str}"
    if type(v) in (float, complex) or isinstance(v, (np.floating, np.complexfloating)):
        return type(v).__name__
    if type(v) in (int, bool, str) or v is None or isinstance(v, (np.integer, np.bool_)):
        return f"{type(v).__name__} {v!r}"
    return None


def _fold(code, out: list) -> None:
    """The parts of ``code`` that say what it does, nested functions' code included (its line table and
    file name are left out: a blank line or a moved file changes no number)."""
    out.append(
        (
            code.co_name,
            getattr(code, "co_qualname", code.co_name),
            code.co_argcount,
            code.co_posonlyargcount,
            code.co_kwonlyargcount,
            code.co_flags,
            code.co_code,
            code.co_names,
            code.co_varnames,
            code.co_freevars,
            code.co_cellvars,
            getattr(code, "co_exceptiontable", b""),
        )
    )
    for const in code.co_consts:
        _const(const, out)


def _const(value, out: list) -> None:
    if hasattr(value, "co_code"):
        _fold(value, out)
    elif isinstance(value, tuple):
        out.append(("tuple", len(value)))
        for item in value:
            _const(item, out)
    elif isinstance(value, frozenset):  # (x in {'a', 'b'}: its order varies with the hash seed)
        out.append(("frozenset", sorted(f"{type(v).__name__}:{v!r}" for v in value)))
    else:  # (1, 1.0, True and -0.0 apart)
        out.append((type(value).__name__, repr(value)))


def code_digest(code) -> str:
    """A digest of a function's source text (``inspect.getsource`` of its code, without comments and blank
    lines): any edit of its code (a constant, an operator, a name it reads) gives another digest, and the same
    text gives the same digest under every Python version and ``python -O``.  Code without readable source:
    a digest of its bytecode, constants (nested code included), names, flags and parameters (which another
    Python version changes)."""
    try:
        text = "src:" + _code_text(code)
    except (OSError, TypeError):
        out: list = []
        _fold(code, out)
        text = repr(out)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _code_text(code) -> str:
    """The function's source without its comments, blank lines and trailing spaces."""
    import inspect
    import io
    import textwrap
    import tokenize

    source = textwrap.dedent(inspect.getsource(code))
    lines = source.splitlines()
    cut = {}  # line -> the column its comment starts at
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                cut[tok.start[0] - 1] = tok.start[1]
    except (tokenize.TokenError, SyntaxError):  # (kept as it is)
        cut = {}
    kept = [(line[: cut[i]] if i in cut else line).rstrip() for i, line in enumerate(lines)]
    return "\n".join(line for line in kept if line)


def _as_written(now, expected) -> bool:
    """``expected``: ``"absent"``, a code object's ``(co_name, co_firstlineno, code_digest)``, or ``{key:
    (type name, repr)}`` of the items (a tuple's, a dict's) written into the module as literals."""
    if expected == "absent":
        return now is _ABSENT
    if isinstance(expected, tuple):  # a function's code: its name, first line and what it does
        if not hasattr(now, "co_code") or len(expected) != 3:  # (a module from an s2sad that did not record it)
            return False
        return (now.co_name, now.co_firstlineno, code_digest(now)) == expected
    for k, (kind, written) in expected.items():
        try:
            item = now[k]
        except (IndexError, KeyError, TypeError):
            return False
        if type(item).__name__ != kind or repr(item) != written:
            return False
    return True


_STRUCTURE = "structure: "  # a row's expectation: a value of this value_structure (SCALE = 3.0 is not stale)


class _Structure(str):
    """The value_structure a row's value must keep."""


class watched:  # noqa: N801 - used as a function
    """``watched(command, *rows)``: called, refuses (``DifferentiationError``) once a row changed."""

    def __init__(self, command: str, *rows):
        self.command = command
        self.rows = []
        for label, holder, key, *expected in rows:
            now = _now(holder, key)
            why = None
            if expected and isinstance(expected[0], str) and expected[0].startswith(_STRUCTURE):
                now = _Structure(expected[0].removeprefix(_STRUCTURE))  # (a number or array: read when it runs)
            elif expected and not _as_written(now, expected[0]):
                why = _stale_code(label, now, expected[0]) if isinstance(expected[0], tuple) else None
                now = object()  # (never the same: stale from the start)
            self.rows.append((label, holder, key, now, why))

    def __call__(self):
        for label, holder, key, was, why in self.rows:
            now = _now(holder, key)
            if why is not None or (now is not was if type(was) is not _Structure else value_structure(now) != was):
                from s2sad.errors import DifferentiationError

                raise DifferentiationError(
                    (why or f"{label} changed after this module was written or imported (rebound or replaced)")
                    + f": the derivatives here were made for the old one and would be stale; regenerate it "
                    f"with: {self.command}, or use s2sad in your program"
                )


def _stale_code(label: str, now, expected: tuple) -> str:
    """Why the code found when the module is imported is not the code it was generated from."""
    name = label.removesuffix(".__code__")
    if not hasattr(now, "co_code"):
        return f"{name} has no code to compare with the code this module was generated from"
    where = f"{now.co_filename}:{now.co_firstlineno}"
    if len(expected) != 3:
        return f"the code of {name} ({where}) was not recorded by the s2sad that wrote this module"
    if (now.co_name, now.co_firstlineno) != expected[:2]:
        return (
            f"{name} ({where}) changed since this module was generated: it is not the function {expected[0]} "
            f"at line {expected[1]} it was made from"
        )
    return f"the code of {name} ({where}) changed since this module was generated from it (its file was edited)"
