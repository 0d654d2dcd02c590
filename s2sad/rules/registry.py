"""The rule registry: per primitive, a reverse (adjoint) and a forward (tangent) template.

A rule is a Python function whose *body is a template*.  Its first parameter names the primal
output, the others the primitive's inputs (same names and defaults as the primitive's own
signature, so call sites bind to them like a call).  In the body ``b<name>`` is an adjoint and
``d<name>`` a tangent:

    @reverse_rule(np.sin)
    def sin(y, x):
        bx += by * np.cos(x)

    @forward_rule(np.sin)
    def sin(y, x):
        dy = dx * np.cos(x)

Reverse templates hold ``b<input> += expr`` / ``b<input> -= expr`` (accumulate into an input's
adjoint), ``b<input>[index] += expr`` (accumulate into part of it) and ``name = expr`` (a local).
Forward templates assign ``d<output>``; they are sums of terms each linear in one tangent, so a
term holding a zero tangent is zero.  Passes never name a primitive: they read this table.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from dataclasses import dataclass, field

import gast
import numpy as np

ELEMENTWISE = "elementwise"  # output = broadcast of the inputs; adjoints are unbroadcast
SCALAR = "scalar"  # math-module functions: inputs and output are Python scalars
OTHER = "other"  # output shape unrelated to the inputs (linear algebra, shape operations)
REDUCTION = "reduction"  # a scalar when reduced over every axis (axis=None, keepdims=False)


class Template:
    """A rule function, parsed once: signature to bind call sites, body to instantiate."""

    def __init__(self, fn):
        self.fn = fn
        self.signature = inspect.signature(fn)
        self.params = list(self.signature.parameters)
        self.out, *self.inputs = self.params
        self._body = None

    @property
    def body(self) -> list:
        """The template statements, parsed on first use (keeps ``import s2sad`` fast)."""
        if self._body is None:
            tree = gast.parse(textwrap.dedent(inspect.getsource(self.fn))).body[0]
            body = tree.body
            if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
                body = body[1:]  # docstring
            self._body = body
        return self._body

    def bind(self, args, keywords):
        """Map parameter name -> argument (an atom, or a default value); TypeError if it cannot bind."""
        bound = self.signature.bind(None, *args, **keywords)
        bound.apply_defaults()
        mapping = dict(bound.arguments)
        del mapping[self.out]
        return mapping


@dataclass
class Rule:
    name: str  # public dotted name, e.g. "numpy.sin"
    primitives: tuple
    kind: str = OTHER
    reverse: list = field(default_factory=list)  # Templates, tried in order (overloads by arity)
    forward: list = field(default_factory=list)
    differentiable: bool = True
    module: str = ""  # the module that registered it first: its family (s2sad.rules.shape_ops)

    @property
    def modes(self) -> tuple[str, ...]:
        if not self.differentiable:
            return ("nondifferentiable",)
        return tuple(m for m, t in (("forward", self.forward), ("reverse", self.reverse)) if t)


RULES: dict[str, Rule] = {}  # by public name
_BY_ID: dict[int, Rule] = {}  # by id(primitive); primitives live as long as their modules
_KEEP: list = []  # keep user primitives alive so ids stay unique


def public_name(obj) -> str:
    """The dotted name users call: numpy.sin, math.exp, numpy.linalg.inv, numpy.ndarray.sum."""
    module = getattr(obj, "__module__", None) or ""
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", repr(obj))
    if module == "builtins":
        return qual
    if type(obj).__name__ == "ufunc" and _in_scipy_special(obj):
        return f"scipy.special.{qual}"  # SciPy's ufuncs are numpy.ufunc objects: their module reads "numpy"
    if module.startswith("numpy") or type(obj).__name__ in ("ufunc", "_ArrayFunctionDispatcher"):
        module = "numpy"
        for sub in ("linalg", "fft"):
            if getattr(obj, "__module__", "").startswith(f"numpy.{sub}"):
                module = f"numpy.{sub}"
    if module == "_operator":
        module = "operator"
    return f"{module}.{qual}" if module else qual


def _in_scipy_special(ufunc) -> bool:
    """``ufunc`` is scipy.special's (when SciPy is loaded at all), not NumPy's."""
    special = sys.modules.get("scipy.special")
    name = getattr(ufunc, "__name__", "")
    return special is not None and getattr(special, name, None) is ufunc and getattr(np, name, None) is not ufunc


def lookup(obj) -> Rule | None:
    try:
        return _BY_ID.get(id(obj))
    except TypeError:
        return None


def _rule_for(primitives, kind, name=None, module="") -> Rule:
    first = primitives[0]
    name = name or public_name(first)
    rule = RULES.get(name)
    if rule is None:
        rule = RULES[name] = Rule(name, tuple(primitives), kind, module=module)
    for p in primitives:
        _BY_ID[id(p)] = rule
        _KEEP.append(p)
    rule.kind = kind
    return rule


def reverse_rule(*primitives, kind: str = OTHER, name: str | None = None):
    """Register the decorated template as the adjoint of ``primitives``."""

    def register(fn):
        _rule_for(primitives, kind, name, fn.__module__).reverse.append(Template(fn))
        return fn

    return register


def forward_rule(*primitives, kind: str = OTHER, name: str | None = None):
    """Register the decorated template as the tangent of ``primitives``."""

    def register(fn):
        _rule_for(primitives, kind, name, fn.__module__).forward.append(Template(fn))
        return fn

    return register


def nondifferentiable(*primitives, name: str | None = None):
    """Declare primitives whose output carries no derivative (floor, comparisons, argmax, shape)."""
    module = sys._getframe(1).f_globals.get("__name__", "")
    for p in primitives:
        rule = _rule_for((p,), OTHER, name if len(primitives) == 1 else None, module)
        rule.differentiable = False


def list_rules() -> list[str]:
    """One line per registered primitive, sorted: ``<dotted public name> <modes>``.

    Modes are ``forward,reverse`` (or the one that exists) or ``nondifferentiable``.
    """
    return [f"{name} {','.join(rule.modes)}" for name, rule in sorted(RULES.items())]
