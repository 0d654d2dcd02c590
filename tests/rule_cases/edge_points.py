"""Edge points where a derivative exists, at every order the sweeps run (``tests/test_rules.py``: orders 1 and 2
for every case, 3 for the elementwise rules and ``ORDER3_RULES``): zeros and ones of powers, constant slices of
``np.var``, singular matrices of ``det``, zero singular values of ``svd`` and zero entries of p-norms.  Their
arguments are fixed (``M``), so they have no complex variants; edge points where the derivative does not exist
(refused) or where a rule's convention applies (ties) are in ``tests/test_orders.py``."""

import numpy as np

from . import M, case


def fixed(*values):
    return M(lambda rng: np.array(values, dtype=float))


@case("operator.pow", fixed(0.0, 1.0, -2.0))
def cube_at_zero(x):
    return x**3 + x**2 * 0.5


@case("operator.pow", fixed(2.0, 3.5, 1.0))
def power_of_zero_and_one(y):
    return np.power(0.0, y) + np.power(1.0, y) * y


@case("operator.pow", fixed(0.0, 1.0, 2.0))
def power_integer_at_zero(x):
    return np.power(x, 4) - np.power(x, 1)


@case("numpy.var", fixed(1.5, 1.5, 1.5, 1.5))
def var_constant(x):
    return np.var(x) + np.var(x) ** 2


@case("numpy.var", M(lambda rng: np.array([[1.5, 1.5, 1.5], [0.0, 1.0, 3.0]])))
def var_constant_row(x):
    return np.var(x, axis=1, ddof=1)


@case("numpy.std", fixed(1.5))
def std_one_value(x):
    return np.std(x) ** 2 + np.std(x)


@case("numpy.linalg.det", M(lambda rng: np.array([[1.0, 2.0], [2.0, 4.0]])))
def det_singular(a):
    return np.linalg.det(a)


@case("numpy.linalg.det", M(lambda rng: np.array([[1.0, 2, 3], [2, 4, 6], [0, 1, 1]])))
def det_singular_3(a):
    return np.linalg.det(a)


@case("numpy.linalg.det", M(lambda rng: np.zeros((3, 3))))
def det_zero(a):
    return np.linalg.det(a)


@case("numpy.linalg.svd", M(lambda rng: np.array([[1.0, 2, 3], [2, 4, 6], [0, 1, 1]])))
def svd_zero_singular_value(a):
    s = np.linalg.svd(a, compute_uv=False)
    return np.sum(s**2) + s[0]


@case("numpy.linalg.norm", fixed(0.0, 1.0, -2.0))
def norm_4_zero_entry(x):
    return np.linalg.norm(x, 4) + np.linalg.norm(x, 5) ** 5 + np.linalg.norm(x, np.inf)


@case("numpy.linalg.norm", M(lambda rng: np.array([[1.0, 2], [2, 4]])))
def norm_fro_rank_one(a):
    return np.linalg.norm(a, "fro") + np.linalg.norm(a, 1)
