"""The rule table.  Importing this package registers every built-in rule (one module per family)."""

from . import (  # noqa: F401
    arithmetic,
    containers,
    elementary,
    fft,
    linalg,
    linalg_helpers,
    math_rules,
    memory,
    nondifferentiable,
    numpy_elementwise,
    product_helpers,
    reductions,
    runtime_rules,
    scipy_special,
    shape_ops,
)
from .registry import (
    ELEMENTWISE,
    OTHER,
    RULES,
    SCALAR,
    Rule,
    Template,
    forward_rule,
    list_rules,
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
    "list_rules",
    "lookup",
    "nondifferentiable",
    "reverse_rule",
]
