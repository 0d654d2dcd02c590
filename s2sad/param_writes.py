"""param_writes: which parameters a user function may change in place, as Python runs it.

Takes a user function; gives ``{parameter: (line, what)}`` for each parameter whose object the function
may change: ``p[i] = v``, ``p += v`` (in place for an array or a list), ``p.append(v)``, ``np.copyto(p, v)``,
``out=p``, a call of another user function that changes it -- through ``p`` or any name that may share its
object (``q = p``, ``q = p[1:]``, ``for row in p``).  A syntactic, conservative scan of the function's own
source (no ANF): ``anf`` uses it to refuse a call that passes an array to such a parameter, since the
derivative of the called function works on a private copy (and its VJP recomputes from its arguments).
"""

from __future__ import annotations

import inspect

import gast

from .aliases import _fresh_value
from .ir import MUTATORS, STORES, walk
from .primitives import DATA_ATTRS, is_user_function
from .resolve import dotted

_DISPLAYS = (gast.List, gast.Tuple, gast.Set, gast.Dict, gast.ListComp, gast.SetComp, gast.DictComp)
# functions that write into their first argument
_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "at", "shuffle", "put_along_axis"}

_CACHE: dict = {}
_ITEMS: dict = {}  # (code, globals) -> the parameters written into only through items of copies (w = p.copy())


def items_only(fn) -> set:
    """The parameters of ``fn`` (among ``param_writes(fn)``) that it changes only through the items of what
    it holds of them (``w = p.copy(); w[0] += v`` changes an array item of a list ``p``, nothing of an
    array ``p``): an argument whose items are numbers (an array of numbers) is not changed by the call."""
    param_writes(fn)
    code = getattr(fn, "__code__", None)
    return _ITEMS.get((code, id(getattr(fn, "__globals__", None))), set())


def param_writes(fn, _active=None) -> dict:
    """``{parameter name: (lineno, description)}`` for the parameters ``fn`` may change in place."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    key = (code, id(getattr(fn, "__globals__", None)))
    if key in _CACHE:
        return _CACHE[key]
    active = _active if _active is not None else set()
    if code in active:  # recursion: what the outer scan finds
        return {}
    active.add(code)
    from .effects import _tree  # (a lifted local function's own tree; a lambda's node, at its lines in the file)

    tree, first = _tree(fn, code)
    if not isinstance(tree, (gast.FunctionDef, gast.Lambda)):
        return {}
    args = tree.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    globals_ = getattr(fn, "__globals__", {})

    def resolve(func):
        path = dotted(func)
        if path is None:
            return None
        root, *attrs = path.split(".")
        obj = globals_.get(root, getattr(__import__("builtins"), root, None))
        for a in attrs:
            obj = getattr(obj, a, None)
        return obj

    # name -> parameters whose object it may be (or a view of); name -> those it may hold as an element
    # (``hs = [p]``, ``hs.append(p)``): ``hs.append(v)`` or ``hs[0] = v`` changes hs, not p
    same = {p: {p} for p in params}
    held: dict = {}

    def params_of(node):
        return set().union(
            *(same.get(n.id, set()) | held.get(n.id, set()) for n in walk(node) if isinstance(n, gast.Name))
        )

    def add(table, name, ps):
        if not ps <= table.get(name, set()):
            table[name] = table.get(name, set()) | ps
            return True
        return False

    changed = True
    while changed:  # names that may share (or hold) a parameter's object
        changed = False
        for n in walk(tree):
            pairs = []
            if isinstance(n, gast.Assign):
                pairs = [(t, n.value) for t in n.targets]
            elif isinstance(n, (gast.AnnAssign, gast.NamedExpr)) and n.value is not None:
                pairs = [(n.target, n.value)]
            elif isinstance(n, (gast.For, gast.comprehension)):  # the target is an element of the iterable
                pairs = [(n.target, gast.Subscript(value=n.iter, slice=gast.Constant(0, None), ctx=gast.Load()))]
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in STORES:
                if isinstance(n.func.value, gast.Name):  # lst.append(v): lst holds v
                    changed |= add(held, n.func.value.id, params_of(n))
                continue
            for target, value in pairs:
                if _fresh_value(value, resolve) or _reads_data_attr(value):
                    continue
                ps = params_of(value)
                if isinstance(target, gast.Name) and (isinstance(value, _DISPLAYS) or _new_list(value, resolve)):
                    changed |= add(held, target.id, ps)  # a new list, tuple, set or dict holding them
                elif isinstance(target, gast.Name) and isinstance(value, gast.Name):
                    changed |= add(same, target.id, same.get(value.id, set()))
                    changed |= add(held, target.id, held.get(value.id, set()))
                elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                    changed |= add(held, target.value.id, ps)  # lst[i] = v: lst holds v
                else:
                    for t in walk(target):
                        if isinstance(t, gast.Name):
                            changed |= add(same, t.id, ps) | add(held, t.id, ps)

    out: dict = {}
    objects: set = set()  # the parameters a write may reach as objects (not only through their items)

    def wrote(node, line, what):
        """A write into ``node``'s object: the parameters it may be; and those it may hold, unless it is a
        name written at its top level (``lst[i] = v``, ``lst.append(v)``, ``a += v``)."""
        ps = same.get(node.id, set()) if isinstance(node, gast.Name) else params_of(node)
        for p in ps:
            out.setdefault(p, (first + line - 1, what))
        objects.update(ps)

    def wrote_inside(node, line, what):
        """A write that may reach into the objects ``node`` holds (``lst[0][1] = v``, ``lst[0] += v``)."""
        for p in params_of(node):
            out.setdefault(p, (first + line - 1, what))
        objects.update(same.get(node.id, set()) if isinstance(node, gast.Name) else params_of(node))

    lookup = {**globals_, **{k: c.cell_contents for k, c in zip(code.co_freevars, fn.__closure__ or ())}}
    for n in walk(tree):
        line = getattr(n, "lineno", 1)
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store):
            top = isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
            (wrote if top else wrote_inside)(_root(n), line, "an assignment into it")
        elif isinstance(n, gast.AugAssign):
            top = isinstance(n.target, gast.Name)  # (lst[0] += v changes the element in place)
            (wrote if top else wrote_inside)(_root(n.target), line, "an augmented assignment")
        elif isinstance(n, gast.Call):
            f = n.func
            if isinstance(f, gast.Attribute) and f.attr in MUTATORS and isinstance(_root(f.value), gast.Name):
                (wrote if isinstance(f.value, gast.Name) else wrote_inside)(_root(f.value), line, f".{f.attr}()")
            if isinstance(f, gast.Attribute) and f.attr in _WRITERS and n.args:
                wrote_inside(_root(n.args[0]), line, f"{f.attr}()")
            for k in n.keywords:
                if k.arg == "out":
                    wrote_inside(k.value, line, "out=")
            callee = lookup.get(f.id) if isinstance(f, gast.Name) else None
            module = getattr(callee, "__module__", None) or ""
            own_helper = module.startswith("s2sad.") and module != "s2sad.generated"  # (s2sad's own: a guard's)
            if inspect.isfunction(callee) and callee is not fn and not own_helper:
                inner = param_writes(callee, active)
                if inner:
                    try:
                        bound = inspect.signature(callee).bind(*n.args, **{k.arg: k.value for k in n.keywords if k.arg})
                    except TypeError:
                        continue
                    for p, value in bound.arguments.items():
                        if p in inner:
                            for v in value if isinstance(value, (tuple, dict)) else [value]:
                                v = value[v] if isinstance(value, dict) else v
                                wrote_inside(v, line, f"a call of {callee.__name__}()")
    out = {p: out[p] for p in params if p in out}
    if _active is None:
        _CACHE[key] = out
        _ITEMS[key] = set(out) - objects
    return out


def _new_list(value, resolve) -> bool:
    """``list(v)``, ``tuple(v)``, ``v.copy()``: a new object holding v's items (or elements)."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "copy":
        return not value.args and not value.keywords  # (an array's, a list's, a dict's: a shallow copy)
    return (
        isinstance(value, gast.Call) and len(value.args) == 1 and any(resolve(value.func) is t for t in (list, tuple))
    )


