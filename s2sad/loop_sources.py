"""loop_sources: what a ``for`` loop iterates, for :mod:`anf`.

Takes a loop's iterable as the user wrote it (a list, a dict or one of its views, ``zip``, ``enumerate``'s
sources, ``itertools.pairwise``, a set, an iterator, a user function's result, a list of objects of a known
class) and gives what the single-assignment loop indexes: ``range(n)`` and, per loop target, the sequence
and how an item is read from it (``seq[i]``, a dict's value at its ``i``-th key, ``list(it)`` where
iterating is not indexing). Loops over objects of different classes are written out item by item
(``unrolled``), so that each method call is typed.  A mixin of ``anf._ANF``: it uses the pass's
``atom``, ``emit``, ``load`` and ``error``.
"""

from __future__ import annotations

import builtins
import itertools

import gast
import numpy as np

from . import runtime
from .ir import copy_tree, is_dict_view, walk
from .naming import Role, assign, const, name
from .primitives import is_user_class, is_user_function
from .resolve import MISSING, dotted
from .star import SAFE_KEY


def _copy(node):
    return copy_tree(node)


def _len(seq):
    return gast.Call(func=name("len"), args=[seq], keywords=[])


# methods that change how many items a list, dict or set holds
_RESIZE = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "popitem", "update", "setdefault", "add", "discard"}
)


_ITERATORS = (map, filter, reversed, iter)  # builtins giving an iterator, not a sequence


def _leaves_early(loop) -> bool:
    """Whether a ``break`` or ``return`` in the loop may stop it before it takes every item."""
    return any(isinstance(n, (gast.Break, gast.Return)) for n in walk(loop))


def _iterated(it) -> list:
    """The names a loop's iterable iterates: ``xs`` of ``xs``, ``enumerate(xs)``, ``zip(xs, ys)``,
    ``reversed(xs)``, ``pairwise(xs)``, ``d.items()``."""
    if isinstance(it, gast.Name):
        return [it]
    if is_dict_view(it):
        return _iterated(it.func.value)
    if isinstance(it, gast.Call) and dotted(it.func) in (
        "enumerate",
        "zip",
        "reversed",
        "pairwise",
        "itertools.pairwise",
    ):
        return [n for a in it.args for n in _iterated(a)]
    return []  # list(xs), sorted(xs), xs[:]: a copy, which the loop does not change


def resizes(body, seq: str):
    """The first node of ``body`` that changes how many items ``seq`` holds (``seq.append(v)``,
    ``seq += [v]``, ``del seq[i]``), or None."""
    for s in body:
        for n in walk(s):
            if (
                isinstance(n, gast.Call)
                and isinstance(n.func, gast.Attribute)
                and n.func.attr in _RESIZE
                and isinstance(n.func.value, gast.Name)
                and n.func.value.id == seq
            ):
                return n
            if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) and n.target.id == seq:
                return n
            if isinstance(n, gast.Delete) and any(
                isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and t.value.id == seq
                for t in n.targets
            ):
                return n
    return None


def _appends(n, locals_) -> bool:
    """``ys.append(v)`` of a local name ``ys``."""
    return (
        isinstance(n, gast.Call)
        and isinstance(n.func, gast.Attribute)
        and n.func.attr == "append"
        and isinstance(n.func.value, gast.Name)
        and n.func.value.id in locals_
    )


