"""aliases: which ANF names may share memory, and what an in-place write must also update.

Used by ``anf`` while it emits statements.  Takes each emitted statement (``note``) and each in-place
write (``write``); gives, for a write into ``x``, the statements that carry the new contents to every
other name that shares ``x``'s memory and is read later, or a refusal naming that name.

The model.  Every name points into a *memory* (a union-find token): a new array (arithmetic, NumPy
functions), a parameter (the caller's data), a global, or memory shared with another name.  A name
may also have an exact *relation* to the name it was made from:

* ``copy``: ``b = a`` (the same object);
* ``view``: ``v = a[i, 1:]`` with a basic index holding a slice, ``None`` or ``...`` (always an array
  sharing ``a``'s memory);
* ``item``: ``r = a[i]`` with integers only (``range`` loop indices): a view when ``a`` has more
  dimensions than indices, a copied number otherwise; which one is decided when the program runs.

Anything else that may return its argument's memory (``np.reshape``, ``x.T``, an attribute such as
``a.flat``, a user function, a list, dict or comprehension holding the array, tuple unpacking) shares
the memory with no exact relation.

A write into ``x`` (``x[i] = v``, or ``x += v`` when ``x`` shares memory with a live name) is
followed by a write-back up the chain of views (``a[i] = v``) and a re-derivation down to each live
name (``w = a[j]``, ``b = a``), so the derivative passes see every name's new value as an ordinary
assignment.  A live name reached by no exact chain is refused: s2sad cannot tell what it holds; in
generated code differentiated again, an item ``t = b[i]`` of a ``b`` since rebound is checked when the
code runs instead (``runtime.expect_apart``: a number, or memory apart from the written array).  A
relation that holds on some paths of a branch only (a view there, a number or memory of its own
elsewhere) is kept as ``maybe``: followed where ``runtime.is_view`` says so when the code runs.
The stacks of generated code (``z_stack = runtime.tape()``, recognised by object) are never brought up
to date: the adjoint sweep restores what was written since a push before the pop.  A write updates only
the names whose values are read later (``value_liveness``).
Writes into a parameter's memory make ``anf`` start again with that parameter copied on entry
(the caller's array is never changed); writes into a global's memory are refused.
"""

from __future__ import annotations

import builtins
import itertools
import types
from dataclasses import dataclass, field, replace

import gast
import numpy as np

from . import runtime
from .ir import NONE_MUTATORS, walk
from .primitives import DATA_ATTRS, is_user_function  # DATA_ATTRS: new numbers or tuples, never memory
from .resolve import dotted

# kinds of memory: a new object of unknown type; a number or NumPy array (what arithmetic and NumPy
# functions return); the caller's argument; a module's global; a list or tuple
FRESH, NUMERIC, PARAM, GLOBAL, CONTAINER = "fresh", "numeric", "param", "global", "container"

# functions that read some arguments (by position) for their shape or dtype only
_SHAPE_ARGS = {len: (0,), np.shape: (0,), np.ndim: (0,), np.size: (0,), np.zeros_like: (0,), np.ones_like: (0,)}
_SHAPE_ARGS.update(
    {runtime.zeros_like: (0,), runtime.unbroadcast: (1,), runtime.unreduce: (1,), runtime.astype_of: (1,)}
)
_SHAPE_ARGS.update({runtime.unpacked_adjoint: (1,), runtime.unpacked_tangent: (1,)})  # x's type and shape
_SHAPE_ARGS[runtime.stored] = (0,)  # stored(a, g): a's type and dtype, which no write into a changes
_SHAPE_ARGS[runtime.cast_into] = (0,)  # cast_into(a, v): a's type, dtype and shape
_SHAPE_ARGS[runtime.match_complex] = (1,)  # match_complex(g, x): whether x is complex


_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)

# NumPy functions whose result may be (a view of) an argument's memory
_VIEWS = {
    "transpose",
    "reshape",
    "ravel",
    "squeeze",
    "asarray",
    "asanyarray",
    "ascontiguousarray",
    "asfortranarray",
    "real",
    "imag",
    "diagonal",
    "swapaxes",
    "moveaxis",
    "rollaxis",
    "expand_dims",
    "broadcast_to",
    "broadcast_arrays",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "flip",
    "fliplr",
    "flipud",
    "rot90",
    "split",
    "array_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "unstack",
    "matrix_transpose",
    "permute_dims",
    "trim_zeros",
    "nditer",
    "require",
    "asarray_chkfinite",
    "real_if_close",  # the argument itself when it is real
    "conj",  # ``x.conj()``, ``x.conjugate()`` (anf writes them np.conj): x itself when x is real
    "conjugate",
    "asmatrix",
    "einsum",  # np.einsum("ii->i", a) is a view of a
    "as_strided",
    "sliding_window_view",
    "frombuffer",
    "getdata",
    "matrix_power",  # a itself for n = 1
}


@dataclass
class Relation:
    kind: str  # "copy" | "view" | "item" | "field" (``w = q.w`` of a NamedTuple or dataclass)
    parent: str
    index: object = None  # the ANF index of a view
    stamp: dict = field(default_factory=dict)  # assignment counts of the parent and index names
    assumed: bool = False  # a slice of what may also be a list: a view only when the parent is an array
    maybe: bool = False  # after a join: holds only where ``runtime.is_view(name, parent)`` when the code runs


