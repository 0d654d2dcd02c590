"""star: functions taking ``*args``/``**kwargs``, specialized to the arguments of one call.

Where such a function is called, the number of positional arguments and the keyword names are
known: inside ``f`` at each call site (``helper(x, x * x)``), for ``f`` itself when the derivative
is called.  A :class:`Specialized` function is the function for one such shape: one parameter per
actual argument (``xs_0, xs_1`` for ``*xs``; keyword-only ``kw_a`` for ``a=`` going into ``**kw``),
whose body begins by packing them (``xs = (xs_0, xs_1)``, ``kw = {'a': kw_a}``), which the tuple and
dict support differentiates.  ``parse`` gives its tree (:func:`specialize_tree`); ``primitives``
specializes user functions at call sites (:func:`at_call`); ``api`` makes the derivative of such an
``f`` a :func:`dispatcher` that specializes at each call (cached per shape).

Also here, the facts ``desugar`` uses to spell out calls: names bound once to a tuple display of
known length (``helper(*args)``) or to a dict display of string keys never changed (``g(**kw)``,
``kw.get('a', 1.0)``).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types

import gast
import numpy as np

from .built import assigns_attribute, is_prototype, prototype
from .callables import FunctionLike
from .errors import DifferentiationError
from .ir import is_dict_view, is_super_call

VAR_POS, VAR_KW = inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD


def takes_star(fn) -> bool:
    """Whether ``fn`` (a function, or what :mod:`callables` makes of one) has ``*args`` or ``**kwargs``."""
    if getattr(fn, "__s2sad_spec__", None) is not None:
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (VAR_POS, VAR_KW) for p in params)


class Specialized(FunctionLike):
    """``function`` (with ``*args``/``**kwargs``) for calls with ``npos`` positional arguments and the
    keyword arguments ``keywords`` that go into ``**kwargs`` (in the call's order).

    It looks like the function to the passes (code, globals, closure, defaults read live); its
    signature has one parameter per argument; calling it calls the function."""

    def __init__(self, function, npos: int, keywords: tuple[str, ...], types: dict | None = None):
        self.function = function
        self.__s2sad_types__ = types or Typing({})  # the classes of the objects whose methods it calls
        self.npos, self.keywords = npos, tuple(keywords)
        params = list(inspect.signature(function).parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = next((p for p in params if p.kind is VAR_POS), None)
        varkw = next((p for p in params if p.kind is VAR_KW), None)
        code = function.__code__
        taken = set(code.co_varnames) | set(code.co_names) | set(code.co_freevars) | set(code.co_cellvars)
        taken |= {p.name for p in params} | set(getattr(function, "__s2sad_bound__", None) or {})

        def fresh(base):
            while base in taken:
                base += "_"
            taken.add(base)
            return base

        extra = max(0, npos - len(positional))
        self.items = [fresh(f"{var.name}_{i}") for i in range(extra)] if var else []
        self.renamed = {k: fresh(f"{varkw.name}_{k}") for k in self.keywords} if varkw else {}
        self.var = var.name if var else None
        self.varkw = varkw.name if varkw else None
        new = []
        for p in positional:
            p = p.replace(kind=p.POSITIONAL_OR_KEYWORD)
            new.append(p.replace(default=p.empty) if extra else p)
        new += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in self.items]
        new += [p for p in params if p.kind is p.KEYWORD_ONLY]
        new += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in self.renamed.values()]
        self.__signature__ = inspect.Signature(new)
        bound = getattr(function, "__s2sad_bound__", None)
        if bound is not None:
            self.__s2sad_bound__ = bound
        self.__s2sad_spec__ = (npos, self.keywords, self.__s2sad_types__)
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__module__ = function.__module__

    def __eq__(self, other):
        return isinstance(other, Specialized) and (self.function, self.__s2sad_spec__) == (
            other.function,
            other.__s2sad_spec__,
        )

    def __hash__(self):
        return hash((self.function, self.__s2sad_spec__))

    def __call__(self, *args, **kwargs):
        call = self.__signature__.bind(*args, **kwargs).arguments
        back = {v: k for k, v in self.renamed.items()}
        positional = [
            call.pop(n)
            for n in list(call)
            if self.__signature__.parameters[n].kind is not inspect.Parameter.KEYWORD_ONLY
        ]
        return self.function(*positional, **{back.get(k, k): v for k, v in call.items()})

    def __repr__(self):
        types = self.__s2sad_types__
        return f"<{self.__qualname__} for {self.npos} positional arguments, keywords {list(self.keywords)}, {types}>"


def specialize(fn, npos: int, keyword_names, types=None) -> Specialized:
    """``fn`` for a call with ``npos`` positional arguments and these keyword names (those that name
    a parameter bind it; the others go into ``**kwargs``); ``types``: parameters whose class is known."""
    params = inspect.signature(fn).parameters.values()
    if not any(p.kind is VAR_POS for p in params):
        npos = 0  # the same code for any number of positional arguments
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    keywords = tuple(k for k in keyword_names if k not in named) if any(p.kind is VAR_KW for p in params) else ()
    return Specialized(fn, npos, keywords, types)


def at_call(fn, args: list, keywords: dict, types=None):
    """A call site ``fn(*args, **keywords)`` (atoms) of a user function: the function to differentiate
    there and the keywords as its signature names them (``a=`` into ``**kw`` is ``kw_a=``).
    ``types``: parameter -> class, for a method called on an object of a known class."""
    if not takes_star(fn) and not types:
        return fn, keywords
    try:
        inspect.signature(fn).bind(*args, **keywords)
    except TypeError:
        return fn, keywords  # refused where the call is differentiated ("cannot call ...")
    spec = specialize(fn, len(args), list(keywords), types)
    return spec, {spec.renamed.get(k, k): v for k, v in keywords.items()}


# ---- objects whose methods f calls: their classes, known at call time ------------------------------
_RECEIVERS: dict = {}


def receivers(fn) -> tuple[str, ...]:
    """The parameters of ``fn`` on which it calls methods (``model.loss(x)``, ``self.layer.forward(x)``),
    directly or in a user function it passes them to (``helper(x, model)``, ``helper(x, model.layer)``):
    their classes are known at call time, so the derivative is specialized per tuple of those classes
    (a :class:`Typing` per call shape), and ``model.loss(x)`` is a call of that class's ``loss``."""
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "__s2sad_spec__", None) is not None or getattr(fn, "__s2sad_types__", None):
        return ()
    if getattr(fn, "__module__", None) == "s2sad.generated":
        return ()  # derivative code: typed as the function it differentiates (api copies its Typing)
    key = (code, tuple(getattr(fn, "__s2sad_bound__", None) or ()))
    found = _RECEIVERS.get(key)
    if found is None:
        _RECEIVERS[key] = ()  # a recursive helper: what is found so far
        try:
            found = _receivers(fn)
        except Exception:  # noqa: BLE001 -- no source, a syntax s2sad refuses: refused where it is generated
            found = ()
        _RECEIVERS[key] = found
    return found