class LoopSources:
    """The loop-source methods of ``anf._ANF``."""

    def refuse_resized(self, node):
        """``for v in hs`` whose body grows or shrinks ``hs``: Python's loop reads the items appended
        while it runs (a dict's raises), a loop over ``range(len(hs))`` would not: refused."""
        for seq in _iterated(node.iter):
            where = resizes(node.body, seq.id)
            if where is not None:
                raise self.error(
                    where,
                    f"the loop over '{seq.id}' (line {node.lineno}) changes how many items '{seq.id}' holds while "
                    "it iterates over it, which s2sad cannot differentiate; iterate over a copy "
                    f"(for v in list({seq.id})) or over range(n) with an explicit bound",
                )

    def unrolled(self, node) -> bool:
        """``for layer in model.layers`` over a list or tuple of objects of different classes (:mod:`star`):
        written out, ``layer = model.layers[0]``, then the body, and so on, so each call is typed."""
        from .star import typed_object

        it, view = node.iter, None
        if is_dict_view(it):
            it, view = it.func.value, it.func.attr  # for block in model.blocks.values()
        path = self.typed_path(it)
        types = self.ns.fn.__s2sad_types__ if path is not None else None
        seq = None if types is None else typed_object(self.ns.fn, path)
        if type(seq) is dict:
            return self.unrolled_dict(node, it, view, path, types, seq)
        if view is not None:
            return False
        if not isinstance(seq, (list, tuple)) or seq and types.items_alike(path):
            return False  # (items alike: one loop body serves every item)
        if seq and any(isinstance(n, (gast.Break, gast.Continue, gast.Return)) for n in walk(node)) or len(seq) > 64:
            return False  # (no items: the body never runs)
        types.length(path)
        for k in range(len(seq)):
            item = gast.Subscript(value=_copy(node.iter), slice=const(k), ctx=gast.Load())
            first = gast.copy_location(gast.Assign(targets=[_copy(node.target)], value=item, type_comment=None), node)
            self.stmts([first, *(_copy(s) for s in node.body)])
        return True

    def unrolled_dict(self, node, it, view, path, types, d) -> bool:
        """``for k in model.blocks`` (``.keys()``, ``.values()``, ``.items()``) over a dict of a known
        object: written out key by key (``k = 'a'``, the body with ``model.blocks[k]`` read as
        ``model.blocks['a']``), so each call is typed; the derivative is for those keys."""
        if any(isinstance(n, (gast.Break, gast.Continue, gast.Return)) for n in walk(node)) or len(d) > 64:
            return False
        if not all(isinstance(k, str) and SAFE_KEY.fullmatch(k) for k in d):
            return False
        types.keys(path)
        stored = {
            n.id for s in node.body for n in walk(s) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
        }
        for key in d:
            item = gast.Subscript(value=_copy(it), slice=const(key), ctx=gast.Load())
            value = {None: const(key), "keys": const(key), "values": item}.get(view)
            if view == "items":
                value = gast.Tuple(elts=[const(key), item], ctx=gast.Load())
            first = gast.copy_location(gast.Assign(targets=[_copy(node.target)], value=value, type_comment=None), node)
            body = [_copy(s) for s in node.body]
            keys = {n.id for n in walk(node.target) if isinstance(n, gast.Name)} - stored
            if view in (None, "keys", "items"):
                for n in (n for s in body for n in walk(s)):  # model.blocks[k]: model.blocks['a']
                    if isinstance(n, gast.Subscript) and isinstance(n.slice, gast.Name) and n.slice.id in keys:
                        if view != "items" or n.slice.id == getattr(node.target.elts[0], "id", None):
                            n.slice = const(key)
            self.stmts([first, *body])
        return True

    def listed(self, it, loop) -> bool:
        """Whether ``for v in it`` must index ``list(it)``: what iterating ``it`` gives is not what
        indexing it by position gives, or may not be (a dict's keys, a set's elements, an iterator's
        items: a dict or set display, a global or an attribute that is not an array, ``itertools``,
        ``set(...)``, ``d.keys()`` of a global dict, a local bound to one of these), or whose type is known
        only at run time (a user function's result, an attribute of a parameter of no known class) and
        the loop only reads (``list(it)`` holds its items, not the memory a write would change)."""
        if isinstance(it, gast.Call):
            fn = self.ns.lookup(it.func)
            endless = fn in (itertools.count, itertools.cycle) or fn is itertools.repeat and len(it.args) < 2
            if endless and not any(k.arg == "times" for k in it.keywords):
                raise self.error(
                    it, f"iterating over the endless {dotted(it.func)}(...) is not supported; use range or a while loop"
                )
            if is_user_function(fn):  # its result's type is known only at run time
                return self.reads_only(loop)
            if is_user_class(fn):  # an object f builds: iterated by its own __iter__ (a comprehension's too)
                return self.reads_only(loop, appends=True)
        if isinstance(it, gast.Name) and it.id in self.ns.locals:  # d = ORDER, d = make(x): for k in d
            kind = self.unindexed.get(self.load(it).id)
            if kind == "object":
                return self.reads_only(loop, appends=True)
            if kind == "iterator":  # m = map(...): its items, listed, are what the loop takes if it takes them all
                exits = _leaves_early(loop)
                if exits or self.loads[it.id] > 1:
                    raise self.error(
                        it,
                        f"a loop over the iterator `{it.id}` that f also reads elsewhere or leaves early (break, "
                        f"return) is not supported: iterate over a list (`{it.id} = list(...)`)",
                    )
                return True
            return kind == "not" or kind == "maybe" and self.reads_only(loop)
        if isinstance(it, gast.Attribute) and dotted(it) is not None and self.typed_path(it) is None:
            root = dotted(it).split(".")[0]
            if root in self.ns.locals:  # an attribute of a parameter of no known class
                return root in self.params and self.reads_only(loop)
        return self.not_indexed(it)

    def not_indexed(self, it) -> bool:
        """Whether ``it`` may be a value whose items are not ``it[0], it[1], ...`` (see ``listed``); a
        user function's result, whose type is known only at run time, may be."""
        if isinstance(it, (gast.Dict, gast.Set, gast.DictComp, gast.SetComp, gast.GeneratorExp)):
            return True
        if isinstance(it, gast.Call):
            fn = self.ns.lookup(it.func)
            owner = getattr(fn, "__self__", None)
            return (
                fn in (set, frozenset, dict, zip, enumerate, *_ITERATORS)  # (m = map(...): an iterator)
                or getattr(fn, "__module__", None) == "itertools"
                or isinstance(owner, (dict, set, frozenset))
                or is_user_function(fn)
                or is_user_class(fn)
            )
        if isinstance(it, gast.Name) and it.id not in self.ns.locals:
            value = self.ns.user_value(it.id)
            return value is not MISSING and not isinstance(value, (np.ndarray, list, tuple, range, str))
        if isinstance(it, gast.Attribute) and dotted(it) is not None:
            root = dotted(it).split(".")[0]
            path = self.typed_path(it)
            if root not in self.ns.locals:
                value = self.ns.lookup(it)
            elif path is not None:
                from .star import typed_object

                value = typed_object(self.ns.fn, path)
            else:
                return False
            return value is not MISSING and not isinstance(value, (np.ndarray, list, tuple, range, str))
        return False

    def may_be_a_dict(self, it, loop) -> bool:
        """``for k in d`` over a parameter ``d`` or its attribute (its type is known only at run time)
        whose body writes into nothing, or over a dict attribute of an object of a known class."""
        from .star import typed_object

        if self.ns.lookup_name("list") is not builtins.list:
            return False
        path = self.typed_path(it)
        if path is not None and type(typed_object(self.ns.fn, path)) is dict:
            self.ns.fn.__s2sad_types__.get(path)  # (recorded: the derivative is for a dict there)
            return True  # for k in model.blocks: its keys, which no write changes
        root = it
        while isinstance(root, gast.Attribute):  # for k in model.params: the object's dict, or a list
            root = root.value
        if not (isinstance(root, gast.Name) and root.id in self.params and self.load(root).id == root.id):
            return False
        return self.reads_only(loop)

    def reads_only(self, loop, appends=False) -> bool:
        """The loop writes into nothing and calls no method or local function (``list(d)`` holds d's
        items, not the memory a write would change); ``appends``: but for ``ys.append(v)`` into a local
        list (a comprehension's loop), which changes no item."""
        if self.ns.lookup_name("list") is not builtins.list:
            return False
        for n in walk(loop):
            if appends and _appends(n, self.ns.locals) and self.env.get(n.func.value.id) not in self.unindexed:
                continue  # (not st.append(v) of an object: its own method, which may change what it iterates)
            if (
                isinstance(n, gast.AugAssign)
                or isinstance(n, (gast.Subscript, gast.Attribute))
                and not isinstance(n.ctx, gast.Load)
            ):
                return False
            if (
                isinstance(n, gast.Call)
                and isinstance(n.func, gast.Attribute)
                and dotted(n.func) is None
                or (isinstance(n, gast.Call) and dotted(n.func) and dotted(n.func).split(".")[0] in self.ns.locals)
            ):
                return False
        return True

    def dict_view(self, it):
        """``d.items()``, ``d.keys()``, ``d.values()`` of a local value: (the dict's atom, which); else None."""
        if is_dict_view(it) and isinstance(it.func.value, gast.Name) and it.func.value.id in self.ns.locals:
            return self.load(it.func.value), it.func.attr
        return None

    def iterates_keys(self, it, loop) -> bool:
        """``for k in d`` over a dict: ``d`` is a dict f built, or the loop reads ``d[k]``."""
        if not isinstance(it, gast.Name) or it.id not in self.ns.locals:
            return False
        if self.load(it).id in self.dicts:
            return True
        key = loop.target.id if isinstance(loop.target, gast.Name) else None
        return key is not None and any(
            isinstance(n, gast.Subscript)
            and isinstance(n.value, gast.Name)
            and n.value.id == it.id
            and isinstance(n.slice, gast.Name)
            and n.slice.id == key
            for s in loop.body
            for n in walk(s)
        )

    def sequence(self, it, target, node):
        """What ``for target in it`` binds, as ``range(n)`` and (item target, sequence, how) triples
        indexed by the loop's counter: zip's sequences side by side (n is the shortest length), a dict's
        keys (``for k in d``, ``d.keys()``), its items or its values (``d[k]`` for each key)."""
        call = dotted(it.func) if isinstance(it, gast.Call) else None
        if (
            call
            and self.ns.lookup(it.func) is zip
            and isinstance(target, gast.Tuple)
            and len(target.elts) == len(it.args)
            and all(k.arg == "strict" for k in it.keywords)
        ):
            parts = [self.sequence(a, t, node) for t, a in zip(target.elts, it.args)]
            n = self.names.temp()
            lengths = [rng.args[0] for rng, _ in parts]
            if it.keywords:  # zip(..., strict=s): zip_length raises as zip does
                self.ns.scope.setdefault("zip_length", runtime.zip_length)
                strict = [gast.keyword(arg="strict", value=self.atom(it.keywords[0].value))]
                self.emit(assign(n, gast.Call(func=name("zip_length"), args=lengths, keywords=strict)), node)
            elif len(lengths) == 1:  # zip(a): as long as a (min of one length is not a call)
                self.emit(assign(n, lengths[0]), node)
            else:
                self.emit(assign(n, gast.Call(func=name("min"), args=lengths, keywords=[])), node)
            return gast.Call(func=name("range"), args=[name(n)], keywords=[]), [i for _, items in parts for i in items]
        view = self.dict_view(it)
        if view is not None or self.iterates_keys(it, node):
            d, which = view if view is not None else (self.load(it), "keys")
            self.ns.scope.setdefault("keys_of", runtime.keys_of)
            keys = self.atom_of(gast.Call(func=name("keys_of"), args=[d], keywords=[]), node)
            if which == "keys":
                items = [(target, keys, None)]
            elif which == "values":
                items = [(target, keys, ("value", d))]
            elif isinstance(target, gast.Tuple) and len(target.elts) == 2:
                items = [(target.elts[0], keys, None), (target.elts[1], keys, ("value", d))]
            else:
                raise self.error(it, "iterate over d.items() as `for key, value in d.items()`")
            return self.len_range(keys), items
        if call and len(it.args) == 1 and not it.keywords and not isinstance(it.args[0], gast.Starred):
            fn = self.ns.lookup(it.func)
            if fn is iter:  # zip(iter(xs), ys): the items of xs
                return self.sequence(it.args[0], target, node)
            if fn is reversed and not self.is_a_dict(it.args[0], node) and not self.own_order(it.args[0]):
                # zip(reversed(xs), ys): xs[::-1]
                backwards = gast.Slice(lower=None, upper=None, step=const(-1))
                it = gast.Subscript(value=it.args[0], slice=backwards, ctx=gast.Load())
        iterator = isinstance(it, gast.Call) and call and any(self.ns.lookup(it.func) is f for f in _ITERATORS)
        if isinstance(it, gast.GeneratorExp) or iterator:
            it = gast.Call(func=name("list"), args=[it], keywords=[])  # an iterator: its items, listed
        seq = self.atom(it)
        param = isinstance(it, gast.Name) and it.id in self.params
        if self.listed(it, node) or param and self.unindexed.get(seq.id) is None and self.reads_only(node):
            # (a parameter read by a loop that writes nothing: its items, whatever it is, an iterator too)
            self.guard_iterator(it, node)
            seq = self.atom_of(gast.Call(func=name("list"), args=[seq], keywords=[]), node)
        elif (
            isinstance(seq, gast.Name)
            and (
                self.unindexed.get(seq.id) in ("maybe", "object") or isinstance(it, gast.Name) and it.id in self.params
            )
            or self.user_result(it)
        ):  # for row in a: row += v over a parameter (a dict's keys would be read as a[0], a[1], ...)
            self.ns.scope.setdefault("expect_indexed", runtime.expect_indexed)  # a loop writing in place
            self.emit(gast.Expr(value=gast.Call(func=name("expect_indexed"), args=[seq], keywords=[])), node)
        return self.len_range(seq), [(target, seq, None)]

    def own_order(self, it) -> bool:
        """Whether ``it`` may be an object whose ``reversed(it)`` is its own (``__reversed__``, or
        ``__iter__`` not indexing): listed as ``list(reversed(it))``, as Python reads it."""
        if isinstance(it, gast.Name) and it.id in self.ns.locals:
            return self.unindexed.get(self.load(it).id) is not None
        return self.not_indexed(it)

    def guard_iterator(self, it, loop):
        """Before ``list(p)`` of a parameter ``p`` that the loop may leave early (break, return) or that f
        reads elsewhere: ``expect_reiterable(p, ...)``, as an iterator's items, listed all at once, would not
        be those the loop and the other reads take."""
        if not (isinstance(it, gast.Name) and it.id in self.params):
            return
        exits = _leaves_early(loop)
        if exits or self.loads[it.id] > 1:
            self.ns.scope.setdefault("expect_reiterable", runtime.expect_reiterable)
            why = "leaves early" if exits else "reads it elsewhere too"
            message = f"`{it.id}`, which a loop iterates and f {why},"
            check = gast.Call(func=name("expect_reiterable"), args=[self.load(it), const(message)], keywords=[])
            self.emit(gast.Expr(value=check), loop)

    def is_a_dict(self, it, node) -> bool:
        """Whether ``it`` is a dict or one of its views (its items are not ``it[0], it[1], ...``)."""
        if self.dict_view(it) is not None or self.iterates_keys(it, node):
            return True
        return isinstance(it, gast.Name) and it.id in self.ns.locals and self.load(it).id in self.dicts

    def pairwise_loop(self, node, it, target):
        """``for a, b in itertools.pairwise(xs)``: ``for a, b in zip(xs, xs[1:])`` (xs evaluated once), over
        ``list(xs)`` where iterating xs is not indexing it (a dict's keys, a view, a set, an iterator)."""
        if len(it.args) != 1 or it.keywords or isinstance(it.args[0], gast.Starred):
            raise self.error(it, "itertools.pairwise takes one iterable: pairwise(xs)")
        if not (isinstance(target, gast.Tuple) and len(target.elts) == 2):
            raise self.error(it, "iterate over itertools.pairwise as `for a, b in pairwise(xs)`")
        xs = it.args[0]
        local_dict = isinstance(xs, gast.Name) and xs.id in self.ns.locals and self.load(xs).id in self.dicts
        seq = self.atom(xs)
        if is_dict_view(xs) or local_dict or self.may_be_a_dict(xs, node) or self.listed(xs, node):
            seq = self.atom_of(gast.Call(func=name("list"), args=[seq], keywords=[]), node)
        elif isinstance(seq, gast.Name) and (
            self.unindexed.get(seq.id) in ("maybe", "object") or isinstance(xs, gast.Name) and xs.id in self.params
        ):
            self.ns.scope.setdefault("expect_indexed", runtime.expect_indexed)  # (a dict would be sliced)
            self.emit(gast.Expr(value=gast.Call(func=name("expect_indexed"), args=[seq], keywords=[])), node)
        rest = gast.Subscript(value=seq, slice=gast.Slice(lower=const(1), upper=None, step=None), ctx=gast.Load())
        rest = self.atom_of(rest, node)
        k = name(self.names.fresh("k", Role.FLAG), gast.Store())
        self.loop(node, self.len_range(rest), k, [(target.elts[0], seq, None), (target.elts[1], rest, None)])

    def user_result(self, it) -> bool:
        """A user function's result or an object of a user class ``it`` builds: its type is known at run time."""
        return isinstance(it, gast.Call) and (
            is_user_function(self.ns.lookup(it.func)) or is_user_class(self.ns.lookup(it.func))
        )

    def len_range(self, seq):
        return gast.Call(func=name("range"), args=[_len(seq)], keywords=[])
