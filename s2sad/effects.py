"""effects: which calls may give a different value when run again with the same arguments.

Reverse mode runs code twice where Python runs it once: a loop's adjoint reads the values of each
iteration, a callee's VJP recomputes the callee's primal, a checkpointed loop replays its segments.  That
is exact only for code whose values depend on its arguments alone.  This module says which do not:

* ``draws(obj)``: a random draw (``np.random.*``, a ``Generator``'s or ``RandomState``'s methods, the
  ``random`` module), or ``next`` (it advances an iterator);
* ``call_effect(call, ns)``: the same for one call of f's code, with methods of objects s2sad cannot type
  named like a random draw (``rng.normal()`` of a parameter ``rng``);
* ``function_effect(fn)``: ``(line, what, column)`` of the first effect a user function may have, through its own
  code or a user function it calls (a conservative scan of the source, like ``param_writes``): a draw,
  ``global``/``nonlocal``, a write into an object it neither created nor was given (``calls.append(w)`` on a
  global, ``G[k] = v``; writes into its parameters are ``param_writes``' and ``anf``'s: private copies, or
  refused), a method of ``self`` or a user function that has one.
"""

from __future__ import annotations

import builtins
import inspect
import itertools
import random as _random
import types
from collections.abc import Iterator

import gast
import numpy as np

from .ir import MUTATORS, walk
from .resolve import MISSING, dotted

_GENERATORS = (np.random.Generator, np.random.RandomState, np.random.BitGenerator, _random.Random)
# method names of random generators that are not methods of arrays, lists or dicts
RANDOM_METHODS = (
    {
        m
        for cls in (np.random.Generator, np.random.RandomState, _random.Random)
        for m in dir(cls)
        if not m.startswith("_")
    }
    - set(dir(np.ndarray))
    - set(dir(list))
    - set(dir(dict))
    - {"seed", "bit_generator", "get_state", "getstate"}
)


# methods that take the next item of an iterator or generator
ADVANCING = {"__next__", "send", "throw"}
# functions that take items of the iterator they are given
CONSUMERS = ((itertools.islice, "itertools.islice"),)


def draws(obj) -> str:
    """Why a call of ``obj`` gives a new value each time (a random draw, ``next``), or ""."""
    if obj is builtins.next:
        return "next() advances an iterator"
    if isinstance(obj, type):  # np.random.Generator(...), random.Random(0): a new generator
        return ""
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, _GENERATORS) or isinstance(obj, _GENERATORS):
        return "it draws random numbers"
    module = getattr(obj, "__module__", None) or ""
    if owner is None and module in ("numpy.random", "random") or module.startswith("numpy.random."):
        if getattr(obj, "__name__", "") not in ("default_rng", "seed", "Generator", "RandomState"):
            return "it draws random numbers"
    if isinstance(owner, types.ModuleType) and owner.__name__ in ("numpy.random", "random"):
        return "it draws random numbers"
    if owner is np.random.mtrand or getattr(owner, "__name__", "") == "numpy.random.mtrand":
        return "it draws random numbers"
    return ""


def call_effect(call, ns) -> str:
    """Why the call node ``call`` (of f's code, ``ns`` its namespace) may give a different value when run
    again, or "": a draw, ``next``, a method named like a draw of an object s2sad cannot type, a user
    function or method with an effect (``function_effect``)."""
    obj = ns.lookup(call.func)
    if obj is MISSING:
        if isinstance(call.func, gast.Attribute) and call.func.attr in RANDOM_METHODS:
            return f"`.{call.func.attr}()` may draw random numbers"
        return ""
    found = draws(obj)
    if found:
        return found
    fn = getattr(obj, "__func__", obj)
    found = function_effect(fn) if isinstance(fn, types.FunctionType) else None
    if found is not None:
        return f"{_name(fn)} has side effects ({found[1]}, line {found[0]})"
    return ""


def _name(fn) -> str:
    return f"{getattr(fn, '__qualname__', getattr(fn, '__name__', 'the function'))}()"


_CACHE: dict = {}
_TREES: dict = {}
# expressions that give a new object (a display holds its items, which may be another's: a known gap)
_NEW = (gast.Call, gast.BinOp, gast.UnaryOp, gast.List, gast.Dict, gast.Set, gast.ListComp, gast.DictComp, gast.SetComp)


