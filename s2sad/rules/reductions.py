"""Reductions over all elements or along ``axis`` (with ``keepdims``)."""

import builtins

import numpy as np

from ..runtime import (  # noqa: F401  (names used in templates)
    axes_back,
    axes_last,
    cumprod_tangent,
    match_complex,
    median_weights,
    others_product,
    over_std,
    spread_weights,
    unbroadcast,
    uncumprod,
    unextremum,
    unreduce,
    unspread_weights,
    unsum_items,
)
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
    ba += unreduce(by, a, axis, keepdims) * (np.size(y) / max(np.size(a), 1))


@forward_rule(np.mean, kind=REDUCTION)
def mean(y, a, axis=None, keepdims=False):
    dy = np.mean(da, axis=axis, keepdims=keepdims)


# the middle element of each sorted lane (the mean of the two middle ones for an even count): y = Σ w a near a,
# w = median_weights(a, axis) constant there (ties in np.sort's stable order, as sort's rule takes them);
# out= and overwrite_input= (which partitions a in place) are not in the template: refused
@reverse_rule(np.median, kind=REDUCTION)
def median(y, a, axis=None, *, keepdims=False):
    ba += match_complex(unreduce(by, a, axis, keepdims) * median_weights(a, axis), a)


@forward_rule(np.median, kind=REDUCTION)
def median(y, a, axis=None, *, keepdims=False):
    dy = np.sum(median_weights(a, axis) * da, axis=axis, keepdims=keepdims)


# dy = sum(p * da), p[i] the product of the other factors of a in its reduction, exact with zeros
@reverse_rule(np.prod, kind=REDUCTION)
def prod(y, a, axis=None, keepdims=False):
    ba += unreduce(by, a, axis, keepdims) * axes_back(others_product(axes_last(a, axis)), a, axis)


@forward_rule(np.prod, kind=REDUCTION)
def prod(y, a, axis=None, keepdims=False):
    dy = np.sum(axes_back(others_product(axes_last(a, axis)), a, axis) * da, axis=axis, keepdims=keepdims)


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
    ba += unreduce(np.real(by), a, axis, keepdims) * 2 * np.conj(a - np.mean(a, axis=axis, keepdims=True)) / (np.size(a) / np.size(y) - ddof)


@forward_rule(np.var, kind=REDUCTION)
def var(y, a, axis=None, ddof=0, keepdims=False):
    dy = np.real(np.sum(da * np.conj(a - np.mean(a, axis=axis, keepdims=True)), axis=axis, keepdims=keepdims)) * 2 / (np.size(a) / np.size(y) - ddof)


@reverse_rule(np.std, kind=REDUCTION)
def std(y, a, axis=None, ddof=0, keepdims=False):
    ba += unreduce(over_std(by, y, np.size(a) / np.size(y)), a, axis, keepdims) * np.conj(a - np.mean(a, axis=axis, keepdims=True)) / (np.size(a) / np.size(y) - ddof)


@forward_rule(np.std, kind=REDUCTION)
def std(y, a, axis=None, ddof=0, keepdims=False):
    dy = over_std(np.sum(da * np.conj(a - np.mean(a, axis=axis, keepdims=True)), axis=axis, keepdims=keepdims), y, np.size(a) / np.size(y)) / (np.size(a) / np.size(y) - ddof)


@reverse_rule(builtins.sum)
def sum(y, iterable, start=0):
    biterable += unsum_items(by, iterable)
    bstart += unbroadcast(by, start)


@forward_rule(builtins.sum)
def sum(y, iterable, start=0):
    dy = builtins.sum(diterable) + dstart


@reverse_rule(np.nansum, kind=REDUCTION)
def nansum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    """NaN entries count as constant zeros."""
    ba += unreduce(by, a, axis, keepdims) * ~np.isnan(a)


@forward_rule(np.nansum, kind=REDUCTION)
def nansum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    dy = np.sum(np.where(np.isnan(a), 0.0, da), axis=axis, keepdims=keepdims)


@reverse_rule(np.nanmean, kind=REDUCTION)
def nanmean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    """The mean of the entries that are not NaN; NaN entries get no derivative."""
    ba += unreduce(by / np.sum(~np.isnan(a), axis=axis, keepdims=keepdims), a, axis, keepdims) * ~np.isnan(a)


@forward_rule(np.nanmean, kind=REDUCTION)
def nanmean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    dy = np.nanmean(np.where(np.isnan(a), np.nan, da), axis=axis, keepdims=keepdims)


@reverse_rule(np.average, kind=REDUCTION)
def average(y, a, axis=None, weights=None, *, keepdims=False):
    """sum(w a) / sum(w); ``returned=True`` (a tuple) is not differentiated."""
    w = spread_weights(a, weights, axis)
    ba += match_complex(unreduce(by, a, axis, keepdims) * w / np.sum(w, axis=axis, keepdims=True), a)
    bweights += unspread_weights(unreduce(by, a, axis, keepdims) * (a - unreduce(y, a, axis, keepdims)) / np.sum(w, axis=axis, keepdims=True), a, weights, axis)


