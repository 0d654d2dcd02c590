"""Test data for every registered rule, one module per rule family.

A case is an ordinary function (s2sad reads its source) using the primitive, registered with the
primitive's public name and a spec per argument:

    @case("numpy.arctan2", A(3, 4), A(4))      # broadcasting shapes
    def arctan2_(x, y):
        return np.arctan2(x, y)

Specs: ``A(*shape, lo=, hi=)`` a float64 array (normal, or uniform in [lo, hi]); ``F(lo=, hi=)``
a Python float; ``M(make)`` an array from ``make(rng)`` (e.g. a positive definite matrix).  Any
other value is a constant passed as is and not differentiated.  ``tests/test_rules.py`` runs every
case in reverse and forward mode against central finite differences and checks that the two
modes agree; a registered rule without a case fails the suite.
"""

from __future__ import annotations

from dataclasses import dataclass

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
        return np.asarray(self.build(rng), dtype=float)


def spd(n):
    """A well-conditioned symmetric positive definite n x n matrix."""
    return M(lambda rng: (lambda a: a @ a.T + n * np.eye(n))(rng.normal(size=(n, n))))


def wellcond(n):
    """A well-conditioned (diagonally dominant) n x n matrix."""
    return M(lambda rng: rng.normal(size=(n, n)) + 3 * n**0.5 * np.eye(n))


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

    @property
    def id(self) -> str:
        return f"{self.rule}:{self.fn.__name__}"


CASES: dict[str, list[Case]] = {}


def case(rule: str, *specs, rtol: float = 1e-5, atol: float = 1e-6, eps: float = 1e-6):
    """Register the decorated function as a test case for the rule named ``rule``."""

    def register(fn):
        CASES.setdefault(rule, []).append(Case(rule, fn, specs, rtol, atol, eps))
        return fn

    return register
