"""program: the intermediate representation the analyses and both modes share.

Takes the ANF ``FunctionDef`` (after ``anf`` and primal CSE) with its namespace, location and names;
gives a :class:`Program`: one :class:`Record` per statement, built once, in source order.  A record
holds what every pass used to recompute for itself: the primitive the statement applies (its
:class:`~s2sad.primitives.Op`: kind, rule, operands bound as atoms), the names it binds, the names whose
values flow into it, the names it may change in place, the user's line and column, and the loops around
it.  Facts that depend on a derivative request (which names are active, their symbolic shapes) are
computed from the records by ``activity`` and ``shapes`` for that request.

Records are found from their statement (``program[stmt]``): a table keyed by the statement object
itself, so a statement another pass made (a recomputation, a checkpointed loop) is never mistaken for
one of these.  gast nodes stay the representation of expressions, at the edges (templates, codegen).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import gast

from . import primitives as P
from .dtypes import array_kinds, object_arrays
from .foreign import constant_value, foreign, foreign_class
from .ir import changed, targets, value_reads
from .naming import Names, Role


@dataclass(eq=False)
class Record:
    stmt: gast.stmt
    kind: str  # an Op kind for a simple statement; "if", "for" or "while" for a compound one
    op: P.Op | None  # the primitive applied (simple statements)
    targets: tuple[str, ...]  # names the statement binds (``x[i] = v`` binds x: it writes into it)
    reads: tuple[str, ...]  # names whose values flow into what it assigns
    changes: frozenset[str]  # names it binds or may change in place
    line: int | None
    col: int | None
    loops: tuple[gast.stmt, ...]  # the loops around it, outermost first
    checkpointed: bool = False  # a ``for ... in s2sad.checkpoint(...)`` loop
    every: object = None  # its ``every=`` (an atom; None: about the square root of its length)


class Program:
    def __init__(self, tree: gast.FunctionDef, ns, loc, names: Names, facts):
        self.tree, self.ns, self.loc, self.names = tree, ns, loc, names
        self.shares: dict[str, set[str]] = facts.shares  # names that may share memory with each name
        self.writable: set[str] = facts.writable  # written in place with every alias kept up to date
        self.params = [a.id for a in tree.args.args + tree.args.kwonlyargs]
        for p in self.params:
            names.take(p, Role.PRIMAL)
        self.records: dict[gast.stmt, Record] = {}
        self.foreign: dict[str, str] = {}  # names bound to an object whose operators are its class's own
        self.holders: dict[str, str] = {}  # names bound to a list, tuple or dict display holding one
        self._build(tree.body, ())
        for loop, every in facts.checkpoints.items():
            self.records[loop].checkpointed, self.records[loop].every = True, every
        # arrays known to hold integers or bools (writes into them store no derivative), or floats
        self.integral, self.inexact = array_kinds(self.records.values(), ns, self.params)
        self.object_arrays = object_arrays(self.records.values(), ns)  # np.zeros(2, dtype=object)
        self.output = tree.body[-1].value.id  # ANF ends with ``return <name>``
        # names bound to a list or tuple display somewhere: ``+`` and ``*`` on them concatenate/repeat
        self.sequences = {
            r.targets[0]
            for r in self.records.values()
            if r.kind == P.BUILD and isinstance(r.stmt.value, (gast.List, gast.Tuple)) and len(r.targets) == 1
        }

    def object_array_write(self, op, active: bool) -> str | None:
        """Why the write ``a[i] = v`` of a differentiated ``v`` into an array of ``dtype=object`` cannot be
        differentiated, or None."""
        array = op.args[0]
        if not active or array.id not in self.object_arrays:
            return None
        return (
            f"writing a differentiated value into '{array.id}', an array of dtype=object, is not supported (its "
            "items may be arrays of any shape); keep the items in a list, or stack them (np.stack(rows))"
        )

    def sequence_arithmetic(self, op) -> str | None:
        """Why ``op`` (``+`` or ``*`` with a list or tuple operand: concatenation, repetition) cannot be
        differentiated, or None: the arithmetic rules take their operands for numbers and arrays."""
        if op.kind != P.RULE or op.fn not in (operator.add, operator.mul):
            return None
        if not any(isinstance(a, gast.Name) and a.id in self.sequences for a in op.args):
            return None
        what = "concatenating" if op.fn is operator.add else "repeating"
        return (
            f"{what} lists or tuples of differentiated values ({'+' if op.fn is operator.add else '*'}) is not "
            "supported; build the list with append, a comprehension or one display"
        )

    def _build(self, body, loops):
        for stmt in body:
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                kind = type(stmt).__name__.lower()
                self.records[stmt] = self._record(stmt, kind, None, loops)
                inner = loops + (stmt,) if kind != "if" else loops
                self._build(stmt.body, inner)
                self._build(stmt.orelse, inner)
            elif isinstance(stmt, (gast.Assign, gast.Expr)):
                op = self._unless_foreign(stmt, P.classify(stmt, self.ns))
                self.records[stmt] = self._record(stmt, op.kind, op, loops)

    def _foreign(self, atom) -> str:
        """Why the value of ``atom`` (a local name, a global or closure value, an attribute of one) has
        operators or methods of its own class (``foreign.foreign``), or ``""``."""
        if isinstance(atom, gast.Name) and atom.id in self.foreign:
            return self.foreign[atom.id]
        value = constant_value(atom, self.ns)
        why = foreign(value)
        if not why and isinstance(atom, gast.Name) and value is not None:  # rebound later to one: stale
            self.ns.operands.add(atom.id)
        return why

    def _unless_foreign(self, stmt, op):
        """``op``, or a refusal (OPAQUE) when a rule would take an operand's own operators for NumPy's
        (``x * S`` with ``S.__rmul__``, ``N(x) + N(x)`` of a NamedTuple with ``__add__``, ``A @ x`` of a
        scipy.sparse ``A``, ``M * x`` of an ``np.matrix``); notes the names bound to such objects."""
        named = isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
        target = stmt.targets[0].id if named else None
        if target is not None:
            why = self._foreign(op.args[0]) if op.kind == P.COPY else ""
            if not why and isinstance(stmt.value, gast.Call):  # N(x) of a class with its own operators
                cls = constant_value(stmt.value.func, self.ns)
                why = foreign_class(cls) if isinstance(cls, type) else ""
            if not why and isinstance(stmt.value, (gast.List, gast.Tuple, gast.Dict)):  # [S]: holds one
                held = next((w for w in map(self._foreign, op.args) if w), "")
                if held:
                    self.holders[target] = held
            arg = op.args[0] if op.args else None
            if not why and op.fn is operator.getitem and isinstance(arg, gast.Name) and arg.id in self.holders:
                why = self.holders[arg.id]  # [S][0]: an item of a display holding one
            if why:
                self.foreign[target] = why
        if op.kind not in (P.RULE, P.CALL) or op.fn is getattr:
            return op
        for a in [*op.args, *op.keywords.values()]:
            why = self._foreign(a)
            if why.startswith("an object of class") and op.fn is operator.getitem and "__getitem__" not in why:
                continue  # N(x)[0] of a NamedTuple with its own + : indexing is still the tuple's
            if why and op.kind == P.CALL:  # (the helper's code takes its parameters for numbers and arrays)
                refusal = (
                    f"{op.what} is given {why}, whose operators s2sad's rules would take for NumPy's and "
                    "Python's own; pass its fields, or write the operation out in f"
                )
            elif why:
                refusal = (
                    f"{op.what} of {why}: s2sad's rule is for NumPy's and Python's own operation, not this "
                    "value's; write the operation out in f (a function s2sad reads), use np.asarray(...) "
                    "or wrap the value in s2sad.stop_gradient where it needs no derivative"
                )
            else:
                continue
            return P.Op(P.OPAQUE, stmt, args=op.args, keywords=op.keywords, what=op.what, refusal=refusal)
        return op

    @staticmethod
    def _record(stmt, kind, op, loops) -> Record:
        return Record(
            stmt=stmt,
            kind=kind,
            op=op,
            targets=tuple(targets(stmt)),
            reads=tuple(value_reads(stmt)),
            changes=frozenset(changed([stmt])) if kind not in ("if", "for", "while") else frozenset(),
            line=getattr(stmt, "lineno", None),
            col=getattr(stmt, "col_offset", None),
            loops=loops,
        )

    def __getitem__(self, stmt) -> Record:
        return self.records[stmt]

    def op(self, stmt) -> P.Op:
        """The primitive a simple statement of this program applies."""
        return self.records[stmt].op

    def simple(self):
        """The records of the simple statements, in source order."""
        return (r for r in self.records.values() if r.op is not None)

    def role(self, name: str) -> Role:
        return self.names.role(name)
