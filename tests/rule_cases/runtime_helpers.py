"""Cases for the rules of s2sad's runtime helpers (what generated derivative code calls), so that
derivatives of derivatives are checked helper by helper.  Arrays passed only for their shape are
constants."""

import numpy as np

from s2sad.runtime import (
    add_at,
    add_seq,
    appended_number,
    astype_of,
    broadcast_like,
    expect_scalar,
    hypot_moves,
    listed,
    median_weights,
    norm_moves,
    over_hypot,
    over_std,
    own,
    real_arrays,
    real_numbers,
    scatter,
    std_moves,
    unbroadcast,
    unconcatenate,
    undot_x,
    undot_y,
    unextremum,
    unkron_a,
    unkron_b,
    unmatmul_x,
    unmatmul_y,
    unnorm,
    unpacked_adjoint,
    unpacked_tangent,
    unreduce,
    unsqueeze,
    unstack,
    unsum_items,
    untensordot_a,
    untensordot_b,
    untranspose,
    writable,
    zeros_like,
)

from . import A, C, case

SHAPE_3 = np.zeros(3)
SHAPE_31 = np.zeros((3, 1))
SHAPE_34 = np.zeros((3, 4))


@case("s2sad.runtime.unbroadcast", A(2, 3), SHAPE_3)
def unbroadcast_leading(g, x):
    return unbroadcast(g, x)


@case("s2sad.runtime.unbroadcast", A(3, 4), SHAPE_31)
def unbroadcast_kept_axis(g, x):
    return unbroadcast(g, x) * 2.0


@case("s2sad.runtime.unreduce", A(3), SHAPE_34, 1)
def unreduce_axis(g, x, axis):
    return unreduce(g, x, axis)


@case("s2sad.runtime.unreduce", A(), SHAPE_34)
def unreduce_all(g, x):
    return unreduce(g, x) * x.shape[0]


@case("s2sad.runtime.unmatmul_x", A(3, 2), SHAPE_34, A(4, 2))
def unmatmul_x_(g, x, y):
    return unmatmul_x(g, x, y)


@case("s2sad.runtime.unmatmul_y", A(3, 2), A(3, 4), np.zeros((4, 2)))
def unmatmul_y_(g, x, y):
    return unmatmul_y(g, x, y)


@case("s2sad.runtime.undot_x", A(3), SHAPE_34, A(4))
def undot_x_(g, x, y):
    return undot_x(g, x, y)


@case("s2sad.runtime.undot_y", A(3), A(3, 4), np.zeros(4))
def undot_y_(g, x, y):
    return undot_y(g, x, y)


@case("s2sad.runtime.unextremum", A(3), A(3, 4), 1)
def unextremum_(g, x, axis):
    return unextremum(g, x, np.max(x, axis=axis), axis)


@case("s2sad.runtime.unnorm", A(3), A(3, 4, lo=0.5, hi=2.0), 1, complex=False)  # sum(x * x): real x only
def unnorm_(g, x, axis):
    return unnorm(g, x, np.sqrt(np.sum(x * x, axis=axis)), axis)


@case("s2sad.runtime.unnorm", A(3), C(3, 4), 1)
def unnorm_complex(g, x, axis):
    return unnorm(g, x, np.sqrt(np.sum(np.abs(x) ** 2, axis=axis)), axis)


@case("s2sad.runtime.norm_moves", A(3, 4), A(3, 4))
def norm_moves_(t, x):
    return norm_moves(t * t, x, np.linalg.norm(x, axis=1), 1) + norm_moves(t, x, np.linalg.norm(x))


@case("s2sad.runtime.over_hypot", A(3), A(2, 1))
def over_hypot_(x, y):
    return over_hypot(x * y, np.hypot(x, y))  # broadcast: x (3,), the length (2, 3)


@case("s2sad.runtime.hypot_moves", A(3), A(3))
def hypot_moves_(t, a):
    return hypot_moves(t * t, 1.5 + a * a) * t


@case("s2sad.runtime.over_std", A(3), A(3))
def over_std_(g, a):
    return over_std(g * a, 1.5 + np.abs(a) ** 2, 3)


@case("s2sad.runtime.std_moves", A(3, 4), A(3))
def std_moves_(t, a):
    return std_moves(t * t, 1.5 + np.abs(a) ** 2, 4) * t


@case("s2sad.runtime.astype_of", C(3, 4), A(3, 4))
def astype_of_real(g, x):
    return astype_of(g, x) * x


