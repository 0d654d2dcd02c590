"""``scipy.special`` functions, registered only when SciPy imports.  Elementwise, so inputs
broadcast like NumPy's ufuncs; ``logsumexp`` is a reduction with ``axis``/``keepdims``.

Generated code imports only numpy, math and s2sad's runtime, so templates call SciPy through the
runtime helper ``polygamma(n, x)`` (digamma for ``n = 0``), which has a rule of its own (in ``math_rules``,
where ``math.lgamma`` uses it too): derivatives of derivatives work.
"""

import numpy as np

from ..runtime import polygamma, unbroadcast, unreduce  # noqa: F401  (names used in templates)
from .registry import ELEMENTWISE, OTHER, REDUCTION, forward_rule, reverse_rule

try:
    import scipy.special as sp
except ImportError:  # pragma: no cover - SciPy is optional
    sp = None

# fmt: off
if sp is not None:

    @reverse_rule(sp.erf, kind=ELEMENTWISE, name="scipy.special.erf")
    def erf(y, x):
        bx += by * (2 / np.sqrt(np.pi)) * np.exp(-x * x)

    @forward_rule(sp.erf, kind=ELEMENTWISE, name="scipy.special.erf")
    def erf(y, x):
        dy = dx * (2 / np.sqrt(np.pi)) * np.exp(-x * x)

    @reverse_rule(sp.erfc, kind=ELEMENTWISE, name="scipy.special.erfc")
    def erfc(y, x):
        bx -= by * (2 / np.sqrt(np.pi)) * np.exp(-x * x)

    @forward_rule(sp.erfc, kind=ELEMENTWISE, name="scipy.special.erfc")
    def erfc(y, x):
        dy = -dx * (2 / np.sqrt(np.pi)) * np.exp(-x * x)

    @reverse_rule(sp.expit, kind=ELEMENTWISE, name="scipy.special.expit")
    def expit(y, x):
        bx += by * y * (1 - y)

    @forward_rule(sp.expit, kind=ELEMENTWISE, name="scipy.special.expit")
    def expit(y, x):
        dy = dx * y * (1 - y)

    @reverse_rule(sp.logit, kind=ELEMENTWISE, name="scipy.special.logit")
    def logit(y, x):
        bx += np.divide(by, x * (1 - x))

    @forward_rule(sp.logit, kind=ELEMENTWISE, name="scipy.special.logit")
    def logit(y, x):
        dy = np.divide(dx, x * (1 - x))

    @reverse_rule(sp.gammaln, kind=ELEMENTWISE, name="scipy.special.gammaln")
    def gammaln(y, x):
        bx += by * polygamma(0, x)

    @forward_rule(sp.gammaln, kind=ELEMENTWISE, name="scipy.special.gammaln")
    def gammaln(y, x):
        dy = dx * polygamma(0, x)

    @reverse_rule(sp.digamma, kind=ELEMENTWISE, name="scipy.special.digamma")
    def digamma(y, x):
        bx += by * polygamma(1, x)

    @forward_rule(sp.digamma, kind=ELEMENTWISE, name="scipy.special.digamma")
    def digamma(y, x):
        dy = dx * polygamma(1, x)

    @reverse_rule(sp.polygamma, kind=ELEMENTWISE, name="scipy.special.polygamma")
    def scipy_polygamma(y, n, x):
        bx += by * polygamma(n + 1, x)

    @forward_rule(sp.polygamma, kind=ELEMENTWISE, name="scipy.special.polygamma")
    def scipy_polygamma(y, n, x):
        dy = dx * polygamma(n + 1, x)

    # x log(y), 0 where x == 0: d/dx = log(y), d/dy = x / y
    @reverse_rule(sp.xlogy, kind=ELEMENTWISE, name="scipy.special.xlogy")
    def xlogy(z, x, y):
        bx += bz * np.log(y)
        by += np.divide(bz * x, y)

    @forward_rule(sp.xlogy, kind=ELEMENTWISE, name="scipy.special.xlogy")
    def xlogy(z, x, y):
        dz = dx * np.log(y) + np.divide(dy * x, y)

    # y = log(sum(exp(a))): dy/da = exp(a - y), the softmax
    @reverse_rule(sp.logsumexp, kind=REDUCTION, name="scipy.special.logsumexp")
    def logsumexp(y, a, axis=None, *, keepdims=False):
        ba += unreduce(by, a, axis, keepdims) * np.exp(a - unreduce(y, a, axis, keepdims))

    @forward_rule(sp.logsumexp, kind=REDUCTION, name="scipy.special.logsumexp")
    def logsumexp(y, a, axis=None, *, keepdims=False):
        dy = np.sum(da * np.exp(a - unreduce(y, a, axis, keepdims)), axis=axis, keepdims=keepdims)

    # logsumexp with weights b (broadcast against a): y = log(sum(b exp(a))), dy/da = b exp(a - y), dy/db = exp(a - y)
    @reverse_rule(sp.logsumexp, kind=REDUCTION, name="scipy.special.logsumexp")
    def logsumexp(y, a, axis=None, *, b, keepdims=False):
        e = np.exp(a - unreduce(y, a, axis, keepdims))
        ba += unbroadcast(unreduce(by, a, axis, keepdims) * b * e, a)
        bb += unbroadcast(unreduce(by, a, axis, keepdims) * e, b)

    @forward_rule(sp.logsumexp, kind=REDUCTION, name="scipy.special.logsumexp")
    def logsumexp(y, a, axis=None, *, b, keepdims=False):
        e = np.exp(a - unreduce(y, a, axis, keepdims))
        dy = np.sum(da * b * e, axis=axis, keepdims=keepdims) + np.sum(db * e, axis=axis, keepdims=keepdims)

    # softmax y = exp(x - logsumexp(x)): dy = y (dx - sum(y dx)) along axis (all axes for None)
    @reverse_rule(sp.softmax, kind=OTHER, name="scipy.special.softmax")
    def softmax(y, x, axis=None):
        bx += y * (by - np.sum(by * y, axis=axis, keepdims=True))

    @forward_rule(sp.softmax, kind=OTHER, name="scipy.special.softmax")
    def softmax(y, x, axis=None):
        dy = y * (dx - np.sum(y * dx, axis=axis, keepdims=True))

    @reverse_rule(sp.log_softmax, kind=OTHER, name="scipy.special.log_softmax")
    def log_softmax(y, x, axis=None):
        bx += by - np.exp(y) * np.sum(by, axis=axis, keepdims=True)

    @forward_rule(sp.log_softmax, kind=OTHER, name="scipy.special.log_softmax")
    def log_softmax(y, x, axis=None):
        dy = dx - np.sum(np.exp(y) * dx, axis=axis, keepdims=True)

    # the standard normal CDF: its density exp(-x^2 / 2) / sqrt(2 pi); for log_ndtr divided by ndtr = exp(y),
    # in one exp so that it stays finite far in the left tail (where ndtr underflows)
    @reverse_rule(sp.ndtr, kind=ELEMENTWISE, name="scipy.special.ndtr")
    def ndtr(y, x):
        bx += by * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)

    @forward_rule(sp.ndtr, kind=ELEMENTWISE, name="scipy.special.ndtr")
    def ndtr(y, x):
        dy = dx * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)

    @reverse_rule(sp.log_ndtr, kind=ELEMENTWISE, name="scipy.special.log_ndtr")
    def log_ndtr(y, x):
        bx += by * np.exp(-0.5 * x * x - y) / np.sqrt(2 * np.pi)

    @forward_rule(sp.log_ndtr, kind=ELEMENTWISE, name="scipy.special.log_ndtr")
    def log_ndtr(y, x):
        dy = dx * np.exp(-0.5 * x * x - y) / np.sqrt(2 * np.pi)

    # x log1p(y), 0 where x == 0: d/dx = log1p(y), d/dy = x / (1 + y)
    @reverse_rule(sp.xlog1py, kind=ELEMENTWISE, name="scipy.special.xlog1py")
    def xlog1py(z, x, y):
        bx += bz * np.log1p(y)
        by += np.divide(bz * x, 1 + y)

    @forward_rule(sp.xlog1py, kind=ELEMENTWISE, name="scipy.special.xlog1py")
    def xlog1py(z, x, y):
        dz = dx * np.log1p(y) + np.divide(dy * x, 1 + y)
