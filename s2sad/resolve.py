"""resolve: bind every non-local name the function reads to the object it means.

Takes a :class:`~s2sad.parse.Parsed` function; gives a :class:`Namespace` that maps dotted names
(``np.sin``, ``la.norm``, ``helper``) to objects through the function's globals, closure and
builtins, plus the names the function reads and those whose objects steer generation.
Method calls on local values (``x.sum()``) are left to ``anf``, which knows which names are local.
"""

from __future__ import annotations

import builtins

import gast

from .ir import walk
from .parse import Parsed

_MISSING = object()


def dotted(node) -> str | None:
    """``np.linalg.norm`` for an Attribute chain rooted at a Name, else None."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def local_names(tree: gast.FunctionDef) -> set[str]:
    names = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    for extra in (tree.args.vararg, tree.args.kwarg):
        if extra is not None:
            names.add(extra.id)
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del, gast.Param)):
            names.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node is not tree:
            names.add(node.name)
    return names


class Namespace:
    """What the function's free names mean: closure cells, then globals, then builtins.

    Nothing is copied: names are looked up in the live cells and globals dict (which may be the
    globals of generated code, a :class:`~s2sad.live.LiveGlobals` that reads its user's names).
    ``used``: the free names found in cells or globals (values and functions alike), ``free``: every
    free name read (builtins too), ``steered``: the names whose object decided what code is generated
    (called functions, modules of called functions); the generated code re-validates those.
    """

    def __init__(self, fn, locals_: set[str]):
        self.fn = fn
        self.locals = locals_
        self.globals = fn.__globals__
        self.cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        self.scope: dict[str, object] = {}  # names the passes add (``np`` for methods made calls)
        self.lifted: dict[str, object] = {}  # the functions ``lift`` made that this code calls, by name
        self.closure_names = set(fn.__code__.co_freevars)
        self.methods: list = []  # (class __dict__, name, entry) of user methods called on objects
        self.bound = getattr(fn, "__s2sad_bound__", None) or {}  # parameters fixed to constants
        self.used: dict[str, object] = {}
        self.free: set[str] = set()
        self.steered: dict[str, object] = {}
        self.operands: set[str] = set()  # globals/cells a rule takes as operands: checked to stay plain values
        self.user_names: dict[str, str] = {}  # a name a pass gave a user's variable -> the user's (messages)
        # (owner's __dict__, attribute, object or MISSING) for each step of a dotted name that reaches
        # user code (``helpmod.helper``, ``self.act``): rebinding or shadowing it must be noticed
        self.attributes: list = []

    def lookup_name(self, name: str):
        obj = self.user_value(name)
        if obj is not _MISSING:
            return obj
        if name in self.scope:
            return self.scope[name]
        return getattr(builtins, name, _MISSING)

    def user_value(self, name: str):
        """The object ``name`` has as a bound constant, in the function's closure or globals, or _MISSING."""
        if name in self.bound:
            return self.bound[name]
        cell = self.cells.get(name)
        if cell is not None:
            try:
                return cell.cell_contents
            except ValueError:  # cell not yet filled
                return _MISSING
        try:
            return self.globals[name]
        except KeyError:
            return _MISSING

    def lookup(self, node):
        """The object a Name/Attribute chain denotes, or _MISSING (local value, unknown name)."""
        path = dotted(node)
        if path is None:
            return _MISSING
        root, *attrs = path.split(".")
        if root in self.locals:
            return _MISSING
        obj = self.lookup_name(root)
        if obj is not _MISSING and not (root in self.scope and self.user_value(root) is _MISSING):
            self.steered[root] = obj  # not the names the passes add (``copy_input``): s2sad's own
        steps = []
        for attr in attrs:
            if obj is _MISSING:
                break
            steps.append((obj, attr))
            obj = getattr(obj, attr, _MISSING)
        if steps and _is_user_code(obj):
            for owner, attr in steps:
                space = getattr(owner, "__dict__", None)
                if space is not None:
                    self.attributes.append((space, attr, space.get(attr, _MISSING)))
                if isinstance(space, dict) and attr not in space and not isinstance(owner, type):
                    self._class_entry(type(owner), attr)  # self.h of a staticmethod, self.layer = L1() on the class
        elif steps and callable(obj):  # HO.fn = np.sin, also math.sin = math.cos: checked like user code
            for owner, attr in steps:
                space = getattr(owner, "__dict__", None)
                if space is not None and attr in space:  # (not a module's lazy __getattr__)
                    self.attributes.append((space, attr, space[attr]))
                elif isinstance(space, dict) and not isinstance(owner, type):  # self.act of a class attribute
                    self.attributes.append((space, attr, _MISSING))  # (not hidden by the object later)
                    self._class_entry(type(owner), attr)
        return obj

    def _class_entry(self, cls, attr):
        """``act = staticmethod(np.tanh)`` (or a ufunc, a callable instance) found on ``cls``'s MRO: its
        entry there is what the derivative was made for (``A.act = ...`` later makes it stale)."""
        for c in getattr(cls, "__mro__", ()):
            if attr in vars(c):
                if c.__module__ != "builtins":
                    self.attributes.append((vars(c), attr, vars(c)[attr]))
                return
            if c.__module__ != "builtins":
                self.attributes.append((vars(c), attr, _MISSING))


def _is_user_code(obj) -> bool:
    """A user function, a bound method of one, or an instance whose ``__call__`` is one."""
    import types

    from .primitives import is_user_function

    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    elif not isinstance(obj, (types.FunctionType, type)) and not isinstance(obj, types.ModuleType):
        obj = getattr(type(obj), "__call__", None)  # noqa: B004
    return is_user_function(obj)


def resolve(parsed: Parsed, scope: dict | None = None) -> Namespace:
    """``scope``: names s2sad gives the code (the functions ``lift`` made from local ones)."""
    ns = Namespace(parsed.fn, local_names(parsed.tree))
    ns.scope.update(scope or {})
    for node in walk(parsed.tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in ns.locals:
            ns.free.add(node.id)
            obj = ns.user_value(node.id)
            if obj is not _MISSING:
                ns.used[node.id] = obj
            elif ns.lookup_name(node.id) is _MISSING:
                imported = _local_import(parsed.tree, node.id)
                if imported is not None:
                    raise parsed.loc.error(
                        imported,
                        f"`{node.id}` is imported inside the differentiated function; import statements are not "
                        "supported there: import at module level",
                    )
                raise parsed.loc.error(node, f"name '{node.id}' is not defined")
    return ns


def _local_import(tree, name_):
    """The ``import`` statement of the function's code that binds ``name_``, or None."""
    for node in walk(tree):
        if isinstance(node, (gast.Import, gast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound == name_:
                    return node
    return None


MISSING = _MISSING


def among(obj, group) -> bool:
    """``obj in group`` (a set or dict of functions, classes, modules), False for an unhashable ``obj``
    (a dataclass instance or ``np.poly1d`` called in f): such an object is none of them."""
    try:
        return obj in group
    except TypeError:
        return False