def function_effect(fn, _active=None, objects=None):
    """``(line, what, column)`` of an effect the user function ``fn`` may have (see the module docstring), or
    None.  Draws from a generator it makes itself (``rng = np.random.default_rng(0)``) or from NumPy's global
    state after it calls ``np.random.seed`` are the same at every run: not side effects.  ``objects``
    (parameter -> the object of a call; by default a specialized helper's, ``fn.__s2sad_types__``) types the
    methods called on them: the real method of ``obj.f(x)`` rather than the name of a draw, an iterator
    given to it (which any use advances), a layer holding its generator (``self.rng.random``)."""
    from .callables import FunctionLike
    from .primitives import is_user_function

    if objects is None:
        objects = getattr(getattr(fn, "__s2sad_types__", None), "objects", None)
    while isinstance(fn, FunctionLike):  # a helper specialized for a call (its code is the function's)
        fn = fn.function
    code = getattr(fn, "__code__", None)
    if code is None or not is_user_function(fn):
        return None
    objects = dict(objects or {})
    key = (code, id(getattr(fn, "__globals__", None)))
    if objects:  # (typed by one call's objects: not cached)
        return _typed_effect(fn, code, objects, _active)
    if key in _CACHE:
        return _CACHE[key]
    active = _active if _active is not None else set()
    if code in active:
        return None
    active.add(code)
    tree, first = _tree(fn, code)
    found = _scan(fn, tree, first, active)
    if _active is None or found is not None:
        _CACHE[key] = found
    return found


def _typed_effect(fn, code, objects, _active):
    active = _active if _active is not None else set()
    if (code, "typed") in active:
        return None
    active.add((code, "typed"))
    tree, first = _tree(fn, code)
    return _scan(fn, tree, first, active, objects)


def _tree(fn, code):
    """``(the function's tree, the line its line 1 stands for)``; a lambda's from ``parse_function`` (the
    lambda's own node, at its lines in the file); ``(None, 0)`` when its source cannot be read."""
    from .errors import DifferentiationError
    from .parse import parse_function

    lifted = getattr(fn, "__s2sad_lifted__", None)
    if lifted is not None:
        return lifted.tree, 1
    if fn.__name__ == "<lambda>":
        try:
            return parse_function(fn).tree, 1
        except DifferentiationError:
            return None, 0
    if code not in _TREES:  # (read only by the scans)
        try:
            _TREES[code] = gast.parse(inspect.cleandoc("\n" + inspect.getsource(fn))).body[0], code.co_firstlineno
        except (OSError, TypeError, SyntaxError, IndentationError):
            _TREES[code] = None, 0
    return _TREES[code]