class Aliases:
    def __init__(self, params, liveness):
        self._tokens = itertools.count()
        self.parent_token: dict[int, int] = {}
        self.kind: dict[int, str] = {}
        self.root: dict[str, int] = {}
        self.rel: dict[str, Relation] = {}
        self.count: dict[str, int] = {}
        self.param_of: dict[int, str] = {}
        self.contains: dict[int, set[int]] = {}  # list or tuple memory -> memories of its elements
        self.positions: dict[int, list[int]] = {}  # a new tuple of new objects -> their memories, in order
        self.index_arrays: set[str] = set()  # lists and masks: indexing with them copies (a[[0, 2]], a[a > 0])
        self.liveness = liveness
        self.numbers: set[str] = set()  # names known to hold a Python number here (no memory)
        self.tapes: set[int] = set()  # memories of the reverse sweep's stacks (``z_stack = tape()``)
        self.arrays: set[str] = set()  # names bound to a new NumPy array of numbers (``a = np.zeros(3)``)
        self.field_counts: dict = {}  # (w, q) -> the assignment counts of q at which w is its field
        for p in params:
            t = self._new(PARAM)
            self.param_of[t] = p
            self.root[p] = t

    # ---- memories ------------------------------------------------------------------------------
    def _new(self, kind):
        t = next(self._tokens)
        self.parent_token[t] = t
        self.kind[t] = kind
        return t

    def find(self, t):
        while self.parent_token[t] != t:
            self.parent_token[t] = self.parent_token[self.parent_token[t]]
            t = self.parent_token[t]
        return t

    def memory(self, name):
        t = self.root.get(name)
        return None if t is None else self.find(t)

    def _merge(self, tokens):
        tokens = [self.find(t) for t in tokens if t is not None]
        if not tokens:
            return self._new(FRESH)
        first = tokens[0]
        for t in tokens[1:]:
            t = self.find(t)
            if t != first:
                # the merged memory keeps the strongest kind: a parameter's or a global's data stays so
                if self.kind[t] in (PARAM, GLOBAL) and self.kind[first] not in (PARAM, GLOBAL):
                    first, t = t, first
                self.parent_token[t] = first
                if t not in self.tapes:
                    self.tapes.discard(first)  # a tape only where every memory merged is one
                if t in self.param_of and first not in self.param_of:
                    self.param_of[first] = self.param_of[t]
        return first

    def kind_of(self, name):
        """What ``name``'s memory is (FRESH, NUMERIC, PARAM, GLOBAL, CONTAINER); None when unknown."""
        m = self.memory(name)
        return None if m is None else self.kind[m]

    def shared(self, name):
        """Names other than ``name`` whose value a write into ``name``'s memory may change: those
        sharing it, and lists or tuples that hold it (directly or inside another)."""
        m = self.memory(name)
        if m is None:
            return []
        seen = {m}
        changed = True
        while changed:
            changed = False
            for c, elements in self.contains.items():
                c = self.find(c)
                if c not in seen and any(self.find(e) in seen for e in elements):
                    seen.add(c)
                    changed = True
        return [n for n in self.root if n != name and self.find(self.root[n]) in seen]

    # ---- statements ----------------------------------------------------------------------------
    def assigned(self, target: str):
        self.count[target] = self.count.get(target, 0) + 1
        self.rel.pop(target, None)
        self.numbers.discard(target)
        self.index_arrays.discard(target)
        self.arrays.discard(target)

    def is_number(self, name: str):
        """``name`` holds a Python number here (the other branch of ``if updates_in_place(name)``): it
        shares no memory with anything."""
        self.assigned(name)
        self.root[name] = self._new(FRESH)
        self.numbers.add(name)

    def note(self, stmt, is_local, known_ints=frozenset(), resolve=lambda f: None):
        """Record what an emitted ``Assign`` makes its target(s) point to."""
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, gast.Tuple):
            parts = self._positions_of(value, is_local, len(target.elts))  # before _element merges them
            src = None if parts else self._memory_of(value, is_local)
            for k, e in enumerate(target.elts):
                self.assigned(e.id)
                self.root[e.id] = parts[k] if parts else src if src is not None else self._new(FRESH)
            return
        if not isinstance(target, gast.Name):
            return
        t = target.id
        self.assigned(t)
        if _global_number(value, is_local, resolve):  # bd = np.inf, s = SCALE: a number holds no memory
            self.root[t] = self._new(NUMERIC)
        elif isinstance(value, gast.Name):
            if is_local(value.id):
                self.root[t] = self.root.get(value.id, self._new(FRESH))
                self.rel[t] = Relation("copy", value.id, stamp=self._stamp([value.id]))
                if value.id in self.arrays:
                    self.arrays.add(t)  # the same array of numbers
            else:
                self.root[t] = self._new(GLOBAL)
        elif self._list_copy(value, is_local, resolve):
            # ``list(v)``, ``tuple(v)``, ``v[:]`` of a local list: a new list holding the same objects
            token = self._new(CONTAINER)
            held = value.value if isinstance(value, gast.Subscript) else value.args[0]
            self.contains[token] = set(self.contains.get(self.memory(held.id), set()))
            self.root[t] = token
        elif self._listed(value, is_local, resolve):
            # ``list(a)``, ``tuple(a)`` of a local array (or unknown value): a new list holding its items,
            # which may be views of it (its rows), as ``[r for r in a]``
            token = self._new(CONTAINER)
            self.contains[token] = {self.memory(value.args[0].id)}
            self.root[t] = token
            if resolve(value.func) is list:
                self.index_arrays.add(t)
        elif isinstance(value, gast.Subscript) and self.kind_of(_base(value)) == CONTAINER:
            self.root[t] = self._element(self.memory(_base(value)))  # one of the elements, itself
        elif (
            isinstance(value, gast.Subscript)
            and isinstance(value.value, gast.Name)
            and any(self._index_array(n, self.kind_of(value.value.id)) for n in walk(value.slice))
        ):
            self.root[t] = self._new(NUMERIC)  # advanced indexing of an array: a copy
        elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            base = value.value.id
            self.root[t] = self.root.get(base) if is_local(base) else self._new(GLOBAL)
            if self.root[t] is None:
                self.root[t] = self._new(FRESH)
            # a basic index of an array is a view (or, with integers only, maybe a copied number); of a
            # list, a new list (or the element itself)
            kind = self.kind[self.find(self.root[t])]
            if is_local(base) and kind in (NUMERIC, FRESH, PARAM) and _basic(value.slice, known_ints):
                self.set_view(t, base, value.slice, arrays_only=kind != NUMERIC)
            elif is_local(base) and kind in (FRESH, PARAM) and _key(value.slice):
                # p["w"] of a dict argument: its item itself (an object's __getitem__ may give a copy: a
                # write goes back into p only where the code finds it holds p["w"]'s memory, is_view)
                self.set_view(t, base, value.slice)
                self.rel[t] = replace(self.rel[t], maybe=True)
        elif (
            isinstance(value, gast.Subscript)
            and isinstance(value.value, gast.Attribute)
            and not any(isinstance(n, gast.Name) and is_local(n.id) for n in walk(value.value))
        ):
            self.root[t] = self._new(GLOBAL)  # ``GO.w[:]``, ``self.w[1:]`` of a bound method: not f's memory
        elif isinstance(value, (gast.Tuple, gast.List, gast.Dict, gast.Set, *_COMPREHENSIONS)):
            # a new list, tuple or dict holding objects named in it (its elements, a comprehension's rows)
            token = self._new(CONTAINER)
            self.contains[token] = {
                self.find(self.root[n.id])
                for n in walk(value)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in self.root
            }
            if isinstance(value, (gast.Tuple, gast.List, gast.Set)) and any(
                _outside(e, is_local) for e in value.elts
            ):  # ``[G]``, ``(self.w, x)``: holds memory f does not own
                self.contains[token].add(self._new(GLOBAL))
            self.root[t] = token
            if isinstance(value, (gast.List, gast.ListComp)):
                self.index_arrays.add(t)
        elif isinstance(value, gast.Attribute) and value.attr not in DATA_ATTRS:
            # ``a.flat``, ``a.real``, ``obj.w``: may be (a view of) the receiver's memory
            receiver = [n.id for n in walk(value) if isinstance(n, gast.Name) and is_local(n.id)]
            self.root[t] = self._merge([self.root.get(n) for n in receiver]) if receiver else self._new(GLOBAL)
            if isinstance(value.value, gast.Name) and receiver and not hasattr(np.ndarray, value.attr):
                # ``w = q.w``: the field itself when ``q`` is a NamedTuple or dataclass (checked where a
                # write relies on it); a write into ``w`` gives ``q`` the field's new value
                base = value.value.id
                attr = gast.Constant(value=value.attr, kind=None)
                self.rel[t] = Relation("field", base, attr, self._stamp([base]), assumed=True)
                self.field_counts.setdefault((t, base), set()).add(self.count.get(base, 0))
        elif isinstance(value, gast.Call) and any(
            resolve(value.func) is r for r in (runtime.copy_dict, runtime.set_item, runtime.copy_of)
        ):
            # a new dict holding the dict's values (and the value set): ``{**d}``, ``dict(d)``, ``d[k] = v``
            token = self._new(CONTAINER)
            held = set()
            for a in value.args[:1] + value.args[2:]:
                m = self.memory(a.id) if isinstance(a, gast.Name) and is_local(a.id) else None
                if m is not None:
                    held |= self.contains.get(m, set()) if self.kind[m] == CONTAINER else {m}
            self.contains[token] = {self.find(m) for m in held}
            self.root[t] = token
            self._field_kept(t, value)
        elif isinstance(value, gast.Call) and resolve(value.func) is runtime.tape and not value.args:
            self.root[t] = self._new(CONTAINER)  # the reverse sweep's stack
            self.tapes.add(self.root[t])
        elif (
            isinstance(value, gast.Call)
            and resolve(value.func) is np.array
            and value.args
            and not may_share_call(value, resolve)
        ):  # a new array
            self.root[t] = self._new(NUMERIC)
            if _numpy_array_call(value, resolve):
                self.arrays.add(t)  # a new array of numbers (as np.copy: NumPy arrays of objects are not followed)
            if isinstance(value.args[0], gast.Name) and value.args[0].id in self.index_arrays:
                self.index_arrays.add(t)  # np.array([True, False]): still an index array
        elif _pop(value) and self.kind_of(value.func.value.id) == CONTAINER:
            self.root[t] = self._element(self.memory(value.func.value.id))  # lst.pop(): an element
        elif isinstance(value, gast.Call) and _returns_new_tuple(resolve(value.func)):
            # a new tuple of new objects (``return a * v, a + v``, a generated VJP's result)
            self.root[t] = self._new(CONTAINER)
            self.positions[self.root[t]] = [self._new(NUMERIC) for _ in range(returns_new(resolve(value.func)))]
            self.contains[self.root[t]] = set(self.positions[self.root[t]])
        elif isinstance(value, gast.Call) and may_share_call(value, resolve):
            names = [n.id for n in _shareable(value, resolve) if is_local(n.id)]
            globals_ = [n.id for n in _shareable(value, resolve) if not is_local(n.id)]
            tokens = [self.root.get(n) for n in names]
            # the result may be an element of a list or tuple passed (``next(iter([b]))``,
            # ``max([b, c], key=k)``, ``first([b, a])``), or the list itself
            containers = {m for m in (self.find(t) for t in tokens if t is not None) if self.kind[m] == CONTAINER}
            tokens = [t for t in tokens if t is not None and self.find(t) not in containers]
            tokens += self._elements_deep(containers)
            if _user_call(value) and globals_:
                tokens.append(self._new(FRESH))
            outside = _reads_outside_data(value, is_local, resolve)
            if outside:  # ``G.reshape(2)``, ``np.asarray(self.w)``: a view of memory f does not own
                tokens.append(self._new(GLOBAL))
            self.root[t] = self._merge(tokens) if names or outside else self._new(FRESH)
            for c in containers:
                self.contains.setdefault(c, set()).add(self.find(self.root[t]))
        elif isinstance(value, gast.Call) and resolve(value.func) in (runtime.ndarray_tolist, runtime.keys_of):
            self.root[t] = self._new(CONTAINER)  # x.tolist(), a dict's keys: a new list of new numbers (or keys)
            self.index_arrays.add(t)
        elif isinstance(value, gast.BinOp) and self._sequence_operands(value, is_local):
            # [0.0] * n, lst + [v]: a new list holding the objects its operands hold (not a number or array)
            token = self._new(CONTAINER)
            self.contains[token] = {
                self.find(m) for m in self._sequence_operands(value, is_local) for m in self.contains.get(m, ())
            }
            self.root[t] = token
            self.index_arrays.add(t)
        elif isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare)) or _numeric_call(value, resolve):
            if isinstance(value, gast.Compare):
                self.index_arrays.add(t)
            self.root[t] = self._new(NUMERIC)
            if _numpy_array_call(value, resolve):
                self.arrays.add(t)
        elif isinstance(value, gast.Constant) and isinstance(value.value, (int, float, complex, bool)):
            self.root[t] = self._new(NUMERIC)
        else:
            self.root[t] = self._new(FRESH)

    def _sequence_operands(self, value, is_local) -> list:
        """The memories of the list or tuple operands of ``value`` (``t * 2`` of ``t = [0.0]``): Python repeats
        or joins them (a list of objects, not arithmetic); empty when no operand is known to be one."""
        operands = [value.left, value.right]
        out = [
            self.memory(o.id)
            for o in operands
            if isinstance(o, gast.Name) and is_local(o.id) and self.kind_of(o.id) == CONTAINER
        ]
        return out if isinstance(value.op, (gast.Mult, gast.Add)) else []

    def _list_copy(self, value, is_local, resolve) -> bool:
        """``list(v)``, ``tuple(v)`` or ``v[a:b]`` of a local list or tuple ``v`` s2sad knows (a CONTAINER)."""
        if isinstance(value, gast.Subscript):
            held, whole = value.value, isinstance(value.slice, gast.Slice)
        elif isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords:
            held, whole = value.args[0], any(resolve(value.func) is t for t in (list, tuple))
        else:
            return False
        return (
            whole
            and isinstance(held, gast.Name)
            and is_local(held.id)
            and held.id in self.root
            and self.kind_of(held.id) == CONTAINER
        )

    def _listed(self, value, is_local, resolve) -> bool:
        """``list(a)`` or ``tuple(a)`` of a local name that is not a list or tuple s2sad knows."""
        return (
            isinstance(value, gast.Call)
            and len(value.args) == 1
            and not value.keywords
            and isinstance(value.args[0], gast.Name)
            and is_local(value.args[0].id)
            and self.memory(value.args[0].id) is not None
            and self.kind_of(value.args[0].id) != CONTAINER
            and any(resolve(value.func) is t for t in (list, tuple))
        )

    def _index_array(self, n, base_kind) -> bool:
        """Whether indexing a value of kind ``base_kind`` with the node ``n`` (in the index) copies: a
        list or mask indexing an array; a list indexing anything (no list or dict takes a list)."""
        if not (isinstance(n, gast.Name) and n.id in self.index_arrays):
            return False
        return base_kind == NUMERIC or base_kind in (FRESH, PARAM) and self.kind_of(n.id) == CONTAINER

    def set_view(self, t, base, index, arrays_only=False):
        """``t = base[index]`` with a basic index of an array: an exact ``view`` or ``item`` of ``base``.
        ``arrays_only``: ``base`` may also be a list (whose slices are copies): only ``item``."""
        self.root[t] = self.root[base]
        names = [n.id for n in walk(index) if isinstance(n, gast.Name)]
        array = makes_view(index)
        # (of a parameter, or of an object of unknown type: a view if it is an array, which generated code
        # checks before a write that relies on it, ``assumed_arrays``; a list's slice is a copy)
        self.rel[t] = Relation(
            "view" if array else "item", base, index, self._stamp([base, *names]), array and arrays_only
        )

    def _field_kept(self, t, call):
        """``t = set_item(q, "w", w)`` where ``w`` is the field ``w`` of ``q``: it is ``t``'s too."""
        args = call.args
        if len(args) != 3 or not all(isinstance(a, gast.Name) for a in (args[0], args[2])):
            return
        index = args[1]
        rel = self.rel.get(args[2].id)
        if (
            isinstance(index, gast.Constant)
            and rel is not None
            and rel.kind == "field"
            and rel.parent == args[0].id
            and rel.index.value == index.value
            and all(self.count.get(n, 0) == c + (n == t) for n, c in rel.stamp.items())  # (t counted already)
        ):
            self.refield(args[2].id, t, rel.index)

    def refield(self, child, parent, index):
        """After ``parent = set_item(old, "w", child)``: ``child`` is the field ``w`` of ``parent``."""
        self.rel[child] = Relation("field", parent, index, self._stamp([parent, child]), assumed=True)
        self.field_counts.setdefault((child, parent), set()).add(self.count.get(parent, 0))

    def _fields_after_join(self, names, snaps):
        """``w = q.w`` where a branch rebinds ``q`` (``q = set_item(q, "w", w)``, the same name inside
        ``if``/``for``): ``w`` is still the field of ``q`` when every path left ``q`` at a version of
        which ``w`` is the field."""
        for (child, parent), counts in list(self.field_counts.items()):
            if parent not in names:
                continue
            if child in names and any(s[child][2] != self.count.get(child, 0) for s in snaps if child in s):
                continue  # w itself rebound on some path
            rel = self.rel.get(child)
            if rel is None or rel.kind != "field" or rel.parent != parent:
                continue
            ends = [s[parent][2] for s in snaps if parent in s] + [self.count.get(parent, 0)]
            if all(c in counts for c in ends[:-1]) and ends[-1] in counts:
                yield child, rel

    def assumed_arrays(self, written, live) -> list[tuple[str, Relation]]:
        """(name, relation) for each relation the update after a write into ``written`` relies on
        (:meth:`plan`) that holds only if its parent is a NumPy array (a slice of a parameter) or a
        NamedTuple or dataclass with that field (``w = q.w``): generated code checks the parent."""
        steps = self.plan(written, live, apart=True)
        if isinstance(steps, tuple):
            return []
        return [(child, rel) for d, child, rel in steps if d != "apart" and rel.assumed]

    def array_view(self, name) -> bool:
        """Whether ``name`` is certainly an array: an exact view with a slice of a number or array
        (a number cannot be sliced, so f itself got an array there)."""
        rel = self.rel.get(name)
        if rel is None or rel.kind != "view" or not self.valid(rel) or rel.assumed or rel.maybe:
            return False  # (a slice of a parameter: an array only if the parameter is one)
        return True

    def _memory_of(self, value, is_local):
        if isinstance(value, gast.Name) and is_local(value.id):
            m = self.memory(value.id)
            return self._element(m) if m is not None and self.kind[m] == CONTAINER else m
        return None

    def _positions_of(self, value, is_local, n):
        """The memories of ``value``'s items when it is a new tuple of ``n`` new objects, else None."""
        m = self.memory(value.id) if isinstance(value, gast.Name) and is_local(value.id) else None
        parts = self.positions.get(m) if m is not None else None
        if (
            parts is None
            or len(parts) != n
            or {self.find(p) for p in self.contains.get(m, ())} != {self.find(p) for p in parts}
        ):
            return None  # not such a tuple, or its elements were merged since (``_element``)
        return [self.find(p) for p in parts]

    def _element(self, container):
        """A memory standing for any element of a list or tuple (their objects, shared)."""
        elements = self.contains.get(container, set())
        token = self._merge(list(elements)) if elements else self._new(FRESH)
        self.contains[container] = {self.find(token)}
        return token

    def _elements_deep(self, containers):
        """The memories of every element of the lists or tuples ``containers``, at any depth."""
        out, todo, seen = [], list(containers), set()
        while todo:
            c = self.find(todo.pop())
            if c in seen:
                continue
            seen.add(c)
            for e in self.contains.get(c, ()):
                e = self.find(e)
                (todo if self.kind[e] == CONTAINER else out).append(e)
        return out

    def stored_item(self, base, value, index):
        """``base[index] = value`` (an integer or key index) into what may be a list or dict: it holds
        ``value``'s object, and ``value`` is its item (a relation ``maybe``: a later write into ``value`` goes
        back there where ``is_view`` finds it still is).  Stored twice, or already a view or item of something,
        no relation: a write into it that must reach ``base`` is refused."""
        if self.kind_of(base) not in (CONTAINER, FRESH, PARAM):
            return  # (an array's item takes the values)
        twice = value in self.shared(base) or base in self.shared(value)
        self.appended(base, value)
        rel = self.rel.get(value)
        if twice or rel is not None and self.valid(rel):
            self.rel.pop(value, None)
            return
        names = [n.id for n in walk(index) if isinstance(n, gast.Name)]
        self.rel[value] = Relation("item", base, index, self._stamp([base, *names]), maybe=True)

    def held_names(self, name) -> list:
        """Names whose objects a list, tuple or dict ``name`` may hold, at any depth (a write into its items
        changes them: ``h([a])`` with ``lst[0] += v`` in ``h``)."""
        m = self.memory(name)
        if m is None or self.kind[m] != CONTAINER:
            return []
        inner = set(self._elements_deep([m]))
        return [n for n in self.root if n != name and self.find(self.root[n]) in inner]

    def appended(self, lst, item):
        """``lst.append(item)``: the list now holds ``item``'s object."""
        m = self.memory(lst)
        if m is not None and item in self.root:
            if self.kind[m] == CONTAINER:
                self.contains.setdefault(m, set()).add(self.find(self.root[item]))
            else:
                self.root[lst] = self._merge([self.root[lst], self.root[item]])

    def _stamp(self, names):
        return {n: self.count.get(n, 0) for n in names}

    def valid(self, rel: Relation) -> bool:
        return all(self.count.get(n, 0) == c for n, c in rel.stamp.items())

    # ---- control flow --------------------------------------------------------------------------
    def snapshot(self, names):
        return {n: (self.root.get(n), self.rel.get(n), self.count.get(n, 0), n in self.numbers) for n in names}

    def restore(self, snap):
        for n, (root, rel, count, number) in snap.items():
            if root is not None:
                self.root[n] = root
            self.rel.pop(n, None)
            if rel is not None:
                self.rel[n] = rel
            self.count[n] = count
            if number:
                self.numbers.add(n)
            else:
                self.numbers.discard(n)

    def join(self, names, snaps):
        """After a branch or a loop (or at a loop's top): each name may hold what it held in any of
        ``snaps`` or now; it keeps no exact relation, and relations made from it end -- except an
        ``item`` relation that holds wherever the name may share its parent's memory (it is re-derived
        only where ``is_view`` says the name is a view at run time: where it holds a number or memory of
        its own, it is left alone)."""
        fields = list(self._fields_after_join(names, snaps))
        for n in names:
            now = (self.root.get(n), self.rel.get(n), self.count.get(n, 0), n in self.numbers)
            if all(s.get(n, now) == now for s in snaps):
                continue  # bound again on no path (``x[1:] = v`` writes into x): x keeps what it had
            item = self._item_after_join(n, snaps)
            tokens = [s[n][0] for s in snaps if s.get(n, (None,))[0] is not None]
            if n in self.root:
                tokens.append(self.root[n])
            if tokens:
                self.root[n] = self._merge(tokens)
            self.rel.pop(n, None)
            self.numbers.discard(n)
            self.count[n] = max([self.count.get(n, 0)] + [s[n][2] for s in snaps if n in s]) + 1
            if item is not None:
                self.rel[n] = item
        for child, rel in fields:
            self.refield(child, rel.parent, rel.index)

    def _item_after_join(self, n, snaps):
        """The valid ``item`` or ``view`` relation ``n`` has in some of the joined states, when in each of
        the others ``n`` holds a number or memory its parent does not share; else None.  (Before any
        merging.)  It holds where ``is_view(n, parent)`` when the code runs (``maybe``): ``v = x[1:]``
        then ``if updates_in_place(v): v[...] = t else: v = t`` of ``v *= 2``."""
        now = {n: (self.root.get(n), self.rel.get(n), self.count.get(n, 0), n in self.numbers)}
        states = [s for s in snaps if n in s] + [now]
        kinds = ("item", "view")
        rels = [s[n][1] for s in states if s[n][1] is not None and s[n][1].kind in kinds and self.valid(s[n][1])]
        if not rels:
            return None
        first = rels[0]
        key = (first.kind, first.parent, gast.dump(first.index), sorted(first.stamp.items()))
        if any((r.kind, r.parent, gast.dump(r.index), sorted(r.stamp.items())) != key for r in rels[1:]):
            return None
        p = first.parent
        for s in states:
            root, rel, _, number = s[n]
            if rel is not None and rel.kind in kinds and self.valid(rel):
                continue
            parent_root = s[p][0] if p in s and s[p][0] is not None else self.root.get(p)
            if not number and (root is None or parent_root is None or self.find(root) == self.find(parent_root)):
                return None
        return replace(first, maybe=len(rels) < len(states) or any(r.maybe for r in rels))

    def loop_top(self, groups, rebound, swaps=(), mentioned=frozenset(), named=lambda n: True):
        """At the top of a loop body a name may hold what a name of its group (``sharing_groups``)
        held at the end of the previous iteration (``b = a`` there): their memories become one.
        Names the loop binds again (``rebound``) lose their exact relations; names it only writes
        into keep theirs (``v = a[:]`` before a loop writing ``v[i]``: still a view of ``a``).
        ``swaps``: names the body only permutes (``u, un = un, u``): each holds one of their memories, never
        another's at once, so they stay apart when those are distinct arrays or numbers of f's own that no
        other name or list shares and that no other statement of the body (``mentioned``) relates to
        anything (``named``: whether a name may be read later, the user's names; not a temporary of the
        statement that made them); otherwise they are a group."""
        groups = list(groups)
        for names in swaps:
            if not self._apart(names, mentioned, named):
                groups.append(set(names))
        for names in groups:
            tokens = [self.root[n] for n in names if n in self.root]
            if tokens:
                token = self._merge(tokens)
                for n in names:
                    self.root[n] = token
        for n in rebound:
            self.rel.pop(n, None)
            self.count[n] = self.count.get(n, 0) + 1

    def _apart(self, names, mentioned, named) -> bool:
        """Whether the permuted ``names`` hold distinct memories of f's own (arrays or numbers it made)
        that no other name, list or relation reaches, and that the rest of the body relates to nothing."""
        if any(n not in self.root or n in mentioned for n in names):
            return False
        memories = {self.memory(n) for n in names}
        if len(memories) != len(names) or any(self.kind[m] != NUMERIC for m in memories):
            return False
        if any(n not in names and named(n) and self.memory(n) in memories for n in self.root):
            return False
        if any(rel.parent in names for n, rel in self.rel.items() if n not in names):
            return False
        return not any(self.find(m) in memories for held in self.contains.values() for m in held)

    def loop_elements(self, pairs):
        """At the top of a loop body: for each (base, name, way) of ``sharing_groups``' ``elements``, ``name``
        may hold what an earlier iteration read from or put into ``base``: an element of a list or
        tuple (its elements' memories and the name's become one, the list's own stays apart), or memory
        shared with an array (or an object of unknown type)."""
        for base, n, way in pairs:
            if base not in self.root or n not in self.root:
                continue
            m = self.memory(base)
            if way == "put" and self.kind[m] == NUMERIC:
                continue  # xp[:] = x into a number or array (a number has no items): x's values are copied
            if self.kind[m] == CONTAINER and self.find(self.root[n]) != m:
                token = self._merge([*self.contains.get(m, ()), self.root[n]])
                self.contains[m] = {token}
            else:
                token = self._merge([self.root[base], self.root[n]])
                self.root[base] = token
            self.root[n] = token

    def held(self, pairs):
        """At the top of a loop body: each list of ``pairs`` (list, item) may hold the item's object
        (appended by a previous iteration)."""
        for lst, item in pairs:
            if lst in self.root and item in self.root:
                self.appended(lst, item)

    # ---- in-place writes -----------------------------------------------------------------------
    def chain(self, name):
        """``name``, its parent, grandparent, ... along exact, still valid relations."""
        out = [name]
        while name in self.rel and self.valid(self.rel[name]) and self.rel[name].parent not in out:
            name = self.rel[name].parent
            out.append(name)
        return out

    def stale_item(self, name) -> bool:
        """``name = b[i]`` (integers only) of a ``b`` since rebound (``x1 = x1_stack.pop()`` in a gradient
        differentiated again): most often a number, which no write changes."""
        rel = self.rel.get(name)
        return rel is not None and rel.kind == "item" and not rel.maybe and not self.valid(rel)

    def is_tape(self, name) -> bool:
        """Whether ``name`` holds a stack of generated code, made by ``runtime.tape()``."""
        m = self.memory(name)
        return m is not None and m in self.tapes

    def param_written(self, name):
        """The parameter whose data a write into ``name`` would change, if any."""
        m = self.memory(name)
        if m is not None and self.kind[m] == PARAM:
            return self.param_of.get(m)
        return None

    def global_written(self, name) -> bool:
        m = self.memory(name)
        return m is not None and self.kind[m] == GLOBAL

    def plan(self, written, live, apart=False):
        """After a write into ``written``: [(parent, child, relation, direction)] steps, in order, that
        bring every live name sharing its memory up to date; or ("refuse", name) for a name that
        cannot be reached exactly."""
        # a tape's entries are restored before they are popped (see runtime.tape): a write into their
        # memory does not change what a pop gives, so the tape needs no update
        targets = [n for n in self.shared(written) if live(n) and not self.is_tape(n)]
        if not targets:
            return []
        up = self.chain(written)
        steps, done = [], {written}
        for y in targets:
            down = self.chain(y)
            common = next((a for a in up if a in down), None)
            if common is None and apart and self.stale_item(y):  # a number, or memory apart from
                steps.append(("apart", y, None))  # ``written``: checked when the code runs (expect_apart)
                continue
            if common is None:
                return ("refuse", y)
            for child in up[: up.index(common)]:
                if child in done and child != written or (child, "up") in done:
                    continue
                steps.append(("up", child, self.rel[child]))
                done.add((child, "up"))
            path = down[: down.index(common)]
            for child in reversed(path):
                if child in done:
                    continue
                steps.append(("down", child, self.rel[child]))
                done.add(child)
        return steps


