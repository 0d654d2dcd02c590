"""shapes: a symbolic shape for every variable, to know where adjoints must be unbroadcast.

Takes ANF code and the namespace; gives ``shape[name]``: a frozenset of *symbols* whose broadcast
is the variable's shape (the empty set is a scalar), or None when unknown.  Each parameter is a
symbol; an elementwise result is the union of its inputs' symbols; a full reduction or a ``math``
function is a scalar; a ``keepdims=True`` reduction of ``x`` is a symbol of its own that is known to
broadcast into ``x``'s shape, so ``x - np.max(x, axis=1, keepdims=True)`` has ``x``'s shape.
Arguments of ``math`` functions are scalars, and so is everything that was broadcast into a scalar,
so plain float code is proved scalar and needs no ``unbroadcast``.

A value f reads but does not compute (a global ``A``, ``A.T``, ``self.X`` of a bound method, a module's
``cfg.scale``) has an unknown shape, whatever it held when the code was generated (it may be rebound):
only a number constant of NumPy, ``math`` or ``cmath`` (``np.pi``, ``math.e``) is a scalar.
"""

from __future__ import annotations

import cmath
import math

import gast
import numpy as np

from . import runtime
from .ir import walk_stmts
from .primitives import BUILD, COPY, GETITEM, NONDIFF, RULE
from .resolve import MISSING, dotted
from .rules.registry import ELEMENTWISE, REDUCTION, SCALAR

_CONSTANT_MODULES = (math, cmath, np)


class Shapes:
    def __init__(self, ns=None):
        self.ns = ns  # the function's namespace: what a module constant such as ``np.pi`` is
        self.of: dict[str, frozenset | None] = {}
        self.scalar_symbols: set[str] = set()
        self.shape_tuples: set[str] = set()  # names holding an array's .shape
        self.local: set[str] = set()  # the names f assigns (not its parameters)
        # r -> the shape of x, for r = np.max(x, axis=..., keepdims=True): r broadcasts into x, so
        # broadcasting r with x's symbols adds nothing (z = x - r has x's shape)
        self.fits: dict[str, frozenset] = {}

    def get(self, atom) -> frozenset | None:
        if isinstance(atom, gast.Constant):
            return frozenset() if isinstance(atom.value, (int, float, complex, bool)) else None
        if isinstance(atom, gast.Name):
            s = self.of.get(atom.id)
            return None if s is None else self._fold(frozenset(s - self.scalar_symbols))
        if isinstance(atom, gast.Attribute) and self._module_number(atom):
            return frozenset()
        return None  # A.T, self.X, cfg.scale: a value read, not computed, of any shape

    def _module_number(self, atom) -> bool:
        """``np.pi``, ``math.e``: a number constant of NumPy, ``math`` or ``cmath`` (never rebound)."""
        path = dotted(atom)
        if self.ns is None or path is None or path.count(".") != 1:
            return False
        root, attr = path.split(".")
        module = self.ns.lookup_name(root)
        if not any(module is m for m in _CONSTANT_MODULES):
            return False
        value = getattr(module, attr, MISSING)
        return type(value) in (int, float, complex)

    def _fold(self, s: frozenset) -> frozenset:
        if not self.fits or not any(r in self.fits for r in s):
            return s
        return frozenset(r for r in s if not (r in self.fits and self.fits[r] <= s - {r}))

    def broadcast(self, atoms) -> frozenset | None:
        """The shape of an elementwise result of ``atoms`` (None if any is unknown)."""
        parts = [self.get(a) for a in atoms]
        return None if any(p is None for p in parts) else self._fold(frozenset().union(*parts))

    def same(self, a, b) -> bool:
        sa, sb = self.get(a), self.get(b)
        return sa is not None and sa == sb

    def is_scalar(self, atom) -> bool:
        return self.get(atom) == frozenset()


