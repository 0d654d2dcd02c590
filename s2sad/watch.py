"""watch: what a module written by the command line checks first in each derivative it defines.

Takes the derivatives (their in-process checks, ``__s2sad_checks__``: the names, methods, defaults and code
their generation read, see :mod:`live`) and the targets' dotted names in the user's module; gives rows
``(label, holder, key, expected)`` spelled through the user's modules (those in the directory of the file)
and, as text, ``_unchanged = watched(command, *rows)`` (``s2sad/runtime/watch.py``): a snapshot of what each
holder holds, taken when the written module is imported, and a check that refuses
(``DifferentiationError``) once any holds another object: the derivative would be stale.  ``expected`` is
what must already hold at import: ``"absent"``, the literal defaults written into the module, a function's
code as its name, first line and ``code_digest`` (an edit of the file that keeps the lines is seen: the
module was generated from other code).  As in-process, objects are compared by identity (an array changed in
place is read when the code runs, so it is not stale).  What belongs to NumPy, the standard library or s2sad
is not watched; a check of the user's code that cannot be spelled is refused when the module is written.
"""

from __future__ import annotations

import inspect
import os
import sys
import types

from .callables import FunctionLike
from .errors import DifferentiationError
from .runtime.watch import code_digest

_NONE = object()
ABSENT = "absent"  # a row's expectation: the key is not there (a method not shadowed, a builtin not redefined)


def alias(module: str) -> str:
    """The name the written module binds a module to for its checks (``_model``, ``_numpy``)."""
    return "_" + module.replace(".", "_")


def _plain(fn):
    while isinstance(fn, FunctionLike):
        fn = fn.function
    return getattr(fn, "__func__", fn)


def _ours(obj) -> bool:
    """s2sad's own objects (generated namespaces and functions): not the user's to change."""
    if isinstance(obj, dict):
        name = obj.get("__name__")
    else:
        name = getattr(_plain(obj), "__module__", None)
    return isinstance(name, str) and name.partition(".")[0] == "s2sad"


class Foreign(Exception):
    """The object belongs to a module not in the user's directory (NumPy, math, s2sad): not watched."""


class Speller:
    """Python text naming an object through the user's modules (``_model.Model``, ``vars(_model.model)``),
    and a label for messages (``model.Model``); the modules used are collected in ``modules``."""

    def __init__(self, homes, user_dir: str):
        self.homes = [m for m in homes if m is not None]
        self.user_dir = os.path.abspath(user_dir) + os.sep
        self.modules: set[str] = set()

    def is_user(self, mod) -> bool:
        return os.path.abspath(getattr(mod, "__file__", None) or "/").startswith(self.user_dir)

    def module(self, mod) -> tuple[str, str]:
        if not self.is_user(mod):
            raise Foreign(mod.__name__)
        self.modules.add(mod.__name__)
        return alias(mod.__name__), mod.__name__

    def spell(self, obj):
        if isinstance(obj, types.ModuleType):
            return self.module(obj)
        if isinstance(obj, dict):
            mod = sys.modules.get(obj.get("__name__") if isinstance(obj.get("__name__"), str) else "")
            if mod is not None and vars(mod) is obj:
                code, label = self.module(mod)
                return f"vars({code})", label
            for owner in self._globals():
                if getattr(owner, "__dict__", None) is obj:
                    found = self.spell(owner)
                    if found is not None:
                        return f"vars({found[0]})", found[1]
            for fn in self._functions():
                if fn.__kwdefaults__ is obj:
                    found = self.spell(fn)
                    if found is not None:
                        return f"{found[0]}.__kwdefaults__", f"{found[1]}.__kwdefaults__"
            return None
        if isinstance(obj, types.MappingProxyType):  # a class's __dict__
            if any(vars(c) == obj for c in (object, type)) or obj.get("__module__") == "builtins":
                raise Foreign("builtins")  # (object.__init__: Python's, not the user's to change)
            if "__s2sad_twin_of__" in obj:
                raise Foreign("s2sad")  # (a class's dataclass twin, made by the derivative: s2sad's own)
            for cls in self._classes():
                if cls.__dict__ == obj:
                    found = self.spell(cls)
                    if found is not None:
                        return f"vars({found[0]})", found[1]
            return None
        if isinstance(obj, types.CellType):
            for fn in self._functions():
                for i, cell in enumerate(fn.__closure__ or ()):
                    if cell is obj:
                        found = self.spell(fn)
                        if found is not None:
                            return f"{found[0]}.__closure__[{i}]", f"{found[1]}.__closure__[{i}]"
            return None
        obj = _plain(obj)
        mod = sys.modules.get(getattr(obj, "__module__", None) or "")
        qualname = getattr(obj, "__qualname__", None)
        if mod is not None and isinstance(qualname, str) and "<" not in qualname:
            held = mod
            for part in qualname.split("."):
                held = getattr(held, part, _NONE)
            if _plain(held) is obj:
                code, label = self.module(mod)
                return f"{code}.{qualname}", f"{label}.{qualname}"
        for home in self.homes:  # a module-level name (model = Model(), f_local = make())
            for name, value in vars(home).items():
                if value is obj and name.isidentifier():
                    code, label = self.module(home)
                    return f"{code}.{name}", f"{label}.{name}"
        return None

    def _globals(self):
        for home in self.homes:
            yield from list(vars(home).values())

    def _classes(self):
        seen = set()
        for value in self._globals():
            for cls in (value, type(value)):
                if isinstance(cls, type):
                    for c in cls.__mro__:
                        if id(c) not in seen and c is not object:
                            seen.add(id(c))
                            yield c

    def _functions(self):
        for value in self._globals():
            if inspect.isfunction(value):
                yield value
            elif isinstance(value, type):
                yield from (v for v in vars(value).values() if inspect.isfunction(v))