def makes_view(index) -> bool:
    """Whether ``a[index]`` is a view of the array ``a`` whatever its rank: a slice, ``...`` or ``None``
    in the index (integers alone may read out a number instead)."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return any(
        isinstance(p, gast.Slice) or isinstance(p, gast.Constant) and (p.value is None or p.value is Ellipsis)
        for p in parts
    )


def _shareable(call, resolve) -> list:
    """The Name nodes under ``call`` whose objects its result may be: all of them but those read only
    by a nested call that makes a new value (``min(len(a), len(b))``: neither ``a`` nor ``b``)."""
    out, todo = [], [call]
    while todo:
        n = todo.pop()
        if isinstance(n, gast.Name):
            out.append(n)
        elif n is call or not (isinstance(n, gast.Call) and _numeric_call(n, resolve)):
            todo.extend(gast.iter_child_nodes(n))
    return out


def _numeric_call(value, resolve) -> bool:
    """A call that returns a number or a new NumPy array: NumPy's array makers, ``math``, s2sad's
    helpers (but ``copy_input``, which copies whatever it is given)."""
    if not isinstance(value, gast.Call):
        return False
    obj = resolve(value.func)
    if obj is None or may_share_call(value, resolve) or obj in (list, tuple, dict, set, str):
        return False
    return getattr(obj, "__name__", "") != "copy_input"


def _numpy_array_call(value, resolve) -> bool:
    """A call of a NumPy function whose arguments after the first are constants (not ``"O"``) or name
    numeric types (``np.zeros(3)``, ``np.zeros(n, float)``, ``np.arange(4, dtype=np.float32)``): its
    result is a NumPy array or scalar of numbers, so ``a[i] = v`` into it copies ``v``'s values."""
    if not isinstance(value, gast.Call):
        return False
    module = getattr(resolve(value.func), "__module__", None) or ""
    if not module.startswith("numpy"):
        return False
    return all(_numeric_dtype(a, resolve) for a in [*value.args[1:], *(k.value for k in value.keywords)])