def _scan(fn, tree, first, active, objects=None):
    if not isinstance(tree, (gast.FunctionDef, gast.Lambda)):
        return None
    args = tree.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    body = tree.body if isinstance(tree.body, list) else [tree.body]
    module = gast.Module(body=body, type_ignores=[])
    stored = {n.id for n in walk(module) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    # locals bound to an object that may be another's (q = p, q = self.items, for row in p): not created here
    borrowed = set(params)
    given = set(params)  # ... of which those that hold only what its arguments hold (w = m.w)
    for n in walk(module):
        if isinstance(n, gast.Assign) and not isinstance(n.value, _NEW):
            value_names = {m.id for m in walk(n.value) if isinstance(m, gast.Name)}
            if value_names - stored or value_names & borrowed:
                targets = {t.id for t in n.targets if isinstance(t, gast.Name)}
                borrowed |= targets
                if value_names <= given:
                    given |= targets
        elif isinstance(n, gast.For):
            borrowed |= {t.id for t in walk(n.target) if isinstance(t, gast.Name)}
    own = stored - borrowed  # locals holding what the function made itself
    for n in walk(module):  # for row in m: the items of what it made or was given
        if isinstance(n, gast.For) and {m.id for m in walk(n.iter) if isinstance(m, gast.Name)} <= own | given:
            given |= {t.id for t in walk(n.target) if isinstance(t, gast.Name)}
    # generators it makes itself (rng = np.random.default_rng(0)): the same draws at every run
    made = {
        t.id
        for n in walk(module)
        if isinstance(n, gast.Assign) and isinstance(n.value, gast.Call)
        for t in n.targets
        if isinstance(t, gast.Name)
    }

    space = dict(getattr(fn, "__globals__", {}))
    space.update({k: c.cell_contents for k, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()) if _filled(c)})
    typed = {p: o for p, o in (objects or {}).items() if p in params and p not in stored}

    def resolve(func):
        path = dotted(func)
        if path is None:
            return MISSING
        root, *attrs = path.split(".")
        if root in typed:
            obj = typed[root]
        elif root in stored or root in params:
            return MISSING
        else:
            obj = space.get(root, getattr(builtins, root, MISSING))
        for a in attrs:
            try:
                obj = getattr(obj, a, MISSING)
            except Exception:  # (a property that raises: f raises there too)
                return MISSING
        return obj

    # an iterator or generator it is given: any use of it may advance it
    for n in walk(module):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and _advances(typed.get(n.id)):
            what = f"it advances the iterator `{n.id}` it is given ({type(typed[n.id]).__name__})"
            return first + getattr(n, "lineno", 1) - 1, what, getattr(n, "col_offset", 0) + 1

    def root_name(node):
        while isinstance(node, (gast.Subscript, gast.Attribute, gast.Starred)):
            node = node.value
        return node.id if isinstance(node, gast.Name) else None

    made = {
        v for v in made if all(_made_by_library(n.value, resolve) for n in walk(module) if _assigns(n, v))
    } - borrowed
    # np.random.seed(0) in the function: the module's draws are the same at every run
    seeded = any(
        isinstance(n, gast.Call) and any(resolve(n.func) is s for s in (np.random.seed, _random.seed))
        for n in walk(module)
    )

    for n in walk(module):
        line = first + getattr(n, "lineno", 1) - 1
        col = getattr(n, "col_offset", 0) + 1
        found = _effect_at(n, fn, params, own | given, made, seeded, resolve, root_name, active)
        if found is not None:
            return line, found, col
    return None


def _advances(obj) -> bool:
    """An iterator (a generator, ``iter(lst)``): taking an item changes it."""
    return obj is not None and isinstance(obj, Iterator) and not isinstance(obj, (str, bytes))


def _assigns(node, name) -> bool:
    return isinstance(node, gast.Assign) and any(isinstance(t, gast.Name) and t.id == name for t in node.targets)


def _fresh(node, made, resolve) -> bool:
    """``rng`` of ``rng = np.random.default_rng(0)`` in the function, or ``np.random.default_rng(1)`` itself."""
    return isinstance(node, gast.Name) and node.id in made or _made_by_library(node, resolve)


def _made_by_library(value, resolve) -> bool:
    """``np.random.default_rng(0)``, ``random.Random(1)``: a new object of a library, not one a user
    function may give back (a global generator)."""
    from .primitives import is_user_function

    if not isinstance(value, gast.Call):
        return False
    obj = resolve(value.func)
    if obj is MISSING or is_user_function(getattr(obj, "__func__", obj)) or draws(obj):
        return False
    seeds = (np.random.default_rng, np.random.RandomState, np.random.Generator, _random.Random, np.random.SeedSequence)
    unseeded = not value.args and not value.keywords  # default_rng(): new entropy at every run
    return not (unseeded and (obj in seeds or isinstance(obj, type) and issubclass(obj, np.random.BitGenerator)))


