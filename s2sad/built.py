"""built: objects f builds of a user class (``layer = Dense(W)``, ``Child().act(x)``).

``anf`` notes the names bound once to such an object (``ns.built``); :mod:`star` types them by an empty
instance of the class (:func:`prototype`, made without ``__init__``: only its class is asked).  A class
whose ``__init__`` only stores its parameters under their own names has a dataclass *twin*
(:func:`record_twin`: a subclass with those fields and the same methods), which the derivative builds
instead, so an object built from a differentiated value is a container of its fields, as a dataclass is.
"""

from __future__ import annotations

import dataclasses
import inspect
import types

_MISSING = object()


def plain_class(cls) -> bool:
    """A class of user code whose call makes an instance of itself (no ``__new__``, no metaclass
    ``__call__``, no attribute lookup of its own; a dataclass, not a NamedTuple)."""
    if not isinstance(cls, type) or issubclass(cls, tuple):
        return False
    module = (getattr(cls, "__module__", "") or "").split(".")[0]
    if module in ("builtins", "numpy", "s2sad", "math", "scipy", "functools", "typing", "collections", "abc"):
        return False
    return (
        type(cls).__call__ is type.__call__
        and cls.__new__ is object.__new__
        and cls.__getattribute__ is object.__getattribute__
        and all(c.__module__ != "builtins" or c is object for c in cls.__mro__)
    )


_TWINS: dict = {}


def record_twin(cls):
    """For a plain user class whose ``__init__`` only stores its parameters under their own names
    (``def __init__(self, W, b=0.0): self.W = W; self.b = b``, after an optional ``super().__init__()``
    reaching ``object``): a dataclass subclass of it with those fields (same methods, same attributes
    after construction), which f's derivative builds instead, so the object is a container of its
    fields (``layer = Dense(np.outer(x, x))``: the adjoint of ``W`` flows back through ``layer.W``).
    None for any other class.  Made once per (class, ``__init__``)."""
    if not plain_class(cls) or dataclasses.is_dataclass(cls):
        return None
    init = inspect.getattr_static(cls, "__init__", None)
    key = (cls, init)
    if key not in _TWINS:
        _TWINS[key] = _make_twin(cls, init)
    return _TWINS[key]


_CLASS_READ = None


def inspects_classes(fn, cls, depth: int = 3) -> bool:
    """Whether the code that sees an object of ``cls`` built in ``fn`` may read its class (``type(o)``,
    ``o.__class__``): ``fn``'s source, the class's, and the user functions ``fn`` calls by name (to
    ``depth``), a conservative scan of their text.  The twin, a subclass, answers ``type(o) is Dense``
    with False."""
    import re
    import types

    global _CLASS_READ
    if _CLASS_READ is None:
        _CLASS_READ = re.compile(r"\btype\s*\(|__class__")
    seen, todo = set(), [(fn, depth), (cls, 0)]
    while todo:
        obj, left = todo.pop()
        obj = getattr(obj, "__func__", obj)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        try:
            text = inspect.getsource(obj)
        except (OSError, TypeError):
            continue
        if _CLASS_READ.search(text):
            return True
        if left > 0 and isinstance(obj, types.FunctionType):
            space = getattr(obj, "__globals__", {})
            for called in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)):
                callee = space.get(called)
                if isinstance(callee, types.FunctionType) or isinstance(callee, type) and callee is not cls:
                    todo.append((callee, left - 1))
    return False


def init_checks(cls):
    """The class dicts to check for ``cls.__init__`` (replaced later: the twin is made again)."""
    from .star import _class_entry

    found = _class_entry(cls, "__init__")
    return found[1] if found is not None else []


def _make_twin(cls, init):
    if any("__slots__" in vars(c) for c in cls.__mro__[:-1]) or any(
        n in vars(c) for c in cls.__mro__[:-1] for n in ("__setattr__", "__delattr__", "__init_subclass__")
    ):
        return None
    found = _stored_parameters(cls, init)
    if found is None:
        return None
    fields, defaults = found
    spec = []
    for f in fields:
        if f in defaults:
            d = defaults[f]
            spec.append((f, object, dataclasses.field(default_factory=lambda d=d: d)))
        else:
            spec.append((f, object))
    try:
        twin = dataclasses.make_dataclass(cls.__name__, spec, bases=(cls,), eq=False, repr=False, match_args=False)
    except (TypeError, ValueError):
        return None
    twin.__qualname__, twin.__module__ = cls.__qualname__, cls.__module__
    twin.__doc__ = cls.__doc__
    twin.__s2sad_twin_of__ = cls
    return twin