def _receivers(fn) -> tuple[str, ...]:
    from .parse import parse_function
    from .primitives import is_output, is_user_function

    tree = parse_function(fn).tree
    params = [a.id for a in list(getattr(tree.args, "posonlyargs", None) or []) + tree.args.args + tree.args.kwonlyargs]
    bound = getattr(fn, "__s2sad_bound__", None) or {}
    constants = [p for p in bound if _is_object(bound, p)]  # grad(m.loss): self is m, known now
    params += constants
    stored = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}

    reached = {}  # a local name bound once to an item or attribute of a parameter (for layer in model.layers)
    counts = _stores(tree)
    free = _FreeNames(fn)  # a global or closed-over name's object (net.loss(x) with net of the enclosing f)
    for n in gast.walk(tree):
        target, value = (n.target, n.iter) if isinstance(n, gast.For) else (None, None)
        if isinstance(n, gast.Assign) and len(n.targets) == 1:
            target, value = n.targets[0], n.value
        if isinstance(target, gast.Tuple) and len(target.elts) == 2 and is_dict_view(value):
            target = target.elts[1]  # for k, block in model.blocks.items()
        if isinstance(target, gast.Name) and counts.get(target.id) == 1 and target.id not in params:
            reached[target.id] = value

    def root(node, depth=0):
        while isinstance(node, (gast.Attribute, gast.Subscript)) or is_dict_view(node):
            node = node.func.value if isinstance(node, gast.Call) else node.value
        if not isinstance(node, gast.Name) or depth > 8:
            return None
        if node.id in reached:
            return root(reached[node.id], depth + 1)
        return node.id if node.id in params and node.id not in stored else None

    def as_object(p):  # read only as an object (p.sum(v), p.w): a user object, not an array (x.sum())
        return all(
            isinstance(parent, gast.Attribute)
            for parent, child in _parents(tree)
            if isinstance(child, gast.Name) and child.id == p and isinstance(child.ctx, gast.Load)
        )

    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    out, strict = set(), set()  # strict: not only through NumPy's method names (model.sum(x), W.dot(x))
    from .resolve import dotted

    for call in gast.walk(tree):
        if not isinstance(call, gast.Call):
            continue
        path = dotted(call.func)
        if is_super_call(call.func):  # super().m(x): which m depends on the class of self
            first = _first_param(fn) if _first_param(fn) in params else next(iter(bound), None)
            if first in params and first not in stored:
                out.add(first)
                strict.add(first)
            continue
        if path and path.split(".")[0] in constants:  # self.predict(w), self.layer.forward(x), self(x)
            first, *rest = path.split(".")
            if _reaches_typed_code(bound[first], rest):  # self.forward(x) looping over self.layers
                out.add(first)
                strict.add(first)
            continue  # else resolved where generated
        if isinstance(call.func, gast.Attribute) and root(call.func.value):
            if call.func.attr not in _BUILTIN_METHODS:  # not x.reshape(2, 2), lst.append(v)
                out.add(root(call.func.value))  # model.loss(x), self.layer.forward(x), model.layers[0].f(x)
                strict.add(root(call.func.value))
            elif (
                isinstance(call.func.value, gast.Name)
                and as_object(call.func.value.id)
                and any(not isinstance(a, gast.Constant) for a in call.args)
            ):  # model.sum(x) of a name never used as a value: a user object, or an array (W.dot(x))
                out.add(root(call.func.value))
            continue
        if isinstance(call.func, (gast.Name, gast.Subscript)) and root(call.func):
            out.add(root(call.func))  # fn(v) of a parameter fn, layer(x) for layer in model.layers
            strict.add(root(call.func))
            continue
        callee, args = _callee(call.func, cells, fn.__globals__, params, stored), list(call.args)
        if isinstance(callee, types.MethodType):  # m.loss(x, model) of a global object
            owner = path.split(".")[0] if path and isinstance(call.func, gast.Attribute) else None
            if owner and (is_output(callee) or not _is_object(free, owner)):
                owner = None  # (logger.debug(...) is output, never differentiated)
            callee, args = callee.__func__, [None, *args]
            if owner and is_user_function(callee) and _first_param(callee) in receivers(callee):
                out.add(owner)  # m.loss(x) of a global m whose loss loops over self.layers: typed as helper(x, m)
                strict.add(owner)
        if isinstance(call.func, gast.Name) and _is_object(free, call.func.id):
            method = inspect.getattr_static(type(callee), "__call__", None)  # A(x) of a global callable instance A
            if isinstance(method, types.FunctionType) and is_user_function(method):
                if _first_param(method) in receivers(method):  # whose __call__ is self.forward(x): typed
                    out.add(call.func.id)
                    strict.add(call.func.id)
                continue
        if callee is None or not is_user_function(callee) or any(isinstance(a, gast.Starred) for a in args):
            continue
        wanted = receivers(callee)
        if not wanted:
            continue
        try:
            bound = inspect.signature(callee).bind(*args, **{k.arg: k.value for k in call.keywords if k.arg})
        except TypeError:
            continue
        loose = array_receivers(callee)
        for p, a in bound.arguments.items():
            if p in wanted and isinstance(a, gast.AST) and root(a):
                out.add(root(a))
                if p not in loose:
                    strict.add(root(a))
            elif p in wanted and isinstance(a, gast.Name) and a.id not in stored and _is_object(free, a.id):
                out.add(a.id)  # helper(x, M) of a global (or closed-over) object M: read at each call
                strict.add(a.id)
    _ARRAY_RECEIVERS[(fn.__code__, tuple(getattr(fn, "__s2sad_bound__", None) or ()))] = frozenset(out - strict)
    return tuple(p for p in params if p in out) + tuple(sorted(out - set(params)))


_ARRAY_RECEIVERS: dict = {}


class _FreeNames:
    """The objects ``fn``'s free names hold now: its closure cells' contents, then its globals (a
    mapping with ``get``, as :func:`_is_object` reads it)."""

    def __init__(self, fn):
        self.fn = fn

    def get(self, name, default=None):
        return free_value(self.fn, name, default)


