"""dtypes: which arrays are known to hold integers or bools, and which are known to be float or complex.

Takes a :class:`~s2sad.program.Program`'s records (before it is complete: ``Program`` calls
:func:`array_kinds` once its records are built); gives two sets of names, ``integral`` (every value the
name is bound to is an integer or bool array: ``np.arange(3)``, ``np.array([1, 2])``, ``np.full(4, 1)``,
``np.zeros(n, dtype=bool)``) and ``inexact`` (every value is float or complex: ``np.zeros(n)``,
``x * 1.0``, ``np.copy`` of such an array).  A name in neither may hold either; its dtype is checked at
run time where a differentiated value is written into it (``stored`` in runtime/core.py).

As in JAX, an integer or bool value carries no derivative: writing a differentiated value into such an
array truncates it (derivative 0), and a NumPy function given an integer or bool ``dtype=`` returns a
constant (``integral_dtype``, used by ``primitives.classify``).
"""

from __future__ import annotations

import functools
import inspect
import operator

import gast
import numpy as np

from . import primitives as P
from .resolve import MISSING, among

_CREATE = {np.zeros, np.ones, np.empty, np.eye, np.identity, np.linspace, np.logspace}
_LIKE = {np.zeros_like, np.ones_like, np.empty_like, np.copy, np.array, np.asarray, np.ascontiguousarray}
_ARITH = {operator.add, operator.sub, operator.mul, operator.pow, operator.neg, operator.pos, operator.getitem}


def _dtype_kind(node, ns) -> str | None:
    """The kind letter (``"f"``, ``"i"``, ``"b"``, ...) of the dtype a ``dtype=`` expression names, when
    it is known when code is generated."""
    obj = node.value if isinstance(node, gast.Constant) else ns.lookup(node)
    if obj is MISSING or obj is None:
        return None
    try:
        return np.dtype(obj).kind
    except TypeError:
        return None


_C_DTYPE_POSITIONS = {
    "array": 1,
    "asarray": 1,
    "asanyarray": 1,
    "ascontiguousarray": 1,
    "asfortranarray": 1,
    "zeros": 1,
    "empty": 1,
    "ones": 1,
    "empty_like": 1,
    "zeros_like": 1,
    "ones_like": 1,
    "identity": 1,
    "full": 2,
    "full_like": 2,
}


def _is_numpy(fn) -> bool:
    return (getattr(fn, "__module__", None) or "").startswith("numpy")


@functools.cache
def _dtype_position(fn) -> int | None:
    """Where ``fn``'s signature takes ``dtype`` positionally (``np.zeros(3, int)``), or None."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a C function without a signature (NumPy < 2.3): as NumPy documents it
        return _C_DTYPE_POSITIONS.get(getattr(fn, "__name__", None)) if _is_numpy(fn) else None
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY, p.VAR_KEYWORD):
            return None
        if p.name == "dtype":
            return i
    return None


def dtype_arg(fn, args, keywords):
    """The expression a call of ``fn`` gives as its dtype, by keyword or by position (``np.zeros(3, int)``,
    ``np.array(v, int)``, ``np.full_like(a, 1, int)``), or None."""
    if "dtype" in keywords:
        return keywords["dtype"]
    try:
        i = _dtype_position(fn)
    except TypeError:  # an unhashable callable
        return None
    if i is None or len(args) <= i or any(isinstance(a, gast.Starred) for a in args[: i + 1]):
        return None
    return args[i]


def dtype_unknown(node, ns) -> bool:
    """Whether the dtype expression ``node`` is computed in f (``dtype=a.dtype``): not known when code is
    generated, so neither a constant integer dtype nor a float one."""
    return (
        node is not None
        and not (isinstance(node, gast.Constant) and node.value is None)
        and _dtype_kind(node, ns) is None
    )


def integral_dtype(node, ns) -> bool:
    """Whether the ``dtype=`` expression ``node`` names an integer or bool dtype."""
    return node is not None and _dtype_kind(node, ns) in ("b", "i", "u")


def object_dtype(node, ns) -> bool:
    """Whether the ``dtype=`` expression ``node`` names NumPy's ``object`` dtype (an array of Python objects)."""
    return node is not None and _dtype_kind(node, ns) == "O"


