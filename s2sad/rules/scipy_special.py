"""``scipy.special`` functions, registered only when SciPy imports.  Elementwise, so inputs
broadcast like NumPy's ufuncs; ``logsumexp`` is a reduction with ``axis``/``keepdims``.

Generated code imports only numpy, math and s2sad's runtime, so templates call SciPy through the
runtime helper ``polygamma(n, x)`` (digamma for ``n = 0``), which has a rule of its own (in ``math_rules``,
where ``math.lgamma`` uses it too): derivatives of derivatives work.
"""

import numpy as np

from ..runtime import polygamma, unreduce  # noqa: F401  (names used in templates)
from .registry import ELEMENTWISE, REDUCTION, forward_rule, reverse_rule

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
