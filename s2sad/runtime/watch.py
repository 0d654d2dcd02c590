"""watch: the check a module written by the command line (not ``--standalone``) runs first in each
derivative: ``_unchanged = watched(command, (label, holder, key[, literals]), ...)`` takes a snapshot of
what each ``holder`` (a dict: its entry; else an attribute) holds when the module is imported, and
``_unchanged()`` refuses once any holds another object, as ``s2sad.grad`` refuses in-process (see
``s2sad/watch.py``).  ``literals``: the defaults written into the module as literals, by index or name, as
``(type name, repr)``, the name and line of a function's code, or ``"absent"``; another value there when the
module is imported makes the snapshot stale at once."""

from __future__ import annotations

__all__ = ["watched"]

_PROXY = type(vars(type))  # (a class's __dict__)
_ABSENT = object()


def _now(holder, key):
    try:
        return holder.get(key, _ABSENT) if isinstance(holder, (dict, _PROXY)) else getattr(holder, key, _ABSENT)
    except ValueError:  # (an empty closure cell)
        return _ABSENT


def _as_written(now, expected) -> bool:
    """``expected``: ``"absent"``, a code object's ``(co_name, co_firstlineno)``, or ``{key: (type name,
    repr)}`` of the items (a tuple's, a dict's) written into the module as literals."""
    if expected == "absent":
        return now is _ABSENT
    if isinstance(expected, tuple):  # a function's code: its name and first line
        return (getattr(now, "co_name", None), getattr(now, "co_firstlineno", None)) == expected
    for k, (kind, written) in expected.items():
        try:
            item = now[k]
        except (IndexError, KeyError, TypeError):
            return False
        if type(item).__name__ != kind or repr(item) != written:
            return False
    return True


class watched:  # noqa: N801 - used as a function
    """``watched(command, *rows)``: called, refuses (``DifferentiationError``) once a row changed."""

    def __init__(self, command: str, *rows):
        self.command = command
        self.rows = []
        for label, holder, key, *expected in rows:
            now = _now(holder, key)
            if expected and not _as_written(now, expected[0]):
                now = object()  # (never the same: stale from the start)
            self.rows.append((label, holder, key, now))

    def __call__(self):
        for label, holder, key, was in self.rows:
            if _now(holder, key) is not was:
                from s2sad.errors import DifferentiationError

                raise DifferentiationError(
                    f"{label} changed after this module was written or imported (rebound or replaced): the "
                    f"derivatives here were made for the old one and would be stale; regenerate it with: "
                    f"{self.command}, or use s2sad in your program"
                )