@case("s2sad.runtime.astype_of", A(3, 4), np.zeros((3, 4), complex))
def astype_of_complex(g, x):
    return astype_of(g, x) * g


@case("s2sad.runtime.unconcatenate", A(5, 2), [np.zeros((2, 2)), np.zeros((3, 2))])
def unconcatenate_(g, xs):
    parts = unconcatenate(g, xs)
    return np.sum(parts[0]) * parts[1]


@case("s2sad.runtime.unstack", A(3, 2))
def unstack_(g):
    parts = unstack(g)
    return parts[0] * parts[2] + parts[1]


@case("s2sad.runtime.unsqueeze", A(1, 3, 1), SHAPE_3)
def unsqueeze_(g, x):
    return unsqueeze(g, x)


@case("s2sad.runtime.untranspose", A(2, 3, 4), (1, 2, 0))
def untranspose_(g, axes):
    return untranspose(g, axes)


@case("s2sad.runtime.unsum_items", A(3), [np.zeros(3), np.zeros(3)])
def unsum_items_(g, items):
    parts = unsum_items(g, items)
    return parts[0] * parts[1]


@case("s2sad.runtime.zeros_like", A(3))
def zeros_like_(x):
    return zeros_like(x) + x * x


@case("s2sad.runtime.expect_scalar", A(3))
def expect_scalar_(x):
    s = np.sum(x * x)
    expect_scalar(s, "expect_scalar_")
    return s


@case("s2sad.runtime.real_numbers", A(3))
def real_numbers_(x):
    s = np.sum(x * x)
    return s * 2.0 if real_numbers(s, 1.0) else s


@case("s2sad.runtime.real_arrays", A(3))
def real_arrays_(x):
    return np.sum(x * x) if real_arrays(x) else np.sum(x)


@case("s2sad.runtime.broadcast_like", A(3), SHAPE_34.T.copy())
def broadcast_like_(t, y):
    return broadcast_like(t, y) * 2.0


@case("s2sad.runtime.add_at", A(3), A(2))
def add_at_repeated(g, v):
    return add_at(np.copy(g), np.array([0, 0]), v) * g


@case("s2sad.runtime.scatter", A(3, 3))
def scatter_rows(v):
    return scatter(v, SHAPE_34, (slice(None), np.array([1, 1, 3])))


@case("s2sad.runtime.writable", A(3))
def writable_(t):
    return writable(t * t) * t


@case("s2sad.runtime.appended_number", A(3))
def appended_number_(v):
    return np.stack([appended_number(v[0] * v[1]), appended_number(np.sin(v[2]), "`a[2]`")]) * v[:2]


@case("s2sad.runtime.own", A(3))
def own_(g):
    return own(g) * g


@case("s2sad.runtime.add_seq", A(3), A(2))
def add_seq_(a, b):
    parts = add_seq([a, b], [a * a, b])
    rows = add_seq([a, a * 2.0], np.stack([a * b[0], a]))  # an array adds its rows
    return parts[0] * np.sum(parts[1]) + rows[0] * rows[1]


@case("s2sad.runtime.untensordot_a", A(3, 2), A(3, 4, 5), A(2, 4, 5))
def untensordot_a_(g, a, b):
    return untensordot_a(g, a, b, ([1, 2], [1, 2]))


@case("s2sad.runtime.untensordot_b", A(3, 2), A(3, 4, 5), A(2, 4, 5))
def untensordot_b_(g, a, b):
    return untensordot_b(g, a, b, ([1, 2], [1, 2]))


@case("s2sad.runtime.unkron_a", A(4, 6), A(2, 3), A(2, 2))
def unkron_a_(g, a, b):
    return unkron_a(g, a, b)


@case("s2sad.runtime.unkron_b", A(4, 6), A(2, 3), A(2, 2))
def unkron_b_(g, a, b):
    return unkron_b(g, a, b)


@case("s2sad.runtime.unpacked_adjoint", A(3), A(3), A(2, 3))
def unpacked_adjoint_(a, b, x):
    return unpacked_adjoint((a * b, b), x) * x


@case("s2sad.runtime.listed", A(2, 3), A(2, 3))
def listed_(a, b):
    rows = listed(a * b)
    return rows[0] * rows[1] + rows[1]


@case("s2sad.runtime.unpacked_tangent", A(2, 3), A(2, 3), A(2, 3))
def unpacked_tangent_(a, b, x):
    return np.stack(unpacked_tangent(a * b, x)) * x


@case("s2sad.runtime.median_weights", A(3, 4))
def median_weights_(x):
    return np.sum(median_weights(x, 1) * x * x, axis=1)