def _numeric_dtype(arg, resolve) -> bool:
    if isinstance(arg, gast.Constant):
        if not isinstance(arg.value, str):
            return True
        try:
            return np.dtype(arg.value).kind != "O"
        except TypeError:
            return True  # order="C", not a dtype
    if isinstance(arg, (gast.Name, gast.Attribute)) and dotted(arg):
        obj = resolve(arg)
        # identity: ``in`` compares with ==, ambiguous for a global array (``np.dot(x, _B)`` at order 3)
        return any(obj is t for t in (int, float, complex, bool)) or (
            isinstance(obj, type) and issubclass(obj, np.number)
        )
    return False


def _pop(value) -> bool:
    f = value.func if isinstance(value, gast.Call) else None
    return isinstance(f, gast.Attribute) and f.attr == "pop" and isinstance(f.value, gast.Name)


def _base(subscript):
    return subscript.value.id if isinstance(subscript.value, gast.Name) else None


def _global_number(value, is_local, resolve) -> bool:
    """``np.inf``, ``math.pi``, a global ``SCALE = 2.0``: a name or attribute chain of no local that denotes a
    number (read again when the code runs: still a number, or the derivative is stale and refused)."""
    if not isinstance(value, (gast.Name, gast.Attribute)):
        return False
    if any(isinstance(n, gast.Name) and is_local(n.id) for n in walk(value)):
        return False
    if isinstance(value, gast.Attribute) and not isinstance(resolve(value.value), types.ModuleType):
        return False  # (cfg.alpha of an object: its type may change with no check; np.inf, math.pi: constants)
    obj = resolve(value)
    return type(obj) in (int, float, complex) or isinstance(obj, np.number)