def infer_shapes(program, assume_scalar=()) -> Shapes:
    """``assume_scalar``: names known to be scalars at run time (grad's output, which it checks)."""
    tree = program.tree
    shapes = Shapes(program.ns)
    for a in tree.args.args + tree.args.kwonlyargs:
        shapes.of[a.id] = frozenset([a.id])
    for loop in walk_stmts(tree.body):
        if isinstance(loop, gast.For):
            shapes.of[loop.target.id] = frozenset()  # loops run over range(...): integer indices
    defs: dict[str, list] = {}
    stmts = [s for s in walk_stmts(tree.body) if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)]
    shapes.local = {s.targets[0].id for s in stmts} - tree_params(tree)
    shapes.shape_tuples = {
        s.targets[0].id for s in stmts if _local_attribute(s.value, "shape", shapes) or program.op(s).fn is np.shape
    }
    bound = {}
    for s in stmts:
        bound[s.targets[0].id] = bound.get(s.targets[0].id, 0) + 1
    # a symbol is proved scalar only by a statement that always runs: one inside an if or a loop may not
    # (``if isinstance(X, np.ndarray): return np.sum(X * w)`` / ``return np.tanh(w * X)``: w * X is a
    # scalar only where the second return runs)
    always = _always_run(tree.body)
    last = {s.targets[0].id: s for s in stmts}  # the assignment that gives each name its final value
    for _ in range(8):
        before = (dict(shapes.of), set(shapes.scalar_symbols), dict(shapes.fits))
        final: dict[str, frozenset | None] = {}
        for stmt in stmts:
            op = program.op(stmt)
            out = stmt.targets[0].id
            value = _value_shape(op, shapes)
            if value is None and op.kind != BUILD:
                value = frozenset([out])  # unknown, but the same wherever this value flows
                inner = shapes.get(op.args[0]) if op.args else None
                if _keeps_dims(op) and bound[out] == 1 and out not in tree_params(tree) and inner is not None:
                    shapes.fits[out] = inner
            if op.kind == RULE and op.rule.kind == SCALAR and id(stmt) in always:
                for a in op.args:
                    shapes.scalar_symbols |= shapes.get(a) or set()
            defs.setdefault(out, [])
            if value not in defs[out]:
                defs[out].append(value)
            if stmt is last[out]:
                final[out] = value
            if len(defs[out]) == 1 and out not in shapes.of or shapes.of.get(out) == value:
                shapes.of[out] = value
            elif out not in tree_params(tree):
                # several definitions: one shape if they agree up to the variable itself (s = s + t)
                # several definitions: one shape if they all agree (leaving out the variable itself, as in
                # s = s + t), else a symbol of its own: a loop may change it (a scalar becoming an array)
                parts = {None if d is None else d - {out} - shapes.scalar_symbols for d in defs[out]}
                shapes.of[out] = parts.pop() if len(parts) == 1 and None not in parts else frozenset([out])
        # a variable known scalar at the end makes the value of its last assignment scalar, when that
        # assignment always runs (so it gave the final value; an earlier one or one in an if may not have)
        for out, v in final.items():
            if v and id(last[out]) in always and (out in assume_scalar or _scalar_name(shapes, out)):
                shapes.scalar_symbols |= v
        if (shapes.of, shapes.scalar_symbols, shapes.fits) == before:
            break
    for n in assume_scalar:
        shapes.of[n] = frozenset()
    return shapes


def _scalar_name(shapes, out) -> bool:
    return shapes.get(gast.Name(id=out, ctx=gast.Load(), annotation=None, type_comment=None)) == frozenset()


def _always_run(body) -> set:
    """The ids of the statements of ``body`` that run whenever its branch does: its own, and those of the
    loops in it, not those in an ``if`` (whose branches often handle different types: ``isinstance``).
    A loop may run zero times, but a fact proved in it (``math.sin(y)``: y is a number) can only matter
    to a call where it does not run if f is also called with arrays there, which its loop forbids."""
    out = set()
    for s in body:
        out.add(id(s))
        if isinstance(s, (gast.For, gast.While)):
            out |= _always_run(s.body)
    return out


def _keeps_dims(op) -> bool:
    """A reduction with ``keepdims=True``: its result broadcasts back into its input."""
    keep = op.keywords.get("keepdims") if op.kind == RULE and op.rule.kind == REDUCTION else None
    return isinstance(keep, gast.Constant) and keep.value is True


def _local_attribute(value, attrs, shapes) -> bool:
    """``x.shape`` of a value f computes (an array's, when it is an array); not that of a parameter (an
    object argument's ``p.size`` may be any attribute so named) nor ``P.shape`` or ``self.size`` read
    from a global or bound object.  (A parameter's ``x.size`` is then an unknown shape: ``x / x.size``
    gets an ``unbroadcast`` it does not need, never a wrong one.)"""
    return (
        isinstance(value, gast.Attribute)
        and value.attr in attrs
        and isinstance(value.value, gast.Name)
        and value.value.id in shapes.local
    )


def tree_params(tree):
    return {a.id for a in tree.args.args + tree.args.kwonlyargs}


def _value_shape(op, shapes: Shapes):
    value = getattr(op.stmt, "value", None)
    if _local_attribute(value, ("ndim", "size"), shapes):
        return frozenset()  # integers
    if isinstance(value, gast.Call) and op.fn in (len, np.ndim, np.size):
        return frozenset()
    if (
        op.kind == RULE
        and op.rule.name == "operator.getitem"
        and isinstance(op.args[0], gast.Name)
        and op.args[0].id in shapes.shape_tuples
        and isinstance(op.args[1], gast.Constant)
    ):
        return frozenset()  # X.shape[0]: an integer
    if op.kind == COPY or op.kind == RULE and op.fn is runtime.cast_into:
        return shapes.get(op.args[-1])  # (cast_into(a, v): v, cast to a's dtype)
    if op.kind in (BUILD, GETITEM, NONDIFF):
        return None
    if op.kind == RULE:
        kind = op.rule.kind
        if kind == SCALAR:
            return frozenset()
        if kind == ELEMENTWISE:
            parts = [shapes.get(a) for a in op.args]
            if any(p is None for p in parts):
                return None
            return frozenset().union(*parts)
        if kind == REDUCTION:
            axis = op.keywords.get("axis", op.args[1] if len(op.args) > 1 else None)
            keep = op.keywords.get("keepdims")
            no_axis = axis is None or isinstance(axis, gast.Constant) and axis.value is None
            no_keep = keep is None or isinstance(keep, gast.Constant) and not keep.value
            return frozenset() if no_axis and no_keep else None
    return None
