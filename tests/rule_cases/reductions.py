"""Cases for reductions: every axis form (None, int, negative, tuple), keepdims, ddof, ties in
max/min, zeros in prod/cumprod, NaNs in the nan* reductions, weights in average, builtin sum."""

import numpy as np

from . import A, F, case


@case("numpy.sum", A(3, 4))
def sum_all(x):
    return np.sum(x)


@case("numpy.sum", A(3, 4))
def sum_axis(x):
    return np.sum(x, axis=0) + x.sum(1).sum()


@case("numpy.sum", A(2, 3, 4))
def sum_axes_keepdims(x):
    return np.sum(x, axis=(0, 2), keepdims=True)


@case("numpy.sum", A(2, 3, 4))
def sum_negative_axis(x):
    return np.sum(x, -1)


@case("numpy.median", A(5))
def median_odd(x):
    return np.median(x)


@case("numpy.median", A(3, 4))
def median_even(x):
    return np.median(x)


@case("numpy.median", A(3, 4))
def median_axis(x):
    return np.median(x, axis=1) * np.median(x, axis=0, keepdims=True).sum()


@case("numpy.median", A(2, 3, 4))
def median_axis_tuple(x):
    return np.median(x, axis=(0, 2), keepdims=True) * np.median(x, -1)[..., None]


@case("numpy.median", A(4))
def median_ties(x):
    return np.median(np.concatenate([x, x]))


@case("numpy.mean", A(3, 4))
def mean_all(x):
    return np.mean(x)


@case("numpy.mean", A(2, 3, 4))
def mean_axis_tuple(x):
    return np.mean(x, axis=(0, 2))


@case("numpy.mean", A(3, 4))
def mean_keepdims(x):
    return np.mean(x, axis=1, keepdims=True) * x.mean(0)


@case("numpy.prod", A(3, 4, lo=0.5, hi=1.5))
def prod_all(x):
    return np.prod(x)


@case("numpy.prod", A(3, 4, lo=0.5, hi=1.5))
def prod_axis(x):
    return np.prod(x, axis=1) + x.prod(0, keepdims=True).sum()


@case("numpy.prod", A(3, 4))
def prod_with_zeros(x):
    return np.prod(x * np.array([0.0, 1.0, 0.0, 1.0]), axis=1) + np.prod(x * np.array([0.0, 1.0, 1.0, 1.0]))


@case("numpy.max", A(3, 4))
def max_all(x):
    return np.max(x)


@case("numpy.max", A(3, 4))
def max_axis(x):
    return np.max(x, axis=0) + np.amax(x, axis=1, keepdims=True) + x.max(-1, keepdims=True)


@case("numpy.max", A(4))
def max_ties(x):
    return np.max(np.concatenate([x, x]))


@case("numpy.min", A(3, 4))
def min_axis(x):
    return np.min(x, axis=1) + np.amin(x) + x.min()


@case("numpy.min", A(3))
def min_ties(x):
    return np.min(np.stack([x, x]), axis=0)


@case("numpy.var", A(3, 4))
def var_(x):
    return np.var(x) + np.var(x, axis=0, ddof=1).sum()


@case("numpy.var", A(2, 3, 4))
def var_keepdims(x):
    return np.var(x, axis=(0, 2), keepdims=True) + x.var()


@case("numpy.std", A(3, 4))
def std_(x):
    return np.std(x) + np.std(x, axis=1, ddof=1).sum()


@case("numpy.std", A(3, 4))
def std_keepdims(x):
    return np.std(x, axis=0, keepdims=True) * x.std(1, keepdims=True)


@case("numpy.nansum", A(3, 4, lo=0.5, hi=2.0))
def nansum_(x):
    return np.nansum(np.log(x * np.array([1.0, -1.0, 1.0, 1.0])), axis=1) + np.nansum(x)


@case("numpy.nanmean", A(3, 4, lo=0.5, hi=2.0))
def nanmean_(x):
    return np.nanmean(np.log(x * np.array([1.0, -1.0, 1.0, -1.0])), axis=1) + np.nanmean(x, keepdims=True)


