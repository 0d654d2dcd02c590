"""Cases for the shape operations: moves, joins and splits (list outputs), copies, reordering,
diagonals, differences, construction of arrays from differentiated values, casts."""

import numpy as np

from . import A, F, case


@case("numpy.transpose", A(3, 4))
def transpose_(x):
    return np.transpose(x) + x.T


@case("numpy.transpose", A(2, 3, 4))
def transpose_axes(x):
    return np.transpose(x, (1, 2, 0)) + x.transpose(1, 2, 0) + x.transpose((1, 2, 0))


@case("numpy.reshape", A(3, 4))
def reshape_(x):
    return np.reshape(x, (2, 6)) + x.reshape(2, 6) + x.reshape((2, -1))


@case("numpy.ravel", A(3, 4))
def ravel_(x):
    return np.ravel(x) + x.ravel() + x.flatten()


@case("numpy.squeeze", A(3, 1, 4))
def squeeze_(x):
    return np.squeeze(x) + np.squeeze(x, 1) + x.squeeze()


@case("numpy.expand_dims", A(3, 4))
def expand_dims_(x):
    return np.expand_dims(x, 1) * np.expand_dims(x, (0, -1))


@case("numpy.concatenate", A(3, 4), A(2, 4))
def concatenate_(x, y):
    return np.concatenate([x, y]) * 2.0


@case("numpy.concatenate", A(3, 4), A(3, 2))
def concatenate_axis(x, y):
    return np.concatenate((x, y, x), axis=1)


@case("numpy.concatenate", A(3, 4), A(5))
def concatenate_flat(x, y):
    return np.concatenate([x, y], axis=None)


@case("numpy.stack", A(3, 4), A(3, 4))
def stack_(x, y):
    return np.stack([x, y * y]) + np.stack([y, x], axis=-1).sum()


@case("numpy.hstack", A(3), A(2))
def hstack_vectors(x, y):
    return np.hstack([x, y])


@case("numpy.hstack", A(3, 4), A(3, 1))
def hstack_matrices(x, y):
    return np.hstack((x, y))


@case("numpy.vstack", A(4), A(3, 4))
def vstack_(x, y):
    return np.vstack([x, y, x])


@case("numpy.vstack", F(), F())
def vstack_floats(x, y):
    return np.vstack([x, y * x])


@case("numpy.dstack", A(3, 4), A(3, 4))
def dstack_(x, y):
    return np.dstack([x, y])


@case("numpy.dstack", A(4), A(4))
def dstack_vectors(x, y):
    return np.dstack((x, y))


@case("numpy.column_stack", A(3), A(3, 2))
def column_stack_(x, y):
    return np.column_stack([x, y, x])


@case("numpy.split", A(6, 2))
def split_(x):
    a, b, c = np.split(x, 3)
    return a * c + b


@case("numpy.split", A(2, 6))
def split_indices_axis(x):
    parts = np.split(x, [1, 4], axis=1)
    return np.sum(parts[0]) * parts[2]


@case("numpy.array_split", A(7))
def array_split_(x):
    a, b, c = np.array_split(x, 3)
    return np.sum(a) + np.sum(b * b) + c[0]


@case("numpy.hsplit", A(3, 4))
def hsplit_(x):
    a, b = np.hsplit(x, 2)
    return a * b


@case("numpy.vsplit", A(4, 3))
def vsplit_(x):
    a, b = np.vsplit(x, [1])
    return np.sum(a) * b


@case("numpy.dsplit", A(2, 3, 4))
def dsplit_(x):
    a, b = np.dsplit(x, 2)
    return a - b * b


@case("numpy.moveaxis", A(2, 3, 4))
def moveaxis_(x):
    return np.moveaxis(x, 0, -1) * np.moveaxis(x, [0, 1], [2, 0])


@case("numpy.swapaxes", A(2, 3, 4))
def swapaxes_(x):
    return np.swapaxes(x, 0, 2) + x.swapaxes(2, 0)


@case("numpy.matrix_transpose", A(2, 3, 4))
def matrix_transpose_(x):
    return np.matrix_transpose(x) * x.mT + x.mT[1] * 2.0


@case("numpy.linalg.matrix_transpose", A(3, 2))
def linalg_matrix_transpose_(x):
    return np.linalg.matrix_transpose(x) @ x + np.sum(x.flat[1:4] ** 2)


@case("numpy.rollaxis", A(2, 3, 4))
def rollaxis_(x):
    return np.rollaxis(x, 2) * np.rollaxis(x, 2, 0)


@case("numpy.rollaxis", A(2, 3, 4))
def rollaxis_start(x):
    return np.sum(np.rollaxis(x, 0, 2) * np.arange(24.0).reshape(3, 2, 4)) + np.rollaxis(x, 1, -1)


