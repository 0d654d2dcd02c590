"""anf: A-normal, single-assignment form.

Takes the parsed ``FunctionDef`` and its :class:`~s2sad.resolve.Namespace`; gives a new
``FunctionDef`` whose statements are all of the forms below (atoms are names and constants):

    x = atom | atom op atom | op atom | f(atom, ..., k=atom) | atom[index] | atom.attr | (atom, ...)
    x = <comparison or boolean expression, kept whole: it carries no derivative>
    a, b = atom                      x[index] = atom              f(atom, ...)   (a call statement)
    if name: ...   for name in atom | range(atom, ...): ...   while <test>: ...   break   continue
    return atom                      (once, as the last statement)

Names assigned again in straight-line code get new versions (``x``, ``x1``); names assigned inside
``if``/``for``/``while`` keep one name there (the reverse pass saves what they overwrite).  Method
calls on arrays become NumPy calls (``x.sum(0)`` -> ``np.sum(x, 0)``, ``x.T`` -> ``np.transpose(x)``).
Statement line numbers are the user's, for error messages and source maps.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import inspect
import itertools
import re
import types
from collections import Counter
from dataclasses import dataclass

import gast
import numpy as np

from . import runtime
from .aliases import (
    CONTAINER,
    FRESH,
    NUMERIC,
    PARAM,
    Aliases,
    appends,
    kept_arrays,
    liveness,
    makes_view,
    sharing_groups,
    value_liveness,
)
from .built import inspects_classes, record_twin
from .checkpointing import checkpoint
from .errors import DifferentiationError, Location
from .ir import (
    _NUMPY_WRITERS,
    ITERATOR_MAKERS,
    MUTATORS,
    NONE_MUTATORS,
    VALUE_CONSUMERS,
    is_super_call,
    out_arguments,
    targets,
    walk,
    walk_stmts,
)
from .loop_sources import LoopSources, _copy, _len
from .naming import Names, Role, all_names, assign, const, generated_globals, name
from .param_writes import call_writes, items_only, param_writes
from .primitives import is_user_function, writes_arguments
from .resolve import MISSING, Namespace, among, dotted
from .star import SAFE_KEY, namedtuple_field

_STORED_NONE = object()  # (what stored_callable says of an attribute holding None)


# Array methods that are NumPy functions of the receiver: method -> (function, packs *args into a tuple)
_METHODS = {
    "sum": ("sum", False),
    "mean": ("mean", False),
    "prod": ("prod", False),
    "max": ("max", False),
    "min": ("min", False),
    "var": ("var", False),
    "std": ("std", False),
    "dot": ("dot", False),
    "ravel": ("ravel", False),
    "flatten": ("ravel", False),
    "squeeze": ("squeeze", False),
    "clip": ("clip", False),
    "copy": ("copy", False),
    "conj": ("conj", False),
    "conjugate": ("conj", False),
    "cumsum": ("cumsum", False),
    "cumprod": ("cumprod", False),
    "trace": ("trace", False),
    "reshape": ("reshape", True),
    "transpose": ("transpose", True),
    "swapaxes": ("swapaxes", False),
    "argmax": ("argmax", False),
    "argmin": ("argmin", False),
    "argsort": ("argsort", False),
    "argpartition": ("argpartition", False),
    "searchsorted": ("searchsorted", False),
    "take": ("take", False),
    "round": ("round", False),
    "repeat": ("repeat", False),
    "diagonal": ("diagonal", False),
    "any": ("any", False),
    "all": ("all", False),
    "nonzero": ("nonzero", False),
    "astype": ("astype", False),
}
_ARRAY_ATTRS = {"T": "transpose", "mT": "matrix_transpose", "flat": "ravel", "real": "real", "imag": "imag"}
_ARRAY_ONLY = {"T": "NumPy's transpose", "mT": "NumPy's matrix transpose", "flat": "NumPy's flat iterator"}
_OPAQUE = (
    gast.Compare,
    gast.BoolOp,
    gast.ListComp,
    gast.SetComp,
    gast.DictComp,
    gast.GeneratorExp,
    gast.Lambda,
    gast.JoinedStr,
    gast.Set,
)
_CONSTRUCT = {
    gast.ListComp: "list comprehension",
    gast.SetComp: "set comprehension",
    gast.DictComp: "dict comprehension",
    gast.GeneratorExp: "generator expression",
    gast.Lambda: "lambda",
    gast.JoinedStr: "f-string",
    gast.Dict: "dict literal",
    gast.Set: "set literal",
    gast.Compare: "comparison",
    gast.BoolOp: "boolean operator",
}


_AUG_SYMBOLS = {
    gast.Add: "+",
    gast.Sub: "-",
    gast.Mult: "*",
    gast.Div: "/",
    gast.FloorDiv: "//",
    gast.Mod: "%",
    gast.Pow: "**",
    gast.MatMult: "@",
}


def construct_name(node) -> str:
    return _CONSTRUCT.get(type(node), type(node).__name__)


def is_atom(node) -> bool:
    return isinstance(node, (gast.Name, gast.Constant))


def _writes_first_argument(obj) -> bool:
    """A NumPy function that writes into its first argument (``np.copyto``, ``np.put``, ``np.add.at``)."""
    name_ = getattr(obj, "__name__", "")
    if name_ == "at" and isinstance(getattr(obj, "__self__", None), np.ufunc):
        return True
    return name_ in _NUMPY_WRITERS and (getattr(obj, "__module__", "") or "").startswith("numpy")


def assigned_names(stmts) -> set[str]:
    out = set()
    for stmt in stmts:
        for node in walk(stmt):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                out.add(node.id)
    return out


def _written_in_place(tree) -> set[str]:
    """The names ``tree`` writes into in place: ``a[i] = v``, ``a[i] += v``, ``a += v``."""
    out = set()
    for n in walk(tree):
        targets = n.targets if isinstance(n, gast.Assign) else [n.target] if isinstance(n, gast.AugAssign) else []
        for t in targets:
            for e in walk(t):
                if isinstance(e, gast.Subscript) and isinstance(e.ctx, gast.Store):
                    base = e.value
                    while isinstance(base, gast.Subscript):
                        base = base.value
                    if isinstance(base, gast.Name):
                        out.add(base.id)
            if isinstance(n, gast.AugAssign) and isinstance(t, gast.Name):
                out.add(t.id)
    return out


def _checked_appends(tree, ns) -> None:
    """``lst.append(a[i])`` (integer indices) of a NumPy array ``a`` that f makes and writes into in place:
    ``a[i]`` is a number (a copy) when ``a`` has one axis, a row (a view) otherwise; written
    ``lst.append(appended_number(a[i], ...))``, which refuses a row when the derivative runs, so the list
    shares no memory with ``a`` (in place, once)."""
    written = _written_in_place(tree)
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    candidates = written - params
    if not candidates:
        return
    assigned: dict = {}
    for n in walk(tree):
        for t in (
            n.targets if isinstance(n, gast.Assign) else [n.target] if isinstance(n, (gast.For, gast.AugAssign)) else []
        ):
            for e in walk(t):
                if isinstance(e, gast.Name) and not isinstance(e.ctx, gast.Load):
                    assigned.setdefault(e.id, []).append(n.value if isinstance(n, gast.Assign) and t is e else None)

    def numeric(value) -> bool:
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        if not isinstance(value, gast.Call) or dotted(value.func) is None:
            return False
        obj = ns.lookup(value.func)
        module = getattr(obj, "__module__", None) or ""
        return obj is not MISSING and (module.startswith("numpy") or type(obj).__name__ == "ufunc")

    arrays = {b for b in candidates if assigned.get(b) and all(v is not None and numeric(v) for v in assigned[b])}
    for n in walk(tree):
        if not (
            isinstance(n, gast.Call)
            and isinstance(n.func, gast.Attribute)
            and n.func.attr == "append"
            and len(n.args) == 1
            and not n.keywords
        ):
            continue
        arg = n.args[0]
        if not (isinstance(arg, gast.Subscript) and isinstance(arg.value, gast.Name) and arg.value.id in arrays):
            continue
        parts = arg.slice.elts if isinstance(arg.slice, gast.Tuple) else [arg.slice]
        if not all(isinstance(p, gast.Name) or _int_constant(p) for p in parts):
            continue
        ns.scope.setdefault("appended_number", runtime.appended_number)
        what = gast.Constant(value=f"`{_source(arg)}`", kind=None)
        call = gast.Call(
            func=gast.Name(id="appended_number", ctx=gast.Load(), annotation=None, type_comment=None),
            args=[arg, what],
            keywords=[],
        )
        n.args[0] = gast.copy_location(call, arg)
        for e in walk(call):
            if "lineno" in getattr(e, "_attributes", ()) and not hasattr(e, "lineno"):
                gast.copy_location(e, arg)


def _calls_setattr(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in ("setattr", "vars")


_CONTAINER_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}
_CONTAINER_METHODS |= {"keys", "values", "items", "get", "update", "setdefault", "popitem"}


_READERS = {"np", "numpy", "math", "len", "sum", "min", "max", "abs", "float", "int", "list", "tuple", "print"}
_READERS |= {"sorted", "enumerate", "zip", "range", "isinstance", "repr", "str", "round", "any", "all"}


_READ_METHODS = {"sum", "mean", "max", "min", "std", "var", "prod", "dot", "item", "tolist", "copy", "astype"}
_READ_METHODS |= {"all", "any", "argmax", "argmin", "cumsum", "cumprod", "keys", "values", "items", "get", "count"}
_READ_METHODS |= {"index", "conj", "conjugate", "trace", "diagonal", "nonzero", "round", "clip", "ptp", "flatten"}


def _container_copies(tree) -> set[int]:
    """The ``v.copy()`` / ``copy.copy(v)`` calls (by id) whose result, assigned to a name, is used as a list or
    a dict (``lst.append(...)``, ``e["a"]``, ``e.items()``) or never written in place: copied keeping their
    type (``copy_of``).  A copy written in place (``a[0] = v``, ``a += v``, a view or item of it bound to a
    name, or given to a user function) is followed as an array's (``np.copy``, checked to be one when the
    code runs): a list's slice is a new list, so ``copy_of`` would make ``v = a[1:]; v *= 2`` a write that
    ``a`` never sees, and a list's copy shares its arrays with the list."""
    used, written = set(), set()

    def root(node):  # y of y, y[1:], y.T, y.reshape(2, 2)[0]
        while isinstance(node, (gast.Subscript, gast.Attribute, gast.Call)):
            node = node.func if isinstance(node, gast.Call) else node.value
        return node.id if isinstance(node, gast.Name) else None

    for n in walk(tree):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _CONTAINER_METHODS:
            if isinstance(n.func.value, gast.Name):
                used.add(n.func.value.id)
        if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name):
            if isinstance(n.slice, gast.Constant) and isinstance(n.slice.value, str):
                used.add(n.value.id)
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
            written.add(root(n))
        if isinstance(n, gast.AugAssign):
            written.add(root(n.target))
        if isinstance(n, (gast.Assign, gast.For)):  # v = a[1:], v = a.T, b = a, for row in a
            value = n.value if isinstance(n, gast.Assign) else n.iter
            if isinstance(value, (gast.Name, gast.Subscript, gast.Attribute)):
                written.add(root(value))
            elif isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute):
                written.add(root(value.func.value))  # a.reshape(2, 2), a.view()
        if isinstance(n, gast.Call) and root(n.func) not in _READERS:  # a helper may write into its arguments
            written.update(a.id for a in n.args if isinstance(a, gast.Name))
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr not in _READ_METHODS:
            written.add(root(n.func.value))  # y[:2].fill(1.0), y[1:].sort(), y.put(...): methods that may write
        if isinstance(n, gast.Call) and any(k.arg == "out" for k in n.keywords):
            written.update(root(k.value) for k in n.keywords if k.arg == "out")
    out = set()
    for n in walk(tree):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
            if n.targets[0].id in used and isinstance(n.value, gast.Call):
                out.add(id(n.value))
    return out


