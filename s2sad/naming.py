"""Deterministic, readable fresh names: temporaries t, u, v, w, t1, ...; versions x1, x2; adjoints bx."""

from __future__ import annotations

import gast

from .ir import walk

_TEMP_LETTERS = "tuvw"


class Names:
    def __init__(self, taken=()):
        self.taken: set[str] = set(taken)
        self._temp = 0
        self.shares: dict[str, set[str]] = {}  # from anf's alias analysis: names that may share memory
        self.writable: set[str] = set()  # names written in place with every alias kept up to date

    def take(self, name: str) -> str:
        self.taken.add(name)
        return name

    def fresh(self, base: str) -> str:
        """``base`` if free, else ``base1``, ``base2``, ... (``base_1`` when base ends in a digit)."""
        if base not in self.taken:
            return self.take(base)
        sep = "_" if base[-1].isdigit() else ""
        i = 1
        while f"{base}{sep}{i}" in self.taken:
            i += 1
        return self.take(f"{base}{sep}{i}")

    def temp(self) -> str:
        while True:
            k, letter = divmod(self._temp, len(_TEMP_LETTERS))
            self._temp += 1
            name = _TEMP_LETTERS[letter] + (str(k) if k else "")
            if name not in self.taken:
                return self.take(name)


def all_names(tree) -> set[str]:
    return {n.id for n in walk(tree) if isinstance(n, gast.Name)}


def name(id_: str, ctx=None) -> gast.Name:
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def assign(target: str, value) -> gast.Assign:
    return gast.Assign(targets=[name(target, gast.Store())], value=value, type_comment=None)