def free_value(fn, name, default=None):
    """The object the free name ``name`` of ``fn`` holds now: a closure cell's, else the global's."""
    code = getattr(fn, "__code__", None)
    if code is not None and name in code.co_freevars and fn.__closure__:
        try:
            return fn.__closure__[code.co_freevars.index(name)].cell_contents
        except ValueError:  # an empty cell
            return default
    return fn.__globals__.get(name, default)


def _first_param(fn):
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    return names[0] if names else None


def _reaches_typed_code(obj, rest) -> bool:
    """Whether calling ``obj.<rest>`` (``self.forward(x)``, ``self.head(x)``, ``self(x)`` in a bound
    method, ``obj`` the bound object) runs user code that calls methods on its objects (``for l in
    self.layers: x = l(x)``, ``self.fn(x)``): then the bound object is typed like a parameter."""
    from .primitives import is_user_function

    for attr in rest:
        own = getattr(obj, "__dict__", None) or {}
        obj = own[attr] if attr in own else inspect.getattr_static(obj, attr, None)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if obj is None or isinstance(obj, property):
            return False
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if not isinstance(obj, types.FunctionType):
        call = inspect.getattr_static(type(obj), "__call__", None)  # a callable instance
        obj = call if isinstance(call, types.FunctionType) else None
    try:
        return obj is not None and is_user_function(obj) and bool(receivers(obj))
    except Exception:  # noqa: BLE001 -- no source: refused where it is generated
        return False


def array_receivers(fn) -> frozenset:
    """The :func:`receivers` of ``fn`` found only through NumPy's method names (``W.dot(x)``,
    ``model.sum(x)`` of a parameter read only through such calls): each may be an array, where the
    derivative is the one made without classes, or a user object, whose class specializes it."""
    if not receivers(fn):
        return frozenset()
    return _ARRAY_RECEIVERS.get((fn.__code__, tuple(getattr(fn, "__s2sad_bound__", None) or ())), frozenset())


def _is_object(globals_, name) -> bool:
    """Whether the global ``name`` holds an instance of a user class."""
    obj = globals_.get(name)
    module = (getattr(type(obj), "__module__", "") or "").split(".")[0]
    return (
        obj is not None
        and not isinstance(obj, (type, types.ModuleType, types.FunctionType, types.MethodType))
        and module not in ("builtins", "numpy", "s2sad", "math", "scipy", "functools", "typing", "collections")
    )


def _parents(tree):
    for parent in gast.walk(tree):
        for child in gast.iter_child_nodes(parent):
            yield parent, child


_TYPES = (np.ndarray, np.generic, list, dict, tuple, str, float, complex)
_BUILTIN_METHODS = frozenset().union(*(dir(t) for t in _TYPES))  # methods of values, not of user objects


def _callee(func, cells, globals_, params, stored):
    """The object a call's function expression names, when it is a global, closure or builtin name or an
    attribute chain of one (``helper``, ``mod.helper``, ``m.loss``); else None."""
    from .resolve import dotted

    path = dotted(func)
    if not path or path.split(".")[0] in params or path.split(".")[0] in stored:
        return None
    first, *rest = path.split(".")
    if first in cells:
        try:
            obj = cells[first].cell_contents
        except ValueError:
            return None
    else:
        obj = globals_.get(first)
    owner = obj
    for a in rest:
        obj = inspect.getattr_static(obj, a, None)
        if isinstance(obj, (staticmethod, classmethod)) or obj is None:
            return None
    if rest and isinstance(obj, types.FunctionType):  # m.loss: bound to the object m
        owner = owner if len(rest) == 1 else None
        if owner is not None and not isinstance(owner, (type, types.ModuleType)):
            return types.MethodType(obj, owner)
    return obj