@forward_rule(np.average, kind=REDUCTION)
def average(y, a, axis=None, weights=None, *, keepdims=False):
    w = spread_weights(a, weights, axis)
    dy = (np.sum(da * w, axis=axis, keepdims=keepdims) + np.sum(spread_weights(a, dweights, axis) * (a - unreduce(y, a, axis, keepdims)), axis=axis, keepdims=keepdims)) / np.sum(w, axis=axis, keepdims=keepdims)


# ---- cumulative: same shape as the input (flattened when axis is None) ----------------------


@reverse_rule(np.cumsum)
def cumsum(y, a, axis=None, dtype=None, out=None):
    ba += np.reshape(np.flip(np.cumsum(np.flip(by, axis), axis), axis), np.shape(a))


@forward_rule(np.cumsum)
def cumsum(y, a, axis=None, dtype=None, out=None):
    dy = np.cumsum(da, axis)


@reverse_rule(np.cumprod)
def cumprod(y, a, axis=None, dtype=None, out=None):
    """Exact with zeros in ``a`` (the product of the other factors, not y / a)."""
    ba += uncumprod(by, a, y, axis)


@forward_rule(np.cumprod)
def cumprod(y, a, axis=None, dtype=None, out=None):
    dy = cumprod_tangent(da, a, y, axis)


# ---- NaN-ignoring reductions: NaN entries are left out (constants with no derivative) ---------------


@reverse_rule(np.nanmin, kind=REDUCTION)
@reverse_rule(np.nanmax, kind=REDUCTION)
def nanextremum(y, a, axis=None, out=None, keepdims=False):
    """As np.max and np.min (ties split equally); a NaN never equals the extremum: no derivative."""
    ba += unextremum(by, a, y, axis, keepdims)


@forward_rule(np.nanmin, kind=REDUCTION)
@forward_rule(np.nanmax, kind=REDUCTION)
def nanextremum(y, a, axis=None, out=None, keepdims=False):
    dy = np.sum(unextremum(1.0, a, y, axis, keepdims) * np.where(np.isnan(a), 0.0, da), axis=axis, keepdims=keepdims)


# the product with NaN entries read as 1: prod's rule on where(isnan(a), 1, a), nothing for the NaN entries
@reverse_rule(np.nanprod, kind=REDUCTION)
def nanprod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    ba += unreduce(by, a, axis, keepdims) * axes_back(others_product(axes_last(np.where(np.isnan(a), 1.0, a), axis)), a, axis) * ~np.isnan(a)


@forward_rule(np.nanprod, kind=REDUCTION)
def nanprod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    dy = np.sum(axes_back(others_product(axes_last(np.where(np.isnan(a), 1.0, a), axis)), a, axis) * np.where(np.isnan(a), 0.0, da), axis=axis, keepdims=keepdims)


# var and std over the n entries of each slice that are not NaN: c = a - nanmean(a), 0 at the NaN entries
@reverse_rule(np.nanvar, kind=REDUCTION)
def nanvar(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    c = np.where(np.isnan(a), 0.0, a - np.nanmean(a, axis=axis, keepdims=True))
    ba += unreduce(np.real(by) * 2 / (np.sum(~np.isnan(a), axis=axis, keepdims=keepdims) - ddof), a, axis, keepdims) * np.conj(c)


@forward_rule(np.nanvar, kind=REDUCTION)
def nanvar(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    c = np.where(np.isnan(a), 0.0, a - np.nanmean(a, axis=axis, keepdims=True))
    dy = np.real(np.sum(np.where(np.isnan(a), 0.0, da) * np.conj(c), axis=axis, keepdims=keepdims)) * 2 / (np.sum(~np.isnan(a), axis=axis, keepdims=keepdims) - ddof)


@reverse_rule(np.nanstd, kind=REDUCTION)
def nanstd(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    c = np.where(np.isnan(a), 0.0, a - np.nanmean(a, axis=axis, keepdims=True))
    n = np.sum(~np.isnan(a), axis=axis, keepdims=keepdims)
    ba += unreduce(over_std(by, y, n) / (n - ddof), a, axis, keepdims) * np.conj(c)


@forward_rule(np.nanstd, kind=REDUCTION)
def nanstd(y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    c = np.where(np.isnan(a), 0.0, a - np.nanmean(a, axis=axis, keepdims=True))
    n = np.sum(~np.isnan(a), axis=axis, keepdims=keepdims)
    dy = over_std(np.sum(np.where(np.isnan(a), 0.0, da) * np.conj(c), axis=axis, keepdims=keepdims), y, n) / (n - ddof)
