"""The rule table.  Importing this package registers every built-in rule (one module per family)."""

from . import arithmetic, linalg, math_rules, numpy_elementwise, reductions, shape_ops  # noqa: F401
from .registry import (
    ELEMENTWISE,
    OTHER,
    RULES,
    SCALAR,
    Rule,
    Template,
    forward_rule,
    lookup,
    nondifferentiable,
    reverse_rule,
)

__all__ = [
    "ELEMENTWISE",
    "OTHER",
    "RULES",
    "SCALAR",
    "Rule",
    "Template",
    "forward_rule",
    "lookup",
    "nondifferentiable",
    "reverse_rule",
]
