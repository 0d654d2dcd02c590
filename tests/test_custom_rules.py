"""A user's own rule for a function s2sad cannot see into (compiled C): s2sad refuses one without a rule
(``np.frexp``); a rule the user registers with ``s2sad.reverse_rule`` / ``s2sad.forward_rule`` replaces
s2sad's own (``math.erf``) and is differentiated inside a larger function, in both modes, against finite
differences."""

import math

import numpy as np
import pytest
from fd import call_jvp, numeric_grad

import s2sad
from s2sad.rules import registry
from s2sad.rules.registry import SCALAR


@pytest.fixture
def user_rules():
    """Register the user's rules for math.erf for one test, then forget them (the registry is global)."""
    saved = dict(registry.RULES), dict(registry._BY_ID)

    @s2sad.reverse_rule(math.erf, kind=SCALAR)
    def erf(y, x):
        bx += by * 2 / math.sqrt(math.pi) * math.exp(-x * x)  # noqa: F821, F841  (a template: bx, by are the pass's)

    @s2sad.forward_rule(math.erf, kind=SCALAR)
    def erf(y, x):  # noqa: F811
        dy = dx * 2 / math.sqrt(math.pi) * math.exp(-x * x)  # noqa: F821, F841

    yield
    registry.RULES.clear()
    registry.RULES.update(saved[0])
    registry._BY_ID.clear()
    registry._BY_ID.update(saved[1])


def loss(w, xs):
    """A small probit-like model: erf inside a loop, mixed with NumPy."""
    total = 0.0
    for x in xs:
        z = w[0] * x + w[1]
        total = total + (1.0 + math.erf(z * z - w[0])) * math.exp(-z)
    return total + np.sum(w * w)


def loss_without_rule(w, xs):
    return np.frexp(w[0] * xs[0])[0]


XS = np.array([0.3, -0.7, 1.1])
W = np.array([0.4, -0.2])


def test_without_a_rule_s2sad_refuses():
    with pytest.raises(s2sad.DifferentiationError, match="no derivative rule for `numpy.frexp`"):
        s2sad.grad(loss_without_rule)(W, XS)


def test_reverse_mode_uses_the_user_rule(user_rules):
    got = s2sad.grad(loss)(W, XS)
    np.testing.assert_allclose(got, numeric_grad(loss, [W, XS], 0), rtol=1e-6, atol=1e-8)


def test_forward_mode_uses_the_user_rule(user_rules):
    t = np.array([1.0, -2.0])
    value, dout = call_jvp(loss, [W, XS], (0,), [t])
    assert value == pytest.approx(loss(W, XS))
    expected = numeric_grad(loss, [W, XS], 0) @ t
    assert dout == pytest.approx(expected, rel=1e-6)


def test_the_rule_appears_in_the_registry(user_rules):
    assert "math.erf forward,reverse" in s2sad.list_rules()