class Typing:
    """The classes of the objects of one call that generation may ask about: a parameter (``model``) or a
    path of instance attributes and items from one (``model.layer``, ``model.layers[0]``, every item
    ``model.layers[*]``, a bound method's ``t.__self__``), found from that call's ``objects``.  Every
    answer is recorded in ``guards`` (path -> :func:`kind_of`, paths in the dispatcher's parameter names)
    and every method called on such an object in ``called`` (path, method, file:line:col), which the
    dispatcher checks on later calls.  ``view`` gives a called function's parameters the paths of its
    arguments (``helper(x, model.layer)``); ``without`` forgets what ``f`` rebinds."""

    def __init__(self, objects: dict, names=None, shared=None, stopped=frozenset(), roots=None, fixed=frozenset()):
        self.objects = objects  # parameter -> the object of the call that generation follows
        self.names = names if names is not None else {p: p for p in objects}  # parameter -> dispatcher path
        self.shared = shared if shared is not None else ({}, {})  # (guards, called)
        self.stopped = frozenset(stopped)  # attributes f assigns (model.layer = ...): not typed
        self.roots = roots if roots is not None else objects  # the dispatcher's objects (paths follow from them)
        # roots known where the code is generated (an object f builds, a None or NumPy function written at a
        # call): answers about them are not the dispatcher's to check
        self.fixed = frozenset(fixed)

    def _key(self):
        given = tuple((k, id(self.roots[k])) for k in sorted(self.fixed))  # g(x, None) and g(x, np.sin) differ
        return (id(self.shared), tuple(sorted(self.names.items())), self.stopped, given)

    def __eq__(self, other):
        return isinstance(other, Typing) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __bool__(self):
        return bool(self.objects)

    def __repr__(self):
        return "{" + ", ".join(f"{p}: {type(o).__qualname__}" for p, o in self.objects.items()) + "}"

    def obj(self, path: str):
        """The object at ``path`` in the call generation follows (instance attributes and items only:
        a property runs its getter), or ``_NONE``; for every item (``[*]``), the first, when all have
        one :func:`kind_of`."""
        if self.stopped.intersection(_steps(path)[1]):
            return _NONE
        found = self._found(path)
        if not found or any(kind_of(o) != kind_of(found[0]) for o in found[1:]):
            return _NONE
        return found[0]

    def get(self, path: str, default=None):
        """The class of the object at ``path`` (recorded: the derivative is valid for objects of that
        :func:`kind_of` only: that class, or that very function)."""
        obj = self.obj(path)
        if obj is _NONE:
            return default
        if self._records(path):
            self.shared[0][self._full(path)] = kind_of(obj)
        return type(obj)

    def length(self, path: str) -> int | None:
        """The length of the list or tuple at ``path`` (recorded: the derivative is for that length)."""
        found = self._found(path)
        if len(found) != 1 or not isinstance(found[0], (list, tuple)):
            return None
        if self._records(path):
            self.shared[0][self._full(path) + "#len"] = ("len", len(found[0]))
        return len(found[0])

    def differing(self, path: str):
        """When the objects at ``path`` (every item: ``[*]``) are not all of one :func:`kind_of`: the
        dispatcher's path and the names of their kinds; else None."""
        if "[*]" not in self._full(path) if _steps(path)[0] in self.names else True:
            return None
        found = self._found(path)
        kinds = list(dict.fromkeys(kind_of(o) for o in found))
        if len(kinds) < 2:
            return None
        return self._full(path), [k[1].__name__ if isinstance(k, tuple) else k.__qualname__ for k in kinds]

    def keys(self, path: str) -> tuple | None:
        """The keys of the dict at ``path``, in order (recorded: the derivative is for those keys)."""
        found = self._found(path)
        if len(found) != 1 or type(found[0]) is not dict:
            return None
        keys = tuple(found[0])
        if self._records(path):
            self.shared[0][self._full(path) + "#keys"] = ("keys", keys)
        return keys

    def _records(self, path) -> bool:
        """Whether an answer about ``path`` is checked by the dispatcher: not for an object f builds
        (``layer = Dense(W)``: its class is the one written in f, checked as a global is)."""
        return _steps(self._full(path))[0] not in self.fixed

    def _full(self, path):
        first = _steps(path)[0]
        return self.names[first] + path[len(first) :]

    def _found(self, path) -> list:
        """The objects at ``path``, followed from the dispatcher's objects: a parameter given every item
        (``self`` of ``layer.forward(x)`` for ``layer in model.layers``) reaches every item's attributes."""
        if _steps(path)[0] not in self.names:
            return []
        return _follow(self.roots, self._full(path))

    def items_alike(self, path: str) -> bool:
        """Whether every item of the list or tuple at ``path`` is alike in all generation may ask about
        through ``[*]`` (the classes, stored functions and objects of their attributes, at any depth):
        one loop body then serves every item; else the loop is written out item by item."""
        found, memo = self._found(path + "[*]"), {}
        try:
            shapes = [_shape(o, memo) for o in found]
        except _TooBig:
            return False
        return bool(shapes) and all(s == shapes[0] for s in shapes[1:])

    def method(self, path: str, attr: str, where: str) -> None:
        """``obj.attr(...)`` is differentiated as the class's method: refused if the object hides it."""
        # the first place named: the user's line (generated code differentiated again names its own)
        where = self.shared[1].setdefault((self._full(path), attr), where)
        for obj in self._found(path):
            if is_prototype(obj) and (self.stopped & {attr, "*"} or assigns_attribute(type(obj), attr)):
                raise DifferentiationError(
                    f"{where}: '{path}' is an object of class {type(obj).__qualname__} built in the function, and "
                    f"code of that class (or the function) may set its attribute '{attr}', which would hide the "
                    "method of its class; s2sad differentiates the methods of the class: rename the attribute"
                )
            if attr in (getattr(obj, "__dict__", None) or ()):
                raise hidden_error(where, path, attr, type(obj))

    def view(self, mapping: dict) -> Typing:
        """A called function's: its parameter -> the path (here) of the argument it is given."""
        objects = {p: self.obj(path) for p, path in mapping.items()}
        names = {p: self._full(path) for p, path in mapping.items() if objects[p] is not _NONE}
        objects = {p: o for p, o in objects.items() if o is not _NONE}
        return Typing(objects, names, self.shared, self.stopped, self.roots, self.fixed)

    def given(self, constants: dict) -> Typing:
        """This typing with parameters given objects known where the code is generated (``g(x, None)``,
        ``g(x, np.tanh)``, ``layer = Dense(W)``): ``{parameter: object}``."""
        objects, names, roots = dict(self.objects), dict(self.names), dict(self.roots)
        fixed = set(self.fixed)
        for p, obj in constants.items():
            key = f"_given_{p}"
            while key in roots:
                key += "_"
            objects[p], names[p], roots[key] = obj, key, obj
            fixed.add(key)
        return Typing(objects, names, self.shared, self.stopped, roots, fixed)

    def without(self, names, attributes) -> Typing:
        objects = {p: o for p, o in self.objects.items() if p not in names}
        names = {p: self.names[p] for p in objects}
        return Typing(objects, names, self.shared, self.stopped | set(attributes), self.roots, self.fixed)


_NONE = object()


def _shape(obj, memo: dict):
    """What generation may ask about ``obj`` and what it reaches (:func:`kind_of` of it, of its
    attributes and properties, of a bound method's object, of items), as a comparable value; ``memo``
    (id -> shape, shared by the items compared) visits each object once, a cycle back is a marker."""
    kind = kind_of(obj)
    if isinstance(obj, (np.ndarray, np.generic, int, float, complex, str, type(None))):
        return kind
    if id(obj) in memo:
        return memo[id(obj)]
    if len(memo) > 5000:
        raise _TooBig
    memo[id(obj)] = ("cycle", kind)
    if isinstance(obj, types.MethodType):
        out = kind, _shape(obj.__self__, memo)
    elif _is_sequence(obj):
        out = kind, len(obj), tuple(_shape(o, memo) for o in obj)
    elif isinstance(obj, dict):
        out = kind, tuple((k, _shape(v, memo)) for k, v in obj.items())
    elif not isinstance(getattr(obj, "__dict__", None), dict) or isinstance(obj, (type, types.FunctionType)):
        out = kind
    else:
        own = obj.__dict__
        names = list(own) + [
            n for c in type(obj).__mro__ for n, e in c.__dict__.items() if isinstance(e, property) and n not in own
        ]
        attrs = []
        for n in names:
            try:
                value = _instance_attribute(obj, n)
            except Exception:  # noqa: BLE001 -- a getter that fails: not alike to anything
                value = object()
            attrs.append((n, None if value is _NONE else _shape(value, memo)))
        out = kind, tuple(attrs)
    memo[id(obj)] = out
    return out


class _TooBig(Exception):
    pass


def kind_of(obj):
    """What a derivative made for ``obj`` depends on: its class; a user function itself; a bound
    method's function (its object is followed as ``__self__``)."""
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return ("function", obj)
    if isinstance(obj, types.MethodType):
        return ("method", obj.__func__)
    return type(obj)