def _key(index) -> bool:
    """A string constant: a dict's key (or a structured array's field, a view of it)."""
    return isinstance(index, gast.Constant) and type(index.value) is str


def _basic(index, known_ints) -> bool:
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for p in parts:
        if isinstance(p, gast.Slice):  # bounds are integers (or None): a slice always makes a view
            continue
        if isinstance(p, gast.Constant) and (p.value is None or p.value is Ellipsis or type(p.value) is int):
            continue
        if isinstance(p, gast.Name) and p.id in known_ints:
            continue
        return False
    return True


_FRESH_BUILTINS = {len, range, float, int, bool, abs, sum, complex, round, divmod, pow}  # (min, max: an argument)


def may_share_call(call, resolve) -> bool:
    """Whether the call expression ``call`` may return memory of an argument: a callee that may
    (:func:`may_share`), or any call asked not to copy (``x.astype(t, copy=False)``,
    ``np.array(x, copy=None)``: the argument itself when no conversion is needed)."""
    if any(
        k.arg == "copy" and not (isinstance(k.value, gast.Constant) and k.value.value is True) for k in call.keywords
    ):
        return True
    if isinstance(call.func, gast.Attribute) and call.func.attr in NONE_MUTATORS and resolve(call.func) is None:
        return False  # hs.append(v) used as a value: None
    return may_share(resolve(call.func))


