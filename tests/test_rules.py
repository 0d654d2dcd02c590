"""Every registered rule against central finite differences, in both modes, from the registry.

Cases live in ``tests/rule_cases/<family>.py``.  For each case: the reverse mode VJP with a random
seed equals the finite-difference gradient of <seed, f>; the forward mode JVP along random
tangents equals the finite-difference directional derivative; and the two agree,
<J t, w> == <t, J^T w>.  A registered rule with no case fails ``test_every_rule_has_a_case``.
"""

import importlib
import pkgutil

import numpy as np
import pytest
import rule_cases
from fd import assert_close, numeric_grad
from rule_cases import CASES

import s2sad
from s2sad.rules.registry import RULES

for _info in pkgutil.iter_modules(rule_cases.__path__):
    importlib.import_module(f"rule_cases.{_info.name}")

ALL = [c for cases in CASES.values() for c in cases]
INTERNAL = "s2sad.runtime."  # s2sad's own helpers: rules in the modes its generated code needs


def _has(case, mode):
    rule = RULES.get(case.rule)
    return rule is not None and (not rule.differentiable or mode in rule.modes)


def _like(value, rng):
    """A random value of value's type and shape (a float for a float)."""
    if isinstance(value, float):
        return float(rng.normal())
    return rng.normal(size=np.shape(value))


def _vdot(a, b):
    return float(np.sum(np.asarray(a) * np.asarray(b)))


def test_every_rule_has_a_case():
    missing = sorted(name for name in RULES if name not in CASES)
    assert not missing, f"rules without test cases in tests/rule_cases: {missing}"


def test_every_public_rule_has_both_modes():
    one_mode = sorted(
        n for n, r in RULES.items() if r.differentiable and len(r.modes) < 2 and not n.startswith(INTERNAL)
    )
    assert not one_mode, f"rules with only one mode: {one_mode}"


def test_every_case_names_a_registered_rule():
    unknown = sorted(name for name in CASES if name not in RULES)
    assert not unknown, f"cases for rules that are not registered: {unknown}"


@pytest.mark.parametrize("case", [c for c in ALL if _has(c, "reverse")], ids=lambda c: c.id)
def test_reverse(case):
    args = case.args()
    out = case.fn(*args)
    seed = _like(out, np.random.default_rng(1))
    got = s2sad.vjp(case.fn, wrt=case.wrt)(*args, seed)
    for k, i in enumerate(case.wrt):

        def scalarized(*a):
            return _vdot(seed, case.fn(*a))

        expected = numeric_grad(scalarized, args, i, eps=case.eps)
        assert_close(got[k], expected, rtol=case.rtol, atol=case.atol)
        assert np.shape(got[k]) == np.shape(args[i])
        if isinstance(args[i], float):
            assert isinstance(got[k], float), f"adjoint of a float argument is {type(got[k]).__name__}"


@pytest.mark.parametrize("case", [c for c in ALL if _has(c, "forward")], ids=lambda c: c.id)
def test_forward_and_agreement(case):
    args = case.args()
    rng = np.random.default_rng(2)
    tangents = [_like(args[i], rng) for i in case.wrt]
    value, dout = s2sad.jvp(case.fn, wrt=case.wrt)(*args, *tangents)
    assert_close(value, case.fn(*args), rtol=1e-12, atol=0)

    def moved(eps):
        a = list(args)
        for i, t in zip(case.wrt, tangents):
            a[i] = a[i] + eps * t
        return np.asarray(case.fn(*a), dtype=float)

    expected = (moved(case.eps) - moved(-case.eps)) / (2 * case.eps)
    assert_close(dout, expected, rtol=case.rtol, atol=case.atol)
    assert np.shape(dout) == np.shape(value)

    if not _has(case, "reverse"):
        return  # a forward-only helper: nothing to agree with
    seed = _like(value, np.random.default_rng(1))
    cotangents = s2sad.vjp(case.fn, wrt=case.wrt)(*args, seed)
    lhs = _vdot(dout, seed)
    rhs = sum(_vdot(t, c) for t, c in zip(tangents, cotangents))
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-9)