@case("numpy.atleast_1d", F())
def atleast_1d_(x):
    return np.atleast_1d(x) * np.atleast_1d(np.array([1.0, 2.0]))


@case("numpy.atleast_2d", A(3))
def atleast_2d_(x):
    return np.atleast_2d(x) * np.atleast_2d(x).T


@case("numpy.atleast_3d", A(3, 4))
def atleast_3d_(x):
    return np.atleast_3d(x) * 2.0


@case("numpy.broadcast_to", A(4))
def broadcast_to_(x):
    return np.broadcast_to(x, (3, 4)) * np.arange(12.0).reshape(3, 4)


@case("numpy.broadcast_to", F())
def broadcast_to_float(x):
    return np.broadcast_to(x, (2, 3)) * np.ones((2, 3))


@case("numpy.tile", A(3))
def tile_(x):
    return np.tile(x, 2) * np.tile(x, (2, 2)).sum()


@case("numpy.tile", A(2, 3))
def tile_matrix(x):
    return np.tile(x, (2, 1, 3))


@case("numpy.repeat", A(3, 2))
def repeat_(x):
    return np.repeat(x, 2) + np.sum(np.repeat(x, [1, 0, 2], axis=0)) + x.repeat(3, axis=1).sum()


@case("numpy.pad", A(3, 4))
def pad_constant(x):
    return np.pad(x, 1) + np.pad(x, ((1, 1), (0, 2)), constant_values=2.0)


@case("numpy.pad", A(3, 4), F())
def pad_constant_value(x, c):
    return np.pad(x, (1, 2), "constant", constant_values=c) * np.pad(
        x, ((2, 1), (1, 2)), mode="constant", constant_values=c
    )


@case("numpy.pad", A(3, 4))
def pad_modes(x):
    return np.pad(x, 2, "edge") + np.pad(x, 2, "reflect") * np.pad(x, 2, "symmetric") + np.pad(x, 2, "wrap")


@case("numpy.flip", A(3, 4))
def flip_(x):
    return np.flip(x) * np.flip(x, 0) + np.flip(x, axis=(0, 1))


@case("numpy.fliplr", A(3, 4))
def fliplr_(x):
    return np.fliplr(x) * x


@case("numpy.flipud", A(3, 4))
def flipud_(x):
    return np.flipud(x) * x


@case("numpy.rot90", A(3, 4))
def rot90_(x):
    return np.rot90(x) * np.rot90(x, 3) + np.rot90(x, 2).T


@case("numpy.rot90", A(2, 3, 4))
def rot90_axes(x):
    return np.rot90(x, 1, (1, 2))


@case("numpy.roll", A(3, 4))
def roll_(x):
    return np.roll(x, 2) * np.roll(x, -1, axis=1) + np.roll(x, (1, 2), axis=(0, 1))


@case("numpy.sort", A(3, 4))
def sort_(x):
    return np.sort(x) * np.sort(x, axis=0) + np.sort(x, axis=None).reshape(3, 4)


@case("numpy.partition", A(3, 5))
def partition_(x):
    return np.partition(x, 2) * np.partition(x, 1, axis=0)


@case("numpy.partition", A(7))
def partition_median(x):
    return np.partition(x, 3)[3]


@case("numpy.diag", A(4))
def diag_vector(x):
    return np.diag(x) + np.diag(x[1:], 1)[:4, :4] + np.diag(x[1:], -1)[:4, :4]


@case("numpy.diag", A(3, 4))
def diag_matrix(x):
    return np.diag(x) * np.diag(x, 1) + np.diag(x, -1)[0]


@case("numpy.diagonal", A(3, 4))
def diagonal_(x):
    return np.diagonal(x) + np.diagonal(x, 1) + x.diagonal(-1)[0]


@case("numpy.diagonal", A(2, 3, 4))
def diagonal_axes(x):
    return np.diagonal(x, 1, 1, 2) + np.diagonal(x, 0, 2, 0).sum()


@case("numpy.tril", A(3, 4))
def tril_(x):
    return np.tril(x) + np.tril(x, -1) * np.tril(x, 1)


@case("numpy.triu", A(4, 3))
def triu_(x):
    return np.triu(x) + np.triu(x, 1) * np.triu(x, -1)


@case("numpy.diff", A(3, 5))
def diff_(x):
    return np.sum(np.diff(x) ** 2) * np.diff(x, axis=0) + np.diff(x, 2)[0, 0]


@case("numpy.diff", A(6))
def diff_higher(x):
    return np.diff(x, n=3)


@case("numpy.gradient", A(6))
def gradient_vector(x):
    return np.gradient(x) * np.gradient(x, edge_order=2)


