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
REFUSES_COMPLEX = {"numpy.linalg.pinv", "scipy.special.digamma"}
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


# ---- derivatives of derivatives: every case again at order 2 (and 3 for elementwise rules) -------------
#
# The first-order derivative is generated code; differentiating it again must give the finite differences
# of that code, in every mode combination.  A rule whose derivative cannot be differentiated again is
# listed here, with the reason; any other failure fails the suite.
FIRST_ORDER_ONLY: dict[str, str] = {}

# cases (rule:function) first-order only by their arguments, with the reason
FIRST_ORDER_ONLY_CASES: dict[str, str] = {
    "s2sad.runtime.unnorm_ord:unnorm_ord_spectral": "the spectral and nuclear norms: differentiated at most twice",
}

# complex cases whose second derivative is refused (a ValueError naming "real"), by case id, with the reason
SECOND_ORDER_REFUSED: dict[str, str] = {}

ORDER3_KINDS = ("elementwise", "scalar")
# other rules swept at order 3 too: those whose derivatives are built from helpers that are exact at edge
# points (zeros of prod and cumprod, singular matrices of det) at every order, svd (its helpers gap_weighted,
# over_s and phase_over_s have rules of their own), and norm (exact, or refused with ord=: ORDER3_REFUSED)
ORDER3_RULES = (
    "numpy.prod",
    "numpy.cumprod",
    "numpy.einsum",
    "numpy.linalg.det",
    "numpy.linalg.svd",
    "numpy.linalg.norm",
    "numpy.var",
    "numpy.std",
    "numpy.vdot",
    "numpy.ascontiguousarray",
    "numpy.asfortranarray",
    "numpy.median",
    "numpy.linalg.matrix_power",
    "numpy.linalg.eigvalsh",
    "numpy.linalg.qr",
    "numpy.linalg.lstsq",
)
# cases (rule:function, real and complex) whose third derivative is refused with a located DifferentiationError:
# the spectral and nuclear norms (their dW goes through svd once: unnorm_ord_tangent / unnorm_ord_cotangent)
ORDER3_REFUSED = {
    f"numpy.linalg.norm:{name}"
    for name in ("norm_spectral", "norm_nuclear", "norm_matrix_axes", "norm_stacked_matrices")
}


def _wrt_values(case, args):
    return [args[i] for i in case.wrt]


def _with(args, wrt, values):
    a = list(args)
    for i, v in zip(wrt, values):
        a[i] = v
    return a


def _flat(value):
    """A derivative (a value or a tuple of them) as one flat real vector: each complex part as its real
    parts, then its imaginary parts (the coordinates the finite differences move along)."""
    parts = value if isinstance(value, (tuple, list)) else [value]
    flat = []
    for p in parts:
        p = np.asarray(p)
        flat.append(np.ravel(p.real).astype(float))
        if np.iscomplexobj(p):
            flat.append(np.ravel(p.imag).astype(float))
    return np.concatenate(flat) if flat else np.zeros(0)


def _cotangent(value):
    """A cotangent in JAX's convention (df/dRe - i df/dIm) as the real gradient ``_flat`` pairs with:
    Re(sum(w * g)) = _flat(conj(w)) @ _flat(g)."""
    if isinstance(value, (tuple, list)):
        return _flat([np.conj(v) for v in value])
    return _flat(np.conj(value))


def _fd_jacobian(g, case, args, eps):
    """d flat(g(*args)) / d (the case's wrt arguments, real then imaginary directions of complex ones),
    by central differences: (outputs, inputs)."""
    cols = []
    for i in case.wrt:
        x = np.asarray(args[i])
        directions = (1.0, 1j) if np.iscomplexobj(x) else (1.0,)
        for unit in directions:
            for idx in np.ndindex(*x.shape) if x.shape else [()]:
                step = np.zeros(x.shape, dtype=x.dtype)
                step[idx] = eps * unit
                plus, minus = list(args), list(args)
                scalar = isinstance(args[i], (float, complex))
                plus[i] = type(args[i])(x + step) if scalar else x + step
                minus[i] = type(args[i])(x - step) if scalar else x - step
                cols.append((_flat(g(*plus)) - _flat(g(*minus))) / (2 * eps))
    return np.stack(cols, axis=1)


