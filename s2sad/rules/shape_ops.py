"""Operations that only move elements: transpose, reshape, ravel, squeeze, expand_dims,
concatenate, stack.  All are linear; each adjoint moves the elements back."""

import builtins
import operator

import numpy as np

from ..runtime import unconcatenate, unstack, untranspose  # noqa: F401  (names used in templates)
from .registry import forward_rule, reverse_rule

# fmt: off


@reverse_rule(np.transpose)
def transpose(y, a, axes=None):
    ba += untranspose(by, axes)


@forward_rule(np.transpose)
def transpose(y, a, axes=None):
    dy = np.transpose(da, axes)


@reverse_rule(np.reshape)
def reshape(y, a, shape):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.reshape)
def reshape(y, a, shape):
    dy = np.reshape(da, shape)


@reverse_rule(np.ravel)
def ravel(y, a):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.ravel)
def ravel(y, a):
    dy = np.ravel(da)


@reverse_rule(np.squeeze)
def squeeze(y, a, axis=None):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.squeeze)
def squeeze(y, a, axis=None):
    dy = np.squeeze(da, axis)


@reverse_rule(np.expand_dims)
def expand_dims(y, a, axis):
    ba += np.reshape(by, np.shape(a))


@forward_rule(np.expand_dims)
def expand_dims(y, a, axis):
    dy = np.expand_dims(da, axis)


@reverse_rule(np.concatenate)
def concatenate(y, arrays, axis=0):
    barrays += unconcatenate(by, arrays, axis)


@forward_rule(np.concatenate)
def concatenate(y, arrays, axis=0):
    dy = np.concatenate(darrays, axis)


@reverse_rule(np.stack)
def stack(y, arrays, axis=0):
    barrays += unstack(by, axis)


@forward_rule(np.stack)
def stack(y, arrays, axis=0):
    dy = np.stack(darrays, axis)


# ---- indexing ----------------------------------------------------------------------------


@reverse_rule(operator.getitem)
def getitem(y, x, index):
    bx[index] += by


@forward_rule(operator.getitem)
def getitem(y, x, index):
    dy = dx[index]


# ---- copies and conversions: the identity on values ----------------------------------------


@reverse_rule(np.copy)
def copy(y, a):
    ba += by


@forward_rule(np.copy)
def copy(y, a):
    dy = np.copy(da)


@reverse_rule(builtins.float)
def to_float(y, x=0.0):
    bx += by


@forward_rule(builtins.float)
def to_float(y, x=0.0):
    dy = float(dx)
