"""Rules for the runtime helpers that the linear algebra rules call (``s2sad/runtime/linalg.py``), so
that derivatives of ``solve``, ``cholesky``, ``eigh``, ``det`` ... can be differentiated again, to any
order.  Each rule is written like the math in the helper's docstring; a helper's rules call only
primitives and helpers that have rules themselves."""

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import as_columns, eigenvalue_adjoint, eigenvector_adjoint, from_columns, gap_weighted, unbroadcast  # noqa: F401  (names used in templates)
from .registry import forward_rule, reverse_rule

# fmt: off
# ---- as_columns / from_columns: a trailing axis added or dropped; each the other's transpose ------


@forward_rule(runtime.as_columns, name="s2sad.runtime.as_columns")
def as_columns_(z, v, b):
    dz = as_columns(dv, b)


@reverse_rule(runtime.as_columns, name="s2sad.runtime.as_columns")
def as_columns_(z, v, b):
    bv += from_columns(bz, b)


@forward_rule(runtime.from_columns, name="s2sad.runtime.from_columns")
def from_columns_(z, v, b):
    dz = from_columns(dv, b)


@reverse_rule(runtime.from_columns, name="s2sad.runtime.from_columns")
def from_columns_(z, v, b):
    bv += as_columns(bz, b)


# ---- z = F * m, F[i, j] = 1 / (w[j] - w[i]) off the diagonal:  dF = -F² (dw[j] - dw[i]) --------------


@forward_rule(runtime.gap_weighted, name="s2sad.runtime.gap_weighted")
def gap_weighted_(z, w, m):
    dz = gap_weighted(w, dm) - gap_weighted(w, gap_weighted(w, m * (np.expand_dims(dw, -2) - np.expand_dims(dw, -1))))


@reverse_rule(runtime.gap_weighted, name="s2sad.runtime.gap_weighted")
def gap_weighted_(z, w, m):
    bm += unbroadcast(gap_weighted(w, bz), m)
    f2 = gap_weighted(w, gap_weighted(w, m * bz))
    bw += unbroadcast(np.sum(f2, axis=-1) - np.sum(f2, axis=-2), w)


# ---- checks that pass the adjoint through (or raise): linear, their own rules ------------------------


@forward_rule(runtime.eigenvector_adjoint, name="s2sad.runtime.eigenvector_adjoint")
def eigenvector_adjoint_(z, g, v):
    dz = eigenvector_adjoint(dg, v)


@reverse_rule(runtime.eigenvector_adjoint, name="s2sad.runtime.eigenvector_adjoint")
def eigenvector_adjoint_(z, g, v):
    bg += eigenvector_adjoint(bz, v)


@forward_rule(runtime.eigenvalue_adjoint, name="s2sad.runtime.eigenvalue_adjoint")
def eigenvalue_adjoint_(z, g, w):
    dz = eigenvalue_adjoint(dg, w)


@reverse_rule(runtime.eigenvalue_adjoint, name="s2sad.runtime.eigenvalue_adjoint")
def eigenvalue_adjoint_(z, g, w):
    bg += eigenvalue_adjoint(bz, w)


# ---- c = cofactor(a) = det(a) a⁻ᵀ:  dc = tr(a⁻¹ da) c - a⁻ᵀ daᵀ c  (where a is invertible) ------------


@forward_rule(runtime.cofactor, name="s2sad.runtime.cofactor")
def cofactor_(c, a):
    ai = invertible(a)
    dc = np.expand_dims(np.trace(np.linalg.solve(ai, da), axis1=-2, axis2=-1), (-2, -1)) * c - np.linalg.solve(mT(ai), mT(da) @ c)


@reverse_rule(runtime.cofactor, name="s2sad.runtime.cofactor")
def cofactor_(c, a):
    ainv = np.linalg.inv(invertible(a))
    ba += np.expand_dims(np.sum(bc * c, axis=(-2, -1)), (-2, -1)) * mT(ainv) - c @ mT(bc) @ mT(ainv)


# invertible(a) is a with a check: the identity
@forward_rule(runtime.invertible, name="s2sad.runtime.invertible")
def invertible_(z, a, what=None):
    dz = da


@reverse_rule(runtime.invertible, name="s2sad.runtime.invertible")
def invertible_(z, a, what=None):
    ba += bz


@forward_rule(runtime.real_matrix, name="s2sad.runtime.real_matrix")
def real_matrix_(z, a, what=None):
    dz = da


@reverse_rule(runtime.real_matrix, name="s2sad.runtime.real_matrix")
def real_matrix_(z, a, what=None):
    ba += bz
