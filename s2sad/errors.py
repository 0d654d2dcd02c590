"""Errors raised to users: every message starts with ``file:line:col:`` of *their* source."""

from __future__ import annotations

import linecache
import os


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
        origin = self._origin(node)
        if origin is None:
            from .compile import GENERATED_AT

            at = GENERATED_AT.get(self.filename) if self.filename.startswith("<s2sad") else None
            if at is not None:  # generated code with no source map there (a guard's call): the user's def
                return DifferentiationError(f"{at}:1: {message} (in the generated code at {self.of(node)})")
            return DifferentiationError(f"{self.of(node)}: {message}")
        where, code = origin
        return DifferentiationError(
            f"{where}: cannot differentiate the derivative of `{code}` again: {message} "
            f"(in the generated code at {self.of(node)})"
        )

    def user_code(self, node):
        """The user's statement a line of generated code comes from (None in the user's own code)."""
        origin = self._origin(node)
        return None if origin is None else origin[1]

    def _origin(self, node):
        """For a line of generated code (a derivative being differentiated again): the user's
        ``file:line:col`` it comes from and the user's code there, from its source-map comment."""
        line = getattr(node, "lineno", None)
        if not self.filename.startswith("<s2sad") or line is None:
            return None
        from .codegen import _comment
        from .compile import GENERATED_FROM

        comment = _comment(self.filename, line)
        if comment is None:
            return None
        code, where = comment[2:].rsplit("  (", 1)
        base, _, number = where[:-1].rpartition(":")
        path = GENERATED_FROM.get(self.filename, base)
        if os.path.basename(path) != base or not number.isdigit():
            path = base
        text = linecache.getline(path, int(number)) if number.isdigit() else ""
        col = text.find(code.split(" ...")[0]) + 1 if text else 1
        return f"{path}:{number}:{max(col, 1)}", code
