"""Primitives whose output carries no derivative: a zero derivative almost everywhere (rounding,
signs, comparisons), integer results (argmax, indices, shapes), constants (zeros, arange) and
random draws (a sample is treated as a constant; draws whose parameters are differentiated, like
``np.random.normal(mu)``, are refused: write ``mu + np.random.standard_normal()`` instead).

``stop_gradient(x)`` is the identity whose derivative is declared zero: the user's way to say
"treat this value as a constant".
"""

import builtins
import math
import operator

import numpy as np

from .. import runtime
from .registry import nondifferentiable


def stop_gradient(x):
    """``x`` itself, treated as a constant by s2sad: no derivative flows through it."""
    return x


nondifferentiable(stop_gradient, name="s2sad.stop_gradient")

# ---- rounding and signs: piecewise constant -----------------------------------------------
nondifferentiable(np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix, np.sign, np.signbit)
nondifferentiable(runtime.real_sign, name="s2sad.runtime.real_sign")  # (the user's np.sign: refuses complex values)
nondifferentiable(operator.floordiv, np.floor_divide, builtins.round)
nondifferentiable(math.floor, math.ceil, math.trunc)  # (integers: a zero derivative, like np.floor)

# ---- comparisons, logic and tests ----------------------------------------------------------
nondifferentiable(np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal)
nondifferentiable(np.logical_and, np.logical_or, np.logical_not, np.logical_xor)
nondifferentiable(np.isnan, np.isfinite, np.isinf, np.isclose, np.allclose, np.array_equal)
nondifferentiable(np.any, np.all, np.count_nonzero)
nondifferentiable(builtins.any, builtins.all)

# ---- integer results: positions and sizes --------------------------------------------------
nondifferentiable(np.argmax, np.argmin, np.argsort, np.argpartition, np.nonzero, np.flatnonzero)
nondifferentiable(np.argwhere, np.searchsorted, np.shape, np.size, np.ndim)
nondifferentiable(np.diag_indices, np.diag_indices_from, np.tril_indices, np.tril_indices_from)
nondifferentiable(np.triu_indices, np.triu_indices_from, np.indices, np.unravel_index, np.ravel_multi_index)
nondifferentiable(np.digitize, np.lexsort, np.isin, np.iscomplexobj, np.isrealobj, np.isreal, np.iscomplex)
# which item the builtins max(...) and min(...) return (desugar indexes with it)
nondifferentiable(runtime.index_of_max, name="s2sad.runtime.index_of_max")
nondifferentiable(runtime.index_of_min, name="s2sad.runtime.index_of_min")
nondifferentiable(runtime.sorted_order, name="s2sad.runtime.sorted_order")  # sorted(...): its permutation

# ---- constants -------------------------------------------------------------------------------
nondifferentiable(np.zeros_like, np.ones_like, np.empty_like)
nondifferentiable(np.zeros, np.ones, np.empty, np.eye, np.identity, np.arange)

# ---- random draws that take only sizes ------------------------------------------------------
for _draw in ("rand", "randn", "random", "random_sample", "standard_normal", "randint", "seed"):
    nondifferentiable(getattr(np.random, _draw), name=f"numpy.random.{_draw}")
nondifferentiable(np.random.default_rng, name="numpy.random.default_rng")