def _mapping_params(tree) -> set[str]:
    """Parameters f never rebinds and reads with a string key (``p["w"]``): dicts (or mappings)."""
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    stored = {n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    read = {
        n.value.id
        for n in walk(tree)
        if isinstance(n, gast.Subscript)
        and isinstance(n.value, gast.Name)
        and isinstance(n.slice, gast.Constant)
        and isinstance(n.slice.value, str)
    }
    return (read & params) - stored


class _ANF(LoopSources):
    def __init__(self, tree: gast.FunctionDef, ns: Namespace, loc: Location, names: Names, private=()):
        self.ns = ns
        self.loc = loc
        self.names = names
        self.params = [a.id for a in tree.args.args + tree.args.kwonlyargs]
        self.env = {p: p for p in self.params}  # user name -> current version
        self.user_of = {p: p for p in self.params}  # version -> user name
        self.aliases = Aliases(self.params, liveness(tree, self.global_callee))
        self.demoted: set[str] = set()  # versions x += v rebound from an array (a NumPy scalar if it was 0-d)
        self.loop_bound: set[str] = set()  # versions a for loop binds (unbound if it runs no iteration)
        self.unbound_at_entry: set[str] = set()  # ... read after a later loop on the same name: None first
        self.entry_checks: list = []  # (parameter, field, message, write): expect_field on entry (next pass)
        generated = loc.filename.startswith("<s2sad")  # (derivative code differentiated again)
        self.value_live = value_liveness(tree, self.global_callee, partial_reads=not generated)  # None: all count
        self.known_ints: set[str] = set()  # names holding ints: range loop indices
        self.typed: dict[str, str] = {}  # name -> path of the typed object it is given (t = model.layer)
        self.typed_count: dict[str, int] = {}  # how many assignments give it that path (-1: another)
        self.built: dict = {}  # name -> the plain user class of the object it is given (layer = Dense(W))
        self.built_count: dict[str, int] = {}  # how many assignments give it an object of that class
        self.nones: dict[str, int] = {}  # name -> how many assignments give it None (-1: another value)
        self.written_params: set[str] = set()  # parameters whose data f writes into (copied on entry)
        self.writable: set[str] = set()  # names written in place whose aliases are all kept up to date
        self.sliced: set[str] = set()  # names checked to be arrays before a slice write (not lists)
        self.checkpoints: dict = {}  # checkpointed loops (the For statements written) -> every
        self.in_place_tests: dict = {}  # cond -> (its version, x, x's version) for cond = updates_in_place(x)
        self.dicts: set[str] = set()  # names holding a dict f built: d[k] = v makes a new version
        # names holding what position does not index ("not": a dict, a set, an iterator; see listed), or
        # may ("maybe": a user function's result; "object": an object of a user class f builds)
        self.unindexed: dict[str, str] = {}
        self.loads = collections.Counter(
            n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
        )
        self.mappings = _mapping_params(tree)  # parameters f reads with a string key: dicts
        self.container_copies = _container_copies(tree)  # lst = xs.copy() used as a list or dict
        self.spelled: dict = {}  # temporary -> the user's expression it holds (for messages)
        self.current = None  # the user's statement being translated
        self.pending: set[str] = set()  # temporaries the current statement reads later (x, y = y, x)
        self.renamed: dict[str, str] = {}  # names the last in-place write gave new versions
        self.out: list = []
        self.depth = 0  # >0 inside if/for/while: no new versions
        self.in_loop = 0
        self.held: dict[str, str] = {}  # copies of what a loop iterates, read by the loop (held_sources): whose
        self.return_name = None  # the one name every return assigns, when there are several
        self.lineno = tree.lineno

    # ---- naming ----------------------------------------------------------------------------
    def version(self, user: str) -> str:
        """The name an assignment to ``user`` writes to: a new version in straight-line code,
        the current one inside ``if``/``for``/``while``; a first assignment keeps the user's name."""
        if user not in self.env:
            # a local named like a name generated code uses (unbroadcast, np) gets another name
            v = self.names.fresh(user, Role.PRIMAL, user) if user in _RESERVED else user
        elif self.depth:
            return self.env[user]
        else:
            v = self.names.fresh(user, Role.PRIMAL, user)  # a version: messages name the user's variable
        self.env[user] = v
        self.user_of[v] = user
        return v

    def emit(self, stmt, like):
        gast.copy_location(stmt, like)
        stmt.end_lineno = getattr(like, "end_lineno", None)
        self.out.append(stmt)
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            value = stmt.value
            path = self.typed_path(value)
            if path is not None:  # t = model.layer: t's class is known where model's is (star.Typing)
                t = stmt.targets[0].id
                same = self.typed.setdefault(t, path) == path  # (bound again to the same: recomputed)
                self.typed_count[t] = self.typed_count.get(t, 0) + 1 if same else -1
            t = stmt.targets[0].id
            is_none = isinstance(value, gast.Constant) and value.value is None
            self.nones[t] = self.nones.get(t, 0) + 1 if is_none and self.nones.get(t, 0) >= 0 else -1
            cls = self.built_class(value)
            if cls is not None:  # layer = Dense(W), t = Child(): its class is known where f is generated
                t = stmt.targets[0].id
                same = self.built.setdefault(t, cls) is cls
                self.built_count[t] = self.built_count.get(t, 0) + 1 if same else -1
            is_dict = (
                isinstance(value, gast.Dict)
                or isinstance(value, gast.Name)
                and value.id in self.dicts
                or isinstance(value, gast.Call)
                and getattr(value.func, "id", None) == "set_item"
            )
            (self.dicts.add if is_dict else self.dicts.discard)(stmt.targets[0].id)
            t = stmt.targets[0].id
            if isinstance(value, gast.Name) and value.id in self.unindexed:
                self.unindexed[t] = self.unindexed[value.id]
            elif self.not_indexed(value):
                maybe = isinstance(value, gast.Call) and is_user_function(self.ns.lookup(value.func))
                built = isinstance(value, gast.Call) and self.user_result(value)
                iterator = (
                    isinstance(value, gast.GeneratorExp)
                    or isinstance(value, gast.Call)
                    and any(self.ns.lookup(value.func) is b for b in ITERATOR_MAKERS)
                )
                self.unindexed[t] = "maybe" if maybe else "object" if built else "iterator" if iterator else "not"
            else:
                self.unindexed.pop(t, None)
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], (gast.Name, gast.Tuple)):
            target = stmt.targets[0]
            # temporaries are locals too: ``t.A`` (of ``np.asmatrix(a).A``) is an attribute of a value,
            # not a module constant such as ``math.pi``
            self.ns.locals.update(n.id for n in walk(target) if isinstance(n, gast.Name))
            if isinstance(target, gast.Name) and target.id not in self.user_of and self.int_valued(stmt.value):
                self.known_ints.add(target.id)  # a temporary holding an int (x[-1]: t = -1)
            self.aliases.note(stmt, self.is_local, self.known_ints, self.callee)
        elif isinstance(stmt, gast.Expr) and _is_append(stmt.value):
            self.aliases.appended(stmt.value.func.value.id, stmt.value.args[0].id)
        return stmt

    def callee(self, func):
        """The object a call's function denotes; None for a method of a local value."""
        if isinstance(func, gast.Name) and self.is_local(func.id):
            return None
        obj = self.ns.lookup(func)
        return None if obj is MISSING else obj

    def int_valued(self, value) -> bool:
        """An int constant, or integer arithmetic on ints (``i - 1``, ``(t + 2) % 3``)."""
        if _int_constant(value) or isinstance(value, gast.Name) and value.id in self.known_ints:
            return True
        return (
            isinstance(value, gast.BinOp)
            and isinstance(value.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod))
            and all(
                _int_constant(v) or isinstance(v, gast.Name) and v.id in self.known_ints
                for v in (value.left, value.right)
            )
        )

    def global_callee(self, func):
        """The module-level object a call's function denotes (None for a local or unknown one)."""
        if isinstance(func, gast.Name) and func.id in self.ns.locals:
            return None
        obj = self.ns.lookup(func)
        return None if obj is MISSING else obj

    def is_local(self, n: str) -> bool:
        return n in self.aliases.root or n in self.aliases.count

    # ---- memory shared between names -----------------------------------------------------------
    def live(self, version: str) -> bool:
        """Whether the user reads ``version`` after the current statement (its name still means it)."""
        if version in self.pending or version in self.held:
            return True
        user = self.user_of.get(version)
        if user is None or self.env.get(user) != version:
            return False
        return user in self.liveness_after()

    def value_read_later(self, version: str) -> bool:
        """Whether ``version`` is live and its value is read later (not only written into, or written
        over entirely before it is read): only then must a write into memory it shares update it."""
        if version in self.pending or version in self.held or self.value_live is None:
            return self.live(version)
        return self.live(version) and self.user_of[version] in self.value_live.get(self.current, ())

    def liveness_after(self):
        return self.aliases.liveness.get(self.current, ())

    def check_write(self, base: str, node):
        """Before an in-place write into ``base``: whose data it changes."""
        if self.aliases.global_written(base):
            raise self.error(
                node,
                f"in-place write into '{self.describe(base)}', which may be (a view of) an array the function "
                "does not own (a global's, or an attribute's, or one read through a global name); copy it first "
                "(e.g. a = np.copy(a))",
            )
        param = self.aliases.param_written(base)
        if param is not None:
            self.written_params.add(param)

    def after_write(self, base: str, node):
        """Bring every live name that shares ``base``'s memory up to date (or refuse)."""
        # (only in generated code: the user's ``b.conj()`` of a real b is b, the generated np.conj(b) a copy)
        steps = self.aliases.plan(base, self.value_read_later, apart=self.loc.filename.startswith("<s2sad"))
        if isinstance(steps, tuple):
            other = steps[1]
            written = self.described_for_user(base, node, "an array of the derivative code")
            if other in self.held:  # for v in xs: xs[0] = v; xs = xs * 2 (the loop iterates the first xs)
                raise self.error(
                    node,
                    f"in-place write into {written}, which may be the '{self.held[other]}' this loop iterates "
                    f"(the value '{self.held[other]}' had when the loop began; the loop binds '{self.held[other]}' "
                    "again): s2sad cannot tell which values change; iterate over a copy (np.copy, list) or write "
                    "into a new array",
                )
            raise self.error(
                node,
                f"in-place write into {written}, which may share memory with "
                f"{self.described_for_user(other, node)} (used later): s2sad cannot tell which values change; "
                "copy first (np.copy) or write into the array itself",
            )
        self.writable.add(base)
        renamed = self.renamed = {}
        for direction, child, rel in steps:
            if direction == "apart":  # t = b[i] of a b since rebound: a number, or refused when the code runs
                message = (
                    f"in-place write into {self.described_for_user(base, node, 'an array of the derivative code')}, "
                    f"which shares memory with {self.described_for_user(child, node)} (used later): s2sad cannot "
                    "tell which values change; copy first (np.copy) or write into the array itself"
                )
                code = self.loc.user_code(node)
                if code is not None:  # as a refusal when the code is made says it (errors.Located)
                    message = f"cannot differentiate the derivative of `{code}` again: {message}"
                self.check("expect_apart", [name(child), name(base)], message, node)
                continue
            parent = renamed.get(rel.parent, rel.parent)
            if direction == "up" and rel.kind in ("view", "item"):
                if isinstance(rel.index, (gast.Constant, gast.Name)) and parent not in self.aliases.arrays:
                    message = (  # (a tuple's item: refused)
                        f"in-place write into {self.described_for_user(child, node)}, an item of a tuple: s2sad "
                        "writes it back into the tuple, which cannot take it; pass a list, or write into a copy"
                    )
                    self.check("expect_mutable", [name(parent)], message, node)
                target = gast.Subscript(value=name(parent), slice=_copy(rel.index), ctx=gast.Store())
                src = renamed.get(child, child)
                write_back = gast.Assign(targets=[target], value=name(src), type_comment=None)
                if rel.maybe:  # a view of parent on some paths only (aliases.join): where it is one
                    self.ns.scope.setdefault("is_view", runtime.is_view)
                    item = [_copy(rel.index)] if isinstance(rel.index, (gast.Constant, gast.Name)) else []
                    code = self.loc.user_code(node)
                    if item and code is not None:  # (derivative code: a list's item is its own copy there)
                        message = (
                            f"cannot differentiate the derivative of `{code}` again: an in-place write into an array "
                            "read out of a list or tuple"
                        )
                        item.append(const(message))
                    test = gast.Call(func=name("is_view"), args=[name(src), name(parent), *item], keywords=[])
                    cond = self.names.fresh("cond", Role.FLAG)  # (decided here: the adjoint reads the flag)
                    self.emit(assign(cond, test), node)
                    self.depth += 1
                    body = self.block_of(lambda w=write_back: self.emit(w, node))
                    self.depth -= 1
                    write_back = gast.If(test=name(cond), body=body, orelse=[])
                self.emit(write_back, node)
                self.writable.add(parent)
                continue
            # a copy, or a view made again from its parent: the name is assigned its new value
            if direction == "up" and rel.kind == "field":  # w = q.w: q gets a new version holding w
                self.ns.scope.setdefault("set_item", runtime.set_item)
                src = renamed.get(child, child)
                call = gast.Call(func=name("set_item"), args=[name(parent), _copy(rel.index), name(src)], keywords=[])
                user = self.user_of.get(rel.parent)
                if user is not None and self.env.get(user) != rel.parent:
                    user = None
                new = self.version(user) if user is not None else (rel.parent if self.depth else self.names.temp())
                renamed[rel.parent] = new
                self.emit(assign(new, call), node)
                self.aliases.refield(src, new, rel.index)  # w is still the field of q's new version
                self.writable.add(new)
                continue
            elif direction == "up":  # child is a copy of parent: parent gets child's value
                child, parent = parent, renamed.get(child, child)
                value = name(parent)
            elif rel.kind == "field":
                value = gast.Attribute(value=name(parent), attr=rel.index.value, ctx=gast.Load())
            else:
                value = (
                    name(parent)
                    if rel.kind == "copy"
                    else gast.Subscript(value=name(parent), slice=_copy(rel.index), ctx=gast.Load())
                )
            user = self.user_of.get(child)
            if user is not None and self.env.get(user) != child:
                user = None  # an older version of a name now bound elsewhere: never rebind the user's name
            new = self.version(user) if user is not None else (child if self.depth else self.names.temp())
            renamed[child] = new
            if direction == "down" and (rel.kind == "item" or rel.maybe):
                self.rederive_item(new, child, parent, rel.index, node, rel)
            else:
                self.emit(assign(new, value), node)
            self.writable.add(new)

    def rederive_item(self, new, old, parent, index, node, rel):
        """``old = parent[i]`` (integers only, or a view on some paths only: ``rel.maybe``) after a write
        into ``parent``: a view shows the new values, a number copied out of ``parent`` (or an array of
        its own) keeps the old one; the program decides which."""
        self.ns.scope.setdefault("is_view", runtime.is_view)
        cond = self.names.fresh("cond", Role.FLAG)
        # (of a parent that may be a list, the item itself: is_view(old, lst, 0) asks whether old is lst[0])
        item = (
            [] if parent in self.aliases.arrays or not isinstance(index, (gast.Constant, gast.Name)) else [_copy(index)]
        )
        test = gast.Call(func=name("is_view"), args=[name(old), name(parent), *item], keywords=[])
        self.emit(assign(cond, test), node)
        self.depth += 1
        value = gast.Subscript(value=name(parent), slice=_copy(index), ctx=gast.Load())
        body = self.block_of(lambda: self.emit(assign(new, value), node))
        orelse = self.block_of(lambda: self.emit(assign(new, name(old)), node)) if new != old else [gast.Pass()]
        self.depth -= 1
        self.emit(gast.If(test=name(cond), body=body, orelse=orelse), node)
        self.aliases.assigned(new)
        self.aliases.set_view(new, parent, index)
        self.aliases.rel[new].maybe = rel.maybe
        self.aliases.rel[new].assumed = rel.assumed

    def error(self, node, msg):
        return self.loc.error(node, msg)

    def typed_path(self, value) -> str | None:
        """``model`` or ``model.layer`` when ``value`` is an object of a known class, read from a name."""
        types = getattr(self.ns.fn, "__s2sad_types__", None)
        if not types:
            return None
        if isinstance(value, gast.Name):
            return value.id if value.id in types.objects else self.typed.get(value.id)
        # (a bound constant's attributes stay chains: self.layers[i] of grad(m.loss))
        if isinstance(value, gast.Attribute) and isinstance(value.value, (gast.Name, gast.Attribute)):
            path = self.typed_path(value.value)
            return None if path is None else f"{path}.{value.attr}"
        if isinstance(value, gast.Subscript) and isinstance(value.value, (gast.Name, gast.Attribute)):
            path = self.typed_path(value.value)
            index = value.slice
            if isinstance(index, gast.Constant) and isinstance(index.value, str):  # model.blocks["a"]
                return None if path is None or not SAFE_KEY.fullmatch(index.value) else f"{path}['{index.value}']"
            if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub):  # model.layers[-1]
                index = const(-index.operand.value) if isinstance(index.operand, gast.Constant) else index
            if isinstance(index, gast.Constant) and type(index.value) is int:
                return None if path is None else f"{path}[{index.value}]"
            return None if path is None or not isinstance(index, gast.Name) else f"{path}[*]"
        return None

    # ---- expressions -----------------------------------------------------------------------
    def atom(self, node):
        """ANF ``node`` into a Name or Constant, emitting statements for its parts."""
        if isinstance(node, gast.Constant):
            return node
        if (  # -1 is a constant (a[-1] is an element, not a[t] with an index computed at run time)
            isinstance(node, gast.UnaryOp)
            and isinstance(node.op, gast.USub)
            and isinstance(node.operand, gast.Constant)
            and type(node.operand.value) in (int, float)
        ):
            return const(-node.operand.value)
        if isinstance(node, gast.Name):
            return self.load(node)
        if (
            isinstance(node, gast.Attribute)
            and dotted(node)
            and dotted(node).split(".")[0] not in self.ns.locals
            and self.typed_path(node) is None  # (self.layers of grad(m.loss): an object's, read as a parameter's)
        ):
            return self.rename_loads(node)  # a module constant such as math.pi: an atom
        value = self.expr(node)
        if is_atom(value):
            return value
        tmp = self.names.temp()
        self.spelled[tmp] = node  # messages name what the user wrote, not the temporary
        self.emit(assign(tmp, value), node)
        return name(tmp)

    def describe(self, version: str) -> str:
        """How the user wrote what ``version`` holds: their variable's name, or the expression."""
        if version in self.user_of:
            return self.user_of[version]
        if version in self.spelled:
            try:
                return _source(self.spelled[version])
            except Exception:  # noqa: BLE001 -- a message must not fail; fall back to the name
                return version
        return version

    def described_for_user(self, version: str, node, generic="a value the derivative keeps for its adjoint sweep"):
        """``'name'`` as :meth:`describe` gives it; in a derivative differentiated again, a name the user's
        statement does not mention is generated code's own: described, not named."""
        what = self.describe(version)
        code = self.loc.user_code(node)
        if code is None or what in {n.id for n in walk(_parsed(code)) if isinstance(n, gast.Name)}:
            return f"'{what}'"
        return generic

    def load(self, node: gast.Name):
        if node.id in self.ns.locals:
            if node.id not in self.env:
                raise self.error(node, f"variable '{node.id}' is read before it is assigned")
            return name(self.env[node.id])
        return name(node.id)

    def rename_loads(self, node):
        """Copy of an opaque expression with local names replaced by their current versions."""
        node = _copy(node)
        for n in walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in self.env:
                n.id = self.env[n.id]
        return node

    def expr(self, node):
        """ANF ``node`` into a single-operation expression over atoms."""
        if is_atom(node):
            return self.atom(node)
        if isinstance(node, gast.BinOp):
            return gast.BinOp(left=self.atom(node.left), op=node.op, right=self.atom(node.right))
        if isinstance(node, gast.UnaryOp):
            if isinstance(node.op, gast.Not):
                self.check_opaque(node)
                return self.rename_loads(node)
            return gast.UnaryOp(op=node.op, operand=self.atom(node.operand))
        if isinstance(node, gast.Call):
            call = self.call(node)
            if isinstance(call, gast.Call) and self.changes_in_place(call):
                self.call_statement(call, node)
                return const(None)
            return call
        if isinstance(node, gast.Subscript):
            return gast.Subscript(value=self.atom(node.value), slice=self.index(node.slice), ctx=gast.Load())
        if isinstance(node, gast.Attribute):
            root = dotted(node)
            if root and root.split(".")[0] not in self.ns.locals:
                return self.rename_loads(node)
            if node.attr in MUTATORS and isinstance(node.value, gast.Name):  # map(hs.append, x)
                raise self.error(
                    node,
                    f"`{_source(node)}` passed as a value changes '{node.value.id}' in place where s2sad cannot "
                    "follow it; call it in a loop (for v in x: hs.append(v))",
                )
            value = self.atom(node.value)
            if node.attr in _ARRAY_ONLY and isinstance(value, gast.Name) and value.id not in self.aliases.arrays:
                # (cfg.T of an object with a field T, a temperature: not NumPy's transpose)
                message = (
                    f"`{_source(node)}` is read as {_ARRAY_ONLY[node.attr]}, of an array only (not a field named "
                    f"{node.attr})"
                )
                self.check("expect_array", [value], message, node)
            if node.attr in _ARRAY_ATTRS:
                return self.np_call(_ARRAY_ATTRS[node.attr], [value], [], node)
            return gast.Attribute(value=value, attr=node.attr, ctx=gast.Load())
        if isinstance(node, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in node.elts):
                raise self.error(
                    node, "starred elements in a tuple or list are not supported; build it with np.concatenate"
                )
            return type(node)(elts=[self.atom(e) for e in node.elts], ctx=gast.Load())
        if isinstance(node, gast.Dict):
            return self.dict_display(node)
        if isinstance(node, gast.IfExp):
            tmp = self.names.temp()
            cond = self.condition(node.test)
            self.depth += 1
            body = self.block_of(lambda: self.emit(assign(tmp, self.expr(node.body)), node))
            after_body = self.aliases.snapshot([tmp])
            orelse = self.block_of(lambda: self.emit(assign(tmp, self.expr(node.orelse)), node))
            self.aliases.join([tmp], [after_body])  # tmp holds what either branch gave it
            self.depth -= 1
            self.emit(gast.If(test=cond, body=body, orelse=orelse), node)
            return name(tmp)
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            raise self.error(node, "generators (yield) cannot be differentiated; return a list or an array instead")
        if isinstance(node, gast.Await):
            raise self.error(node, "await cannot be differentiated; use a plain function")
        if isinstance(node, gast.NamedExpr):
            raise self.error(node, "the walrus operator := is not supported; assign on its own line")
        if isinstance(node, gast.Slice):
            raise self.error(node, "a slice is only allowed inside []")
        if isinstance(node, _OPAQUE):
            self.check_opaque(node)
            return self.rename_loads(node)
        raise self.error(node, f"{type(node).__name__} expressions are not supported")

    def dict_display(self, node):
        """``{k: v, ...}`` with atoms for keys and values; ``{**d, k: v}`` is ``d`` with each key set
        in turn (``set_item``, which makes a new dict)."""
        if any(k is None for k in node.keys[1:]):
            raise self.error(node, "**d is supported only as the first entry of a dict display ({**d, 'k': v})")
        if node.keys and node.keys[0] is None:
            self.ns.scope.setdefault("set_item", runtime.set_item)
            current = self.atom(node.values[0])
            for k, v in zip(node.keys[1:], node.values[1:]):
                call = gast.Call(func=name("set_item"), args=[current, self.atom(k), self.atom(v)], keywords=[])
                current = self.atom_of(call, node)
            if len(node.keys) == 1:  # {**d}: a new dict holding d's items
                return self.copy_dict(current, node)
            return current
        if not _distinct_constants(node.keys):  # {k1: a, k2: b}: k1 == k2 at run time keeps b, at k1's place
            self.ns.scope.setdefault("set_item", runtime.set_item)
            current = self.atom_of(gast.Dict(keys=[self.atom(node.keys[0])], values=[self.atom(node.values[0])]), node)
            for k, v in zip(node.keys[1:], node.values[1:]):
                call = gast.Call(func=name("set_item"), args=[current, self.atom(k), self.atom(v)], keywords=[])
                current = self.atom_of(call, node)
            return current
        keys = [self.atom(k) for k in node.keys]
        return gast.Dict(keys=keys, values=[self.atom(v) for v in node.values])

    def super_call(self, node):
        """``super().m(args)`` in a method whose receiver's class is known (:mod:`star`): the call
        ``Owner.m(self, args)`` of the class after the method's class in that class's MRO that defines
        ``m`` (a plain function); anything else is refused."""
        from .star import typed_object

        attr = node.func.attr
        fn = getattr(self.ns.fn, "__func__", self.ns.fn)
        code = getattr(fn, "__code__", None)
        cells = dict(zip(code.co_freevars, fn.__closure__ or ())) if code is not None else {}
        cls = cells["__class__"].cell_contents if "__class__" in cells else None
        path = self.typed_path(name(self.params[0])) if self.params else None
        obj = typed_object(self.ns.fn, path) if path is not None else None
        mro = type(obj).__mro__ if obj is not None else ()
        owner = None
        if cls in mro:
            owner = next((c for c in mro[mro.index(cls) + 1 :] if attr in c.__dict__), None)
        if owner is None or not isinstance(owner.__dict__[attr], types.FunctionType):
            raise self.error(
                node,
                f"super().{attr}(...): s2sad does not know which method this calls here (the class of "
                f"'{self.params[0] if self.params else 'self'}' is not known, or it is not a plain method); "
                f"call the base class's method by name: Base.{attr}(self, ...)",
            )
        alias = owner.__name__
        if self.ns.scope.get(alias, owner) is not owner:
            alias = f"{owner.__name__}_super"
        self.ns.scope[alias] = self.ns.lifted[alias] = owner  # put into the generated module by name
        func = gast.Attribute(value=name(alias), attr=attr, ctx=gast.Load())
        return gast.copy_location(
            gast.Call(func=func, args=[name(self.params[0]), *node.args], keywords=node.keywords), node
        )

    def is_mapping(self, node) -> bool:
        """A name holding a dict: one f built, or a parameter it reads with a string key."""
        if not isinstance(node, gast.Name):
            return False
        if node.id in self.mappings and self.env.get(node.id) == node.id:
            return True
        return node.id in self.env and self.env[node.id] in self.dicts

    def mapping_values(self, node) -> bool:
        """``d.values()`` of a name holding a dict."""
        return (
            isinstance(node, gast.Call)
            and isinstance(node.func, gast.Attribute)
            and node.func.attr == "values"
            and not node.args
            and not node.keywords
            and self.is_mapping(node.func.value)
        )

    def values_list(self, d, node):
        """The values of the dict ``d`` as a new list, built by a loop over its keys (``for k in d:
        values.append(d[k])``, which every mode differentiates), for ``sum(d.values())`` and the like."""
        taken = self.ns.locals | set(self.env)
        values, key = (
            next(f"{d.id}_{w}{i or ''}" for i in itertools.count() if f"{d.id}_{w}{i or ''}" not in taken)
            for w in ("values", "key")
        )
        self.ns.locals |= {values, key}
        item = gast.Subscript(value=name(d.id), slice=name(key), ctx=gast.Load())
        append = gast.Call(
            func=gast.Attribute(value=name(values), attr="append", ctx=gast.Load()), args=[item], keywords=[]
        )
        loop = gast.For(
            target=name(key, gast.Store()),
            iter=name(d.id),
            body=[gast.Expr(value=append)],
            orelse=[],
            type_comment=None,
        )
        built = [
            gast.Assign(
                targets=[name(values, gast.Store())], value=gast.List(elts=[], ctx=gast.Load()), type_comment=None
            ),
            loop,
        ]
        current = self.current
        for stmt in built:
            for n in walk(stmt):
                if hasattr(n, "lineno") or isinstance(n, (gast.stmt, gast.expr)):
                    gast.copy_location(n, node)
                    n.end_lineno, n.end_col_offset = (
                        getattr(node, "end_lineno", None),
                        getattr(node, "end_col_offset", None),
                    )
        self.stmts(built)
        self.current = current
        return name(values)

    def copy_dict(self, atom, node):
        self.ns.scope.setdefault("copy_dict", runtime.copy_dict)
        return gast.Call(func=name("copy_dict"), args=[atom], keywords=[])

    def array_copy(self, call) -> bool:
        """``x.copy()`` that generated code makes with ``np.copy`` (checked to be an array's copy when x's
        type is known only when the code runs; not a dict's, nor a copy used as a list): a new array."""
        func = call.func
        return (
            isinstance(func, gast.Attribute)
            and func.attr == "copy"
            and not call.args
            and not call.keywords
            and isinstance(func.value, gast.Name)
            and id(call) not in self.container_copies
            and not self.is_mapping(func.value)
        )

    def copy_call(self, receiver, node, method=True):
        """``v.copy()`` (or ``copy.copy(v)``) of a dict as ``copy_dict(v)``, of a value whose type is known at
        run time only (a parameter, a list) as ``copy_of(v)``, which keeps the type; None for an array
        (``np.copy(v)``)."""
        if self.is_mapping(receiver):
            return self.copy_dict(receiver, node)
        if method and isinstance(receiver, gast.Name) and self.aliases.kind_of(receiver.id) == NUMERIC:
            return None
        if id(node) not in self.container_copies:  # written in place: followed as an array's copy (np.copy),
            message = (  # (whose views share its memory)
                f"`{_source(node)}` of a value that is not a NumPy array: s2sad follows this copy as an array's "
                "(its views share its memory) unless the copy is used as a list or dict (append, items, a string "
                "key); copy an array with np.copy, a list with list(...), a dict with dict(...)"
            )
            self.check("expect_array", [receiver], message, node)
            return None
        self.ns.scope.setdefault("copy_of", runtime.copy_of)
        return gast.Call(func=name("copy_of"), args=[receiver], keywords=[])

    def check_opaque(self, node):
        """Refuse what an expression kept whole (a comparison, ``and``/``or``, ``not``, an ``assert``'s test)
        would hide from the derivative: a yield, a walrus, a call that changes a value in place."""
        for n in walk(node):
            if isinstance(n, (gast.Yield, gast.YieldFrom)):
                raise self.error(n, "generators (yield) cannot be differentiated; return a list or an array instead")
            if isinstance(n, gast.NamedExpr):
                raise self.error(n, "the walrus operator := is not supported; assign on its own line")
            if isinstance(n, gast.Call) and self.changes_in_place(n, kept=True):
                raise self.error(
                    n,
                    f"`{_source(n)}` changes a value in place inside an expression s2sad keeps whole (a condition, "
                    "a comparison, an assert); call it on its own line before",
                )

    def index(self, node):
        if isinstance(node, gast.Slice):
            return gast.Slice(*(None if p is None else self.atom(p) for p in (node.lower, node.upper, node.step)))
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self.index(e) for e in node.elts], ctx=gast.Load())
        return self.atom(node)

    def call(self, node: gast.Call):
        if is_super_call(node.func):  # super().m(args): Owner.m(self, args), Owner found in self's class's MRO
            node = self.super_call(node)
        func = node.func
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error(
                    node,
                    f"`{_source(node)}`: the keys of '{_source(kw.value)}' are not known where the derivative is "
                    "generated (only a dict display of string keys, assigned once and never changed, can be "
                    "passed with **); pass the keyword arguments by name",
                )
        for a in node.args:
            if isinstance(a, gast.Starred):
                raise self.error(
                    node,
                    f"`{_source(node)}`: the length of '{_source(a.value)}' is not known where the derivative is "
                    "generated (only a tuple display assigned once, args = (a, b), can be passed with * to a "
                    "function taking *args); pass the arguments one by one",
                )
        root = dotted(func)
        is_method = isinstance(func, gast.Attribute) and not (root and root.split(".")[0] not in self.ns.locals)
        typed_attribute = isinstance(func, gast.Attribute) and self.typed_path(func) is not None  # self.head of m.loss
        if (is_method or typed_attribute) and self.stored_callable(func) is not None:  # t = model.layer; t(x)
            func = self.atom(func)
            is_method, root = False, func.id
        if isinstance(func, gast.Subscript) and self.typed_path(func) is not None:
            func = self.atom(func)  # model.layers[0](x) of an item of a known class: t = model.layers[0]; t(x)
            root = func.id
        bound = None
        if not is_method and isinstance(func, gast.Name) and func.id in self.ns.locals | set(self.typed):
            bound = self.bound_method(self.load(func) if func.id in self.env else func, node)
            if bound is not None:  # t(x) of a bound method o.go: s = t.__self__; s.go(x)
                func, is_method = bound, True
        if is_method:
            receiver = func.value if bound is not None else self.atom(func.value)
            if func.attr in MUTATORS and isinstance(receiver, gast.Attribute):
                self.refuse_outside_write(receiver, node)  # self.h.append(v), GO.w.fill(0.0)
            args = [self.atom(a) for a in node.args]
            kws = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in node.keywords]
            self.check_receiver_writes(receiver, func.attr, node)
            if (
                func.attr == "_replace"
                and not self.user_method(receiver, "_replace")
                or self.namedtuple_replace(receiver, func.attr)
            ):
                raise self.error(
                    node,
                    f"`{_source(node)}` is not supported; build the new NamedTuple with its class: N(a=..., b=...)",
                )
            if func.attr == "copy" and not args and not kws and not self.user_method(receiver, "copy"):
                copied = self.copy_call(receiver, node)
                if copied is not None:
                    return copied
            if func.attr in _METHODS and not self.user_method(receiver, func.attr):
                fname, packs = _METHODS[func.attr]
                if func.attr == "copy" and not any(k.arg == "order" for k in kws):  # (np.copy's default is "K")
                    kws = [*kws, gast.keyword(arg="order", value=const("C"))]
                if packs:
                    if len(args) == 1 and not kws:
                        args = [args[0]]
                    elif args:
                        tmp = self.names.temp()
                        self.emit(assign(tmp, gast.Tuple(elts=args, ctx=gast.Load())), node)
                        args = [name(tmp)]
                    elif fname == "transpose":
                        args = []
                return self.np_call(fname, [receiver, *args], kws, node)
            return gast.Call(
                func=gast.Attribute(value=receiver, attr=func.attr, ctx=gast.Load()), args=args, keywords=kws
            )
        if root is None and isinstance(func, gast.Call) and self.built_class(func) is not None:
            func = self.atom(func)  # Dense(W)(x): t = Dense(W); t(x)
            root = func.id
        if root is None:
            self.check_opaque(node)
            return self.rename_loads(node)  # f(...)(...): evaluated as it is; refused later if it is active
        obj = self.ns.lookup(func)
        if root in ("eval", "exec") and obj in (eval, exec):
            raise self.error(node, f"{root}() cannot be differentiated: s2sad needs to see the code; write it out")
        if obj in (copy.copy, copy.deepcopy) and len(node.args) == 1 and not node.keywords:
            if obj is copy.copy:  # a new dict, list or array holding the same items, as v.copy()
                value = self.atom(node.args[0])
                copied = self.copy_call(value, node, method=False)
                return copied if copied is not None else self.np_call("copy", [value], [], node)
            self.ns.scope.setdefault("deep_copy", runtime.deep_copy)
            return gast.Call(func=name("deep_copy"), args=[self.atom(node.args[0])], keywords=[])
        if obj is dataclasses.replace or getattr(copy, "replace", None) is obj:
            raise self.error(node, f"`{_source(node)}` is not supported; build the new object with its class")
        if _namedtuple_make(obj):
            raise self.error(
                node,
                f"`{_source(node)}` is not supported; build the NamedTuple with its class: "
                f"{obj.__self__.__name__}(a, b) or {obj.__self__.__name__}(a=..., b=...)",
            )
        if obj is dict and len(node.args) == 1 and not node.keywords and self.is_mapping(node.args[0]):
            return self.copy_dict(self.atom(node.args[0]), node)  # dict(d) of a dict: {**d}, a new dict
        if obj in (sorted, list) and len(node.args) == 1 and self.is_mapping(node.args[0]):
            # sorted(d), list(d) of a dict: its keys, not differentiated (keys_of) in every mode
            self.ns.scope.setdefault("keys_of", runtime.keys_of)
            keys = self.atom_of(gast.Call(func=name("keys_of"), args=[self.atom(node.args[0])], keywords=[]), node)
            kws = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in node.keywords]
            return gast.Call(func=self.rename_loads(func), args=[keys], keywords=kws)
        twin = record_twin(obj) if isinstance(obj, type) else None
        if twin is not None and inspects_classes(self.ns.fn, obj):
            raise self.error(
                node,
                f"`{_source(node)}`: the derivative builds a record of {obj.__name__}'s fields (a subclass), and "
                "this code reads objects' classes (`type(o)`, `o.__class__`), which would see the record's; pass "
                "the object in as an argument, or test it with isinstance",
            )
        if twin is not None:  # Dense(W) of a class whose __init__ only stores W: its dataclass twin
            func = self.twin_name(obj, twin)
        if among(obj, VALUE_CONSUMERS) and node.args and self.mapping_values(node.args[0]):
            node.args[0] = self.values_list(node.args[0].func.value, node)  # sum(d.values()) of a dict
        args = [self.atom(a) for a in node.args]
        kws = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in node.keywords]
        self.check_callee_writes(obj, node, args, kws)
        call = gast.Call(func=self.rename_loads(func), args=args, keywords=kws)
        if (
            isinstance(func, gast.Attribute)
            and isinstance(func.value, gast.Attribute)
            and func.attr in MUTATORS
            and not isinstance(getattr(obj, "__self__", None), types.ModuleType)
        ):
            self.refuse_outside_write(func.value, node)  # GO.h.append(v), self.w.fill(0.0) of a bound method
        writes_first = _writes_first_argument(obj)  # np.copyto(GO.w, v), np.add.at(GO.w, i, v)
        for a in (args[:1] if writes_first else []) + out_arguments(call, obj):
            if isinstance(a, gast.Attribute):
                self.refuse_outside_write(a, node)
        return call

    def refuse_outside_write(self, atom, node):
        """Refuse a call that changes in place ``atom``, an attribute of an object f reads but does not
        own (``self.w`` of a bound method, ``GO.h``): s2sad follows writes into names only, so a later
        read of the attribute would not see the change."""
        what = _source(atom)
        raise self.error(
            node,
            f"`{_source(node)}` changes {what} in place, an attribute of an object: s2sad cannot follow writes "
            f"into objects; copy it into a local name (np.copy, list), change that and use or return it, or pass "
            f"{what} as an argument",
        )

    def built_class(self, value):
        """The plain user class (:func:`built.plain_class`) a call ``Cls(...)`` of a free name makes an
        object of, or the class of the name copied; else None."""
        from .built import plain_class

        if isinstance(value, gast.Name):
            return self.built.get(value.id) if self.built_count.get(value.id, 0) > 0 else None
        if not isinstance(value, gast.Call) or not isinstance(value.func, gast.Name):
            return None
        if value.func.id in self.ns.locals or value.func.id in self.env:
            return None
        obj = self.ns.scope.get(value.func.id, MISSING)
        if obj is MISSING:
            obj = self.ns.lookup(value.func)
        return obj if plain_class(obj) else None

    def twin_name(self, cls, twin):
        """A name of the generated module for :func:`built.record_twin`'s dataclass of ``cls`` (its
        ``__init__`` checked on each call of the derivative)."""
        from .built import init_checks

        alias = f"{cls.__name__}_record"
        while self.ns.scope.get(alias, twin) is not twin:
            alias += "_"
        self.ns.scope[alias] = self.ns.lifted[alias] = twin
        self.ns.methods.extend(init_checks(cls))
        return name(alias)

    def stored_callable(self, func):
        """For ``p.attr`` with ``p`` of a known class (:mod:`star`) whose ``attr`` is an object stored
        on it (a callable instance, a function, a bound method), not its class's method: that object."""
        from .star import typed_object

        path = self.typed_path(func)
        if path is None:
            return None
        owner = typed_object(self.ns.fn, path.rsplit(".", 1)[0])
        entry = next((c.__dict__[func.attr] for c in type(owner).__mro__ if func.attr in c.__dict__), MISSING)
        if owner is None or entry is not MISSING and not namedtuple_field(type(owner), func.attr, entry):
            return None  # (a method of its class; a NamedTuple's field is the object stored in it)
        if self.ns.fn.__s2sad_types__.obj(path) is None:
            return _STORED_NONE  # self.act = None: t = self.act; t(x) (a call of None, typed)
        return typed_object(self.ns.fn, path)

    def bound_method(self, func, node):
        """For ``t(...)`` with ``t`` a bound method of user code (``model.layer = other.go``), typed: the
        function expression ``s.go`` with ``s = t.__self__`` emitted, whose class's ``go`` it calls."""
        import types

        from .star import method_of, typed_object

        path = self.typed_path(func)
        obj = None if path is None else typed_object(self.ns.fn, path)
        if not isinstance(obj, types.MethodType) or isinstance(obj.__self__, type):
            return None
        found = method_of(type(obj.__self__), obj.__func__.__name__)
        if found is None or found[0] is not obj.__func__:
            return None
        self.ns.fn.__s2sad_types__.get(path)  # (recorded: valid for this method only)
        owner = self.names.temp()
        self.emit(assign(owner, gast.Attribute(value=func, attr="__self__", ctx=gast.Load())), node)
        return gast.Attribute(value=name(owner), attr=obj.__func__.__name__, ctx=gast.Load())

    def namedtuple_replace(self, receiver, attr) -> bool:
        """``p._replace(...)`` of a NamedTuple ``p`` of a known class (collections' code, not the user's)."""
        from .star import typed_object

        path = self.typed_path(receiver) if isinstance(receiver, gast.Name) and attr == "_replace" else None
        obj = None if path is None else typed_object(self.ns.fn, path)
        return isinstance(obj, tuple) and hasattr(type(obj), "_fields")

    def user_method(self, receiver, attr) -> bool:
        """Whether ``receiver.attr(...)`` calls a method of a user class (``model.sum(x)``), not
        ndarray's, which ``_METHODS`` spells as a NumPy call."""
        from .star import method_of, typed_object

        path = self.typed_path(receiver) if isinstance(receiver, gast.Name) else None
        obj = None if path is None else typed_object(self.ns.fn, path)
        if obj is None:
            return False
        self.ns.fn.__s2sad_types__.get(path)  # (recorded: an ndarray there now is spelled np.sum)
        return method_of(type(obj), attr) is not None

    def check_receiver_writes(self, receiver, attr, node):
        """Refuse ``c.scale(v)`` of a user method that changes its own object in place (``self.h.append(1)``):
        the primal call changes ``c``, and the method's derivative would recompute from the changed object."""
        from .star import method_of, typed_object

        path = self.typed_path(receiver) if isinstance(receiver, gast.Name) else None
        obj = None if path is None else typed_object(self.ns.fn, path)
        found = None if obj is None else method_of(type(obj), attr)  # (a plain function: self comes first)
        if found is None:
            return
        method = found[0]
        params = list(inspect.signature(method).parameters)
        writes = param_writes(method)
        if not params or params[0] not in writes:
            return
        line, what = writes[params[0]]
        if what in ("an assignment into it", "an augmented assignment"):
            return  # refused in the method, naming its attribute (self.buf += v)
        raise self.error(
            node,
            f"`{_source(node)}`: {method.__qualname__}() changes its object '{params[0]}' in place ({what}, line "
            f"{line}); s2sad cannot follow writes into objects (its derivative would recompute from the changed "
            f"object); return the new value and keep it in a local name instead",
        )

    def check_callee_writes(self, obj, node, args, kws):
        """Refuse a call of a user function that changes an argument in place (``b += v`` on its
        parameter): its derivative works on a private copy, and its VJP recomputes from the argument
        the primal call changed.  Numbers (constants, integer counters) are never changed."""
        found = call_writes(obj, args, {k.arg: k.value for k in kws})
        if found is None:
            return
        fn, writes, written = found
        sources = {id(a): n for a, n in zip(args, node.args)} | {id(k.value): k.value for k in node.keywords}
        for p, value in written.items():
            values = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else [value]
            for v in values:
                if isinstance(v, gast.Attribute):
                    self.refuse_outside_write(v, node)  # helper(self.w) writing into it
                if not isinstance(v, gast.Name) or v.id in self.known_ints or v.id in self.aliases.numbers:
                    continue
                if p in items_only(fn) and self.holds_numbers(v.id):
                    continue  # (w = p.copy(); w[0] += s: an item of a list p, nothing of an array's)
                if p in items_only(fn) and self.aliases.kind_of(v.id) == PARAM:  # (the same, checked when it runs)
                    line, what = writes[p]
                    message = (
                        f"{fn.__name__}() changes items of its parameter '{p}' in place ({what}, line {line}), and "
                        f"this call passes '{self.describe(v.id)}', which is not an array of numbers here: s2sad "
                        f"differentiates {fn.__name__}() on a private copy of its arguments, so the change would be "
                        "lost; copy the items too (copy.deepcopy) or return new values"
                    )
                    self.check("expect_numbers", [name(v.id)], message, node)
                    continue
                others = [a for a in [*args, *(k.value for k in kws)] if a is not v and isinstance(a, gast.Name)]
                twice = self.reached_otherwise(v.id, others)
                if value is v and not twice and self.dead_after_call(v.id, node):
                    continue  # generated code passes a private copy (param_writes.private_arguments)
                line, what = writes[p]
                passed = sources.get(id(v))
                passed = _source(passed) if passed is not None else self.describe(v.id)
                also = " and memory it shares through another argument" if twice else ""
                raise self.error(
                    node,
                    f"{fn.__name__}() changes its parameter '{p}' in place ({what}, line {line}), and this call "
                    f"passes '{passed}' to it{also}: s2sad differentiates "
                    f"{fn.__name__}() on a private copy of its arguments, so the change would be lost; "
                    f"make {fn.__name__}() return a new value instead ({p} = {p} + v)",
                )

    def check(self, helper: str, args, message: str, node):
        """Emit ``helper(*args, message)``, a runtime check (``expect_array``, ...) that refuses at the user's line."""
        self.ns.scope.setdefault(helper, getattr(runtime, helper))
        self.emit(gast.Expr(value=gast.Call(func=name(helper), args=[*args, const(message)], keywords=[])), node)

    def holds_numbers(self, n: str) -> bool:
        """Whether ``n`` holds a number or a NumPy array of numbers (what arithmetic and NumPy functions
        give): its items are numbers, which no write into another object's items changes."""
        return n in self.aliases.arrays or self.aliases.kind_of(n) == NUMERIC

    def np_call(self, fname, args, kws, node):
        self.ns.scope.setdefault("np", __import__("numpy"))
        func = gast.Attribute(value=name("np"), attr=fname, ctx=gast.Load())
        return gast.Call(func=func, args=args, keywords=kws)

    def dead_after_call(self, version: str, call) -> bool:
        """Whether no name that may share ``version``'s memory is read after ``call``: nowhere else in
        the current statement (which may rebind it: ``w = step(w, g)``), nor after it."""
        stmt = self.current
        temp = version not in self.user_of and self.names.role(version) is Role.TEMP  # read only by ``call``
        if not (temp or version in self.user_of) or self.aliases.global_written(version):
            return False
        if not isinstance(stmt, (gast.Assign, gast.Return, gast.Expr)):
            return False
        if isinstance(stmt, gast.Assign):
            target = stmt.targets[0]
            if not all(isinstance(t, gast.Name) for t in (target.elts if isinstance(target, gast.Tuple) else [target])):
                return False  # (x[i] = g(x) reads x after the call)
        shared = {version, *self.aliases.shared(version), *self.aliases.held_names(version)}
        users = {self.user_of.get(n) for n in shared}
        inside = {id(n) for n in walk(call)}
        if any(isinstance(n, gast.Name) and n.id in users and id(n) not in inside for n in walk(stmt.value)):
            return False
        rebound = set(targets(stmt)) if isinstance(stmt, gast.Assign) else set()
        return not any(self.live(n) and self.user_of.get(n) not in rebound for n in shared)

    def reached_otherwise(self, version: str, others) -> bool:
        """Whether another argument of the call may be, view or hold ``version``'s memory
        (``h(u, u)``, ``h(u[:2], u[1:])``, ``h(u, [u])``): the callee would see its own write there."""
        shared = {version, *self.aliases.shared(version)}
        return any(a.id in shared for a in others)

    def condition(self, test):
        """Evaluate an ``if`` test once into a name (the adjoint replays the same branch)."""
        value = self.expr(test)
        if isinstance(value, gast.Name):
            return value
        tmp = self.names.fresh("cond", Role.FLAG)
        self.emit(assign(tmp, value), test)
        return name(tmp)

    # ---- statements ------------------------------------------------------------------------
    def block_of(self, fn):
        saved, self.out = self.out, []
        try:
            fn()
        finally:
            block, self.out = self.out, saved
        return block or [gast.Pass()]

    def stmts(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, node):
        self.current = node
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            raise self.error(
                node, _UNSUPPORTED.get(type(node).__name__, f"'{type(node).__name__}' statements are not supported")
            )
        method(node)

    def assign_to(self, target, value_node, stmt):
        """Assign an *unevaluated* expression to a target."""
        if isinstance(target, gast.Name):
            value = self.expr(value_node)
            self.emit(assign(self.version(target.id), value), stmt)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if (
                isinstance(value_node, (gast.Tuple, gast.List))
                and len(value_node.elts) == len(target.elts)
                and not any(isinstance(e, gast.Starred) for e in target.elts + value_node.elts)
            ):
                atoms = [self.atom(v) for v in value_node.elts]
                # x, y = y, x: every value is read before any target is written.  Inside if/for/while
                # a target keeps its name, so a value that is a target's current name is copied first.
                for k, a in enumerate(atoms):
                    written = {self.env.get(n.id) for t in target.elts[:k] for n in walk(t) if isinstance(n, gast.Name)}
                    if self.depth and isinstance(a, gast.Name) and a.id in written:
                        atoms[k] = self.atom_of(a, stmt)
                for k, t in enumerate(target.elts):
                    # values not assigned yet are read later: a write into their memory updates them
                    self.pending = {a.id for a in atoms[k + 1 :] if isinstance(a, gast.Name)}
                    self.renamed = {}
                    self.assign_atom(t, atoms[k], stmt)
                    atoms = [name(self.renamed.get(a.id, a.id)) if isinstance(a, gast.Name) else a for a in atoms]
                self.pending = set()
            else:
                self.assign_atom(target, self.atom(value_node), stmt)
        else:
            self.assign_atom(target, self.atom(value_node), stmt)

    def assign_atom(self, target, atom, stmt):
        if isinstance(target, gast.Name):
            self.emit(assign(self.version(target.id), atom), stmt)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in target.elts):
                raise self.error(target, "starred assignment (a, *rest = ...) is not supported; index the sequence")
            if all(isinstance(e, gast.Name) for e in target.elts):
                elts = [name(self.version(e.id), gast.Store()) for e in target.elts]
                self.emit(
                    gast.Assign(targets=[gast.Tuple(elts=elts, ctx=gast.Store())], value=atom, type_comment=None), stmt
                )
            else:
                temps = [name(self.names.temp(), gast.Store()) for _ in target.elts]
                self.emit(
                    gast.Assign(targets=[gast.Tuple(elts=temps, ctx=gast.Store())], value=atom, type_comment=None), stmt
                )
                for t, tmp in zip(target.elts, temps):
                    self.assign_atom(t, name(tmp.id), stmt)
        elif isinstance(target, gast.Subscript):
            base = self.written_base(target)
            index = self.index(target.slice)
            self.write(base.id, index, atom, stmt)
        elif isinstance(target, gast.Attribute):
            raise self.error(
                target,
                f"assigning to an attribute (.{target.attr} = ...) is not supported inside a differentiated function",
            )
        else:
            raise self.error(target, f"cannot assign to {type(target).__name__}")

    def written_base(self, target: gast.Subscript) -> gast.Name:
        """The name ``target``'s base (``a`` of ``a[i] = v``) holds; refused for an attribute of an object
        f reads (``self.w[0] = v`` of a bound method, ``GO.w[i] += v``): s2sad follows writes into names."""
        node = target.value
        base = self.load(node) if isinstance(node, gast.Name) else self.atom(node)
        if not isinstance(base, gast.Name):
            what = _source(node)
            raise self.error(
                target,
                f"in-place write into `{_source(target)}`, an attribute of an object ({what}): s2sad cannot follow "
                f"writes into objects; copy it into a local name (v = np.copy({what})), write into that and use "
                f"or return it, or pass {what} as an argument",
            )
        return base

    def write(self, base: str, index, value, stmt):
        """``base[index] = value``, then every live name sharing ``base``'s memory brought up to date.
        A write into a dict (a string key, or a dict f built) makes a new version of it instead."""
        if base in self.dicts or isinstance(index, gast.Constant) and isinstance(index.value, str):
            self.dict_write(base, index, value, stmt)
            return
        if _slices(index) and self.aliases.kind_of(base) == CONTAINER:
            raise self.error(
                stmt,
                f"assigning to a slice of the list '{self.describe(base)}' is not supported (it may change the "
                "list's length); build a new list (lst = lst[:i] + new + lst[j:]) or assign item by item",
            )
        if _slices(index) and self.aliases.kind_of(base) in (FRESH, PARAM) and base not in self.sliced:
            self.sliced.add(base)  # (a list there would change its length: checked once per value)
            message = (
                f"assigning to a slice of '{self.describe(base)}', which is not a NumPy array here: s2sad "
                "differentiates slice writes into arrays; build a new list, or assign item by item"
            )
            self.check("expect_array", [name(base)], message, stmt)
        self.check_write(base, stmt)
        self.check_assumed_views(base, stmt)
        if isinstance(value, gast.Name) and (value.id == base or value.id in self.aliases.shared(base)):
            # a[::-1] = a: NumPy reads the right side whole before it writes (it buffers the overlap)
            tmp = self.names.temp()
            self.emit(assign(tmp, self.np_call("copy", [value], [], stmt)), stmt)
            value = name(tmp)
        target = gast.Subscript(value=name(base), slice=index, ctx=gast.Store())
        self.emit(gast.Assign(targets=[target], value=value, type_comment=None), stmt)
        self.held_by(base, index, value)
        self.after_write(base, stmt)

    def held_by(self, base, index, value):
        """After ``base[index] = value``: a list (or what may be one) holds ``value``'s object itself (an
        array copies its values), so a later write into ``value`` changes ``base[index]`` too (``stored_item``)."""
        if not isinstance(value, gast.Name) or not self.is_local(value.id) or value.id in self.aliases.numbers:
            return
        if value.id not in self.known_ints and not makes_view(index):  # (a slice of an array takes values)
            self.aliases.stored_item(base, value.id, _copy(index))

    def check_assumed_views(self, base, stmt):
        """Before a write into ``base``: each view it relies on (``v = x[1:]`` of a parameter) is one only
        when its parent is a NumPy array (a list's slice is a copy): checked when the code runs."""
        for view, rel in self.aliases.assumed_arrays(base, self.value_read_later):
            parent = rel.parent
            if rel.kind == "field":
                helper, extra = "expect_field", [const(rel.index.value)]
                message = (
                    f"in-place write into '{self.describe(base)}': '{self.describe(view)}' is "
                    f"'{self.describe(parent)}.{rel.index.value}', which s2sad follows as a field of a NamedTuple "
                    f"or dataclass, but '{self.describe(parent)}' is not one here; copy first (np.copy)"
                )
            else:
                helper, extra = "expect_array", []
                message = (
                    f"in-place write into '{self.describe(base)}': '{self.describe(view)}' is a slice of "
                    f"'{self.describe(parent)}', which s2sad follows as a view of an array, but "
                    f"'{self.describe(parent)}' is not a NumPy array here (a slice of a list or tuple is a copy); "
                    "copy first (np.copy)"
                )
            self.check(helper, [name(parent), *extra], message, stmt)
            param = self.aliases.param_written(parent) if rel.kind == "field" else None
            if param is not None and self.aliases.memory(parent) == self.aliases.memory(param):
                # also checked on entry (the derivative of a branch may need the object's zeros first)
                self.entry_checks.append((param, rel.index.value, message, stmt))

    def dict_write(self, base, index, value, stmt):
        """``d[k] = v`` as ``d = set_item(d, k, v)``: exact when no other name reads ``d``'s dict later."""
        user = self.user_of.get(base)
        others = [n for n in self.aliases.shared(base) if n != base and self.live(n)]
        if user is None or others:
            other = self.user_of.get(others[0], others[0]) if others else base
            raise self.error(
                stmt,
                f"writing into the dict '{user or base}', which '{other}' may also be or hold (read later): s2sad "
                "cannot tell which values change; build a new dict instead ({**d, key: value})",
            )
        self.ns.scope.setdefault("set_item", runtime.set_item)
        call = gast.Call(func=name("set_item"), args=[name(base), index, value], keywords=[])
        self.emit(assign(self.version(user), call), stmt)

    def s_Assign(self, node):
        if len(node.targets) == 1:
            self.assign_to(node.targets[0], node.value, node)
            self.note_in_place_test(node.targets[0], node.value)
            return
        tmp = self.atom(node.value)
        for t in node.targets:
            self.assign_atom(t, tmp, node)

    def s_AnnAssign(self, node):
        if node.value is not None:
            self.assign_to(node.target, node.value, node)

    def s_AugAssign(self, node):
        target = node.target
        if isinstance(target, gast.Name):
            self.augment(self.load(target), target.id, node.op, self.atom(node.value), node)
        elif isinstance(target, gast.Subscript):
            what = _source(target)
            base = self.written_base(target)
            index = self.index(target.slice)
            fancy = any(  # a list index (unhashable: not a dict key; no list takes it): an array's
                isinstance(n, gast.Name)
                and n.id in self.aliases.index_arrays
                and self.aliases.kind_of(n.id) == CONTAINER
                for n in walk(index)
            )
            if self.aliases.kind_of(base.id) in (CONTAINER, FRESH) and not makes_view(index) and not fancy:
                # an element of a list or dict: ``e += v`` changes an array element in place (and every
                # name sharing it), rebinds a number; then the element is stored back
                elem = self.atom_of(gast.Subscript(value=base, slice=index, ctx=gast.Load()), node)
                right = self.atom(node.value)
                if any(self.live(n) for n in self.aliases.shared(elem.id)) and isinstance(
                    self.aliases.plan(elem.id, self.value_read_later), tuple
                ):
                    # a write into the item could not be followed to the names that may share it: a
                    # number is rebound (checked when the code runs; an array there is refused)
                    self.ns.scope.setdefault("number_item", runtime.number_item)
                    check = gast.Call(func=name("number_item"), args=[elem, const(what)], keywords=[])
                    result = self.atom_of(gast.BinOp(left=self.atom_of(check, node), op=node.op, right=right), node).id
                else:
                    result = self.augment(elem, None, node.op, right, node)
                self.write(base.id, _copy(index), name(result), node)
                return
            # (an index array, ``a[[0, 0, 1]] += v``: only an array takes one; NumPy's a[i] = a[i] + v)
            old = self.names.temp()
            self.emit(assign(old, gast.Subscript(value=base, slice=index, ctx=gast.Load())), node)
            value = gast.BinOp(left=name(old), op=node.op, right=self.atom(node.value))
            new = self.atom_of(self.cast_into(name(old), value, node), node)
            self.write(base.id, _copy(index), new, node)
        elif isinstance(target, gast.Attribute):
            what, op = _source(target), _AUG_SYMBOLS.get(type(node.op), "op")
            raise self.error(
                target,
                f"`{what} {op}= ...` changes an attribute of an object (in place for an array): s2sad cannot "
                f"follow writes into objects; compute a new value in a local name (v = {what} {op} ...) and use "
                f"or return it, or pass {what} as an argument",
            )
        else:
            raise self.error(target, f"augmented assignment to {type(target).__name__} is not supported")

    def augment(self, current: gast.Name, user: str | None, op, right, node) -> str:
        """``x op= right`` for the name ``current`` (the user's ``user``, or a temporary when None): the
        name holding the result, with every live name sharing ``x``'s memory brought up to date."""

        def rebind():
            return self.version(user) if user is not None else (current.id if self.depth else self.names.temp())

        value = gast.BinOp(left=current, op=op, right=right)
        shared = self.aliases.shared(current.id)
        if not any(self.live(n) for n in shared):
            # nothing else sees this memory: rebinding gives every name the value Python gives it
            was_array = current.id in self.aliases.arrays or current.id in self.demoted
            value = self.cast_into(current, value, node)
            new = rebind()
            self.emit(assign(new, value), node)
            if was_array:
                self.demoted.add(new)  # (a 0-d array's s + v is a NumPy scalar, not the array Python keeps)
            return new
        if current.id in self.demoted or any(n in self.demoted for n in shared):
            message = (  # (s = np.array(0.0); s += v; t = s; t *= w)
                f"`{_source(node)}` writes into an array another name shares, which s2sad rebound at an earlier "
                "augmented assignment (s += v: a 0-d array becomes a NumPy scalar there); write s[()] += v for a "
                "0-d array, or s = s + v and t = t * w"
            )
            self.check("expect_array", [current], message, node)
        new = self.atom_of(self.cast_into(current, value, node), node)
        if self.aliases.array_view(current.id):  # a slice of an array: += writes into it
            self.write(current.id, const(Ellipsis), new, node)
            return current.id
        # another live name shares x: x += v writes into an array, rebinds a number
        self.depth += 1
        entry = self.aliases.snapshot([current.id])
        try:
            body = self.block_of(lambda: self.write(current.id, const(Ellipsis), new, node))
        except DifferentiationError as exc:  # s = m.scale; s += v: fine for a number, refused for an array
            self.aliases.restore(entry)
            self.depth -= 1
            self.ns.scope.setdefault("rebinds_a_number", runtime.rebinds_a_number)
            message = f"'{self.describe(current.id)}' holds an array here: " + re.sub(r"^.*?:\d+:\d+: ", "", str(exc))
            test = gast.Call(func=name("rebinds_a_number"), args=[name(current.id), const(message)], keywords=[])
            self.emit(gast.Expr(value=test), node)
            result = rebind()
            self.emit(assign(result, name(new.id)), node)
            self.aliases.is_number(result)
            return result
        self.ns.scope.setdefault("updates_in_place", runtime.updates_in_place)
        cond = self.names.fresh("cond", Role.FLAG)
        test = gast.Call(func=name("updates_in_place"), args=[name(current.id)], keywords=[])
        self.emit(assign(cond, test), node)
        bound = {t for s in walk_stmts(body) if isinstance(s, gast.Assign) for t in targets(s)}
        changing = sorted(bound | {current.id})
        after = self.aliases.snapshot(changing)
        self.aliases.restore(entry)
        orelse = self.block_of(lambda: self.emit(assign(rebind(), new), node))
        self.aliases.join(changing, [entry, after])
        self.depth -= 1
        self.emit(gast.If(test=name(cond), body=body, orelse=orelse), node)
        return current.id

    def cast_into(self, target: gast.Name, value: gast.BinOp, node):
        """``target op= w`` keeps NumPy's in-place result in an array ``target``: ``value`` (``target op w``)
        as ``cast_into(target, value)`` (``target``'s dtype; refused where NumPy raises), unless ``target``
        is known to hold a number, which ``op=`` rebinds, or is derivative code's own adjoint (``bx += t`` of
        generated code differentiated again: ``t`` has ``bx``'s shape)."""
        if target.id in self.aliases.numbers or self.loc.filename.startswith("<s2sad"):
            return value
        self.ns.scope.setdefault("cast_into", runtime.cast_into)
        return gast.Call(func=name("cast_into"), args=[target, self.atom_of(value, node)], keywords=[])

    def s_Expr(self, node):
        value = node.value
        if isinstance(value, gast.Constant):
            return  # docstring or bare constant
        if isinstance(value, (gast.Yield, gast.YieldFrom)):
            self.expr(value)
        if isinstance(value, gast.Call):
            call = self.call(value)
            if _is_pop(call):  # lst.pop() dropping the value: keep it, reverse mode puts it back
                self.emit(gast.Assign(targets=[name(self.names.temp(), gast.Store())], value=call), node)
                return
            self.call_statement(call, node)
            return
        self.expr(value)  # evaluated for errors only; no effect

    def call_statement(self, call, node):
        """Emit ``call`` as a statement of its own, following the memory it changes (``lst.append(v)``,
        ``x.sort()``, ``np.f(..., out=y)``)."""
        receiver = call.func.value.id if _is_local_method(call, self.is_local) else None
        written = [receiver] if receiver is not None else []  # lst.append(v), x.sort()
        written += [o for o in self.out_arguments(call) if o not in written]  # np.f(..., out=y)
        for w in written:  # their memory changes
            self.check_write(w, node)
        self.emit(gast.Expr(value=call), node)
        for w in written:
            self.after_write(w, node)

    def changes_in_place(self, call, kept: bool = False) -> bool:
        """Whether ``call`` is a method or NumPy function that changes its receiver or an argument in place and
        returns None (``hs.append(v)``, ``a.sort()``, ``np.fill_diagonal(A, 0)``, ``rng.shuffle(a)``): used as a
        value (``_ = a.sort()``, ``[hs.append(v) for v in x]``, ``print(hs.append(v))``), it runs as a statement
        of its own, as Python runs it, and its value is None."""
        func = call.func
        methods = MUTATORS if kept else NONE_MUTATORS  # (kept whole, lst.pop() is hidden too)
        if isinstance(func, gast.Attribute) and func.attr in methods and not self.global_callee(func):
            if not isinstance(func.value, gast.Name) or self.user_method(func.value, func.attr):
                return False  # (b.add(x) of a user class: its own method, whose value is what it returns)
            return kept or self.is_local(func.value.id)
        return writes_arguments(self.global_callee(func))

    def out_arguments(self, call) -> list[str]:
        """The local names a NumPy call writes its result into (``out=y``, a ufunc's positional output)."""
        outs = out_arguments(call, self.global_callee(call.func))
        return [n.id for n in outs if isinstance(n, gast.Name) and self.is_local(n.id)]

    def s_Return(self, node):
        if self.in_loop:
            raise self.error(node, "return inside a loop is not supported; break out of the loop and return after it")
        value = const(None) if node.value is None else self.expr(node.value)
        if self.return_name is None and not self.depth and isinstance(value, gast.Name) and value.id not in self.params:
            self.emit(gast.Return(value=value), node)  # the only return: no extra name
            return
        if self.return_name is None:
            self.return_name = self.names.fresh("out")
        self.emit(assign(self.return_name, value), node)
        self.emit(gast.Return(value=name(self.return_name)), node)

    def note_in_place_test(self, target, value):
        """``cond = updates_in_place(x)`` (code s2sad generated for ``x += v``): where ``cond`` is
        false, x holds a number, which shares no memory (see :meth:`s_If`)."""
        if (
            isinstance(target, gast.Name)
            and isinstance(value, gast.Call)
            and len(value.args) == 1
            and isinstance(value.args[0], gast.Name)
            and self.global_callee(value.func) is runtime.updates_in_place
        ):
            x = value.args[0].id
            self.in_place_tests[target.id] = (self.env.get(target.id), x, self.env.get(x))

    def numbers_in_orelse(self, test) -> list[str]:
        """The names a branch's ``else`` knows to hold numbers: ``x`` for ``if cond:`` where ``cond`` is
        still the ``updates_in_place(x)`` of :meth:`note_in_place_test` and ``x`` is not rebound since."""
        if not isinstance(test, gast.Name) or test.id not in self.in_place_tests:
            return []
        cond_version, x, x_version = self.in_place_tests[test.id]
        if self.env.get(test.id) != cond_version or self.env.get(x) != x_version or x_version is None:
            return []
        return [x_version]

    def s_If(self, node):
        numbers = self.numbers_in_orelse(node.test)
        cond = self.condition(node.test)
        if cond.id in {self.env.get(u, u) for u in assigned_names(node.body + node.orelse)}:
            # a branch rebinds the test's name (``if t: t = b`` from ``a and b``): the adjoint replays
            # the branch taken, so it tests a flag of its own
            flag = self.names.fresh("cond", Role.FLAG)
            self.emit(assign(flag, cond), node.test)
            cond = name(flag)
        self.depth += 1
        self.predeclare(node.body + node.orelse)
        changing = self.memories_of(node.body + node.orelse)
        entry = self.aliases.snapshot(changing)
        body = self.block_of(lambda: self.stmts(node.body))
        after_body = self.aliases.snapshot(changing)
        self.aliases.restore(entry)
        for n in numbers:
            self.aliases.is_number(n)
        orelse = self.block_of(lambda: self.stmts(node.orelse)) if node.orelse else []
        self.aliases.join(changing, [entry, after_body])
        self.depth -= 1
        self.emit(gast.If(test=cond, body=body, orelse=orelse), node)

    def memories_of(self, stmts) -> list[str]:
        """The names (current versions) that ``stmts`` may bind: their memories are joined after."""
        return [self.env[u] for u in sorted(assigned_names(stmts)) if u in self.env]

    def sharing_versions(self, loop, elements, swaps) -> list[list[str]]:
        """Current versions of the names a loop body may make share memory across iterations, by group
        (and in ``elements``, the (base, name, way) of items read from or written into a base; in
        ``swaps``, the names of each assignment that only permutes them)."""
        rebound = assigned_names(loop.body)
        arrays = kept_arrays(loop.body, {u for u, v in self.env.items() if v in self.aliases.arrays}, rebound)
        found, permuted = [], []
        groups = sharing_groups(loop.body, self.callee, arrays, found, permuted)
        elements += [(self.env[b], self.env[n], way) for b, n, way in found if b in self.env and n in self.env]
        swaps += [{self.env[u] for u in names if u in self.env} for names in permuted]
        return [[self.env[u] for u in sorted(g) if u in self.env] for g in groups]

    def loop_top(self, loop, changing):
        """At the top of a loop body: what any earlier iteration may have left (aliases.loop_top), and
        the lists it appended to holding what it appended."""
        elements, swaps = [], []
        groups = self.sharing_versions(loop, elements, swaps)
        pairs = appends(loop.body, self.callee, self.array_copy)
        held = [(self.env[a], self.env[b]) for a, b in pairs if a in self.env and b in self.env]
        mentioned = {n for g in groups for n in g} | {n for pair in held for n in pair}
        mentioned |= {n for b, v, way in elements for n in (b, v) if way == "get" or self.aliases.kind_of(b) != NUMERIC}
        named = lambda n: n in self.user_of or n in self.pending or n in self.held  # noqa: E731
        self.aliases.loop_top(groups, changing, swaps, mentioned, named)
        self.aliases.loop_elements(elements)
        self.aliases.held(held)

    def predeclare(self, stmts):
        """Give every name first assigned inside a compound statement its one name now."""
        for user in sorted(assigned_names(stmts)):
            if user not in self.env:
                saved, self.depth = self.depth, 0
                self.version(user)
                self.depth = saved

    def s_For(self, node):
        """Every loop becomes ``for i in range(...)``: sequences are indexed, so the adjoint can
        run the same indices backwards and send each element's adjoint to its place."""
        if node.orelse:
            raise self.error(node, "for ... else is not supported; use a flag variable set before break")
        it, target = node.iter, node.target
        self.refuse_resized(node)
        if self.unrolled(node):
            return
        call = dotted(it.func) if isinstance(it, gast.Call) else None
        builtin = self.ns.lookup(it.func) if call else None
        if isinstance(it, gast.GeneratorExp) or call and inspect.isgeneratorfunction(builtin):
            raise self.error(it, "iterating over a generator cannot be differentiated; build a list or an array first")
        if builtin is checkpoint and call:
            self.checkpoint_loop(node, it)
            return
        if call and builtin is range and not it.keywords:
            self.loop(
                node, gast.Call(func=name("range"), args=[self.atom(a) for a in it.args], keywords=[]), target, []
            )
            return
        if call and builtin is enumerate and isinstance(target, gast.Tuple) and len(target.elts) == 2:
            if len(it.args) + len(it.keywords) > 2 or any(k.arg != "start" for k in it.keywords):
                raise self.error(it, "enumerate takes an iterable and a start: enumerate(xs, start=1)")
            start = it.args[1] if len(it.args) > 1 else it.keywords[0].value if it.keywords else None
            start = None if start is None else self.atom(start)
            index, item = target.elts
            rng, items = self.sequence(it.args[0], item, node)
            if start is None and isinstance(index, gast.Name) and len(items) == 1 and items[0][2] is None:
                self.loop(node, rng, index, items)
            else:
                k = gast.Name(id=self.names.fresh("k", Role.FLAG), ctx=gast.Store(), annotation=None, type_comment=None)
                self.loop(node, rng, k, items + [(index, start or const(0), "offset")])
            return
        if call and builtin is getattr(itertools, "pairwise", None):  # pairwise(xs): zip(xs, xs[1:])
            self.pairwise_loop(node, it, target)
            return
        if call and builtin is zip and isinstance(target, gast.Tuple) and len(target.elts) == len(it.args):
            rng, items = self.sequence(it, target, node)
            k = name(self.names.fresh("k", Role.FLAG), gast.Store())
            self.loop(node, rng, k, items)
            return
        if call and builtin is reversed and len(it.args) == 1 and self.own_order(it.args[0]):
            it = gast.Call(func=name("list"), args=[it], keywords=[])  # its own __reversed__: as Python reads it
        elif call and builtin is reversed:
            seq = self.atom(it.args[0])
            k = name(self.names.fresh("k", Role.FLAG), gast.Store())
            rng = gast.Call(
                func=name("range"),
                args=[gast.BinOp(left=_len(seq), op=gast.Sub(), right=const(1)), const(-1), const(-1)],
                keywords=[],
            )
            self.loop(node, rng, k, [(target, seq, None)])
            return
        if self.dict_view(it) is not None or self.iterates_keys(it, node):
            rng, items = self.sequence(it, target, node)
            k = name(self.names.fresh("i", Role.FLAG), gast.Store())
            self.loop(node, rng, k, items)
            return
        if call in ("map", "filter", "iter"):
            raise self.error(
                it,
                f"iterating over {call or it.func.attr + '()'} is not supported; iterate over a list, "
                "an array, range, enumerate or zip",
            )
        if self.may_be_a_dict(it, node):  # for k in d is for k in list(d): a dict's keys, else its items
            self.guard_iterator(it, node)
            it = gast.Call(func=name("list"), args=[it], keywords=[])
        rng, items = self.sequence(it, target, node)
        k = name(self.names.fresh("i", Role.FLAG), gast.Store())
        self.loop(node, rng, k, items)

    def checkpoint_loop(self, node, it):
        """``for t in s2sad.checkpoint(iterable, every=k)``: the loop over ``iterable``, marked."""
        if self.depth > 0:
            raise self.error(it, "s2sad.checkpoint marks a loop at the top level of the function, not a nested one")
        try:
            bound = inspect.signature(checkpoint).bind(*it.args, **{k.arg: k.value for k in it.keywords})
        except TypeError as exc:
            raise self.error(it, f"s2sad.checkpoint(iterable, every=None): {exc}") from None
        every = bound.arguments.get("every")
        if every is not None and not (isinstance(every, gast.Constant) and every.value is None):
            if isinstance(every, gast.Constant) and (not isinstance(every.value, int) or every.value < 1):
                raise self.error(every, "checkpoint(every=...) takes a positive integer")
            every = self.atom(every)
        else:
            every = None
        self._checkpoint = every
        inner = gast.For(target=node.target, iter=bound.arguments["iterable"], body=node.body, orelse=node.orelse)
        self.s_For(gast.copy_location(inner, node))

    def loop(self, node, iter_value, target, items):
        """Emit ``for target in iter_value`` whose body first binds each (item target, sequence) element."""
        mark = self.__dict__.pop("_checkpoint", _UNMARKED)
        self.depth += 1
        if isinstance(target, gast.Name) and target.id in self.env and self.depth == 1:
            old = self.env[target.id]
            self.depth = 0
            new = self.version(target.id)  # a fresh version: the loop must not overwrite a value used before it
            self.depth = 1
            if target.id in self.liveness_after():  # read after a loop that may not run: it keeps its value
                if old in self.loop_bound:  # (bound by a loop that may not have run: None until then)
                    self.unbound_at_entry.add(old)
                self.emit(assign(new, name(old)), node)
        self.predeclare([node] + [gast.Assign(targets=[t], value=const(0), type_comment=None) for t, _, _ in items])
        index = name(
            self.env.get(target.id, target.id) if target.id in self.env else self.version(target.id), gast.Store()
        )
        changing = self.memories_of([node])
        self.check_views_written(node, items)
        iter_value, items, made = self.held_sources(node, iter_value, items, set(changing))
        lengths = [(seq, self.atom_of(_len(seq), node)) for seq in self.resized_lists(node, items)]
        if target.id in assigned_names(node.body):  # for i in range(n): i = i + 1 (Python binds i afresh)
            index = name(self.names.fresh(target.id, Role.FLAG), gast.Store())
            items = [(target, name(index.id), "counter"), *items]
        self.known_ints.add(index.id)
        self.loop_bound.add(index.id)
        self.aliases.assigned(index.id)
        entry = self.aliases.snapshot(changing)
        self.loop_top(node, changing)

        def unresized():
            for seq, length in lengths:
                call = gast.Call(func=name("expect_unresized"), args=[seq, length], keywords=[])
                self.emit(gast.Expr(value=call), node)

        def body():
            unresized()
            for item, seq, how in items:
                if how == "counter":
                    self.assign_atom(item, seq, node)
                elif how == "offset":
                    value = gast.BinOp(left=name(index.id), op=gast.Add(), right=seq)
                    self.assign_atom(item, self.atom_of(value, node), node)
                elif how is not None:  # the value of a dict at the key of this iteration
                    key = self.atom_of(gast.Subscript(value=seq, slice=name(index.id), ctx=gast.Load()), node)
                    self.assign_value(item, gast.Subscript(value=how[1], slice=key, ctx=gast.Load()), node)
                else:
                    value = gast.Subscript(value=seq, slice=name(index.id), ctx=gast.Load())
                    self.assign_value(item, value, node)
            self.stmts(node.body)

        self.in_loop += 1
        block = self.block_of(body)
        self.in_loop -= 1
        self.aliases.join(changing, [entry, self.aliases.snapshot(changing)])
        self.depth -= 1
        block = restructure(block, self.loc)
        loop = gast.For(target=index, iter=iter_value, body=block, orelse=[], type_comment=None)
        if mark is not _UNMARKED:
            self.checkpoints[loop] = mark  # every: an atom, or None for about sqrt(n)
        for n in made:
            del self.held[n]
        self.emit(loop, node)
        unresized()

    def check_views_written(self, node, items):
        """Refuse a loop over a view of (or another name for) memory its body writes into (``for v in a[:-1]:
        a[i + 1] += v``; ``zip(A[1:], A[:-1])`` with ``p += q``): Python reads each item when the loop reaches
        it, after the body's earlier writes, and the derivative reads the items as they were at the start."""
        seqs = [s.id for _, s, _ in items if isinstance(s, gast.Name)]
        targets = {n.id for t, _, _ in items for n in walk(t) if isinstance(n, gast.Name)}
        targets |= {n.id for n in walk(node.target) if isinstance(n, gast.Name)}
        written = _written_in_place(gast.Module(body=node.body, type_ignores=[]))
        versions = {self.env[w] for w in written - targets if w in self.env}
        sharing = [seq for seq in seqs if any(v != seq and v in self.aliases.shared(seq) for v in versions)]
        if not sharing and written & targets and len(seqs) > 1:  # zip(A[1:], A[:-1]): p += q
            sharing = [a for a in seqs for b in seqs if a != b and (b in self.aliases.shared(a))]
        if not sharing and written and isinstance(node.iter, (gast.Tuple, gast.List)):  # for v in (a[1:], a[1:])
            roots = []
            for e in node.iter.elts:
                while isinstance(e, (gast.Subscript, gast.Attribute)):
                    e = e.value
                roots.append(e.id if isinstance(e, gast.Name) else None)
            named = [r for r in roots if r is not None]
            sharing = [r for r in named if named.count(r) > 1 or r in written]
        if sharing:
            raise self.error(
                node,
                "a loop over a view of an array (or another name for it) that its body writes into is not "
                "supported: Python reads each item when the loop reaches it, after the body's earlier writes; "
                "loop over indices (for i in range(len(a) - 1): a[i + 1] += a[i]) or over a copy (a[:-1].copy())",
            )

    def held_sources(self, node, iter_value, items, changing):
        """The loop's range and sequences with each name the loop rebinds (``n`` of ``for i in range(n):
        n = 1``, ``xs`` of ``for v in xs: xs = xs * 2``) read from a copy made before the loop: Python
        evaluates them once, and the adjoint sweep replays the loop from the same values.  The copies made
        count as live in the loop (``live``): a write into memory they share keeps them up to date."""
        held = {}

        def hold(atom):
            if not (isinstance(atom, gast.Name) and atom.id in changing):
                return atom
            if atom.id not in held:
                user = self.user_of.get(atom.id)
                held_name = self.names.fresh(user, Role.PRIMAL, user) if user else self.names.temp()
                if user:
                    self.user_of[held_name] = user
                if atom.id in self.known_ints:
                    self.known_ints.add(held_name)
                self.emit(assign(held_name, name(atom.id)), node)
                held[atom.id] = held_name
                self.held[held_name] = user or self.describe(atom.id)
            return name(held[atom.id])

        iter_value = _copy(iter_value)
        for n in walk(iter_value):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in changing:
                n.id = hold(n).id
        items = [(t, hold(s), (h[0], hold(h[1])) if isinstance(h, tuple) else h) for t, s, h in items]
        return iter_value, items, set(held.values())

    def resized_lists(self, node, items) -> list:
        """The sequences of ``items`` (the loop's, by position) whose length the body of ``node`` may change:
        ``xs.append(v)`` (``extend``, ``insert``, ``pop``, ``remove``, ``clear``) on a name that may hold the
        same list (or that the body binds to anything but a new list), ``xs += ...`` on one that may hold it.
        Python's iterator reads the length at every step: ``expect_unresized`` refuses a change."""
        stores, displays = Counter(), Counter()
        methods, augmented = set(), set()
        for n in (n for s in node.body for n in walk(s)):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stores[n.id] += 1
            elif isinstance(n, gast.Assign) and isinstance(n.value, (gast.List, gast.ListComp)):
                displays.update(t.id for t in n.targets if isinstance(t, gast.Name))
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _RESIZERS:
                methods.add(getattr(n.func.value, "id", None))
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                augmented.add(n.target.id)
        rebound = {r for r in stores if stores[r] > displays[r]}  # (may be bound to the list iterated)
        out = []
        for _, seq, how in items:
            if how is not None or not isinstance(seq, gast.Name) or any(s.id == seq.id for s in out):
                continue
            memory = self.aliases.memory(seq.id)
            same = {seq.id} | {
                v for v, t in self.aliases.root.items() if memory is not None and self.aliases.find(t) == memory
            }
            users = {self.user_of.get(v, v) for v in same}
            if (methods | augmented) & users or methods & rebound:
                self.ns.scope.setdefault("expect_unresized", runtime.expect_unresized)
                out.append(seq)
        return out

    def atom_of(self, value, node):
        tmp = self.names.temp()
        self.emit(assign(tmp, value), node)
        return name(tmp)

    def assign_value(self, target, value, stmt):
        """Assign an already-ANF expression (one operation over atoms) to a target."""
        if isinstance(target, gast.Name):
            self.emit(assign(self.version(target.id), value), stmt)
        else:
            self.assign_atom(target, self.atom_of(value, stmt), stmt)

    def s_While(self, node):
        if node.orelse:
            raise self.error(node, "while ... else is not supported; use a flag variable set before break")
        self.depth += 1
        self.predeclare([node])
        test = self.rename_loads(node.test)
        self.check_opaque(test)
        changing = self.memories_of([node])
        entry = self.aliases.snapshot(changing)
        self.loop_top(node, changing)
        self.in_loop += 1
        body = restructure(self.block_of(lambda: self.stmts(node.body)), self.loc)
        self.in_loop -= 1
        self.aliases.join(changing, [entry, self.aliases.snapshot(changing)])
        self.depth -= 1
        self.emit(gast.While(test=test, body=body, orelse=[]), node)

    def s_Break(self, node):
        self.emit(gast.Break(), node)

    def s_Continue(self, node):
        self.emit(gast.Continue(), node)

    def s_Pass(self, node):
        pass

    def s_Assert(self, node):
        self.check_opaque(node)
        self.emit(gast.Assert(test=self.rename_loads(node.test), msg=node.msg and self.rename_loads(node.msg)), node)

    def s_Raise(self, node):
        self.emit(
            gast.Raise(
                exc=node.exc and self.rename_loads(node.exc), cause=node.cause and self.rename_loads(node.cause)
            ),
            node,
        )


