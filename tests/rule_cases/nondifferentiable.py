"""Cases for the nondifferentiable primitives: each is applied to differentiated values and its
result used in a differentiated expression, so the derivative treats it as the constant it
locally is (checked against finite differences away from jumps)."""

import numpy as np

from s2sad.rules.nondifferentiable import stop_gradient
from s2sad.runtime import real_sign

from . import A, F, case

X = A(3, 4, lo=0.1, hi=3.9)  # away from integers only with probability 1, as needed


@case("numpy.floor", A(3, 4))
@case("numpy.ceil", A(3, 4))
@case("numpy.rint", A(3, 4))
@case("numpy.trunc", A(3, 4))
@case("numpy.fix", A(3, 4))
def rounding(x):
    return x * (np.floor(x) + np.ceil(x) + np.rint(x) + np.trunc(x) + np.fix(x))


@case("numpy.round", A(3, 4))
@case("numpy.around", A(3, 4))
@case("round", F())
def round_(x):
    return x * np.round(x) + np.around(x, 1) * x + x * round(np.sum(x), 2)


@case("numpy.sign", A(3, 4))
@case("numpy.signbit", A(3, 4))
@case("s2sad.runtime.real_sign", A(3, 4))
def signs(x):
    return x * np.sign(x) + x * np.signbit(x) + x * real_sign(x)


