"""Cases for the ``scipy.special`` rules.  SciPy is optional: without it neither the rules nor
these cases are registered (no test is skipped, there is nothing to test)."""

import numpy as np

from . import A, F, case

try:
    import scipy.special as sp
except ImportError:  # pragma: no cover - SciPy is optional
    sp = None

if sp is not None:

    @case("scipy.special.erf", A(3, 4))
    def erf_(x):
        return sp.erf(x)

    @case("scipy.special.erf", F())
    def erf_float(x):
        return sp.erf(x) * x

    @case("scipy.special.erfc", A(3, 4))
    def erfc_(x):
        return sp.erfc(x)

    @case("scipy.special.expit", A(3, 4))
    def expit_(x):
        return sp.expit(x)

    @case("scipy.special.logit", A(3, 4, lo=0.1, hi=0.9))
    def logit_(x):
        return sp.logit(x)

    @case("scipy.special.gammaln", A(3, 4, lo=0.2, hi=5.0))
    def gammaln_(x):
        return sp.gammaln(x)

    @case("scipy.special.digamma", A(3, 4, lo=0.5, hi=5.0))
    def digamma_(x):
        return sp.digamma(x)

    @case("scipy.special.xlogy", A(3, 4), A(4, lo=0.5, hi=2.0))
    def xlogy_(x, y):
        return sp.xlogy(x, y)

    @case("scipy.special.xlogy", F(), F(0.5, 2.0))
    def xlogy_floats(x, y):
        return sp.xlogy(x, y)

    @case("scipy.special.logsumexp", A(3, 4))
    def logsumexp_(x):
        return sp.logsumexp(x)

    @case("scipy.special.logsumexp", A(3, 4))
    def logsumexp_axis(x):
        return sp.logsumexp(x, axis=1)

    @case("scipy.special.logsumexp", A(2, 3, 4))
    def logsumexp_axes_keepdims(x):
        return sp.logsumexp(x, axis=(0, 2), keepdims=True) * np.arange(3.0)[:, None]

    @case("scipy.special.polygamma", 2, A(3, 4, lo=0.5, hi=5.0))
    def polygamma_(n, x):
        return sp.polygamma(n, x)

    @case("scipy.special.logsumexp", A(3, 4), A(4, lo=0.5, hi=2.0))
    def logsumexp_b(x, w):
        return sp.logsumexp(x, axis=1, b=w) + sp.logsumexp(x, b=w)

    @case("scipy.special.logsumexp", A(2, 3, 4), A(3, 1, lo=0.5, hi=2.0))
    def logsumexp_b_keepdims(x, w):
        return sp.logsumexp(x, axis=(0, 2), b=w, keepdims=True)

    @case("scipy.special.softmax", A(3, 4))
    def softmax_(x):
        return sp.softmax(x, axis=1) * np.arange(4.0) + sp.softmax(x)

    @case("scipy.special.softmax", A(2, 3, 4))
    def softmax_axes(x):
        return sp.softmax(x, axis=(0, 2)) + sp.softmax(x, axis=-2)

    @case("scipy.special.log_softmax", A(3, 4))
    def log_softmax_(x):
        return sp.log_softmax(x, axis=0) * np.arange(4.0) + sp.log_softmax(x)

    @case("scipy.special.log_softmax", A(2, 3, 4))
    def log_softmax_axes(x):
        return sp.log_softmax(x, axis=(0, 2)) + sp.log_softmax(x, axis=-2)

    @case("scipy.special.ndtr", A(3, 4))
    def ndtr_(x):
        return sp.ndtr(x)

    @case("scipy.special.log_ndtr", A(3, 4))
    def log_ndtr_(x):
        return sp.log_ndtr(x) + sp.log_ndtr(x - 30.0)  # far in the left tail, where ndtr is 0

    @case("scipy.special.xlog1py", A(3, 4), A(4, lo=-0.5, hi=2.0))
    def xlog1py_(x, y):
        return sp.xlog1py(x, y)

    @case("scipy.special.xlog1py", F(), F(-0.5, 2.0))
    def xlog1py_floats(x, y):
        return sp.xlog1py(x, y) * x
