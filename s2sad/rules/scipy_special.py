"""Rules: scipy_special (to be filled)."""