_UNMARKED = object()
_RESIZERS = ("append", "extend", "insert", "pop", "remove", "clear")


_RESERVED = generated_globals()


def _int_constant(value) -> bool:
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
        value = value.operand
    return isinstance(value, gast.Constant) and type(value.value) is int


def _is_pop(call) -> bool:
    func = call.func if isinstance(call, gast.Call) else None
    return isinstance(func, gast.Attribute) and func.attr == "pop" and not call.args and not call.keywords


def _is_local_method(call, is_local) -> bool:
    func = call.func
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and is_local(func.value.id)


def _is_append(call) -> bool:
    func = call.func if isinstance(call, gast.Call) else None
    return (
        isinstance(func, gast.Attribute)
        and func.attr == "append"
        and isinstance(func.value, gast.Name)
        and len(call.args) == 1
        and isinstance(call.args[0], gast.Name)
    )


def _strip_returns(stmts):
    """Drop the returns that end branches (each has assigned the common return name already)."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Return):
            continue
        if isinstance(s, gast.If):
            s.body = _strip_returns(s.body) or [gast.Pass()]
            s.orelse = _strip_returns(s.orelse)
        out.append(s)
    return out


def jumps(stmts) -> str:
    """'always' if every path through ``stmts`` ends in break/continue/return, 'never' if none does,
    else 'maybe' (only ``if``s are looked into, not loops)."""
    for s in stmts:
        if isinstance(s, (gast.Break, gast.Continue, gast.Return)):
            return "always"
        if isinstance(s, gast.If):
            a, b = jumps(s.body), jumps(s.orelse)
            if a == b == "always":
                return "always"
            if a != "never" or b != "never":
                return "maybe"
    return "never"


def _slices(index) -> bool:
    """A slice in the index (``a[1:3]``, ``a[:, 0]``): for a list, an assignment that may change its length."""
    return any(isinstance(p, gast.Slice) for p in (index.elts if isinstance(index, gast.Tuple) else [index]))


def restructure(stmts, loc):
    """Move the statements after an ``if`` whose branch always jumps (break, continue, return) into
    its other branch, so every jump ends a branch and each path through a block runs to its end:
    the adjoint then replays a path by replaying branch decisions alone."""
    out = []
    for k, s in enumerate(stmts):
        if isinstance(s, (gast.Break, gast.Continue, gast.Return)):
            out.append(s)
            return out  # what follows a jump never runs
        if isinstance(s, gast.If):
            s.body = restructure(s.body, loc)
            s.orelse = restructure(s.orelse, loc)
            a, b = jumps(s.body), jumps(s.orelse)
            rest = stmts[k + 1 :]
            if rest and a == "always" and b == "always":
                out.append(s)
                return out
            if rest and a == "always" and b == "never":
                s.orelse = restructure(s.orelse + rest, loc)
                out.append(s)
                return out
            if rest and b == "always" and a == "never":
                s.body = restructure([x for x in s.body if not isinstance(x, gast.Pass)] + rest, loc)
                out.append(s)
                return out
            if rest and "maybe" in (a, b):
                jump = next(n for n in walk(s) if isinstance(n, (gast.Break, gast.Continue, gast.Return)))
                raise loc.error(
                    jump,
                    f"{type(jump).__name__.lower()} inside nested ifs followed by more code is not "
                    "supported; restructure so it ends a branch of the outermost if in the loop",
                )
        out.append(s)
    return out


_UNSUPPORTED = {
    "Try": "try/except cannot be differentiated (an exception path has no derivative); "
    "move the try outside the differentiated function",
    "TryStar": "try/except* cannot be differentiated; move it outside the differentiated function",
    "With": "with blocks are not supported inside a differentiated function; move them outside",
    "AsyncWith": "async with is not supported; use a plain function",
    "AsyncFor": "async for loops are not supported; use a plain for loop",
    "FunctionDef": "nested function definitions are not supported; define the function outside "
    "(at module level, or in an enclosing function) and call it",
    "AsyncFunctionDef": "nested async functions are not supported",
    "ClassDef": "class definitions are not supported inside a differentiated function; "
    "define the class at module level",
    "Global": "global statements are not supported: writes to globals cannot be differentiated; "
    "return the value instead",
    "Nonlocal": "nonlocal statements are not supported: writes to enclosing variables cannot be differentiated; "
    "return the value instead",
    "Delete": "del is not supported inside a differentiated function",
    "Import": "import statements inside a differentiated function are not supported; import at module level",
    "ImportFrom": "import statements inside a differentiated function are not supported; import at module level",
    "Match": "match statements are not supported yet; use if/elif",
}


def _distinct_constants(keys) -> bool:
    """Whether the keys of a dict display are constants no two of which are equal (``1`` and ``True`` are)."""
    if len(keys) < 2:
        return True
    if not all(isinstance(k, gast.Constant) for k in keys):
        return False
    try:
        return len({k.value for k in keys}) == len(keys)
    except TypeError:  # (an unhashable key: Python raises too)
        return True


def _source(node) -> str:
    """The user's text of an expression (for messages)."""
    import ast

    return ast.unparse(gast.gast_to_ast(_copy(node)))


