"""Refusals raised at run time by helpers of generated code: a ``DifferentiationError`` located at the
user's ``file:line:col:`` (found from the source-map comment above the generated line that called the
helper), for values where a derivative would be wrong and s2sad refuses instead."""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

__all__: list[str] = []


def refusal(message: str) -> ValueError:
    """The error to raise for ``message`` (what is not computed, and why): a ``DifferentiationError``
    naming the user's line whose generated code called the helper, or else the user's call of the
    derivative."""
    from s2sad.errors import DifferentiationError, Location
    from s2sad.runtime.trees import _written_origin

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, caller = sys._getframe(1), None
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith("<s2sad"):
            origin = Location(filename)._origin(SimpleNamespace(lineno=frame.f_lineno))
            if origin is not None:
                where, code = origin
                return DifferentiationError(f"{where}: {message} (at `{code}`)")
        elif _written_origin(frame) is not None:  # a module the command line wrote (-o, --standalone)
            where, code = _written_origin(frame)
            return DifferentiationError(f"{where}: {message} (at `{code}`)")
        elif caller is None and not os.path.abspath(filename).startswith(package + os.sep):
            caller = frame  # the user's call of the derivative (a primitive differentiated directly)
        frame = frame.f_back
    if caller is not None:
        where = f"{caller.f_code.co_filename}:{caller.f_lineno}:1"
        return DifferentiationError(f"{where}: {message} (in the derivative called here)")
    return DifferentiationError(f"s2sad: {message}")