@case("operator.floordiv", A(3, 4), F(0.5, 2.0))
@case("numpy.floor_divide", A(3, 4), F(0.5, 2.0))
def floordiv(x, y):
    return x * (x // y) + y * np.floor_divide(x, y)


@case("numpy.greater", A(3, 4), A(4))
@case("numpy.greater_equal", A(3, 4), A(4))
@case("numpy.less", A(3, 4), A(4))
@case("numpy.less_equal", A(3, 4), A(4))
@case("numpy.equal", A(3, 4), A(4))
@case("numpy.not_equal", A(3, 4), A(4))
def comparisons(x, y):
    a = np.greater(x, y) + np.greater_equal(x, y) + np.less(x, y)
    b = np.less_equal(x, y) + np.equal(x, y) + np.not_equal(x, y)
    return x * a + y * b


@case("numpy.logical_and", A(3, 4))
@case("numpy.logical_or", A(3, 4))
@case("numpy.logical_not", A(3, 4))
@case("numpy.logical_xor", A(3, 4))
def logic(x):
    a = np.logical_and(x > 0, x < 1) + np.logical_or(x > 0, x < -1)
    return x * (a + np.logical_not(x > 0) + np.logical_xor(x > 0, x > 1))


@case("numpy.isnan", A(4))
@case("numpy.isfinite", A(4))
@case("numpy.isinf", A(4))
def tests_(x):
    return x * (np.isnan(x) + np.isfinite(x) + np.isinf(x))


@case("numpy.isclose", A(4))
@case("numpy.allclose", A(4))
@case("numpy.array_equal", A(4))
def closeness(x):
    return x * np.isclose(x, 0.5) + x * np.allclose(x, x) + x * np.array_equal(x, x)


@case("numpy.any", A(3, 4))
@case("numpy.all", A(3, 4))
@case("numpy.count_nonzero", A(3, 4))
def counts(x):
    return x * np.any(x > 0, axis=0) + x * np.all(x > -5) + x * np.count_nonzero(x > 0) + x * (x > 0).any()


@case("any", A(4))
@case("all", A(4))
def any_all(x):
    return x * any(v > 0 for v in x) + x * all([v > -5 for v in x]) + x * any(x > 0.5)


@case("numpy.argmax", A(3, 4))
@case("numpy.argmin", A(3, 4))
def argextremes(x):
    return x[np.argmax(x, axis=0), np.arange(4)] + x.ravel()[np.argmin(x)] + x[x.argmax() // 4]


@case("numpy.argsort", A(5))
@case("numpy.argpartition", A(5))
def argorders(x):
    return x[np.argsort(x)] * x[x.argsort()] + x[np.argpartition(x, 2)[2]] + x[x.argpartition(1)[1]]


@case("numpy.nonzero", A(3, 4))
@case("numpy.flatnonzero", A(3, 4))
@case("numpy.argwhere", A(3, 4))
def positions(x):
    return x[np.nonzero(x > 0)] * 2.0 + np.sum(x.ravel()[np.flatnonzero(x > 0)]) + np.sum(np.argwhere(x > 0)) * x[0, 0]


@case("numpy.searchsorted", A(5))
def searchsorted_(x):
    return x * np.searchsorted(np.array([-1.0, 0.0, 1.0]), x) + x * np.sort(x).searchsorted(x)


@case("numpy.diag_indices", A(3, 3))
@case("numpy.diag_indices_from", A(3, 3))
@case("numpy.tril_indices", A(3, 3))
@case("numpy.tril_indices_from", A(3, 3))
@case("numpy.triu_indices", A(3, 3))
@case("numpy.triu_indices_from", A(3, 3))
def triangle_indices(x):
    k = x * 1.0
    k[np.diag_indices_from(x)] += x[0, 1] ** 2
    k[np.tril_indices_from(k, -1)] *= x[2, 0]
    upper = k[np.triu_indices_from(x)] + k[np.triu_indices(3, 1)][0]
    return upper + k[np.diag_indices(3)][1] * k[np.tril_indices(3)][2]


@case("numpy.indices", A(2, 3))
@case("numpy.unravel_index", A(2, 3))
@case("numpy.ravel_multi_index", A(2, 3))
def grid_indices(x):
    i, j = np.indices(x.shape)
    flat = np.ravel_multi_index((i, j), x.shape)
    return x * i + x * j + x[np.unravel_index(np.argmax(x), x.shape)] * flat


@case("numpy.digitize", A(5))
@case("numpy.lexsort", A(5))
@case("numpy.isin", A(5))
def bins(x):
    edges = np.array([-1.0, 0.0, 1.0])
    return x * np.digitize(x, edges) + x[np.lexsort((x, -x))] + x * np.isin(np.round(x), edges)


@case("numpy.iscomplexobj", A(4))
@case("numpy.isrealobj", A(4))
@case("numpy.isreal", A(4))
@case("numpy.iscomplex", A(4))
def kinds(x):
    return x * np.iscomplexobj(x) + x * np.isrealobj(x) + x * np.isreal(x) + x * np.iscomplex(x)


@case("numpy.shape", A(3, 4))
@case("numpy.size", A(3, 4))
@case("numpy.ndim", A(3, 4))
def sizes(x):
    return x * np.shape(x)[0] + x * np.size(x) + x * np.ndim(x)


@case("numpy.zeros_like", A(3, 4))
@case("numpy.ones_like", A(3, 4))
@case("numpy.empty_like", A(3, 4))
def likes(x):
    e = np.empty_like(x)
    e[:] = 2.0
    return x * (np.zeros_like(x) + np.ones_like(x) + e)


@case("numpy.zeros", A(3))
@case("numpy.ones", A(3))
@case("numpy.empty", A(3))
@case("numpy.eye", A(3))
@case("numpy.identity", A(3))
@case("numpy.arange", A(3))
def constants(x):
    e = np.empty(len(x))
    e[:] = 1.0
    return (np.zeros(3) + np.ones(len(x)) + e + np.arange(len(x))) * x @ (np.eye(len(x)) + np.identity(3))


@case("numpy.random.seed", A(3))
@case("numpy.random.rand", A(3))
@case("numpy.random.randn", A(3))
@case("numpy.random.random", A(3))
@case("numpy.random.random_sample", A(3))
@case("numpy.random.standard_normal", A(3))
@case("numpy.random.randint", A(3))
def legacy_draws(x):
    np.random.seed(0)
    a = np.random.rand(3) + np.random.randn(3) + np.random.random(3) + np.random.random_sample(3)
    return x * (a + np.random.standard_normal(3) + np.random.randint(0, 5, 3))


@case("numpy.random.default_rng", A(3))
def generator_draws(x):
    rng = np.random.default_rng(0)
    return x * rng.normal(size=3) + x * x * rng.uniform(size=x.shape)


@case("s2sad.stop_gradient", A(3, 4))
def stop_gradient_(x):
    """A differentiated value whose derivative is zero anyway, so finite differences agree; what
    stop_gradient changes is checked in tests/test_stop_gradient.py."""
    return x * stop_gradient(x - x + 2.0) + np.sin(stop_gradient(np.floor(x)))


@case("s2sad.runtime.sorted_order", A(4))
def builtin_sorted(x):
    ys = sorted(x * x, key=lambda v: -v)
    return ys[0] * 3.0 + sorted([x[0], x[1]], reverse=True)[1]


@case("s2sad.runtime.index_of_max", A(4))
@case("s2sad.runtime.index_of_min", A(4))
def builtin_max_min(x):
    return max(x) * min(x * x) + max(x[0], x[1], x[2]) * x[3]
