"""Values whose operators or container methods are not NumPy's or Python's own.

s2sad's rules take ``x * y``, ``a @ b``, ``x[i]``, ``d.values()`` for the operators and methods of
numbers, NumPy arrays, lists, tuples and dicts.  A value of a class that defines its own (a user class
with ``__rmul__``, a NamedTuple with ``__add__``, a dict subclass overriding ``values``, ``np.matrix``,
an ndarray subclass overriding ``__mul__``, a ``scipy.sparse`` matrix) computes something else, which
those rules would differentiate as if it were the built-in operation: a wrong number.

``foreign(obj)`` says why such a value is refused (or ``""``); ``foreign_class(cls)`` the same for the
objects a class builds.  ``refuse_arguments`` is the call-time check of a derivative's arguments (walked
into lists, tuples, dicts, NamedTuples, dataclasses and user objects), which ``live.guard`` runs when
an argument's type is not in ``PLAIN`` (a float, an int or an exact ndarray).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import types

import gast
import numpy as np

from .errors import DifferentiationError
from .resolve import MISSING as _MISSING

_OPERATORS = frozenset(
    f"__{op}__"
    for base in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "divmod")
    for op in (base, "r" + base, "i" + base)
) | {"__neg__", "__pos__", "__abs__", "__invert__", "__array_ufunc__", "__array_function__"}
_INDEXING = frozenset({"__getitem__", "__setitem__", "__iter__", "__len__", "__contains__", "__reversed__"})
_NUMBERS = (float, int, complex, bool, type(None), str, bytes)
# what a container subclass may define without changing what s2sad's rules read
_HARMLESS = frozenset(
    {
        "__init__",
        "__new__",
        "__repr__",
        "__str__",
        "__format__",
        "__getnewargs__",
        "__doc__",
        "__module__",
        "__slots__",
        "__dict__",
        "__weakref__",
        "__init_subclass__",
        "__class_getitem__",
        "__match_args__",
        "__reduce__",
        "__reduce_ex__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__getattribute__",
        "__getattr__",
        "__setattr__",
        "__delattr__",
        "__dir__",
        "__sizeof__",
        "__subclasshook__",
        "__copy__",
        "__deepcopy__",
        "__getstate__",
        "__setstate__",
        "__missing__",
        "__annotations__",
        "__orig_bases__",
        "__parameters__",
        "__qualname__",
        "__firstlineno__",
        "__static_attributes__",
    }
)
_TRUSTED = (dict, list, tuple, collections.OrderedDict, collections.defaultdict, object)
_MEMO: dict = {}


def _overrides(cls, base, names) -> list[str]:
    """The names of ``names`` that ``cls`` defines otherwise than ``base`` does."""
    return [n for n in names if getattr(cls, n, None) is not getattr(base, n, None)]


def foreign_class(cls) -> str:
    """Why objects of ``cls`` are refused where their operators or methods are differentiated, or ``""``."""
    hit = _MEMO.get(cls)
    if hit is None:
        hit = _MEMO[cls] = _why(cls)
    return hit


def _why(cls) -> str:
    name = getattr(cls, "__qualname__", repr(cls))
    module = getattr(cls, "__module__", "") or ""
    if issubclass(cls, _NUMBERS) and cls.__module__ == "builtins" or cls is np.ndarray or issubclass(cls, np.generic):
        return ""
    if issubclass(cls, np.ndarray):
        if issubclass(cls, np.matrix):
            return "an np.matrix (its * is a matrix product and it stays 2-D)"
        base = np.memmap if issubclass(cls, np.memmap) else np.ndarray  # (a memmap computes as an ndarray)
        own = _overrides(cls, base, sorted(_OPERATORS | _INDEXING | {"__array_wrap__"}))
        if own:
            return f"an ndarray subclass {name} that defines its own {', '.join(own)}"
        return ""
    if module.startswith("scipy.sparse"):
        return f"a scipy.sparse {name} (its operators and methods are not NumPy's)"
    if issubclass(cls, collections.defaultdict):
        return (
            "a collections.defaultdict (reading a missing key inserts it, so f changes its argument's keys "
            "while the derivative runs; pass dict(p))"
        )
    if issubclass(cls, (dict, list, tuple)):
        own = []
        for klass in cls.__mro__:
            if klass in _TRUSTED:
                break
            base = next(b for b in (dict, list, tuple) if issubclass(klass, b))
            wanted = (set(dir(base)) | _OPERATORS | _INDEXING) - _HARMLESS
            own += [n for n in klass.__dict__ if n in wanted and n not in own]
        if own:
            own = ", ".join(sorted(own))
            return f"an object of class {name}, a subclass of {base.__name__} that defines its own {own}"
        return ""
    if module.split(".")[0] in ("numpy", "builtins", "math", "s2sad", "fractions", "decimal"):
        return ""
    own = [n for n in sorted(_OPERATORS) if getattr(cls, n, None) is not None and n in _defined(cls)]
    if own:
        return f"an object of class {name} that defines {', '.join(own)}"
    return ""


def _defined(cls) -> set:
    out = set()
    for klass in cls.__mro__[:-1]:  # (not object)
        out.update(klass.__dict__)
    return out


def constant_value(node, ns):
    """The object a Name/Attribute chain of a global, closure or bound value denotes, or None (a local,
    an unknown name), read without marking it as steering generation (its value is read live)."""
    path = []
    while isinstance(node, gast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name) or node.id in ns.locals:
        return None
    obj = ns.lookup_name(node.id)  # (also a name the passes put in the module: a class's record twin)
    for attr in reversed(path):
        if obj is _MISSING:
            return None
        try:
            obj = getattr(obj, attr)
        except Exception:  # (a property that raises: f raises there too)
            return None
    return None if obj is _MISSING else obj


def foreign(obj) -> str:
    t = type(obj)
    if t is np.ndarray or t in (float, int, complex, bool):
        return ""
    return foreign_class(t)


_LIMIT = 5000


def _walk(value, path: str, seen: set, budget: list):
    """The first (path, reason) of a refused value inside ``value``, or None."""
    t = type(value)
    if t is np.ndarray or t in (float, int, complex, bool, str, type(None)):
        return None
    if id(value) in seen or budget[0] <= 0:
        return None
    seen.add(id(value))
    budget[0] -= 1
    why = foreign_class(t)
    if why:
        return path, why
    if isinstance(value, dict):
        for k, v in value.items():
            hit = _walk(v, f"{path}[{k!r}]", seen, budget)
            if hit:
                return hit
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            hit = _walk(v, f"{path}[{i}]", seen, budget)
            if hit:
                return hit
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            hit = _walk(getattr(value, f.name, None), f"{path}.{f.name}", seen, budget)
            if hit:
                return hit
    elif _user_object(value):
        for k, v in vars(value).items():
            hit = _walk(v, f"{path}.{k}", seen, budget)
            if hit:
                return hit
    return None


def value_refusal(value) -> str:
    """Why ``value`` (or a value it holds) is refused where s2sad's rules take it as an operand, or ``""``."""
    hit = _walk(value, "", set(), [_LIMIT])
    if hit is None:
        return ""
    path, why = hit
    return f"its item {path} is {why}" if path else why