def may_share(obj) -> bool:
    """Whether a call of ``obj`` may return memory of an argument: NumPy's view makers, user code,
    methods of local values (``obj`` is None); not arithmetic, NumPy's array makers, ``math``,
    s2sad's runtime helpers (new arrays, or generated code's own adjoints)."""
    if obj is None:
        return True
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("s2sad.runtime"):
        return False
    if module == "math" or any(obj is b for b in _FRESH_BUILTINS):  # (by identity: obj may be unhashable)
        return False
    if module.startswith("numpy") or type(obj).__name__ == "ufunc":
        return getattr(obj, "__name__", "") in _VIEWS
    return not (is_user_function(obj) and returns_new(obj) == NEW)


NEW = "new"
_RETURNS: dict = {}


def returns_new(fn) -> str | int | None:
    """``NEW`` when every value the user function ``fn`` returns is a new object (``return w * v``, or
    a local bound only to new objects: ``r = np.zeros(3); r[0] = v; return r``); ``n`` when every one
    is a tuple display of ``n`` new objects (``return bw, bv``, as generated VJPs do); else None.
    A call of it then shares memory with none of its arguments, so the caller may write into the
    result.  Conservative: a parameter, a global, a list, a call of user code, a loop or tuple target is
    not new."""
    key = (fn.__code__, id(fn.__globals__))
    if key not in _RETURNS:
        _RETURNS[key] = _returns_new(fn)
    return _RETURNS[key]


def _returns_new(fn) -> str | None:
    from .parse import parse_function  # parse reaches the rules, which reach this module

    try:
        tree = parse_function(fn).tree
    except Exception:  # no source, an edited file: nothing is known
        return None
    own = _own_nodes(tree)
    params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    params |= {a.id for a in (tree.args.vararg, tree.args.kwarg) if a is not None}
    local = params | {n.id for n in own if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}

    def resolve(func):  # through the callee's globals and builtins; user code counts as sharing
        path = dotted(func)
        root, *attrs = path.split(".") if path else [None]
        if root is None or root in local:
            return None
        obj = fn.__globals__.get(root, getattr(builtins, root, None))
        for a in attrs:
            obj = getattr(obj, a, None)
        return None if is_user_function(obj) else obj

    returned = [n.value for n in own if isinstance(n, gast.Return) and n.value is not None]
    plain = {id(n.target) for n in own if isinstance(n, gast.AugAssign)}  # ``r += v``: r's own memory
    bindings: dict = {}  # local name -> whether every binding of it is a new object
    for n in own:
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
            name = n.targets[0].id
            plain.add(id(n.targets[0]))
            bindings[name] = bindings.get(name, True) and _fresh_value(n.value, resolve)
    for n in own:
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and id(n) not in plain:
            bindings[n.id] = False  # a loop, tuple, with or walrus target
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            return None

    def new(value):
        if isinstance(value, gast.Name):
            return value.id not in params and bindings.get(value.id, False)
        return _fresh_value(value, resolve)

    if all(new(v) for v in returned):
        return NEW
    sizes = {len(v.elts) if isinstance(v, gast.Tuple) and all(new(e) for e in v.elts) else None for v in returned}
    return sizes.pop() if len(sizes) == 1 and None not in sizes else None


def _own_nodes(tree) -> list:
    """The nodes of a function's body, without those of functions and lambdas nested in it."""
    out, todo = [], list(tree.body)
    while todo:
        n = todo.pop()
        out.append(n)
        if not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            todo.extend(gast.iter_child_nodes(n))
    return out


def _returns_new_tuple(obj) -> bool:
    return is_user_function(obj) and isinstance(returns_new(obj), int)


def _outside(atom, is_local) -> bool:
    """An atom naming a value f reads but does not own: a global or closure name (``G``), an attribute
    of one (``self.w`` of a bound method, ``GO.w``)."""
    if isinstance(atom, gast.Name):
        return not is_local(atom.id)
    return isinstance(atom, gast.Attribute) and dotted(atom) is not None and not is_local(dotted(atom).split(".")[0])


def _holds_no_memory(obj) -> bool:
    """A global that is no array's memory: a class or dtype (``np.float64``), a module, a function, a
    string (``a.astype(np.float64, copy=False)`` may be ``a`` itself, never ``np.float64``)."""
    plain = (type, np.dtype, types.ModuleType, str, bytes, np.ufunc, types.FunctionType, types.BuiltinFunctionType)
    if isinstance(obj, tuple):  # (a shape: ``a.reshape(SHAPE)``)
        return all(_holds_no_memory(o) or type(o) in (int, float, bool, complex) for o in obj)
    return isinstance(obj, plain) or type(obj) in (int, float, bool, complex)


