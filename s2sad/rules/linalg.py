"""Products and linear algebra: dot, outer, inner, trace, norm."""

import numpy as np

from ..runtime import undot_x, undot_y, unnorm  # noqa: F401  (names used in templates)
from .registry import REDUCTION, forward_rule, reverse_rule

# fmt: off


@reverse_rule(np.dot)
def dot(z, a, b):
    ba += undot_x(bz, a, b)
    bb += undot_y(bz, a, b)


@forward_rule(np.dot)
def dot(z, a, b):
    dz = np.dot(da, b) + np.dot(a, db)


@reverse_rule(np.outer)
def outer(z, a, b):
    ba += np.reshape(bz @ np.ravel(b), np.shape(a))
    bb += np.reshape(np.ravel(a) @ bz, np.shape(b))


@forward_rule(np.outer)
def outer(z, a, b):
    dz = np.outer(da, b) + np.outer(a, db)


@reverse_rule(np.inner)
def inner(z, a, b):
    ba += np.tensordot(bz, b, axes=(list(range(np.ndim(a) - 1, np.ndim(bz))), list(range(np.ndim(b) - 1))))
    bb += np.tensordot(bz, a, axes=(list(range(np.ndim(a) - 1)), list(range(np.ndim(a) - 1))))


@forward_rule(np.inner)
def inner(z, a, b):
    dz = np.inner(da, b) + np.inner(a, db)


@reverse_rule(np.trace)
def trace(y, a):
    ba += np.eye(np.shape(a)[0], np.shape(a)[1]) * by


@forward_rule(np.trace)
def trace(y, a):
    dy = np.trace(da)


@reverse_rule(np.linalg.norm, kind=REDUCTION)
def norm(y, x, ord=None, axis=None, keepdims=False):
    bx += unnorm(by, x, y, axis, keepdims)


@forward_rule(np.linalg.norm, kind=REDUCTION)
def norm(y, x, ord=None, axis=None, keepdims=False):
    dy = np.sum(unnorm(1.0, x, y, axis, keepdims) * dx, axis=axis, keepdims=keepdims)