def _effect_at(n, fn, params, own, made, seeded, resolve, root_name, active):
    """The side effect of the node ``n`` of ``fn``'s code, or None.  ``own``: the names holding what ``fn``
    made or was given (writes into its arguments are ``param_writes``')."""
    if isinstance(n, gast.Global):
        return f"`global {', '.join(n.names)}`"
    if isinstance(n, gast.Nonlocal):
        return f"`nonlocal {', '.join(n.names)}`"
    if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store):
        root = root_name(n)
        if root is not None and root not in own:
            return f"it writes into `{root}`, which it did not create"
    if isinstance(n, gast.AugAssign) and not isinstance(n.target, gast.Name):
        root = root_name(n.target)
        if root is not None and root not in own:
            return f"it changes `{root}` in place, which it did not create"
    if isinstance(n, gast.Call):
        f = n.func
        if isinstance(f, gast.Attribute) and f.attr in ADVANCING and not _fresh(f.value, made, resolve):
            return f"`.{f.attr}()` advances an iterator or generator"
        if isinstance(f, gast.Attribute) and f.attr in MUTATORS and not isinstance(resolve(f.value), types.ModuleType):
            root = root_name(f.value)
            if root is not None and root not in own:
                return f"`.{f.attr}()` changes `{root}`, which it did not create"
        obj = resolve(f)
        if obj is MISSING:
            method = _self_method(fn, f, params)  # (self.f(v) of a pure method f: not Generator.f's draw)
            if method is None and isinstance(f, gast.Attribute) and f.attr in RANDOM_METHODS:
                if not _fresh(f.value, made, resolve):
                    return f"`.{f.attr}()` may draw random numbers"
            if method is not None:
                inner = function_effect(method, active)
                if inner is not None:
                    return f"it calls {_name(method)}, which has side effects ({inner[1]})"
            return None
        consumer = next((name for c, name in CONSUMERS if obj is c), None)
        if consumer and n.args and not _fresh(n.args[0], made, resolve):
            given = resolve(n.args[0])
            if given is MISSING or _advances(given):
                return f"{consumer}() advances an iterator it did not create"
        if (obj is builtins.setattr or obj is builtins.delattr) and n.args:
            root = root_name(n.args[0])
            if root is not None and root not in own:
                return f"{obj.__name__}() changes `{root}`, which it did not create"
        found = draws(obj)
        if obj is builtins.next and n.args and _fresh(n.args[0], made, resolve):
            found = ""  # next(it) of it = iter([...]) made by the function: the same values at every run
        if found and not (seeded and getattr(obj, "__self__", None) in (np.random.mtrand._rand, _random._inst)):
            return found
        callee = getattr(obj, "__func__", obj)
        owner = getattr(obj, "__self__", None)
        typed_self = None
        if not isinstance(callee, types.FunctionType) and not isinstance(obj, type):  # a layer: drop(h)
            call = inspect.getattr_static(type(obj), "__call__", None)
            if isinstance(call, types.FunctionType):
                callee, owner = call, obj
        if owner is not None and isinstance(callee, types.FunctionType) and not isinstance(owner, types.ModuleType):
            names = callee.__code__.co_varnames[:1]
            typed_self = {names[0]: owner} if names else None
        if isinstance(callee, types.FunctionType) and callee is not fn:
            inner = function_effect(callee, active, typed_self)
            if inner is not None:
                return f"it calls {_name(callee)}, which has side effects ({inner[1]})"
    return None


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _self_method(fn, func, params):
    """``self.m`` in a method of a class defined at module level: the class's function ``m``."""
    if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
        return None
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    if not names or func.value.id != names[0]:
        return None
    owner = fn.__qualname__.rpartition(".")[0]
    cls = getattr(fn, "__globals__", {}).get(owner) if owner and "<" not in owner else None
    if not isinstance(cls, type):
        return None
    found = inspect.getattr_static(cls, func.attr, None)
    found = getattr(found, "__func__", found)
    if not isinstance(found, types.FunctionType):
        return None
    subclasses, seen = list(cls.__subclasses__()), set()
    while subclasses:  # a subclass's own m (self may be one): not known here
        sub = subclasses.pop()
        if sub in seen:
            continue
        seen.add(sub)
        if func.attr in vars(sub):
            return None
        subclasses += sub.__subclasses__()
    return found


def argument_change(fn):
    """``(line, what, column)`` of a change ``fn`` (a helper specialized for a call) makes in an object it is
    given (``s.add(v)`` of a set, typed from the call's objects; ``setattr(o, "n", v)``), or None: its VJP,
    which runs it again, would repeat it."""
    from .callables import FunctionLike
    from .param_writes import param_writes

    objects = getattr(getattr(fn, "__s2sad_types__", None), "objects", None) or {}
    while isinstance(fn, FunctionLike):
        fn = fn.function
    if not isinstance(fn, types.FunctionType):
        return None
    # (an array it writes into is anf's: the VJP works on a private copy, or the call is refused; so are
    # the attributes of an object: refused at the write, naming it)
    writes = {p: w for p, w in param_writes(fn).items() if isinstance(objects.get(p), (set, list, dict))}
    if writes:
        param, (line, what) = next(iter(writes.items()))
        return line, f"{what} changes its argument `{param}`", 1
    tree, first = _tree(fn, fn.__code__)  # (parsed once per function, as the scans read it)
    if not isinstance(tree, (gast.FunctionDef, gast.Lambda)):
        return None
    args = tree.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    for n in walk(tree):
        if (
            isinstance(n, gast.Call)
            and isinstance(n.func, gast.Name)
            and n.func.id in ("setattr", "delattr")
            and n.func.id not in fn.__globals__
            and n.args
            and isinstance(n.args[0], gast.Name)
            and n.args[0].id in params
        ):
            line = first + n.lineno - 1
            return line, f"{n.func.id}() changes its argument `{n.args[0].id}`", n.col_offset + 1
    return None