def _random_like(value, rng):
    """A random value of ``value``'s structure: tuples, lists and NamedTuples (``SVDResult``) of values."""
    if isinstance(value, (tuple, list)):
        parts = [_random_like(v, rng) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else type(value)(parts)
    return _like(value, rng)


def _second_order(case, first_kind):
    """Differentiate the case's first-order derivative (``first_kind``: "vjp" or "jvp") again in reverse
    and forward mode; compare with finite differences of that derivative."""
    args = case.args()
    rng = np.random.default_rng(5)

    if first_kind == "vjp":
        seed = _like(case.fn(*args), np.random.default_rng(1))
        first = s2sad.vjp(case.fn, wrt=case.wrt)
        extra = [seed]

        def g(*a):
            return first(*a, seed)

    else:
        tangents = [_like(args[i], rng) for i in case.wrt]
        first = s2sad.jvp(case.fn, wrt=case.wrt)
        extra = tangents

        def g(*a):
            return first(*a, *tangents)[1]

    jac = _fd_jacobian(g, case, args, case.eps)
    out = g(*args)
    w = _random_like(out, rng)
    # reverse over the first derivative: <w, g(args)> differentiated w.r.t. the arguments
    if first_kind == "vjp":
        cot = s2sad.vjp(first, wrt=case.wrt)(*args, *extra, w)
    else:
        value = first(*args, *extra)[0]
        cot = s2sad.vjp(first, wrt=case.wrt)(*args, *extra, (_like(value, rng) * 0.0, w))
    cot = tuple(cot)  # wrt is a tuple: so is every derivative
    assert_close(_cotangent(cot), jac.T @ _cotangent(w), rtol=case.rtol * 10, atol=case.atol * 10)
    for k, i in enumerate(case.wrt):
        assert np.shape(cot[k]) == np.shape(args[i])
        assert_type_of(cot[k], args[i])
    if first_kind == "jvp":
        return
    # forward over the first derivative
    t2 = [_like(args[i], rng) for i in case.wrt]
    value, dout = s2sad.jvp(first, wrt=case.wrt)(*args, *extra, *t2)
    assert_close(_flat(dout), jac @ _flat(t2), rtol=case.rtol * 10, atol=case.atol * 10)


def _order2_cases(kind):
    modes = ("reverse",) if kind == "vjp" else ("forward",)
    # real and complex cases: finite differences along the real and the imaginary directions
    return [c for c in ALL if all(_has(c, m) for m in modes) and RULES[c.rule].differentiable]


# Second derivatives that crash today, by case id: left out of the sweep so that nothing here asserts a
# wrong number; each is a known bug with its reason.
COMPLEX_PENDING: dict[str, str] = {}


def _check_order2(case, first_kind):
    """Exact, or (only for rules listed as first-order only) refused: never a wrong number."""
    if case.id in SECOND_ORDER_REFUSED:
        with pytest.raises(ValueError, match="real"):
            _second_order(case, first_kind)
        return
    if case.rule not in FIRST_ORDER_ONLY and f"{case.rule}:{case.fn.__name__}" not in FIRST_ORDER_ONLY_CASES:
        return _second_order(case, first_kind)
    try:
        _second_order(case, first_kind)
    except (s2sad.DifferentiationError, ValueError):
        pass


def _swept(kind):
    return [c for c in _order2_cases(kind) if c.id not in COMPLEX_PENDING]


@pytest.mark.parametrize("case", _swept("vjp"), ids=lambda c: c.id)
def test_order2_over_reverse(case):
    _check_order2(case, "vjp")


@pytest.mark.parametrize("case", _swept("jvp"), ids=lambda c: c.id)
def test_order2_reverse_over_forward(case):
    _check_order2(case, "jvp")


def test_first_order_only_rules_are_registered():
    assert not set(FIRST_ORDER_ONLY) - set(RULES)
    ids = {c.id for c in ALL}
    assert not (set(SECOND_ORDER_REFUSED) - ids)
    assert not (set(COMPLEX_PENDING) - ids) and not (set(FIRST_ORDER_ONLY_CASES) - {c.id for c in REAL})
    assert ORDER3_REFUSED <= {f"{c.rule}:{c.fn.__name__}" for c in REAL}


def _order3_cases():
    return [
        c
        for c in _swept("vjp")
        if (RULES[c.rule].kind in ORDER3_KINDS or c.rule in ORDER3_RULES) and c.rule not in FIRST_ORDER_ONLY
    ]


@pytest.mark.parametrize("case", _order3_cases(), ids=lambda c: c.id)
def test_order3_reverse_over_reverse_over_reverse(case):
    args = case.args()
    rng = np.random.default_rng(6)
    seed = _like(case.fn(*args), rng)
    first = s2sad.vjp(case.fn, wrt=case.wrt)
    w = _random_like(first(*args, seed), rng)
    second = s2sad.vjp(first, wrt=case.wrt)

    def h(*a):
        return second(*a, seed, w)

    w3 = _random_like(h(*args), rng)
    if f"{case.rule}:{case.fn.__name__}" in ORDER3_REFUSED:
        with pytest.raises(s2sad.DifferentiationError, match=r"^\S+:\d+:\d+: .*at most twice"):
            s2sad.vjp(second, wrt=case.wrt)(*args, seed, w, w3)
        return
    got = s2sad.vjp(second, wrt=case.wrt)(*args, seed, w, w3)
    jac = _fd_jacobian(h, case, args, 1e-4)
    assert_close(_cotangent(tuple(got)), jac.T @ _cotangent(w3), rtol=1e-4, atol=1e-5)


def _logabsdet(a):
    return np.linalg.slogdet(a)[1]


def _slogdet_sign(a):
    return np.linalg.slogdet(a)[0] * a


@pytest.mark.parametrize("fn", [_logabsdet, _slogdet_sign])
def test_slogdet_at_a_singular_matrix_is_refused(fn):
    """log|det| is -inf at a singular matrix and the sign jumps there: no derivative exists, so s2sad says
    so (a ValueError naming slogdet), in both modes, instead of NumPy's LinAlgError or a wrong number."""
    a = np.stack([np.eye(2), np.array([[1.0, 2.0], [2.0, 4.0]])])
    with pytest.raises(ValueError, match="slogdet of a singular matrix"):
        s2sad.vjp(fn)(a, _like(fn(a), np.random.default_rng(1)))
    with pytest.raises(ValueError, match="slogdet of a singular matrix"):
        s2sad.jvp(fn)(a, np.ones_like(a))
