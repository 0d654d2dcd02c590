"""Errors raised to users: every message starts with ``file:line:col:`` of *their* source."""

from __future__ import annotations


class DifferentiationError(ValueError):
    """s2sad cannot differentiate this code exactly; the message says where, what and what to do."""


class Location:
    """Maps nodes of a parsed function back to the user's file (line numbers and dedented columns)."""

    def __init__(self, filename: str, indent: int = 0):
        self.filename = filename
        self.indent = indent

    def of(self, node) -> str:
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        if line is None:
            return f"{self.filename}:?:?"
        return f"{self.filename}:{line}:{(col or 0) + self.indent + 1}"

    def error(self, node, message: str) -> DifferentiationError:
        return DifferentiationError(f"{self.of(node)}: {message}{self._origin(node)}")

    def _origin(self, node) -> str:
        """For a line of generated code (a derivative being differentiated again): the user's line
        it comes from, as its source-map comment names it."""
        line = getattr(node, "lineno", None)
        if not self.filename.startswith("<s2sad") or line is None:
            return ""
        from .codegen import _comment

        comment = _comment(self.filename, line)
        if comment is None:
            return ""
        code, where = comment[2:].rsplit("  (", 1)
        return f" (in the derivative of `{code}`, {where[:-1]})"
