"""s2sad: source-to-source automatic differentiation for Python and NumPy.

``s2sad.grad(f)`` reads ``f``'s source and returns a generated Python function computing its
gradient; ``s2sad.source(g)`` shows that code.  See README.md and docs/architecture.md.
"""

from .api import grad, hessian, hvp, jacobian, jvp, source, value_and_grad, vjp
from .checkpointing import checkpoint
from .errors import DifferentiationError
from .rules import forward_rule, list_rules, reverse_rule
from .rules.nondifferentiable import stop_gradient

__version__ = "0.1.0"

__all__ = [
    "DifferentiationError",
    "checkpoint",
    "forward_rule",
    "grad",
    "hessian",
    "hvp",
    "jacobian",
    "jvp",
    "list_rules",
    "reverse_rule",
    "source",
    "stop_gradient",
    "value_and_grad",
    "vjp",
]