def _reads_data_attr(value) -> bool:
    """``p.shape[0]``, ``p.ndim``: a number or tuple read off an object, not the object."""
    node = value
    while isinstance(node, gast.Subscript):
        node = node.value
    return isinstance(node, gast.Attribute) and node.attr in DATA_ATTRS


def _root(node):
    while isinstance(node, (gast.Subscript, gast.Attribute, gast.Starred)):
        node = node.value
    return node


def call_writes(obj, args, keywords: dict):
    """For a call of ``obj`` (a user function, or a method bound to its object) with ``args`` and
    ``keywords`` (nodes, or any placeholders): ``(function, param_writes of it, {parameter: argument}
    for the parameters it writes into)``, or None when it is not user code or writes into none."""
    fn, bound = (obj.__func__, [obj.__self__]) if inspect.ismethod(obj) else (obj, [])
    if not inspect.isfunction(fn) or not is_user_function(fn):
        return None
    writes = param_writes(fn)
    if not writes:
        return None
    try:
        binding = inspect.signature(fn).bind(*bound, *args, **keywords)
    except TypeError:
        return None
    return fn, writes, {p: v for p, v in binding.arguments.items() if p in writes}


def private_arguments(tree, lookup) -> None:
    """In generated code, pass each user function that changes a parameter in place a private copy
    of that argument (``bump(copy_input(t), v)``).  anf lets such a call through only where no name
    that may share the argument is read after it, so f's values are the same; the derivative reads
    the argument's value from before the call (a VJP recomputes from it), and the caller's data is
    never changed.  ``lookup``: a Name or Attribute node -> the object it denotes."""
    for n in walk(tree):
        if not isinstance(n, gast.Call):
            continue
        found = call_writes(lookup(n.func), range(len(n.args)), {k.arg: k for k in n.keywords if k.arg})
        for slot in found[2].values() if found else ():
            if isinstance(slot, gast.keyword):
                slot.value = _private(slot.value)
            elif isinstance(slot, int):
                n.args[slot] = _private(n.args[slot])


def _private(value):
    if not isinstance(value, gast.Name):
        return value
    func = gast.Name(id="copy_input", ctx=gast.Load(), annotation=None, type_comment=None)
    return gast.Call(func=func, args=[value], keywords=[])
