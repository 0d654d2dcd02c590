"""Runtime helpers for the linalg rules (see s2sad/runtime/__init__.py)."""

from __future__ import annotations

import numpy as np  # noqa: F401

__all__: list[str] = []