def method_change(fn, objects: dict, depth: int = 4):
    """``(line, what, column)`` of a call in the user function ``fn`` of a method of one of ``objects``
    (parameter -> the call's object: ``c.tick()``, ``m.counter.tick()``, ``model(x)``, also inside the user
    functions ``fn`` gives them to) that changes its object (``self.n += 1``: ``param_writes``) or has an
    effect, or None.  A Jacobian, which runs f once per column, refuses it; a derivative run once need not."""
    from .callables import FunctionLike
    from .param_writes import param_writes

    code = getattr(fn, "__code__", None)
    tree, first = _tree(fn, code) if code is not None else (None, 0)
    if tree is None:
        return None
    for node in walk(tree):
        if not isinstance(node, gast.Call):
            continue
        func = node.func
        line, col = first + getattr(node, "lineno", 1) - 1, getattr(node, "col_offset", 0) + 1
        held = _held_object(func.value, objects) if isinstance(func, gast.Attribute) else None
        if held is not None:  # c.tick(), m.counter.tick()
            (owner, label), method = held, func.attr
        elif isinstance(func, gast.Name) and func.id in objects:
            owner, method, label = objects[func.id], "__call__", func.id
        elif isinstance(func, gast.Name) and depth > 0:  # a user function given one of the objects
            callee = fn.__globals__.get(func.id)
            while isinstance(callee, FunctionLike):
                callee = callee.function
            if not isinstance(callee, types.FunctionType):
                continue
            try:
                bound = inspect.signature(callee).bind_partial(*node.args).arguments
            except TypeError:
                continue
            given = {p: objects[a.id] for p, a in bound.items() if isinstance(a, gast.Name) and a.id in objects}
            inner = method_change(callee, given, depth - 1) if given else None
            if inner is not None:
                return line, f"{inner[1]} (through {func.id}())", col
            continue
        else:
            continue
        method_code = getattr(type(owner), method, None)
        while isinstance(method_code, FunctionLike):
            method_code = method_code.function
        if not isinstance(method_code, types.FunctionType):
            continue
        writes = param_writes(method_code)
        effect = None if writes else function_effect(method_code)
        if writes or effect:
            return line, f"{label}.{method}() " + ("changes the object's state" if writes else effect[1]), col
    return None


def _held_object(node, objects: dict):
    """``(object, its path)`` of ``p`` or ``p.a.b`` for a parameter ``p`` of ``objects``, or None."""
    path = []
    while isinstance(node, gast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name) or node.id not in objects:
        return None
    obj = objects[node.id]
    for attr in reversed(path):
        try:
            obj = getattr(obj, attr)
        except Exception:  # (f raises there too)
            return None
    return obj, ".".join([node.id, *reversed(path)])


def repeated_effect_message(what: str, fn, effect) -> str:
    """The refusal of a call, in reverse mode, of a user function with side effects."""
    line, why, _ = effect
    return (
        f"{what} has side effects ({why}, {fn.__code__.co_filename}:{line}) that its derivative would repeat: "
        "reverse mode runs a called function again to compute its derivative, so a second run would draw other "
        "random numbers or change the state again, and give a wrong number; make the function pure: draw the "
        "random numbers (a dropout mask: `mask = rng.random(h.shape) > p`) or advance the state in f and pass "
        "the values to the function as arguments (or use jvp, forward mode, which runs it once)"
    )


