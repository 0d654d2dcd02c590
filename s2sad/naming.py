"""Deterministic, readable fresh names: temporaries t, u, v, w, t1, ...; versions x1, x2; adjoints bx.

Every name a pass makes is registered with its :class:`Role` (and, for an adjoint or a tangent, the
name it belongs to): passes ask ``names.role(n)``, never how ``n`` is spelled."""

from __future__ import annotations

from enum import Enum

import gast

from .ir import walk

_TEMP_LETTERS = "tuvw"


class Role(Enum):
    """What a name holds."""

    PRIMAL = "primal"  # a value of the user's program: a parameter, a variable or a version of one
    TEMP = "temp"  # an intermediate value ANF or a rule template introduced
    ADJOINT = "adjoint"  # the adjoint of another name (``bx``)
    TANGENT = "tangent"  # the tangent of another name (``dx``)
    STACK = "stack"  # a list the reverse sweep pushes values onto and pops them from
    FLAG = "flag"  # control state: a branch condition, a break/continue/return flag, a loop counter


class Names:
    def __init__(self, taken=()):
        self.taken: set[str] = set(taken)
        self._temp = 0
        self.roles: dict[str, Role] = dict.fromkeys(self.taken, Role.PRIMAL)
        self.owner: dict[str, str] = {}  # an adjoint, tangent, stack or version -> the name it belongs to

    def take(self, name: str, role: Role = Role.PRIMAL, owner: str | None = None) -> str:
        self.taken.add(name)
        self.roles[name] = role
        if owner is not None:
            self.owner[name] = owner
        return name

    def role(self, name: str) -> Role:
        """The role of a name (a name no pass made is the user's: PRIMAL)."""
        return self.roles.get(name, Role.PRIMAL)

    def fresh(self, base: str, role: Role = Role.PRIMAL, owner: str | None = None) -> str:
        """``base`` if free, else ``base1``, ``base2``, ... (``base_1`` when base ends in a digit)."""
        if base not in self.taken:
            return self.take(base, role, owner)
        sep = "_" if base[-1].isdigit() else ""
        i = 1
        while f"{base}{sep}{i}" in self.taken:
            i += 1
        return self.take(f"{base}{sep}{i}", role, owner)

    def temp(self) -> str:
        while True:
            k, letter = divmod(self._temp, len(_TEMP_LETTERS))
            self._temp += 1
            name = _TEMP_LETTERS[letter] + (str(k) if k else "")
            if name not in self.taken:
                return self.take(name, Role.TEMP)

    def adjoint(self, var: str) -> str:
        return self.fresh("b" + var, Role.ADJOINT, var)

    def tangent(self, var: str) -> str:
        return self.fresh("d" + var, Role.TANGENT, var)

    def users(self, names) -> list[str]:
        """The user's variables among ``names`` (a version ``y1`` is ``y``; temporaries are left out), sorted."""
        return sorted({self.owner.get(n, n) for n in names if self.role(n) is Role.PRIMAL})

    def rank(self, name: str) -> int:
        """Which of several names for one value generated code keeps: the user's or an adjoint of the
        user's (0) over the adjoint or tangent of a temporary (1) over a temporary (2)."""
        role = self.role(name)
        if role is Role.TEMP:
            return 2
        if role in (Role.ADJOINT, Role.TANGENT) and self.role(self.owner.get(name, "")) is Role.TEMP:
            return 1
        return 0


def all_names(tree) -> set[str]:
    return {n.id for n in walk(tree) if isinstance(n, gast.Name)}


def name(id_: str, ctx=None) -> gast.Name:
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def assign(target: str, value) -> gast.Assign:
    return gast.Assign(targets=[name(target, gast.Store())], value=value, type_comment=None)