@dataclass
class Facts:
    """What ANF learned about the code it wrote, for the :class:`~s2sad.program.Program`."""

    shares: dict[str, set[str]]  # the alias analysis: names that may share memory with each name
    writable: set[str]  # names written in place with every alias kept up to date
    checkpoints: dict  # loop statement -> ``every`` (an atom, or None) for ``s2sad.checkpoint`` loops


def anf(tree: gast.FunctionDef, ns: Namespace, loc: Location) -> tuple[gast.FunctionDef, Names, Facts]:
    for star, param in (("*", tree.args.vararg), ("**", tree.args.kwarg)):
        if param is not None:
            raise loc.error(
                param,
                f"'{tree.name}' takes {star}{param.id}: functions with {star}{'args' if star == '*' else 'kwargs'} "
                "parameters are not supported yet; give each parameter a name (or pass a tuple or dict)",
            )
    _checked_appends(tree, ns)
    private: set[str] = set()
    entry: list = []  # (parameter, field, message, write) checked on entry: ``w = q.w`` followed as q's field
    while True:  # again, with the parameters whose data f writes into copied on entry
        names = Names(all_names(tree) | set(ns.used) | {"np", "math", "copy_input"})
        pass_ = _ANF(tree, ns, loc, names)
        for p in sorted(private):
            ns.scope.setdefault("copy_input", runtime.copy_input)
            call = gast.Call(func=name("copy_input"), args=[name(p)], keywords=[])
            pass_.emit(assign(pass_.version(p), call), tree.body[0])
        for p, field, message, where in entry:  # (located at the write)
            ns.scope.setdefault("expect_field", runtime.expect_field)
            call = gast.Call(func=name("expect_field"), args=[name(p), const(field), const(message)], keywords=[])
            pass_.emit(gast.Expr(value=call), where)
        n_returns = sum(isinstance(n, gast.Return) for n in walk(tree))
        if n_returns > 1:
            pass_.return_name = names.fresh("out")
        pass_.stmts(tree.body)
        found = [c for c in pass_.entry_checks if c[:3] not in [e[:3] for e in entry]]
        if pass_.written_params <= private and not found:
            break
        private |= pass_.written_params
        entry += found
    facts = Facts({n: set(pass_.aliases.shared(n)) for n in pass_.aliases.root}, pass_.writable, pass_.checkpoints)
    out = restructure(pass_.out, loc)
    out = [gast.copy_location(assign(v, const(None)), tree) for v in sorted(pass_.unbound_at_entry)] + out
    bindings = {}  # names bound once to a typed object (star.Typing), for primitives
    restored = _restored(out)  # (l = None; l = l_stack.pop() of derivative code: l's own values again)
    for n in walk(gast.Module(body=out, type_ignores=[])):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load) and id(n) not in restored:
            bindings[n.id] = bindings.get(n.id, 0) + 1
    ns.typed = {t: p for t, p in pass_.typed.items() if bindings.get(t) == pass_.typed_count[t]}
    ns.built = {t: c for t, c in pass_.built.items() if bindings.get(t) == pass_.built_count[t]}
    stored = {}  # (every binding: l = None of derivative code too)
    for n in walk(gast.Module(body=out, type_ignores=[])):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stored[n.id] = stored.get(n.id, 0) + 1
    ns.nones = {t for t, k in pass_.nones.items() if k > 0 and stored.get(t) == k}  # act = None; g(x, act)
    stores = (n for n in walk(tree) if isinstance(n, gast.Attribute) and not isinstance(n.ctx, gast.Load))
    ns.built_stopped = {n.attr for n in stores}  # layer.act = g in f: layer.act(x) is not the class's
    ns.built_stopped |= {"*"} if any(_calls_setattr(n) for n in walk(tree)) else set()
    ns.loc = loc
    if not out or jumps(out) != "always":
        raise loc.error(tree, f"function '{tree.name}' must return a value on every path to be differentiated")
    if pass_.return_name is not None:
        out = _strip_returns(out) + [gast.Return(value=name(pass_.return_name))]
    pass_.out = out
    new = gast.FunctionDef(
        name=tree.name,
        args=tree.args,
        body=pass_.out,
        decorator_list=[],
        returns=None,
        type_comment=None,
        type_params=[],
    )
    gast.copy_location(new, tree)
    return new, names, facts