# builtins that read an object without taking items from it
_READERS = frozenset(
    {"len", "isinstance", "type", "id", "repr", "str", "float", "int", "bool", "complex", "abs", "round", "hash"}
    | {"callable", "getattr", "hasattr", "print", "format"}
)
_ITERATED: dict = {}


def iterated(fn, _active=None) -> frozenset:
    """The parameters of the user function ``fn`` whose items it may take (``for a in m``, ``sum(m)``,
    ``list(m)``, ``*m``, ``a in m``, ``zip(m, ...)``, passing ``m`` to a call s2sad cannot see into or to a user
    function that iterates it).  An iterator given there is empty when the code runs a second time: a VJP's
    recompute, a Jacobian's next column (``expect_reiterable``)."""
    from .callables import FunctionLike
    from .primitives import is_user_function

    while isinstance(fn, FunctionLike):
        fn = fn.function
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None or not is_user_function(fn):
        return frozenset()
    if code in _ITERATED:
        return _ITERATED[code]
    active = _active if _active is not None else set()
    if code in active:
        return frozenset()
    active.add(code)
    tree, _ = _tree(fn, code)
    found = _iterated(fn, tree, active) if isinstance(tree, (gast.FunctionDef, gast.Lambda)) else frozenset()
    if _active is None or found:
        _ITERATED[code] = found
    return found


def _iterated(fn, tree, active) -> frozenset:
    args = tree.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    holders = {p: p for p in params}  # q = m: q holds what m holds
    for n in walk(tree):
        if isinstance(n, gast.Assign) and isinstance(n.value, gast.Name) and n.value.id in holders:
            holders.update({t.id: holders[n.value.id] for t in n.targets if isinstance(t, gast.Name)})
    parents = {id(c): p for p in walk(tree) for c in gast.iter_child_nodes(p)}
    space = dict(getattr(fn, "__globals__", {}))
    space.update({k: c.cell_contents for k, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()) if _filled(c)})
    found = set()
    for n in walk(tree):
        if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in holders):
            continue
        parent = parents.get(id(n))
        if isinstance(parent, gast.keyword):  # g(v, m=m): the call
            parent = parents.get(id(parent))
        if _takes_items(n, parent, space, active):
            found.add(holders[n.id])
    return frozenset(found)


def _takes_items(n, parent, space, active) -> bool:
    """Whether the use ``n`` (a name) under ``parent`` may take items of what ``n`` holds."""
    from .primitives import is_user_function

    if isinstance(parent, (gast.For, gast.comprehension)):
        return parent.iter is n
    if isinstance(parent, gast.Starred):
        return True
    if isinstance(parent, gast.Compare):
        return any(c is n and isinstance(op, (gast.In, gast.NotIn)) for op, c in zip(parent.ops, parent.comparators))
    if not isinstance(parent, gast.Call) or parent.func is n:
        return False
    path = dotted(parent.func)
    root, *attrs = path.split(".") if path else (None,)
    obj = space.get(root, getattr(builtins, root, MISSING)) if root is not None else MISSING
    for a in attrs:
        obj = getattr(obj, a, MISSING) if obj is not MISSING else MISSING
    if obj is MISSING:
        return True  # a method or a call s2sad cannot see into (", ".join(m), obj.fit(m))
    if getattr(builtins, getattr(obj, "__name__", ""), None) is obj and obj.__name__ in _READERS:
        return False
    module = getattr(obj, "__module__", None) or ""
    if (module == "math" or module.split(".")[0] == "numpy") and obj is not np.fromiter:
        return False  # (np.array(it) holds the iterator, it does not take its items)
    callee = getattr(obj, "__func__", obj)
    if isinstance(callee, types.FunctionType) and is_user_function(callee):
        given = [None] * (callee is not obj) + list(parent.args)  # (a bound method's self)
        if any(isinstance(a, gast.Starred) for a in given) or any(k.arg is None for k in parent.keywords):
            return True
        try:
            bound = inspect.signature(callee).bind_partial(*given, **{k.arg: k.value for k in parent.keywords})
        except TypeError:
            return True
        inner = iterated(callee, active)
        for p, a in bound.arguments.items():
            held = a.values() if isinstance(a, dict) else a if isinstance(a, tuple) else (a,)
            if p in inner and any(h is n for h in held):
                return True
        return False
    return True