@case("numpy.gradient", A(6))
def gradient_spacing(x):
    """(A differentiated spacing: tests/test_round19.py.)"""
    coords = np.array([0.0, 0.3, 0.5, 1.2, 1.4, 2.0])
    return np.gradient(x * x, 0.5) + np.gradient(x, coords, edge_order=2)


@case("numpy.gradient", A(4, 5))
def gradient_matrix(x):
    gx, gy = np.gradient(x)
    return gx * gy + np.gradient(x, axis=1)


@case("numpy.take", A(3, 4))
def take_(x):
    return np.take(x, [0, 2, 2, -1]) + np.take(x, [1, 1], axis=1).sum() + x.take([3, 3, 0, 1])


@case("numpy.take", A(5))
def take_modes(x):
    return np.take(x, [0, 7, -6], mode="wrap") * np.take(x, [9, -3], mode="clip").sum()


@case("numpy.take_along_axis", A(3, 4))
def take_along_axis_(x):
    return np.take_along_axis(x, np.argsort(x, axis=1), axis=1) * np.take_along_axis(x, np.array([[0], [2]]), 0).sum()


@case("numpy.take_along_axis", A(5))
def take_along_axis_repeats(x):
    return np.take_along_axis(x, np.array([0, 0, 4, 1]), 0)


@case("numpy.array", A(3), F())
def array_of_list(x, y):
    return np.array([x, x * y, np.ones(3)]) * np.array([y, 2.0, y * y])[:, None]


@case("numpy.array", A(3, 4))
def array_of_array(x):
    return np.array(x) * np.array(x, ndmin=3)


@case("numpy.asarray", A(3), F())
def asarray_(x, y):
    return np.asarray(x) * np.asarray([y, 1.0, y])


@case("numpy.full", F())
def full_(x):
    return np.full((2, 3), x) * np.full(3, x * x)


@case("numpy.full", A(3))
def full_broadcast(x):
    return np.full((2, 3), x)


@case("numpy.full_like", A(3, 4), F())
def full_like_(x, v):
    return np.full_like(x, v) * x


@case("numpy.linspace", F(), F())
def linspace_(a, b):
    return np.linspace(a, b, 5) * np.sum(np.linspace(a, b, 4, endpoint=False))


@case("numpy.linspace", A(3), F())
def linspace_arrays(a, b):
    return np.linspace(a, b, 4) + np.linspace(a, b, 5, axis=1).sum()


@case("numpy.astype", A(3, 4))
def astype_(x):
    return x.astype(float) * x.astype(np.float64) + x * (x * 3).astype(int)


@case("numpy.asfortranarray", A(3, 4), F())
def asfortranarray_(x, y):
    return np.asfortranarray(x) * np.asfortranarray(y)


@case("numpy.copy", A(3, 4))
def copy_(x):
    return np.copy(x) * x.copy()


@case("numpy.copy", A(3, 4))
def copy_order(x):
    return np.copy(x, order="F") * x.copy(order="C")


@case("numpy.ascontiguousarray", A(3, 4), F())
def ascontiguousarray_(x, y):
    return np.ascontiguousarray(x.T).T * np.ascontiguousarray([y, 2.0, y * y, 1.0]) + np.ascontiguousarray(y)


@case("float", F())
def float_(x):
    return float(x) * x


@case("float", A(3))
def float_item(x):
    return float(x[1]) * x


@case("numpy.float64", F())
def float64_(x):
    return np.float64(x) * x


@case("numpy.float64", A(3))
def float64_array(x):
    return np.float64(x) * np.float64(x[1])


@case("numpy.float32", A(3), rtol=1e-3, atol=1e-4, eps=1e-3, complex=False)
def float32_(x):
    return np.float32(x[0]) * x + np.float32(2.0) * x


@case("numpy.ndarray.item", A(3))
def ndarray_item_(x):
    return x[1:2].item() * np.sum(x * x).item() + x.item(2) * x[0]


@case("numpy.ndarray.tolist", A(2, 3))
def ndarray_tolist_(x):
    rows = (x * x).tolist()
    return rows[0][1] * rows[1][2] + x.tolist()[1][0]


@case("numpy.polyval", A(4), A(3, 2))
def polyval_(p, x):
    return np.polyval(p, x)


@case("numpy.polyval", A(3), F())
def polyval_float(p, x):
    return np.polyval(p, x) * x + np.polyval([1.0, p[0]], x) + np.polyval(p[:1], x)  # a list p; a constant


@case("numpy.polyval", A(5), A(3))
def polyval_x_only(p, x):
    return np.polyval(np.array([2.0, -1.0, 0.5]), x) + np.polyval(p, 0.7)  # x ** 0 at any x