_STEP = re.compile(r"\.(\w+)|\[(\*|-?\d+)\]|\['([^'\\]*)'\]")
SAFE_KEY = re.compile(r"[^'\\\[\]]*")  # a dict key a path can spell: model.blocks['a']


def _steps(path: str):
    """``model.layers[0].w`` -> ("model", ["layers", 0, "w"]); ``[*]`` is "*" (every item or dict
    value); ``['a']`` is ("key", "a"), a key of a dict."""
    first = re.match(r"\w+", path).group()
    steps = []
    for attr, item, key in _STEP.findall(path[len(first) :]):
        steps.append(attr if attr else ("*" if item == "*" else int(item)) if item else ("key", key))
    return first, steps


def _follow(objects: dict, path: str) -> list:
    """The objects at ``path`` (``model.layer``, ``model.layers[*]``) from the call's ``objects``
    (several for ``[*]``); empty when the path cannot be followed without running code."""
    first, steps = _steps(path)
    found = [objects[first]] if first in objects else []
    for step in steps:
        out = []
        for obj in found:
            if step == "*":
                if type(obj) is dict:
                    out.extend(obj.values())
                    continue
                if not _is_sequence(obj):
                    return []
                out.extend(obj)
                continue
            if isinstance(step, tuple):  # a dict's value: model.blocks['a']
                got = obj[step[1]] if type(obj) is dict and step[1] in obj else _NONE
            else:
                got = _item(obj, step) if isinstance(step, int) else _instance_attribute(obj, step)
            if got is _NONE:
                return []
            out.append(got)
        found = out
    return found


def _is_sequence(obj) -> bool:
    """A list or tuple (not a subclass that computes its items)."""
    return isinstance(obj, (list, tuple)) and type(obj).__getitem__ in (list.__getitem__, tuple.__getitem__)


def _item(obj, k):
    """``obj[k]`` of a list or tuple, or ``_NONE``."""
    if not _is_sequence(obj):
        return _NONE
    return obj[k] if -len(obj) <= k < len(obj) else _NONE


def _instance_attribute(obj, attr):
    """``obj.attr`` when it is an entry of the object's own ``__dict__`` that no class attribute hides or
    computes, a bound method's ``__self__``/``__func__``, or the value of a read-only property of user
    code (its getter runs: the object's class is what the derivative depends on); else ``_NONE``."""
    if isinstance(obj, types.MethodType) and attr in ("__self__", "__func__"):
        return getattr(obj, attr)
    if is_prototype(obj):  # an object f builds: only its class is known
        return _NONE
    own = getattr(obj, "__dict__", None)
    cls = type(obj)
    entry = next((c.__dict__[attr] for c in cls.__mro__ if attr in c.__dict__), _NONE)
    if namedtuple_field(cls, attr, entry):  # m.l1 of a NamedTuple: its field
        return tuple.__getitem__(obj, cls._fields.index(attr))
    if cls.__getattribute__ is not object.__getattribute__:
        return _NONE
    if isinstance(entry, property) and _is_user(entry.fget) and entry.fset is None and entry.fdel is None:
        return entry.fget(obj)  # model.first: what f reads (run again at each call of the derivative)
    if not isinstance(own, dict) or attr not in own or entry is not _NONE:
        return _NONE
    return own[attr]


def namedtuple_field(cls, attr, entry) -> bool:
    """Whether ``attr`` is a field of the NamedTuple class ``cls`` that reads its item (no class
    attribute, property or ``__getattribute__`` of its own computes it)."""
    fields = getattr(cls, "_fields", None)
    return (
        issubclass(cls, tuple)
        and isinstance(fields, tuple)
        and attr in fields
        and type(entry).__name__ == "_tuplegetter"
        and cls.__getattribute__ is tuple.__getattribute__
        and type(cls).__getattribute__ is type.__getattribute__
    )


def _is_user(fn) -> bool:
    from .primitives import is_user_function

    return is_user_function(fn)


def hidden_error(where, path, attr, cls):
    return DifferentiationError(
        f"{where}: '{path}' has its own attribute '{attr}', which hides the method of its class "
        f"{cls.__qualname__}; s2sad differentiates the methods of the class: delete the attribute or rename it"
    )


def typed_object(fn, path: str):
    """The object at ``path`` of ``fn``'s :class:`Typing` (not recorded), or None."""
    types = getattr(fn, "__s2sad_types__", None)
    obj = types.obj(path) if isinstance(types, Typing) else _NONE
    return None if obj is _NONE else obj


def types_of(ns):
    """The :class:`Typing` of the code ``ns`` resolves: the function's (its parameters' objects), with
    the objects it builds of plain user classes (``layer = Dense(W)``, ``Child().act(x)``: ``ns.built``,
    found by ``anf``), each standing as an empty instance of its class; None when there are none."""
    base = getattr(ns.fn, "__s2sad_types__", None)
    base = base if isinstance(base, Typing) else None
    built = getattr(ns, "built", None) or {}
    if not built:
        return base
    cached = getattr(ns, "built_typing", None)
    if cached is not None and cached[0] is base:
        return cached[1]
    stopped = frozenset(getattr(ns, "built_stopped", ()))
    base = base or Typing({})
    base = Typing(base.objects, base.names, base.shared, base.stopped | stopped, base.roots, base.fixed)
    typing = base.given({local: prototype(cls) for local, cls in built.items() if local not in base.objects})
    ns.built_typing = (base, typing)
    return typing


_CONSTANTS = (int, float, complex, bool, str, bytes, type(None), np.ndarray, np.generic)


def built_constant(name: str, attr: str, ns) -> bool:
    """Whether ``name.attr`` reads a class attribute holding data (``scale = 2.0`` in the class body) of
    an object f builds (``ns.built``): no code of the class or of f sets that attribute, so no instance
    attribute hides it, and the value is a constant (a zero derivative)."""
    types = types_of(ns)
    path = typed_path(name, ns) if types is not None else None
    obj = types.obj(path) if path is not None else _NONE
    if obj is _NONE or not is_prototype(obj):
        return False
    cls = type(obj)
    fields = getattr(cls, "__dataclass_fields__", {})
    entry = next((vars(c)[attr] for c in cls.__mro__ if attr in vars(c)), _NONE)
    return (
        attr not in fields
        and isinstance(entry, _CONSTANTS)
        and not (types.stopped & {attr, "*"})
        and not assigns_attribute(cls, attr)
    )