def _reads_outside_data(call, is_local, resolve) -> bool:
    """A call of NumPy or a method (not user code, whose results ``returns_new`` judges) given an array
    f does not own: as an argument (``np.asarray(G)``) or as the receiver (``G.reshape(2)``)."""
    obj = resolve(call.func)
    if is_user_function(getattr(obj, "__func__", obj)):
        return False
    args = list(call.args) + [k.value for k in call.keywords]
    if any(_outside(a, is_local) and not _holds_no_memory(resolve(a)) for a in args if not isinstance(a, gast.Starred)):
        return True
    receiver = getattr(obj, "__self__", None)
    return (
        isinstance(call.func, gast.Attribute)
        and _outside(call.func.value, is_local)
        and receiver is not None
        and not isinstance(receiver, types.ModuleType)
    )


def _user_call(call) -> bool:
    return not (isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name))


def sharing_groups(stmts, resolve=lambda f: None, arrays=frozenset(), elements=None, swaps=None) -> list[set[str]]:
    """Groups of user names that the assignments among ``stmts`` may make share memory: each
    assignment's targets with the names whose objects its value may be (``b = a``, ``v = a[1:]``,
    ``r = helper(a)``, ``lst[i] = row``, ``for row in a``); groups that meet are joined.  A write into
    one of ``arrays`` (NumPy arrays of numbers, ``a[i] = v``) copies ``v``'s values: it shares nothing.
    ``elements``: a list that receives (base, name, "get") for ``w = base[i]`` and (base, name, "put") for
    ``base[i] = w`` instead of a group: ``w`` may be an element of ``base`` (a list's, held by it) or a view
    of it (an array's).  ``swaps``: a list that receives the names of each assignment that only permutes
    them (``u, un = un, u``, double buffering) instead of a group (``Aliases.loop_top`` decides)."""
    groups: list[set[str]] = []
    for s in stmts:
        for n in walk(s):
            if isinstance(n, gast.For) and not (
                isinstance(n.iter, gast.Call) and isinstance(n.iter.func, gast.Name) and n.iter.func.id == "range"
            ):
                groups += _loop_groups(n, resolve)
            elif isinstance(n, (gast.Assign, gast.AnnAssign, gast.NamedExpr)):
                permuted = _permuted(n)
                if swaps is not None and permuted:
                    swaps.append(permuted)
                    continue
                for targets, value in _pairs(n):
                    if value is None or _fresh_value(value, resolve):
                        continue
                    if all(_written_array(t, arrays) for t in targets):
                        continue
                    item = _subscript_of_name(value)
                    while isinstance(value, gast.Subscript):  # the index is read, not shared
                        value = value.value
                    if _pop(value):  # an element of the list: held by it, not sharing its memory
                        continue
                    held, group = _held_names(value, resolve), set()
                    for t in targets:
                        if elements is not None and _subscript_of_name(t):  # a[i] = v: a holds v (or its values)
                            elements += [(_base_name(t), v, "put") for v in sorted(held)]
                            continue
                        while isinstance(t, gast.Subscript):
                            t = t.value
                        group |= _names(t)
                    if elements is not None and item:  # w = a[i]: an element of a (or a view of it)
                        elements += [(value.id, t, "get") for t in sorted(group)]
                    elif group:
                        groups.append(group | held)
    merged: list[set[str]] = []
    for g in groups:
        meets = [m for m in merged if m & g]
        for m in meets:
            merged.remove(m)
            g = g | m
        merged.append(g)
    return merged


def _permuted(stmt) -> set[str]:
    """The names ``u, un = un, u`` (any permutation of two or more distinct names) binds; else empty."""
    pairs = _pairs(stmt) if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else []
    if len(pairs) < 2 or not all(
        len(t) == 1 and isinstance(t[0], gast.Name) and isinstance(v, gast.Name) for t, v in pairs
    ):
        return set()
    targets, values = [t[0].id for t, _ in pairs], [v.id for _, v in pairs]
    if len(set(targets)) != len(targets) or set(targets) != set(values) or targets == values:
        return set()
    return set(targets)


def _subscript_of_name(node) -> bool:
    """``a[i]``, ``a[i][j]``, ...: items of the local or global named ``a``."""
    if not isinstance(node, gast.Subscript):
        return False
    while isinstance(node, gast.Subscript):
        node = node.value
    return isinstance(node, gast.Name)


def _base_name(node) -> str:
    while isinstance(node, gast.Subscript):
        node = node.value
    return node.id


def _pairs(stmt) -> list:
    """([targets], value) of an assignment: element by element for ``a, b = c, d`` (``y[0], y[1] = y[1], y[0]
    * k``: y shares nothing with k), else each target with the whole value."""
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
    value = stmt.value
    if (
        len(targets) == 1
        and isinstance(targets[0], (gast.Tuple, gast.List))
        and isinstance(value, (gast.Tuple, gast.List))
        and len(targets[0].elts) == len(value.elts)
        and not any(isinstance(e, gast.Starred) for e in [*targets[0].elts, *value.elts])
    ):
        return [([t], v) for t, v in zip(targets[0].elts, value.elts)]
    return [(targets, value)]


def kept_arrays(stmts, arrays, rebound) -> set[str]:
    """The names among ``arrays`` (NumPy arrays of numbers) that stay such arrays through a loop body
    ``stmts``: those it does not bind again (``rebound``), or binds only to another of them (``y = z``,
    as a write's update writes it)."""
    nodes = [n for s in stmts for n in walk(s)]
    copies: dict[str, set[str]] = {}
    simple = set()
    for n in nodes:
        if (
            isinstance(n, gast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], gast.Name)
            and isinstance(n.value, gast.Name)
        ):
            copies.setdefault(n.targets[0].id, set()).add(n.value.id)
            simple.add(id(n.targets[0]))
    # names bound otherwise too: a loop or tuple target, an augmented assignment, any other value
    other = {n.id for n in nodes if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and id(n) not in simple}
    keep = set(arrays)
    changed = True
    while changed:
        changed = False
        for u in sorted(keep & set(rebound)):
            if u in other or not copies.get(u, set()) <= keep:
                keep.discard(u)
                changed = True
    return keep


def _written_array(target, arrays) -> bool:
    return isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and target.value.id in arrays


def _loop_groups(loop, resolve) -> list[set[str]]:
    """What ``for target in iter`` makes share memory: each target with what it iterates over (``for r, s
    in zip(a, b)``: r with a, s with b; ``for i, row in enumerate(a)``: row with a), else all of them."""
    it, target = loop.iter, loop.target
    if isinstance(it, gast.Call) and not it.keywords and isinstance(target, gast.Tuple):
        fn = resolve(it.func)
        sources = it.args if fn is zip else it.args[:1] if fn is enumerate else None
        parts = target.elts if fn is zip else target.elts[1:]
        if sources is not None and len(parts) == len(sources) and not any(isinstance(a, gast.Starred) for a in sources):
            return [_names(p) | _names(a) for p, a in zip(parts, sources)]
    return [_names(target) | _names(it)]


def appends(stmts, resolve=lambda f: None, array_copy=lambda call: False) -> list[tuple[str, str]]:
    """(list, item) pairs for each ``lst.append(item)``, ``lst.insert(i, item)`` or ``lst.extend(items)``
    among ``stmts`` whose item may be a named object (not ``np.tanh(h)``, nor ``x.copy()`` that
    ``array_copy`` says is a new array): at the top of a loop, the list may already hold what a previous
    iteration put."""
    out = []
    for s in stmts:
        for n in walk(s):
            if (
                isinstance(n, gast.Call)
                and isinstance(n.func, gast.Attribute)
                and n.func.attr in ("append", "insert", "extend")
                and isinstance(n.func.value, gast.Name)
            ):
                for arg in n.args[-1:]:
                    while isinstance(arg, gast.Subscript):
                        arg = arg.value
                    if not _fresh_value(arg, resolve) and not (isinstance(arg, gast.Call) and array_copy(arg)):
                        out += [(n.func.value.id, a) for a in sorted(_names(arg)) if a != n.func.value.id]
    return out