def object_arrays(records, ns) -> set[str]:
    """The names some binding of which is a NumPy array of ``dtype=object`` (``np.zeros(2, dtype=object)``):
    a differentiated value written into one is refused (its items may be arrays, rows, anything)."""
    out: set[str] = set()
    binds = [r for r in records if r.op is not None and r.kind != P.SETITEM and len(r.targets) == 1]
    while True:  # also the names a copy binds to one (``b = a``: the same array)
        new = {
            r.targets[0]
            for r in binds
            if r.op.kind == P.COPY
            and isinstance(r.op.args[0], gast.Name)
            and r.op.args[0].id in out
            or _is_numpy(r.op.fn)
            and object_dtype(dtype_arg(r.op.fn, r.op.args, r.op.keywords or {}), ns)
        }
        if new <= out:
            return out
        out |= new


def _ufunc_gives_inexact(fn) -> bool:
    """A NumPy ufunc whose result is float or complex even for integer operands (``np.sin``, ``/``)."""
    if fn is operator.truediv:
        return True
    if not isinstance(fn, np.ufunc) or fn.nout != 1:
        return False
    try:
        with np.errstate(all="ignore"):  # (np.arctanh(1) divides by zero: s2sad's probe must not warn)
            return fn(*[np.ones(1, dtype=int)] * fn.nin).dtype.kind in "fc"
    except (TypeError, ValueError):
        return False


def array_kinds(records, ns, params=()) -> tuple[set[str], set[str]]:
    """(integral, inexact): the names every binding of which is an integer/bool array, or a float/complex one.
    A parameter's value at entry is a binding of no known kind (``u = np.copy(u)`` in a branch does not make
    ``u`` known)."""
    defs: dict[str, list] = {}
    for rec in records:
        if rec.kind in ("if", "while"):
            continue
        for t in rec.targets if rec.kind != P.SETITEM else ():
            defs.setdefault(t, []).append(rec)
    integral = _fixpoint(defs, ns, "integral", set(params))
    inexact = _fixpoint(defs, ns, "inexact", set(params))
    return integral, inexact


def _fixpoint(defs, ns, which, params) -> set[str]:
    known = {n for n, rs in defs.items() if all(r.op is not None and len(r.targets) == 1 for r in rs)} - params
    while True:  # drop names one of whose bindings is not known to be of the kind: a greatest fixpoint
        keep = {n for n in known if all(_kind_of(r.op, ns, known, which) for r in defs[n])}
        if keep == known:
            return known
        known = keep


def _atom_is(atom, known, which) -> bool:
    if isinstance(atom, gast.Name):
        return atom.id in known
    if isinstance(atom, gast.Constant):
        v = atom.value
        if which == "integral":
            return isinstance(v, (bool, int))
        return isinstance(v, (float, complex))
    return False


def _kind_of(op, ns, known, which) -> bool:
    """Whether the value ``op`` computes is known to be an ``integral`` (or ``inexact``) array."""
    fn, args, kw = op.fn, op.args, op.keywords
    if op.kind == P.COPY:
        return _atom_is(args[0], known, which)
    if op.kind == P.BUILD and which == "integral" and op.keys is None and op.fn is None:
        return bool(args) and all(_atom_is(a, known, which) for a in args)
    dtype = dtype_arg(fn, args, kw)
    if dtype is not None:
        kind = _dtype_kind(dtype, ns)
        if among(fn, _CREATE | _LIKE | {np.full, np.full_like, np.arange}) or integral_dtype(dtype, ns):
            return kind is not None and (kind in "biu" if which == "integral" else kind in "fc")
    if among(fn, _CREATE):
        return which == "inexact"
    if fn is np.full and len(args) >= 2:
        return _atom_is(args[1], known, which)
    if among(fn, _LIKE) or fn is np.full_like:
        return bool(args) and _atom_is(args[0], known, which)
    if which == "inexact" and _ufunc_gives_inexact(fn):
        return True
    if (among(fn, _ARITH) or fn is np.arange) and args:
        operands = args[:1] if fn is operator.getitem else args
        if which == "integral":
            return all(_atom_is(a, known, which) for a in operands)
        return any(_atom_is(a, known, which) for a in operands)
    return False