def _user_object(value) -> bool:
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType, functools.partial)):
        return False
    module = (getattr(type(value), "__module__", "") or "").split(".")[0]
    if module in ("numpy", "builtins", "math", "s2sad", "scipy", "collections", "typing", "functools"):
        return False
    return isinstance(getattr(value, "__dict__", None), dict)


def refusal(fn, arguments: dict) -> str | None:
    """The refusal of a call of ``fn``'s derivative with ``arguments`` (name -> value), or None."""
    seen, budget = set(), [_LIMIT]
    for name, value in arguments.items():
        hit = _walk(value, name, seen, budget)
        if isinstance(value, types.ModuleType):  # backend=numpy: backend.sum(v) would be taken for v's method
            return (
                f"{_where(fn)}the argument {name} of {getattr(fn, '__qualname__', fn)} is the module "
                f"{value.__name__}: s2sad reads a module's functions where it writes the code, from f's globals, "
                "not from an argument; call them through a global name (`import numpy as np`)"
            )
        if hit:
            path, why = hit
            return (
                f"{_where(fn)}the argument {path} of {getattr(fn, '__qualname__', fn)} is {why}: s2sad differentiates "
                "the operators and methods of numbers, NumPy arrays, lists, tuples and dicts, and would take this "
                "value's for those (a wrong derivative); pass np.asarray(...), a plain dict/list/tuple, "
                "or a NamedTuple/dataclass without operator methods"
            )
    return None


def _where(fn) -> str:
    """``file:line:1: `` of ``fn``'s code (of the function a bound method or partial stands for), or ``""``."""
    while not hasattr(fn, "__code__") and hasattr(fn, "function"):
        fn = fn.function
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}:1: " if code is not None else ""


PLAIN = frozenset({float, int, np.ndarray})  # the types whose arguments need no walk


def refuse_arguments(fn, names, values):
    """Raise the refusal of :func:`refusal` for the arguments ``values`` of ``names``, if there is one."""
    message = refusal(fn, dict(zip(names, values)))
    if message:
        raise DifferentiationError(message)
