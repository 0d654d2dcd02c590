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