def _restored(out) -> set:
    """The targets (ids of Name nodes) of ``t = None`` and ``t = s.pop()`` where every ``s.append(v)``
    pushes ``t`` itself (derivative code differentiated again saves and restores a loop's item): ``t``
    holds nothing but its own earlier values there, so a typed ``t`` stays typed."""
    module = gast.Module(body=out, type_ignores=[])
    pushed = {}  # stack -> the names appended to it
    for n in walk(module):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name):
            if n.func.attr == "append":
                arg = n.args[0] if len(n.args) == 1 and isinstance(n.args[0], gast.Name) else None
                pushed.setdefault(n.func.value.id, set()).add(arg.id if arg is not None else None)
    found = set()
    for n in walk(module):
        if not isinstance(n, gast.Assign) or len(n.targets) != 1 or not isinstance(n.targets[0], gast.Name):
            continue
        t, v = n.targets[0], n.value
        if isinstance(v, gast.Constant) and v.value is None:
            found.add(id(t))
        elif (
            isinstance(v, gast.Call)
            and isinstance(v.func, gast.Attribute)
            and v.func.attr == "pop"
            and not v.args
            and isinstance(v.func.value, gast.Name)
            and pushed.get(v.func.value.id) == {t.id}
        ):
            found.add(id(t))
    return found


def _parsed(code: str):
    """The user's statement of a source-map comment, parsed (an empty module when it does not parse:
    ``for i in range(n):`` alone, or cut short with ``...``)."""
    try:
        return gast.parse(code.split(" ...")[0])
    except SyntaxError:
        try:
            return gast.parse(code.rstrip(":") + ": pass")
        except SyntaxError:
            return gast.Module(body=[], type_ignores=[])


def _namedtuple_make(obj) -> bool:
    """``N._make`` of a NamedTuple class ``N`` (collections' classmethod, building with ``tuple.__new__``)."""
    owner = getattr(obj, "__self__", None)
    return (
        isinstance(owner, type)
        and issubclass(owner, tuple)
        and hasattr(owner, "_fields")
        and getattr(obj, "__name__", "") == "_make"
    )
