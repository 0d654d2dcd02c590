"""Cases for ``operator.getitem``: integers, negative integers, slices with steps, tuples of
them, Ellipsis, None, boolean masks, integer arrays and lists (repeats accumulate), indexing a
list of arrays, and ``x.shape[0]`` style integers used in the index."""

import numpy as np

from . import A, F, case


@case("operator.getitem", A(5))
def getitem_int(x):
    return x[1] * x[-1] + x[0]


@case("operator.getitem", A(6))
def getitem_slices(x):
    return x[1:4] * x[::2] + x[-3:][::-1]


@case("operator.getitem", A(3, 4))
def getitem_rows_columns(x):
    return x[1] * x[:, 2].sum() + x[1:, ::2].sum() + x[-1, -2]


@case("operator.getitem", A(2, 3, 4))
def getitem_ellipsis_none(x):
    return x[..., 1] * x[0, ..., None].sum() + x[:, None, 1].sum()


@case("operator.getitem", A(3, 4))
def getitem_mask(x):
    return x[x > 0] * 2.0


@case("operator.getitem", A(3, 4))
def getitem_fancy_repeats(x):
    return x[[0, 2, 0]] + x[np.array([1, 1]), np.array([3, 3])].sum()


@case("operator.getitem", A(3, 4))
def getitem_fancy_columns(x):
    return x[:, [3, 0, 3]] * x[[1, 2], 1:3].sum()


@case("operator.getitem", A(3), F())
def getitem_list_of_values(x, y):
    values = [x, x * y, y]
    return values[1] * values[2] + values[-3]


@case("operator.getitem", A(4, 3))
def getitem_shape_index(x):
    n = x.shape[0]
    return x[n - 1] + x[len(x) - 2]


@case("operator.getitem", F(), F())
def getitem_tuple(x, y):
    pair = (x * y, x)
    return pair[0] + pair[1] * pair[0]