def typed_path(name: str, ns) -> str | None:
    """The path (``model``, ``model.layer``) of the object a name of the ANF code holds, if typed."""
    types = types_of(ns)
    if not isinstance(types, Typing):
        return None
    if name in types.objects:
        return name
    return getattr(ns, "typed", {}).get(name)


def typed_arguments(fn, args: list, keywords: dict, ns):
    """For a call ``fn(*args, **keywords)`` in code whose objects are typed: ``fn``'s :class:`Typing`
    (its parameters given a typed object), or None."""
    types = types_of(ns)
    if getattr(fn, "__s2sad_types__", None) is not None:
        return None  # (a generated function keeps the classes of the function it differentiates)
    try:
        bound = inspect.signature(fn).bind(*args, **keywords).arguments
    except (TypeError, ValueError):
        return None
    mapping, constants = {}, {}
    wanted = None
    for p, a in bound.items():
        path = typed_path(a.id, ns) if isinstance(a, gast.Name) and types is not None else None
        if path is not None and types.obj(path) is not _NONE:
            mapping[p] = path
            continue
        given = _given_callable(a, ns)
        if given is not _NONE:
            wanted = receivers(fn) if wanted is None else wanted
            if p in wanted:  # g(x, None), g(x, np.tanh) for a parameter g calls: known here
                constants[p] = given
    for p, param in _parameters(fn).items():
        if p not in bound and param.default is not param.empty:  # g(x) of g(x, act=None): its default
            given = _given_object(param.default)
            if given is not _NONE:
                wanted = receivers(fn) if wanted is None else wanted
                if p in wanted:
                    constants[p] = given
    if not mapping and not constants:
        return None
    types = types if types is not None else Typing({})
    return types.view(mapping).given(constants)


def _given_callable(atom, ns):
    """What an argument written at a call is, when it is known where the code is generated and may be
    called: a literal ``None`` (or a local bound once to it), or a NumPy/math function with a rule named
    by a global or closure cell (``np.tanh``, checked as any global is); else ``_NONE``."""
    from .resolve import MISSING

    if isinstance(atom, gast.Constant) and atom.value is None:
        return None
    if not isinstance(atom, (gast.Name, gast.Attribute)):
        return _NONE
    if isinstance(atom, gast.Name) and atom.id in (getattr(ns, "nones", None) or ()):
        return None  # act = None; g(x, act)
    if isinstance(atom, gast.Name) and atom.id in getattr(ns, "locals", ()):
        return _NONE
    from .resolve import dotted

    path = dotted(atom)
    if path is None or path.split(".")[0] in getattr(ns, "locals", ()):
        return _NONE
    first, *rest = path.split(".")
    obj = ns.lookup_name(first)  # (a peek: a global array passed on is not made a steering name)
    for a in rest:
        obj = getattr(obj, a, MISSING) if obj is not MISSING else obj
    if obj is MISSING or _given_object(obj) is _NONE:
        return _NONE
    obj = ns.lookup(atom)  # (a global or closure cell: now checked on each call of the derivative)
    return _NONE if obj is MISSING else _given_object(obj)


def _given_object(obj):
    """``obj`` when a typed call of it needs nothing more (None, a NumPy or math function with a
    rule); else ``_NONE``."""
    from .primitives import is_user_function
    from .rules.registry import lookup

    if obj is None:
        return None
    if is_user_function(obj) or not callable(obj) or isinstance(obj, type):
        return _NONE
    try:
        return obj if lookup(obj) is not None else _NONE
    except TypeError:
        return _NONE


def _parameters(fn) -> dict:
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return {}


def _class_entry(cls, attr):
    """The first entry for ``attr`` along ``cls``'s MRO, and the class dicts to check (``[(class dict, attr,
    entry)]`` up to it): ``(entry, checks)``, the entry MISSING where no class has one; None where the class
    looks attributes up its own way."""
    from .resolve import MISSING

    if cls.__getattribute__ not in (object.__getattribute__, tuple.__getattribute__):  # (a NamedTuple's)
        return None
    checks = []
    for c in cls.__mro__:
        entry = c.__dict__.get(attr, MISSING)
        checks.append((c.__dict__, attr, entry))
        if entry is not MISSING:
            return entry, checks
    return MISSING, checks


def method_of(cls, attr):
    """The user function ``obj.attr(...)`` calls for an object of class ``cls`` (a plain function in
    the class or a base), and the class dicts to check: ``(function, [(class dict, attr, entry)])``."""
    from .primitives import is_user_function

    found = _class_entry(cls, attr)
    if found is not None and isinstance(found[0], types.FunctionType) and is_user_function(found[0]):
        return found
    return None


def static_of(cls, attr):
    """For ``obj.attr(...)`` whose class has a staticmethod or classmethod of user code there: ``(function,
    checks, takes_class)``; else None."""
    from .primitives import is_user_function

    found = _class_entry(cls, attr)
    if found is None or not isinstance(found[0], (staticmethod, classmethod)):
        return None
    entry, checks = found
    return (entry.__func__, checks, isinstance(entry, classmethod)) if is_user_function(entry.__func__) else None


def static_rule_of(cls, attr):
    """For ``obj.attr(...)`` whose class has ``attr = staticmethod(np.tanh)``, a primitive with a rule:
    ``(primitive, checks)``; else None."""
    from .rules.registry import lookup

    found = _class_entry(cls, attr)
    if found is None or not isinstance(found[0], staticmethod) or lookup(found[0].__func__) is None:
        return None
    return found[0].__func__, found[1]


def specialize_tree(parsed, spec: Specialized) -> None:
    """The parsed function's signature made ``spec``'s, with the packing of ``*args``/``**kwargs`` first."""
    tree = parsed.tree
    args = tree.args
    where = args.vararg or args.kwarg or tree
    positional = list(getattr(args, "posonlyargs", None) or []) + list(args.args)
    prelude = []
    if spec.items:
        args.defaults = []
    if spec.var is not None:
        positional += [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in spec.items]
        elts = [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None) for n in spec.items]
        prelude.append(_assign(spec.var, gast.Tuple(elts=elts, ctx=gast.Load()), args.vararg))
    if spec.varkw is not None:
        keys = [gast.Constant(value=k, kind=None) for k in spec.keywords]
        values = [gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None) for n in spec.renamed.values()]
        prelude.append(_assign(spec.varkw, gast.Dict(keys=keys, values=values), args.kwarg))
        for n in spec.renamed.values():
            args.kwonlyargs.append(gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None))
            args.kw_defaults.append(None)
    for a in positional + args.kwonlyargs:
        gast.copy_location(a, where)
    args.posonlyargs, args.args, args.vararg, args.kwarg = [], positional, None, None
    tree.body[:0] = prelude
    parsed.fn = spec
    if spec.__s2sad_types__:  # what f rebinds (model = ..., model.layer = ...) has no known class
        stored = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        attrs = {n.attr for n in gast.walk(tree) if isinstance(n, gast.Attribute) and not isinstance(n.ctx, gast.Load)}
        spec.__s2sad_types__ = spec.__s2sad_types__.without(stored, attrs)


