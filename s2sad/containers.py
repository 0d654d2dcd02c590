"""containers: which names of ANF code may hold a container (a list, tuple, dict, NamedTuple or
dataclass) rather than a number or an array.

Takes ANF code and the namespace; gives a set of names.  Their adjoints are added with
``tree_add`` (part by part) instead of ``+``.  A parameter may be a container when the function
reads items or attributes of it, unpacks it or passes it to a function of its own; a
local name when it is built as a display, read out of a container, returned by a user function or by a
primitive that gives a tuple or list (``np.split``, ``np.linalg.svd``, svd's helpers), or copied from such
a name.  Everything else is a number or an array (arithmetic and NumPy give those).
"""

from __future__ import annotations

import operator

import gast
import numpy as np

from . import primitives as P


def may_be_containers(program) -> set[str]:
    from . import runtime as R

    params = set(program.params)
    makers = [operator.getitem, getattr, list, dict, R.set_item, R.add_item, R.item_of, R.unset_item]
    makers += [R.set_tangent, R.copy_dict, R.tree_add, R.add_seq, R.unsum_items, R.unstack, R.unconcatenate]
    # helpers whose result is a container when their argument at this position is one
    like = {R.zeros_like: 0, R.add_at: 0, R.own: 0, R.astype_of: 1, R.scatter: 1, R.copy_input: 0}
    # primitives and helpers that may give a tuple or list of arrays, whose result code may pass on whole
    # (``np.concatenate(np.split(x, 2))``; derivative code: ``svd_factors(np.linalg.svd(a), ...)``): their
    # adjoints are added part by part (``+`` would join two lists into a longer one)
    sequences = [np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.atleast_1d, np.atleast_2d]
    sequences += [np.atleast_3d, np.gradient, np.linalg.svd, np.linalg.eig, np.linalg.eigh, np.linalg.slogdet]
    sequences += [np.linalg.qr, np.linalg.lstsq]
    sequences += [
        R.svd_factors,
        R.svd_seed,
        R.svd_unseed,
        R.result_like,
        R.pick,
        R.unpacked_adjoint,
        R.unpacked_tangent,
    ]
    out: set[str] = set()
    copies: list[tuple[str, str]] = []
    for rec in program.simple():
        s, op = rec.stmt, rec.op
        if isinstance(s, gast.Expr):
            continue
        target = s.targets[0]
        if op.kind == P.UNPACK:
            out |= {e.id for e in target.elts if isinstance(e, gast.Name)}
            out |= {a.id for a in op.args if isinstance(a, gast.Name)}
        elif op.kind == P.SETITEM:
            out.add(target.value.id)
        elif not isinstance(target, gast.Name):
            continue
        elif op.kind in (P.BUILD, P.UNKNOWN, P.OPAQUE):
            out.add(target.id)
        elif op.kind == P.CALL:
            out.add(target.id)
            out |= {a.id for a in [*op.args, *op.keywords.values()] if isinstance(a, gast.Name) and a.id in params}
        elif op.kind == P.COPY and isinstance(op.args[0], gast.Name):
            copies.append((op.args[0].id, target.id))
        elif op.kind in (P.RULE, P.NONDIFF) and any(op.fn is m for m in sequences):
            out.add(target.id)
        elif op.kind in (P.RULE, P.NONDIFF) and any(op.fn is m for m in makers):
            out.add(target.id)
            if op.args and isinstance(op.args[0], gast.Name):
                out.add(op.args[0].id)
        elif op.kind in (P.RULE, P.NONDIFF) and any(op.fn is f for f in like):
            k = next(k for f, k in like.items() if op.fn is f)
            if len(op.args) > k and isinstance(op.args[k], gast.Name):
                copies.append((op.args[k].id, target.id))
    changed = True
    while changed:
        changed = False
        for src, dst in copies:  # a copy of a container is one, and what is copied into one is one
            for a, b in ((src, dst), (dst, src)):
                if a in out and b not in out:
                    out.add(b)
                    changed = True
    return out