def _stored_parameters(cls, init, depth=0):
    """For ``cls``'s ``__init__`` ``init`` storing each parameter under its own name and nothing else
    (after an optional ``super().__init__()`` whose ``__init__`` takes and stores nothing, or ``pass``):
    ``(parameters, defaults)``; else None."""
    import ast
    import textwrap

    if init is object.__init__:
        return [], {}
    if depth > 8 or not isinstance(init, types.FunctionType) or not _is_user_function(init):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(init))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    a = tree.args
    if a.vararg or a.kwarg or a.kwonlyargs or getattr(a, "posonlyargs", None) or tree.decorator_list:
        return None
    names = [p.arg for p in a.args]
    if not names:
        return None
    me, params = names[0], names[1:]
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # a docstring
    body = [b for b in body if not isinstance(b, ast.Pass)]
    if body and _is_super_init(body[0]):
        home = next((c for c in cls.__mro__ if vars(c).get("__init__") is init), None)
        if home is None:
            return None
        rest = cls.__mro__[cls.__mro__.index(home) + 1 :]
        base = next((c for c in rest if "__init__" in vars(c)), object)
        below = _stored_parameters(cls, vars(base)["__init__"] if base is not object else object.__init__, depth + 1)
        if below != ([], {}):
            return None
        body = body[1:]
    stored = []
    for stmt in body:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and isinstance(stmt.targets[0].value, ast.Name)
            and stmt.targets[0].value.id == me
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id == stmt.targets[0].attr
            and stmt.value.id in params
        ):
            return None
        stored.append(stmt.value.id)
    if sorted(stored) != sorted(params) or len(set(stored)) != len(stored):
        return None
    sig = inspect.signature(init)
    empty = inspect.Parameter.empty
    defaults = {p: sig.parameters[p].default for p in params if sig.parameters[p].default is not empty}
    return params, defaults


def _is_super_init(stmt) -> bool:
    import ast

    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and not call.args
        and not call.keywords
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "__init__"
        and isinstance(call.func.value, ast.Call)
        and isinstance(call.func.value.func, ast.Name)
        and call.func.value.func.id == "super"
        and not call.func.value.args
    )


_PROTOTYPES: dict = {}


def prototype(cls):
    """An empty instance of ``cls`` (made without running ``__init__``) standing for the objects f
    builds of that class: generation asks only for its class."""
    obj = _PROTOTYPES.get(cls)
    if obj is None:
        obj = _PROTOTYPES[cls] = object.__new__(cls)
    return obj


def is_prototype(obj) -> bool:
    return _PROTOTYPES.get(type(obj), _MISSING) is obj


_ASSIGNS: dict = {}


def assigns_attribute(cls, attr) -> bool:
    """Whether code of ``cls`` (its functions and its bases') may store an attribute ``attr``
    (``self.forward = ...``, hiding the method; conservatively True when a source cannot be read)."""
    import ast
    import textwrap

    key = (cls, attr)
    if key not in _ASSIGNS:
        found = False
        for c in cls.__mro__[:-1]:
            if "__s2sad_twin_of__" in vars(c):  # (its __init__ stores the fields only)
                if attr in vars(c)["__dataclass_fields__"]:
                    found = True
                    break
                continue
            for entry in vars(c).values():
                fn = entry.__func__ if isinstance(entry, (staticmethod, classmethod)) else entry
                fn = fn.fget if isinstance(fn, property) else fn
                if not isinstance(fn, types.FunctionType):
                    continue
                try:
                    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
                except (OSError, TypeError, SyntaxError):
                    found = True
                    break
                if any(
                    isinstance(n, ast.Attribute)
                    and n.attr == attr
                    and not isinstance(n.ctx, ast.Load)
                    or isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Name)
                    and n.func.id in ("setattr", "vars")
                    for n in ast.walk(tree)
                ):
                    found = True
                    break
            if found:
                break
        _ASSIGNS[key] = found
    return _ASSIGNS[key]


def _is_user_function(fn) -> bool:
    from .primitives import is_user_function

    return is_user_function(fn)


def record_problem(cls) -> str | None:
    """Why calling the dataclass or NamedTuple ``cls`` does more than store its fields (then it is not a
    container of them, and the derivative cannot take it for one), or None: a ``__post_init__``, an
    ``InitVar``, an ``__init__``, ``__new__``, ``__setattr__`` or metaclass ``__call__`` of user code, or a
    field that is a descriptor with a setter (a property) run when the field is stored."""
    if type(cls).__call__ is not type.__call__:
        return "its metaclass defines __call__"
    if dataclasses.is_dataclass(cls):
        if hasattr(cls, "__post_init__"):
            return "it defines __post_init__, which runs when the object is built"
        if any(f._field_type is dataclasses._FIELD_INITVAR for f in cls.__dataclass_fields__.values()):
            return "it has an InitVar field, an argument that is not stored as a field"
        home = next((c for c in cls.__mro__ if "__init__" in vars(c)), object)
        if not (dataclasses.is_dataclass(home) and _generated(vars(home)["__init__"])):
            return f"its __init__ ({home.__qualname__}.__init__) is not the one dataclass writes"
        if cls.__new__ is not object.__new__:
            return "it defines __new__"
        if not cls.__dataclass_params__.frozen and cls.__setattr__ is not object.__setattr__:
            return "it defines __setattr__, which runs when each field is stored"
        for name in record_fields_of(cls):
            found = inspect.getattr_static(cls, name, None)
            if hasattr(type(found), "__set__") and not isinstance(found, types.MemberDescriptorType):
                return (
                    f"its field {name!r} is a descriptor ({type(found).__name__}) whose __set__ runs when it is stored"
                )
        return None
    home = next((c for c in cls.__mro__ if "__new__" in vars(c)), object)
    if "_make" not in vars(home):
        return f"it defines __new__ ({home.__qualname__}.__new__)"
    if cls.__init__ is not object.__init__:
        return "it defines __init__"
    for name in cls._fields:
        owner = next((c for c in cls.__mro__ if name in vars(c)), None)
        if owner is not home:
            return f"its field {name!r} is redefined in {owner.__qualname__ if owner else 'a base'}"
    return None


def record_fields_of(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def _generated(init) -> bool:
    """``init`` is written by dataclasses (compiled from text), not by the user."""
    code = getattr(init, "__code__", None)
    return code is not None and code.co_filename == "<string>" and code.co_name == "__init__"
