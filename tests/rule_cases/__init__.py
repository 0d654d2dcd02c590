"""Test data for every registered rule, one module per rule family.

A case is an ordinary function (s2sad reads its source) using the primitive, registered with the
primitive's public name and a spec per argument:

    @case("numpy.arctan2", A(3, 4), A(4))      # broadcasting shapes
    def arctan2_(x, y):
        return np.arctan2(x, y)

Specs: ``A(*shape, lo=, hi=)`` a float64 array (normal, or uniform in [lo, hi]); ``F(lo=, hi=)``
a Python float; ``M(make)`` an array from ``make(rng)`` (e.g. a positive definite matrix);
``C(*shape, lo=, hi=)`` and ``Z(lo=, hi=)`` their complex twins (the real part as ``A``/``F``, the
imaginary part normal, or uniform in +-(hi - lo)/4 when a domain is given).  Any other value is a
constant passed as is and not differentiated.

Complex variants: every case of a differentiable rule whose function accepts complex input (NumPy
raises nothing and drops no imaginary part) is also run with its ``A``/``F`` arguments made complex
(``:complex``) and, with two or more of them, with the first left real (``:mixed``, whose derivative
must come back real).  ``complex_variants`` derives them; ``M`` arguments stay real there, so
structured complex matrices get cases of their own.  ``tests/test_rules.py`` runs every
case in reverse and forward mode against central finite differences and checks that the two
modes agree; a registered rule without a case fails the suite.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class A:
    """A random float64 array of this shape: normal, or uniform in [lo, hi] when given."""

    shape: tuple
    lo: float | None = None
    hi: float | None = None

    def __init__(self, *shape, lo=None, hi=None):
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    def make(self, rng):
        if self.lo is None:
            return rng.normal(size=self.shape)
        return rng.uniform(self.lo, self.hi, size=self.shape)


@dataclass(frozen=True)
class F:
    """A random Python float: normal, or uniform in [lo, hi]."""

    lo: float | None = None
    hi: float | None = None

    def make(self, rng):
        return float(rng.normal() if self.lo is None else rng.uniform(self.lo, self.hi))


@dataclass(frozen=True)
class M:
    """An array built by ``make(rng)``: matrices with structure (positive definite, well conditioned)."""

    build: object

    def make(self, rng):
        value = np.asarray(self.build(rng))
        return value if np.iscomplexobj(value) else value.astype(float)


def spd(n):
    """A well-conditioned symmetric positive definite n x n matrix."""
    return M(lambda rng: (lambda a: a @ a.T + n * np.eye(n))(rng.normal(size=(n, n))))


def wellcond(n):
    """A well-conditioned (diagonally dominant) n x n matrix."""
    return M(lambda rng: rng.normal(size=(n, n)) + 3 * n**0.5 * np.eye(n))


def _imag(rng, shape, lo, hi):
    if lo is None:
        return rng.normal(size=shape)
    return rng.uniform(-(hi - lo) / 4, (hi - lo) / 4, size=shape)


@dataclass(frozen=True, init=False)
class C(A):
    """A random complex128 array: real part as ``A``, imaginary part normal (+-(hi - lo)/4 with a domain)."""

    def make(self, rng):
        return A.make(self, rng) + 1j * _imag(rng, self.shape, self.lo, self.hi)


@dataclass(frozen=True)
class Z(F):
    """A random Python complex: real part as ``F``, imaginary part as ``C``'s."""

    def make(self, rng):
        return complex(F.make(self, rng), float(_imag(rng, (), self.lo, self.hi)))


def hpd(n):
    """A well-conditioned Hermitian positive definite complex n x n matrix."""

    def make(rng):
        a = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
        return a @ a.conj().T + n * np.eye(n)

    return M(make)


def wellcond_c(n):
    """A well-conditioned (diagonally dominant) complex n x n matrix."""
    return M(lambda rng: rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)) + 3 * n**0.5 * np.eye(n))


SPECS = (A, F, M)


@dataclass
class Case:
    rule: str
    fn: object
    specs: tuple
    rtol: float = 1e-5
    atol: float = 1e-6
    eps: float = 1e-6

    @property
    def wrt(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.specs) if isinstance(s, SPECS))

    def args(self, seed: int = 0) -> list:
        rng = np.random.default_rng(seed)
        return [s.make(rng) if isinstance(s, SPECS) else s for s in self.specs]

    variant: str = ""
    complex: bool = True  # False: no complex variants (the function's arguments are real by meaning)

    @property
    def id(self) -> str:
        return f"{self.rule}:{self.fn.__name__}{self.variant}"


CASES: dict[str, list[Case]] = {}


def case(rule: str, *specs, rtol: float = 1e-5, atol: float = 1e-6, eps: float = 1e-6, complex: bool = True):
    """Register the decorated function as a test case for the rule named ``rule``."""

    def register(fn):
        CASES.setdefault(rule, []).append(Case(rule, fn, specs, rtol, atol, eps, complex=complex))
        return fn

    return register


def _complexified(spec):
    if isinstance(spec, A) and not isinstance(spec, C):
        return C(*spec.shape, lo=spec.lo, hi=spec.hi)
    if isinstance(spec, F) and not isinstance(spec, Z):
        return Z(spec.lo, spec.hi)
    return spec


def accepts_complex(case) -> bool:
    """``case.fn`` runs on the complex variant of its arguments without error or a dropped imaginary part."""
    import warnings

    args = replace(case, specs=tuple(_complexified(s) for s in case.specs)).args()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out = case.fn(*args)
            np.asarray(out if not isinstance(out, tuple) else out[0])
        except Exception:
            return False
    return True


def complex_variants(case) -> list:
    """The complex (and mixed real/complex) variants of a case; none when its function refuses complex input."""
    plain = [i for i, s in enumerate(case.specs) if isinstance(s, (A, F)) and not isinstance(s, (C, Z))]
    if not plain or not case.complex or not accepts_complex(case):
        return []
    specs = tuple(_complexified(s) for s in case.specs)
    out = [replace(case, specs=specs, variant=":complex")]
    if len(plain) > 1:
        mixed = list(specs)
        mixed[plain[0]] = case.specs[plain[0]]
        out.append(replace(case, specs=tuple(mixed), variant=":mixed"))
    return out