def _held_names(value, resolve) -> set[str]:
    """The names whose objects ``value`` may be or hold: those it mentions, but for a call's arguments
    that are new objects themselves (``helper(s, x * i)`` may return ``s``, not ``x``), and for the
    items of a display that are (``{"w": 2 * p["w"] * x}`` holds neither ``p`` nor ``x``)."""
    if isinstance(value, (gast.Tuple, gast.List, gast.Set, gast.Dict)):
        parts = value.elts if not isinstance(value, gast.Dict) else [*filter(None, value.keys), *value.values]
        return set().union(*(_held_names(p, resolve) for p in parts if not _fresh_value(p, resolve)))
    if not isinstance(value, gast.Call):
        return _names_held(value)
    parts = [value.func, *value.args, *(k.value for k in value.keywords)]
    return set().union(*(_names_held(p) for p in parts if not _fresh_value(p, resolve)))


def _names(node) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, gast.Name)}


def _names_held(node) -> set[str]:
    """The names under ``node`` but those only read as an index (``i`` of ``model.layers[i].f``)."""
    indices = {id(n) for s in walk(node) if isinstance(s, gast.Subscript) for n in walk(s.slice)}
    return {n.id for n in walk(node) if isinstance(n, gast.Name) and id(n) not in indices}


def _fresh_value(value, resolve) -> bool:
    """An expression whose value is a new object: arithmetic, comparisons, constants, calls of
    functions that make new arrays (or new tuples of them, :func:`returns_new`)."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
        return True  # (not ``a or b``: one of its operands)
    if not isinstance(value, gast.Call):
        return False
    return not may_share_call(value, resolve) or _returns_new_tuple(resolve(value.func))


def shape_reads(node, resolve) -> set:
    """The Name nodes under ``node`` read only for their shape or dtype (``x.shape``,
    ``len(x)``, ``zeros_like(x)``, ``unbroadcast(g, x)``): an in-place write does not change those."""
    out = set()
    for n in walk(node):
        if isinstance(n, gast.Attribute) and n.attr in DATA_ATTRS and isinstance(n.value, gast.Name):
            out.add(n.value)
        elif isinstance(n, gast.Call):
            positions = _SHAPE_ARGS.get(_key(resolve(n.func)), ())
            out.update(a for i, a in enumerate(n.args) if i in positions and isinstance(a, gast.Name))
    return out


def _key(obj):
    try:
        hash(obj)
    except TypeError:
        return None
    return obj


def liveness(tree, resolve=lambda f: None) -> dict:
    """For each statement of the user's function: the user names whose values are read
    after it, in program order, including everything read by the loops around it (their next
    iteration).  Reads of a shape or dtype only do not count."""
    flat = []  # (statement, names it reads itself, enclosing loops)

    def own_reads(s):
        if isinstance(s, (gast.If, gast.While)):
            nodes = [s.test]
        elif isinstance(s, gast.For):
            nodes = [s.iter]
        else:
            nodes = [s]
        out = set()
        for node in nodes:
            shape_only = shape_reads(node, resolve)
            for n in walk(node):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n not in shape_only:
                    out.add(n.id)
                elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                    out.add(n.target.id)
        return out

    def visit(stmts, loops):
        for s in stmts:
            flat.append((s, own_reads(s), loops))
            for fld in ("body", "orelse"):
                sub = getattr(s, fld, None)
                if isinstance(sub, list) and not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                    visit(sub, loops + ((s,) if isinstance(s, (gast.For, gast.While)) else ()))

    visit(tree.body, ())
    loop_reads = {}
    for s, r, loops in flat:
        for lp in loops:
            loop_reads.setdefault(lp, set()).update(r)
        if isinstance(s, (gast.For, gast.While)):
            loop_reads.setdefault(s, set()).update(r)
    out = {}
    after: set[str] = set()
    for s, r, loops in reversed(flat):
        live = set(after)
        for lp in loops:
            live |= loop_reads[lp]
        out[s] = live
        after |= r
    return out


_SIMPLE = (gast.Expr, gast.Pass, gast.Raise, gast.Assert)


class _Unfollowed(Exception):
    pass


def value_liveness(tree, resolve=lambda f: None, partial_reads=True) -> dict | None:
    """For each statement of the user's function: the names whose *values* some path after it reads
    before it binds them again or writes over all of their elements (``x[...] = v``).  A write into
    part of a name (``x[i] = v``) passes its liveness through: a name whose memory is only written
    into later need not be brought up to date by a write into memory it shares.  Reads of a shape or
    dtype do not count.  None for a function with statements it does not follow (``try``, ``with``,
    nested definitions, ``global``).  ``partial_reads``: a write into part of a name reads the rest (the
    user's code; derivative code differentiated again writes into its own tapes' and adjoints' memory)."""
    after: dict = {}

    def reads_of(node):
        shape_only = shape_reads(node, resolve)
        names = (n for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))
        return {n.id for n in names if n not in shape_only}

    def assigned(t, live):
        """The names live before a value is assigned to ``t``, given those live after."""
        if isinstance(t, gast.Name):
            return live - {t.id}
        if isinstance(t, (gast.Tuple, gast.List)):
            for e in reversed(t.elts):
                live = assigned(e, live)
            return live
        if isinstance(t, gast.Starred):
            return assigned(t.value, live)
        if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
            everything = isinstance(t.slice, gast.Constant) and t.slice.value is Ellipsis
            if everything:
                return (live - {t.value.id}) | reads_of(t.slice)
            # x[i] = v keeps x's other elements: x's value is read where a name sharing its memory is read
            # later (b = a; b[0] = v; a[3] = w; return b: a must hold b's write, in the derivative too)
            kept = {t.value.id} if partial_reads and live else set()
            return live | kept | reads_of(t.slice)
        return live | reads_of(t)  # x[i][j] = v, x.a = v: x is read

    def block(stmts, live, loop):
        for s in reversed(stmts):
            after[s] = after.get(s, set()) | live
            live = statement(s, live, loop)
        return live

    def statement(s, live, loop):
        if isinstance(s, gast.Assign):
            for t in s.targets:
                live = assigned(t, live)
            return live | reads_of(s.value)
        if isinstance(s, gast.AnnAssign) and s.value is not None:
            return assigned(s.target, live) | reads_of(s.value)
        if isinstance(s, gast.AugAssign):
            return live | reads_of(s) | {n.id for n in walk(s.target) if isinstance(n, gast.Name)}
        if isinstance(s, gast.Return):
            return reads_of(s.value) if s.value is not None else set()
        if isinstance(s, _SIMPLE):
            return live | reads_of(s)
        if isinstance(s, gast.Break):
            return set(loop[0])
        if isinstance(s, gast.Continue):
            return set(loop[1])
        if isinstance(s, gast.If):
            return reads_of(s.test) | block(s.body, live, loop) | block(s.orelse, live, loop)
        if isinstance(s, (gast.For, gast.While)):
            exit_ = block(s.orelse, live, loop)
            head = set(exit_)
            while True:  # what the next iteration (or the exit) reads, to a fixed point
                body = block(s.body, head, (live, head))
                new = exit_ | (assigned(s.target, body) if isinstance(s, gast.For) else body | reads_of(s.test))
                if new <= head:
                    break
                head |= new
            return head | reads_of(s.iter) if isinstance(s, gast.For) else head
        raise _Unfollowed(type(s).__name__)

    try:
        block(tree.body, set(), (set(), set()))
    except _Unfollowed:
        return None
    return after
