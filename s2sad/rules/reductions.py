"""Reductions over all elements or along ``axis`` (with ``keepdims``)."""

import builtins

import numpy as np

from ..runtime import unextremum, unprod, unreduce, unsum_items  # noqa: F401  (names used in templates)
from .registry import REDUCTION, forward_rule, reverse_rule

# fmt: off


@reverse_rule(np.sum, kind=REDUCTION)
def sum(y, a, axis=None, keepdims=False):
    ba += unreduce(by, a, axis, keepdims)


@forward_rule(np.sum, kind=REDUCTION)
def sum(y, a, axis=None, keepdims=False):
    dy = np.sum(da, axis=axis, keepdims=keepdims)


@reverse_rule(np.mean, kind=REDUCTION)
def mean(y, a, axis=None, keepdims=False):
    ba += unreduce(by, a, axis, keepdims) * (np.size(y) / np.size(a))


@forward_rule(np.mean, kind=REDUCTION)
def mean(y, a, axis=None, keepdims=False):
    dy = np.mean(da, axis=axis, keepdims=keepdims)


@reverse_rule(np.prod, kind=REDUCTION)
def prod(y, a, axis=None, keepdims=False):
    ba += unprod(by, a, y, axis, keepdims)


@forward_rule(np.prod, kind=REDUCTION)
def prod(y, a, axis=None, keepdims=False):
    dy = np.sum(unprod(1.0, a, y, axis, keepdims) * da, axis=axis, keepdims=keepdims)


@reverse_rule(np.max, np.amax, kind=REDUCTION)
def max(y, a, axis=None, keepdims=False):
    ba += unextremum(by, a, y, axis, keepdims)


@forward_rule(np.max, np.amax, kind=REDUCTION)
def max(y, a, axis=None, keepdims=False):
    dy = np.sum(unextremum(1.0, a, y, axis, keepdims) * da, axis=axis, keepdims=keepdims)


@reverse_rule(np.min, np.amin, kind=REDUCTION)
def min(y, a, axis=None, keepdims=False):
    ba += unextremum(by, a, y, axis, keepdims)


@forward_rule(np.min, np.amin, kind=REDUCTION)
def min(y, a, axis=None, keepdims=False):
    dy = np.sum(unextremum(1.0, a, y, axis, keepdims) * da, axis=axis, keepdims=keepdims)


@reverse_rule(np.var, kind=REDUCTION)
def var(y, a, axis=None, ddof=0, keepdims=False):
    ba += unreduce(by, a, axis, keepdims) * 2 * (a - np.mean(a, axis=axis, keepdims=True)) / (np.size(a) / np.size(y) - ddof)


@forward_rule(np.var, kind=REDUCTION)
def var(y, a, axis=None, ddof=0, keepdims=False):
    dy = np.sum(da * (a - np.mean(a, axis=axis, keepdims=True)), axis=axis, keepdims=keepdims) * 2 / (np.size(a) / np.size(y) - ddof)


@reverse_rule(np.std, kind=REDUCTION)
def std(y, a, axis=None, ddof=0, keepdims=False):
    ba += unreduce(by / y, a, axis, keepdims) * (a - np.mean(a, axis=axis, keepdims=True)) / (np.size(a) / np.size(y) - ddof)


@forward_rule(np.std, kind=REDUCTION)
def std(y, a, axis=None, ddof=0, keepdims=False):
    dy = np.sum(da * (a - np.mean(a, axis=axis, keepdims=True)), axis=axis, keepdims=keepdims) / (y * (np.size(a) / np.size(y) - ddof))


@reverse_rule(builtins.sum)
def sum(y, iterable, start=0):
    biterable += unsum_items(by, iterable)
    bstart += by


@forward_rule(builtins.sum)
def sum(y, iterable, start=0):
    dy = builtins.sum(diterable) + dstart