def _literals(fn, attr: str) -> dict:
    """The defaults of ``fn`` written into the module as literals: index (or name) -> (type name, repr)."""
    from .cli import _literal_text

    held = getattr(fn, attr) or {}
    pairs = held.items() if isinstance(held, dict) else enumerate(held)
    return {k: (type(v).__name__, t) for k, v in pairs for t in [_literal_text(v)] if t is not None}


def entries(derivatives, module, names, where: str, speller: Speller) -> list[tuple]:
    """``(label, holder code, key, literals)`` for each thing the derivatives must still find: the
    targets by their dotted names, and each in-process check of the derivatives."""
    out, seen = [], set()

    def add(label, code, key, literals=None):
        if (code, key) not in seen:
            seen.add((code, key))
            out.append((label, code, key, literals))

    for name in names:  # the target itself: m.loss = loss2 after import is not the derivative's loss
        obj, code, label = module, *speller.module(module)
        for part in name.split("."):
            for row in _path_rows(obj, code, label, part, speller):
                add(*row)
            obj, code, label = getattr(obj, part), f"{code}.{part}", f"{label}.{part}"
    for derivative in derivatives:
        for check in derivative.__s2sad_checks__:
            if type(check).__name__ == "PlainCheck":  # (an operand's class, not its identity: read live)
                continue
            if not _ours(check.holder):
                try:
                    _add_check(check, where, speller, add)
                except Foreign:
                    continue
    return out


def _path_rows(obj, code: str, label: str, part: str, speller: Speller) -> list[tuple]:
    """The rows that hold ``obj.part`` where ``obj`` is spelled ``code``: a module's or an object's own entry,
    else the entry of the class that defines it and the absence of ``part`` from the object and the
    classes before that one."""
    if (
        isinstance(obj, types.ModuleType)
        or part in (getattr(obj, "__dict__", None) or {})
        and not isinstance(obj, type)
    ):
        return [(f"{label}.{part}", f"vars({code})", part)]
    shadow = not isinstance(obj, type) and isinstance(getattr(obj, "__dict__", None), dict)
    rows = [(f"{label}.{part}", f"vars({code})", part, ABSENT)] if shadow else []  # (not shadowed by the object)
    for cls in obj.__mro__ if isinstance(obj, type) else type(obj).__mro__:
        try:
            found = speller.spell(cls)
        except Foreign:
            break
        if found is not None:
            rows.append((f"{found[1]}.{part}", f"vars({found[0]})", part, None if part in vars(cls) else ABSENT))
        if part in vars(cls):
            break
    return rows


def _add_check(check, where: str, speller: Speller, add) -> None:
    """The row of one in-process check (:class:`live.Check`)."""
    holder = check.holder
    if check.kind in ("defaults", "kwdefault", "code"):
        fn = _plain(holder)
        if _ours(fn):
            return
        found = speller.spell(fn)
        if found is None:
            raise DifferentiationError(
                f"{where}: the derivative reads the {check.name} of {fn.__qualname__}, which the written "
                "module cannot name to check that it is unchanged when it runs; make it a module-level "
                "function of your file, or use s2sad.grad in your program"
            )
        code, label = found
        if check.kind == "code":  # (named, placed and doing what it did when written: the file may be edited)
            written = (fn.__code__.co_name, fn.__code__.co_firstlineno, code_digest(fn.__code__))
            add(f"{label}.__code__", code, "__code__", written)
        elif check.kind == "kwdefault":  # (the same dict, changed in place)
            add(f"{label}.__kwdefaults__[{check.name!r}]", f"{code}.__kwdefaults__", check.name)
        else:
            add(f"{label}.{check.name}", code, check.name, _literals(fn, check.name))
        return
    found = speller.spell(holder)
    if found is None and check.kind == "cell":
        return  # (a cell of a function no module-level name reaches: s2sad's clone of a helper for its arguments)
    if found is None:
        raise DifferentiationError(
            f"{where}: the derivative was made for what '{check.name}' held in a {type(holder).__name__} "
            "the written module cannot name to check it when it runs; use s2sad.grad in your program"
        )
    code, label = found
    if check.kind == "cell":
        add(f"{label}.cell_contents", code, "cell_contents")
    elif check.kind == "absent" or check.kind == "global" and check.name not in check.holder:  # (a builtin)
        add(f"{label}.{check.name}", code, check.name, ABSENT)
    elif check.structure is not None:  # (SCALE = 3.0: read when the code runs, as in-process)
        add(f"{label}.{check.name}", code, check.name, f"structure: {check.structure}")
    else:
        add(f"{label}.{check.name}", code, check.name)


def text(found: list[tuple], cmd: str) -> str:
    """``_unchanged = watched(command, rows...)`` (``s2sad.runtime.watch``)."""
    rows = []
    for label, code, key, literals in found:
        extra = f", {literals!r}" if literals else ""  # (ABSENT, or the literals expected at import)
        rows.append(f"    ({label!r}, {code}, {key!r}{extra}),")
    return (
        "# What the derivatives were made for (your functions, their defaults, the names and methods they call),\n"
        "# as it was when this module was imported: _unchanged() refuses to run once any of it was replaced,\n"
        "# or if your functions' code (name, first line, digest) is not the code this module was made from.\n"
        f"_unchanged = watched(\n    {cmd!r},\n" + "\n".join(rows) + "\n)"
    )