def _assign(target, value, like):
    stmt = gast.Assign(
        targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None, type_comment=None)],
        value=value,
        type_comment=None,
    )
    for n in gast.walk(stmt):
        if "lineno" in getattr(n, "_attributes", ()):
            gast.copy_location(n, like)
            n.end_lineno, n.end_col_offset = like.lineno, like.col_offset + len(getattr(like, "id", ""))
    return stmt


# ---- names of known length or keys --------------------------------------------------------------
def _stores(tree) -> dict:
    counts: dict = {}
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _bound_once(tree, display):
    """(name, display node) for each name bound once in ``tree``, to a display of type ``display``."""
    counts = _stores(tree)
    for n in gast.walk(tree):
        if (
            isinstance(n, gast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], gast.Name)
            and isinstance(n.value, display)
            and counts.get(n.targets[0].id) == 1
        ):
            yield n.targets[0].id, n.value


def known_tuples(tree) -> dict[str, int]:
    """Names bound once, to a tuple display without ``*`` (their length is that display's)."""
    return {
        k: len(v.elts) for k, v in _bound_once(tree, gast.Tuple) if not any(isinstance(e, gast.Starred) for e in v.elts)
    }


_READ_ONLY = {"get", "keys", "values", "items", "copy"}


def known_dicts(tree) -> dict[str, tuple[str, ...]]:
    """Names bound once to a dict display with string keys and only read (indexed, ``.get``,
    ``.keys()``/``.values()``/``.items()``, ``**d``, ``k in d``, iterated): their keys."""
    out = {
        k: tuple(key.value for key in v.keys)
        for k, v in _bound_once(tree, gast.Dict)
        if all(isinstance(key, gast.Constant) and isinstance(key.value, str) for key in v.keys)
    }
    if not out:
        return out
    allowed = set()  # the Name nodes used in a way that cannot change the dict
    for n in gast.walk(tree):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Load):
            allowed.add(id(n.value))
        elif isinstance(n, gast.Attribute) and n.attr in _READ_ONLY:
            allowed.add(id(n.value))
        elif isinstance(n, gast.keyword) and n.arg is None:
            allowed.add(id(n.value))
        elif isinstance(n, gast.Compare):
            allowed |= {id(c) for op, c in zip(n.ops, n.comparators) if isinstance(op, (gast.In, gast.NotIn))}
        elif isinstance(n, gast.For):
            allowed.add(id(n.iter))
        elif isinstance(n, gast.Dict):
            allowed |= {id(v) for k, v in zip(n.keys, n.values) if k is None}
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len":
            allowed |= {id(a) for a in n.args}
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in out and id(n) not in allowed:
            del out[n.id]
    return out


def spelled_get(call, dicts):
    """``d.get('k', default)`` of a dict of known keys: ``d['k']`` or ``default``; None if not that."""
    func = call.func
    if not (
        isinstance(func, gast.Attribute)
        and func.attr == "get"
        and isinstance(func.value, gast.Name)
        and func.value.id in dicts
        and not call.keywords
        and 1 <= len(call.args) <= 2
        and isinstance(call.args[0], gast.Constant)
        and isinstance(call.args[0].value, str)
    ):
        return None
    default = call.args[1] if len(call.args) == 2 else gast.Constant(value=None, kind=None)
    if call.args[0].value in dicts[func.value.id]:
        if any(isinstance(n, gast.Call) for n in gast.walk(default)):
            return None  # Python evaluates it anyway: keep the call (refused if it matters)
        return gast.Subscript(value=func.value, slice=call.args[0], ctx=gast.Load())
    return default


def spelled_keywords(call, dicts):
    """``g(x, **kw)`` with ``kw`` of known keys: ``g(x, a=kw['a'], ...)``; None when it cannot be."""
    out = []
    for k in call.keywords:
        if k.arg is not None:
            out.append(k)
        elif isinstance(k.value, gast.Name) and k.value.id in dicts:
            for key in dicts[k.value.id]:
                if not key.isidentifier():
                    return None
                item = gast.Subscript(
                    value=gast.Name(id=k.value.id, ctx=gast.Load(), annotation=None, type_comment=None),
                    slice=gast.Constant(value=key, kind=None),
                    ctx=gast.Load(),
                )
                out.append(gast.copy_location(gast.keyword(arg=key, value=item), k.value))
        else:
            return None
    names = [k.arg for k in out]
    return out if len(set(names)) == len(names) else None


# ---- derivatives of such an f: specialized per call -----------------------------------------------
def _trailing(kind: str, wrt) -> int:
    """How many positional arguments after f's own a derivative of this kind takes (seed, tangents)."""
    if kind in ("vjp", "hvp"):
        return 1
    if kind == "jvp":
        return len(wrt) if isinstance(wrt, (tuple, list)) else 1
    return 0


