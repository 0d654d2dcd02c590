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


# ---- names the generated code reads as globals ---------------------------------------------------
# Builtins generated code calls (loops, stacks, runtime checks): a parameter or local of the user's
# with one of these names would hide it.
GENERATED_BUILTINS = frozenset(
    "abs bool callable complex dict enumerate float getattr hasattr id int isinstance iter len list max min "
    "next range reversed slice sorted sum tuple type vars zip".split()
)


def generated_globals() -> frozenset:
    """Every name generated code may read as a global: ``np``, ``math``, runtime helpers, builtins."""
    from . import runtime

    helpers = {n for n, v in vars(runtime).items() if callable(v) and not n.startswith("_")}
    return frozenset(helpers | {"np", "math"} | GENERATED_BUILTINS)


def clashing_params(tree) -> dict[str, str]:
    """Parameters of ``tree`` named like a global generated code reads (``np``, ``zeros_like``,
    ``reversed``) -> the fresh name the passes call them by (``np1``).  The generated function's
    signature gets the user's name back (:func:`swap_back`), and its global another name."""
    args = tree.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    clash = [p for p in params if p in generated_globals()]
    if not clash:
        return {}
    names = Names(all_names(tree) | generated_globals())
    return {p: names.fresh(p) for p in clash}


def clashing_globals(tree, fn) -> dict[str, str]:
    """Globals (or closure values) ``fn`` reads named like a runtime helper generated code reads (a user's
    ``zeros_like``, ``tape``, ``stored``) and meaning another object -> the fresh name the passes call them by
    (``zeros_like1``, given the user's object as a name of s2sad's scope).  Not names ``fn`` binds anywhere."""
    from . import runtime

    bound = {n.id for n in walk(tree) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    bound |= {n.name for n in walk(tree) if isinstance(n, (gast.FunctionDef, gast.ClassDef))}
    read = {n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)} - bound
    helpers = {n for n in generated_globals() - GENERATED_BUILTINS - {"np", "math"} if hasattr(runtime, n)}
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    clash = {}
    for n in sorted(read & helpers):
        cell = cells.get(n)
        try:
            obj = cell.cell_contents if cell is not None else fn.__globals__[n]
        except (KeyError, ValueError):
            continue
        if obj is not getattr(runtime, n):
            clash[n] = obj
    if not clash:
        return {}
    names = Names(all_names(tree) | generated_globals())
    return {n: (names.fresh(n), obj) for n, obj in clash.items()}


def rename_loads(tree, mapping: dict[str, str]) -> None:
    """Rename the names ``mapping`` names where ``tree`` reads them (globals: never bound in ``tree``)."""
    for n in walk(tree):
        if mapping and isinstance(n, gast.Name) and n.id in mapping:
            n.id = mapping[n.id]


def rename_params(tree, mapping: dict[str, str]) -> None:
    """Rename the parameters ``mapping`` names, in the signature and the body (not in default
    expressions, which are evaluated outside the function)."""
    if not mapping:
        return
    args = tree.args
    nodes = list(args.posonlyargs + args.args + args.kwonlyargs)
    for stmt in tree.body:
        nodes += walk(stmt)
    for n in {id(n): n for n in nodes}.values():
        if isinstance(n, gast.Name) and n.id in mapping:
            n.id = mapping[n.id]


ALL = object()  # swap_back's ``calls``: every call


def swap_back(tree, mapping: dict[str, str], calls=(), pretty=False) -> dict[str, str]:
    """The generated function ``tree`` made from renamed parameters (``np`` -> ``np1``) takes them by
    the user's names again, and reads the global of that name by the other (``np1.cos(x) * np``):
    records ``tree.global_aliases`` (``{"np": "np1"}``) for the module's imports.  ``calls``: the
    functions it calls that take the user's names as keywords (all, with ``calls=ALL``); ``pretty``: the
    parameter's adjoint and tangent lose the suffix too (``bnp``), for an entry only (a wrapper passes
    tangents by name).  Gives the renaming done."""
    if not mapping:
        return {}
    swap = {**mapping, **{v: k for k, v in mapping.items()}}
    args = tree.args
    spelled = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    for user, internal in mapping.items() if pretty else ():  # its adjoint and tangent: bnp, dnp (not bnp1, dnp1)
        for prefix in "bd":
            if prefix + internal in spelled and prefix + user not in spelled | set(swap):
                swap[prefix + internal] = prefix + user
    nodes = list(args.posonlyargs + args.args + args.kwonlyargs)
    for stmt in tree.body:
        nodes += walk(stmt)
    for n in {id(n): n for n in nodes}.values():  # (generated code shares subtrees: each once)
        if isinstance(n, gast.Name) and n.id in swap:
            n.id = swap[n.id]
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and (calls is ALL or n.func.id in calls):
            for k in n.keywords:
                k.arg = swap.get(k.arg, k.arg)
    tree.global_aliases = {**getattr(tree, "global_aliases", {}), **mapping}
    return swap
