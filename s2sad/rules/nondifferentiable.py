"""Rules: nondifferentiable (to be filled)."""