def dispatcher(fn, chain: list, build):
    """The derivative of ``fn`` (which takes ``*args``/``**kwargs``): ``chain`` is ``[(kind, wrt,
    verbose), ...]`` (a derivative of a derivative adds a step); ``build(fn, kind, wrt, verbose)`` is
    the API's cached generation.  Each call specializes ``fn`` to its arguments, generates (or takes
    from the cache) the derivative of that specialization, and calls it."""
    typed = receivers(fn)
    read = {}  # the signature as of fn's current defaults (a replaced default, act=fn2, is an object now)

    def signature():
        if read.get("defaults") is not (fn.__defaults__, fn.__kwdefaults__):
            sig = inspect.signature(fn)
            params = list(sig.parameters.values())
            read["defaults"] = (fn.__defaults__, fn.__kwdefaults__)
            read["sig"], read["params"] = sig, params
            # plain positional parameters: a call without keywords binds by position (no sig.bind per call)
            read["simple"] = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
            read["least"] = sum(p.default is p.empty for p in params)
            read["positions"] = [(i, params[i].default) for i in range(len(params)) if params[i].name in typed]
        return read["sig"], read["params"], read["simple"], read["least"], read["positions"]

    sig = signature()[0]
    typed_globals = [g for g in typed if g not in sig.parameters]  # helper(x, M): M's object now
    bound = getattr(fn, "__s2sad_bound__", None) or {}  # grad(m.loss): self is m
    positional_typed = [p for p in typed if p in sig.parameters]
    kind0 = chain[-1][0]
    extra_count = sum(_trailing(kind, wrt) for kind, wrt, _ in chain)
    # (number of positional arguments, keyword names, classes of the typed arguments) -> entries
    # (spec, derivative, defaults, kwdefaults, typing): a derivative serves the calls its typing's records fit
    made: dict = {}

    def derivative(*args, **kwargs):
        extra_count_now = extra_count
        seed = None
        if len(chain) == 1 and kind0 == "vjp" and "seed" in kwargs:
            seed, extra_count_now = kwargs.pop("seed"), 0
        if len(args) < extra_count_now:
            raise TypeError(
                f"{derivative.__name__}() takes the arguments of {fn.__qualname__}, then {extra_count_now} more"
            )
        split = len(args) - extra_count_now
        fargs, trailing = args[:split], args[split:]
        sig, params, simple, least, positions = signature()
        if simple and not kwargs and least <= len(fargs) <= len(params):
            objects = {params[i].name: fargs[i] if i < len(fargs) else d for i, d in positions}
        else:
            given = sig.bind(*fargs, **kwargs).arguments  # TypeError as Python's call of fn would raise
            objects = {p: given[p] if p in given else sig.parameters[p].default for p in positional_typed}
        for name in typed_globals:
            objects[name] = bound[name] if name in bound else free_value(fn, name)
        _refuse_object_wrt(fn, chain[0][1], params, objects)
        key = (len(fargs), tuple(kwargs), *map(type, objects.values()))
        for hit in made.get(key, ()):
            if _fits(hit[4], objects) and _valid(hit, fn):
                spec, g = hit[0], hit[1]
                break
        else:
            typing = Typing(objects)
            spec = specialize(fn, len(fargs), list(kwargs), typing)
            g = spec
            for kind, wrt, verbose in chain:
                g = build(g, kind, _wrt_of(wrt, spec, fn), verbose)
            entries = [h for h in made.get(key, ()) if _valid(h, fn)]
            made[key] = [*entries, (spec, g, fn.__defaults__, fn.__kwdefaults__, typing)]
        derivative.__s2sad_last__ = g
        named = {spec.renamed.get(k, k): v for k, v in kwargs.items()}
        if seed is not None:
            return g(*fargs, seed, **named)
        return g(*fargs, *trailing, **named)

    derivative.__name__ = derivative.__qualname__ = f"{kind0}_{getattr(fn, '__name__', 'f')}"
    derivative.__doc__ = (
        f"The {kind0} of {fn.__qualname__}, which takes *args or **kwargs: specialized to the number of "
        "positional arguments and the keyword names of each call (s2sad.source shows the last one)."
    )
    derivative.__s2sad_dispatch__ = (fn, chain)
    return derivative


def _refuse_object_wrt(fn, wrt, params, objects) -> None:
    """``wrt`` naming an argument that is a plain object whose methods ``fn`` calls: refused (the objects
    are constants; a dataclass, NamedTuple, dict, list or tuple is a container of arrays)."""
    names = []
    for w in wrt if isinstance(wrt, (tuple, list)) else [wrt]:
        if isinstance(w, int) and not isinstance(w, bool) and -len(params) <= w < len(params):
            names.append(params[w].name)
        elif isinstance(w, str):
            names.append(w)
    for n in names:
        obj = objects.get(n, _NONE)
        if obj is _NONE or isinstance(obj, (list, tuple, dict, np.ndarray, np.generic, int, float, complex)):
            continue
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            continue
        code = fn.__code__
        raise DifferentiationError(
            f"{code.co_filename}:{code.co_firstlineno}:1: wrt names '{n}', an object of class "
            f"{type(obj).__qualname__} whose methods {fn.__qualname__} calls; s2sad differentiates with respect to "
            "numbers, arrays and containers of them (dict, list, tuple, NamedTuple, dataclass), as JAX does: "
            "make it a dataclass or NamedTuple, pass its arrays in a dict, or keep the object a constant "
            "(differentiate with respect to another argument)"
        )


def _fits(typing: Typing, objects: dict) -> bool:
    """Whether this call's objects are of the kinds generation saw (the typed arguments' classes are in
    the memo's key; here the paths followed, ``model.layer``, ``model.layers[*]``, and a function given
    as an argument), refusing an object that hides a method called on it."""
    guards, called = typing.shared
    for path, kind in guards.items():
        if path in objects and not isinstance(kind, tuple):
            continue  # (its class is in the key)
        found = _follow(objects, path.removesuffix("#len").removesuffix("#keys"))
        if path.endswith("#len"):
            if len(found) != 1 or not isinstance(found[0], (list, tuple)) or len(found[0]) != kind[1]:
                return False
            continue
        if path.endswith("#keys"):
            if len(found) != 1 or type(found[0]) is not dict or tuple(found[0]) != kind[1]:
                return False
            continue
        if not found or any(kind_of(o) != kind for o in found):
            return False
    for (path, attr), where in called.items():
        for obj in _follow(objects, path):
            if attr in (getattr(obj, "__dict__", None) or ()):
                raise hidden_error(where, path, attr, type(obj))
    return True


def _valid(hit, fn) -> bool:
    """A derivative made for an earlier call still is what generation would give now (as the API's cache
    checks its entries: the defaults, and every check of the guard)."""
    _, g, defaults, kwdefaults, _ = hit
    if fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
        return False
    return all(check.ok() for check in getattr(g, "__s2sad_checks__", ()))


def _wrt_of(wrt, spec: Specialized, fn):
    """``wrt`` as the specialization names it: positions count as in Python's call; a keyword that
    went into ``**kwargs`` by its name."""
    if isinstance(wrt, (tuple, list)):
        return tuple(_wrt_of(w, spec, fn) for w in wrt)
    if isinstance(wrt, str) and wrt in spec.renamed:
        return spec.renamed[wrt]
    if isinstance(wrt, int) and not isinstance(wrt, bool):
        n = len(spec.__signature__.parameters)
        if not -n <= wrt < n:
            code = fn.__code__
            raise DifferentiationError(
                f"{code.co_filename}:{code.co_firstlineno}:1: wrt={wrt} is out of range: this call of "
                f"{fn.__qualname__} passes {n} arguments"
            )
    return wrt