@case("numpy.average", A(3, 4))
def average_plain(x):
    return np.average(x) + np.average(x, axis=0)


@case("numpy.average", A(3, 4), A(3, 4, lo=0.5, hi=2.0))
def average_weights_same_shape(x, w):
    return np.average(x, axis=1, weights=w)


@case("numpy.average", A(3, 4), A(4, lo=0.5, hi=2.0))
def average_weights_1d(x, w):
    return np.average(x, axis=1, weights=w) + np.average(x[0], weights=w)


@case("numpy.average", A(3, 4), A(3, 4, lo=0.5, hi=2.0))
def average_weights_all(x, w):
    return np.average(x, weights=w, keepdims=True)


@case("numpy.cumsum", A(3, 4))
def cumsum_(x):
    return np.cumsum(x) + np.cumsum(x, axis=0).ravel() + x.cumsum(1).ravel()


@case("numpy.cumprod", A(3, 4, lo=0.5, hi=1.5))
def cumprod_(x):
    return np.cumprod(x, axis=1) + x.cumprod(0)


@case("numpy.cumprod", A(3, 4))
def cumprod_flat_zeros(x):
    return np.cumprod(x * np.array([1.0, 0.0, 1.0, 1.0]))


@case("numpy.cumprod", A(3, 4))
def cumprod_axis_zeros(x):
    return np.cumprod(x * np.array([[1.0], [0.0], [1.0]]), axis=0)


@case("sum", A(3, 4))
def builtin_sum_rows(x):
    return sum(x)


@case("sum", A(3), F())
def builtin_sum_list(x, y):
    return sum([x, y * x, x * x], y)


def _holes(x):
    """x with NaN at every third entry (ignored by the nan-reductions; no slice is all NaN)."""
    return np.where(np.arange(x.size).reshape(x.shape) % 3 == 1, np.nan, x)


@case("numpy.nanmax", A(3, 4))
def nanmax_(x):
    return np.nanmax(_holes(x), axis=1)[:, None] + np.nanmax(_holes(x)) + np.nanmax(_holes(x), axis=0, keepdims=True)


@case("numpy.nanmax", A(4))
def nanmax_ties(x):
    return np.nanmax(_holes(np.concatenate([x, x])))


@case("numpy.nanmin", A(2, 3, 4))
def nanmin_(x):
    return np.nanmin(_holes(x), axis=(0, 2)) * np.nanmin(_holes(x), axis=-1, keepdims=True).sum()


@case("numpy.nanprod", A(3, 4))
def nanprod_(x):
    return np.nanprod(_holes(x), axis=1) + np.nanprod(_holes(x), keepdims=True)


@case("numpy.nanprod", A(2, 4))
def nanprod_zero(x):
    return np.nanprod(_holes(x) * np.array([1.0, 1.0, 0.0, 1.0]), axis=-1)  # exact with a zero factor


@case("numpy.nanvar", A(3, 4))
def nanvar_(x):
    return (
        np.nanvar(_holes(x), axis=1)[:, None]
        + np.nanvar(_holes(x), ddof=1)
        + np.nanvar(_holes(x), axis=0, keepdims=True)
    )


@case("numpy.nanvar", A(2, 3, 5))
def nanvar_axes(x):
    return np.nanvar(_holes(x), axis=(0, 2), ddof=1, keepdims=True) * np.nanvar(_holes(x), -1)[..., None]


@case("numpy.nanstd", A(3, 4))
def nanstd_(x):
    return (
        np.nanstd(_holes(x), axis=1)[:, None]
        + np.nanstd(_holes(x), ddof=1)
        + np.nanstd(_holes(x), axis=0, keepdims=True)
    )


@case("numpy.nanstd", A(2, 3, 5))
def nanstd_axes(x):
    return np.nanstd(_holes(x), axis=(0, 2), ddof=1, keepdims=True) * np.nanstd(_holes(x), -1)[..., None]
