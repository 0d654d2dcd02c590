"""Every registered rule against central finite differences, in both modes, from the registry.

Cases live in ``tests/rule_cases/<family>.py``.  For each case: the reverse mode VJP with a random
seed equals the finite-difference gradient of <seed, f>; the forward mode JVP along random
tangents equals the finite-difference directional derivative; and the two agree,
Re<J t, w> == Re<t, J^T w>.  A registered rule with no case fails ``test_every_rule_has_a_case``.

Every case whose function accepts complex input also runs as a complex variant, and as a mixed one
(first argument real) when it has several arguments (``rule_cases.complex_variants``): finite
differences along the real and the imaginary direction give JAX's convention, df/dRe - i df/dIm,
and a real argument's derivative must be real.
"""

import importlib
import pkgutil

import numpy as np
import pytest
import rule_cases
from fd import assert_close, assert_type_of, numeric_grad, numeric_jvp, random_like, real_vdot
from rule_cases import CASES, complex_variants

import s2sad
from s2sad.rules.registry import RULES

for _info in pkgutil.iter_modules(rule_cases.__path__):
    importlib.import_module(f"rule_cases.{_info.name}")

REAL = [c for cases in CASES.values() for c in cases]
# rules that refuse complex input with a ValueError at run time (their complex derivatives are not built)
REFUSES_COMPLEX = {"numpy.linalg.svd", "numpy.linalg.pinv", "scipy.special.digamma"}
VARIANTS = [v for c in REAL if c.rule in RULES and RULES[c.rule].differentiable for v in complex_variants(c)]
COMPLEX = [v for v in VARIANTS if v.rule not in REFUSES_COMPLEX]
ALL = REAL + COMPLEX
INTERNAL = "s2sad.runtime."  # s2sad's own helpers: rules in the modes its generated code needs


def _has(case, mode):
    rule = RULES.get(case.rule)
    return rule is not None and (not rule.differentiable or mode in rule.modes)


_like = random_like  # a random value of a value's type and shape (a float for a float)
_vdot = real_vdot  # Re(sum(a * b)): VJPs are the transposes of JVPs under this pairing


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
        assert_type_of(got[k], args[i])


@pytest.mark.parametrize("case", [c for c in ALL if _has(c, "forward")], ids=lambda c: c.id)
def test_forward_and_agreement(case):
    args = case.args()
    rng = np.random.default_rng(2)
    tangents = [_like(args[i], rng) for i in case.wrt]
    value, dout = s2sad.jvp(case.fn, wrt=case.wrt)(*args, *tangents)
    assert_close(value, case.fn(*args), rtol=1e-12, atol=0)

    expected = numeric_jvp(case.fn, args, case.wrt, tangents, eps=case.eps)
    assert_close(dout, expected, rtol=case.rtol, atol=case.atol)
    assert np.shape(dout) == np.shape(value)

    if not _has(case, "reverse"):
        return  # a forward-only helper: nothing to agree with
    seed = _like(value, np.random.default_rng(1))
    cotangents = s2sad.vjp(case.fn, wrt=case.wrt)(*args, seed)
    lhs = _vdot(dout, seed)
    rhs = sum(_vdot(t, c) for t, c in zip(tangents, cotangents))
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("case", [v for v in VARIANTS if v.rule in REFUSES_COMPLEX], ids=lambda c: c.id)
def test_complex_refused(case):
    """Exact or refused: these rules say so for complex input instead of returning a wrong number."""
    args = case.args()
    seed = _like(case.fn(*args), np.random.default_rng(1))
    with pytest.raises(ValueError, match="real"):
        s2sad.vjp(case.fn, wrt=case.wrt)(*args, seed)
    with pytest.raises(ValueError, match="real"):
        s2sad.jvp(case.fn, wrt=case.wrt)(*args, *[_like(args[i], np.random.default_rng(2)) for i in case.wrt])


def test_complex_case_counts():
    """Every differentiable rule whose function takes complex input has complex cases; report how many."""
    rules = {c.rule for c in COMPLEX}
    assert len(rules) >= 150 and len(COMPLEX) >= 300, (len(rules), len(COMPLEX))
