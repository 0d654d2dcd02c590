"""lift: nested ``def``s and lambdas -> functions whose closed-over locals are parameters.

Takes the parsed function and its :class:`~s2sad.resolve.Namespace` (after ``resolve``, before
``desugar``); gives the function's tree with every local function lifted out, and the namespace of
the rewritten tree, whose ``lifted`` names the new functions ``f``'s code calls.

* A local function (``def h(t): ...``, ``g = lambda t: ...``, a lambda called where it is written
  ``(lambda t: t * t)(x)``) becomes a real function ``h(t, x)`` (same globals and closure cells as
  ``f``, the user's file and line numbers) whose extra parameters are the locals of ``f`` it reads
  (also through the local functions it calls).  Each call passes them by name, so a call reads their
  values when it runs, as Python's closures do (late binding).  A default that is not a constant is
  evaluated where the ``def`` runs, into a local ``h_a``, and passed where a call leaves it out.
  The pipeline differentiates the lifted function like any user helper (``vjp_h``); ``parse``
  takes its tree from ``__s2sad_lifted__``, and it is lifted again for the functions inside it.
* A call of a user function ``apply(fn, v)`` given a local function, a lambda or a module-level
  function for a parameter that it only calls becomes a call of a clone of ``apply`` (``apply_sq``)
  without that parameter, whose calls of it call the function (with its closed-over values as extra
  keyword-only parameters).  Clones are made once per (helper, functions).
* Refused at the user's ``file:line:col``: ``nonlocal``/``global`` in a local function, generators,
  decorated local functions, a local function used as a value (returned, stored, passed to code
  s2sad does not see into), bound more than once, or called where its ``def`` has not run.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import types
from dataclasses import dataclass, field

import gast

from .ir import copy_tree, walk
from .naming import all_names, name
from .primitives import is_user_function
from .resolve import MISSING, Namespace, dotted, resolve

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)


@dataclass(eq=False)  # hashed by identity: a key of the clones
class Local:
    """A function defined inside the function being lifted (in its *scope*)."""

    label: str  # the user's name, or "lambda"
    node: object  # the FunctionDef or Lambda
    code: str  # the name calls use for the lifted function
    params: list  # its own parameters, positional ones first
    positional: int  # how many of them may be passed by position
    defaults: dict  # parameter -> a Constant, or the name of the scope's local holding its value
    free: list  # free names, in order of first use
    needs: list = field(default_factory=list)  # the scope's names it is given at each call
    fn: object = None
    fn_defaults: dict = field(default_factory=dict)  # parameter -> the Local its default is (``act=h``)
    star: tuple = (None, None)  # the names of its *args and **kwargs parameters
    bound: dict = field(default_factory=dict)  # a specialization's removed parameters -> what they call


@dataclass
class Ref:
    """What a name (or a parameter of a clone) calls: a :class:`Local` or a module-level object, under
    the name ``code`` in the current scope; ``slots`` maps the target's needed names to this scope's."""

    target: object
    code: str
    slots: dict


class _Lifter:
    def __init__(self, parsed, ns: Namespace):
        self.fn, self.loc, self.ns = parsed.fn, parsed.loc, ns
        self.tree = parsed.tree
        self.taken = all_names(self.tree) | set(self.fn.__globals__) | set(dir(builtins)) | ns.free
        self.reusable: set = set()  # the local functions' own names: not f's names once lifted
        self.cells: dict = {}  # name -> cell of every function made here
        self.lifted: dict = {}  # code name -> function, for the names f's own code calls
        self.clones: dict = {}  # (helper, ((param, target), ...)) -> (code name, function, slot params)
        self.keep: list = []  # the objects whose ids key the clones, kept alive
        self.made: list = []  # (tree, globals, origin, extra cells, function, location) to compile

    def fresh(self, base: str) -> str:
        if base in self.reusable:
            self.reusable.discard(base)
            return base
        out, i = base, 1
        while out in self.taken:
            out, i = f"{base}_{i}", i + 1
        self.taken.add(out)
        return out

    # ---- the function's own scope ---------------------------------------------------------------
    def run(self):
        tree = self.tree
        locals_ = _params(tree) | set(self.ns.bound)
        named: dict[str, Local] = {}
        bindings: dict[str, list] = {}
        outside = set(self.fn.__globals__) | set(dir(builtins))
        for n in _shallow(tree):  # a local function's own name is free for its lifted function
            if isinstance(n, gast.FunctionDef) and n.name not in outside:
                self.reusable.add(n.name)
            elif (
                isinstance(n, gast.Assign) and isinstance(n.value, gast.Lambda) and isinstance(n.targets[0], gast.Name)
            ):
                self.reusable.add(n.targets[0].id) if n.targets[0].id not in outside else None
        for n in _shallow(tree):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                locals_.add(n.id)
                bindings.setdefault(n.id, []).append(n)
            elif isinstance(n, gast.AsyncFunctionDef):
                raise self.loc.error(n, f"nested async function '{n.name}' cannot be differentiated; use a plain def")
            elif isinstance(n, gast.FunctionDef):
                locals_.add(n.name)
                bindings.setdefault(n.name, []).append(n)
                named[n.name] = self.local(n.name, n, n)
        for n in _shallow(tree):
            if isinstance(n, gast.Assign) and isinstance(n.value, gast.Lambda):
                target = n.targets[0]
                if len(n.targets) == 1 and isinstance(target, gast.Name):
                    named[target.id] = self.local(target.id, n.value, target)
                else:
                    raise self.loc.error(
                        n.value, _ESCAPE.format(what="this lambda", how="stored into an attribute or item")
                    )
        for label in named:
            if len(bindings[label]) > 1:
                raise self.loc.error(
                    bindings[label][1],
                    f"the local function '{label}' is bound more than once; s2sad lifts a local function "
                    "bound once (by one def or one lambda assignment): give each function its own name",
                )
        for label in self.opaque_lambdas(tree, named):
            del named[label]  # given to code s2sad does not see into (sorted(key=g)): a value, as before
        values = locals_ - set(named)
        scope = _Scope(self, values, {}, self.fn, self.ns.lookup, lifting=True)
        scope.aliases = {k: Ref(v, v.code, {}) for k, v in named.items()}
        scope.named = named
        self.top = scope
        self.specs: dict = {}  # (local, ((param, target), ...)) -> its specialization
        for local in named.values():
            self.note_defaults(local, scope)
        self.solve(named.values(), scope)
        tree.body = scope.block(tree.body, set())
        for local in list(named.values()):
            if local.star == (None, None):  # (one taking *args is built per call shape)
                self.build(local, scope)
        self.compile_all()

    def opaque_lambdas(self, tree, named) -> list:
        """The lambdas assigned to a name that is passed to a library function (``sorted(xs, key=g)``,
        ``map(g, xs)``): kept as values (and refused where a differentiated value flows through them)."""
        out = []
        for n in _shallow(tree):
            if not isinstance(n, gast.Call) or isinstance(n.func, gast.Name) and n.func.id in named:
                continue
            given = [a for a in n.args + [k.value for k in n.keywords] if isinstance(a, gast.Name)]
            given = [a.id for a in given if a.id in named and isinstance(named[a.id].node, gast.Lambda)]
            if given and not is_user_function(_unbound(self.ns.lookup(n.func))):
                out += [g for g in given if g not in out]
        return out

    def local(self, label, node, where) -> Local:
        if isinstance(node, gast.FunctionDef) and node.decorator_list:
            raise self.loc.error(
                node.decorator_list[0],
                f"the local function '{label}' is decorated; s2sad differentiates undecorated local functions: "
                "define it without the decorator",
            )
        args = node.args
        params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
        free = _free(node, self.loc)
        code = self.fresh(label if label.isidentifier() and label != "lambda" else f"lambda_{node.lineno}")
        self.cells[code] = types.CellType()
        local = Local(label, node, code, params, len(args.posonlyargs + args.args), {}, free)
        local.star = tuple(a.id if a is not None else None for a in (args.vararg, args.kwarg))
        return local

    def star_local(self, local: Local, extra: int, keywords: list) -> Local:
        """``local`` (taking ``*ts``/``**kw``) for a call with ``extra`` more positional arguments and the
        ``keywords`` it does not name: one parameter per argument (``ts_0``, ``kw_a``), its body starting
        with the packing ``ts = (ts_0, ts_1)``, ``kw = {'a': kw_a}``; made once per call shape."""
        key = (local, extra, tuple(keywords))
        spec = self.specs.get(key)
        if spec is not None:
            return spec
        vararg, kwarg = local.star
        node = local.node
        at = lambda n: gast.copy_location(n, node)  # noqa: E731
        stars = [self.fresh(f"{vararg}_{i}") for i in range(extra)]
        kws = [self.fresh(f"{kwarg}_{k}") for k in keywords]
        pack = []
        if vararg is not None:
            elts = [at(name(v)) for v in stars]
            pack.append(
                at(
                    gast.Assign(
                        targets=[at(name(vararg, gast.Store()))],
                        value=at(gast.Tuple(elts=elts, ctx=gast.Load())),
                        type_comment=None,
                    )
                )
            )
        if kwarg is not None:
            d = gast.Dict(
                keys=[at(gast.Constant(value=k, kind=None)) for k in keywords], values=[at(name(v)) for v in kws]
            )
            pack.append(at(gast.Assign(targets=[at(name(kwarg, gast.Store()))], value=at(d), type_comment=None)))
        body = (
            node.body
            if isinstance(node, gast.FunctionDef)
            else [gast.copy_location(gast.Return(value=node.body), node.body)]
        )
        args = copy_tree(node.args)
        positional = len(args.posonlyargs + args.args)
        param = lambda v: at(gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None))  # noqa: E731
        args.args = args.args + [param(v) for v in stars]
        args.kwonlyargs = args.kwonlyargs + [param(v) for v in kws]
        args.kw_defaults = args.kw_defaults + [None] * len(kws)
        args.vararg = args.kwarg = None
        new = gast.FunctionDef(
            name=local.code,
            args=args,
            body=pack + body,
            decorator_list=[],
            returns=None,
            type_comment=None,
            type_params=[],
        )
        gast.copy_location(new, node)
        params = local.params[:positional] + stars + local.params[positional:] + kws
        code = self.fresh(f"{local.code}_{extra}" + "".join(f"_{k}" for k in keywords))
        spec = Local(local.label, new, code, params, positional + extra, dict(local.defaults), list(local.free))
        spec.needs, spec.fn_defaults = list(local.needs), dict(local.fn_defaults)
        self.cells[code] = types.CellType()
        self.specs[key] = spec
        self.build(spec, self.top)
        return spec

    def note_defaults(self, local: Local, scope):
        """A default that is not a constant is evaluated where the def runs, into a local of the scope."""
        args = local.node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        local.default_nodes = {}
        for a, d in pairs:
            fn = scope.aliases.get(d.id) if isinstance(d, gast.Name) else None
            body = local.node.body if isinstance(local.node.body, list) else [local.node.body]
            inside = {n.id for b in body for n in walk(b) if isinstance(n, gast.Name)}
            if fn is not None and isinstance(fn.target, Local) and d.id not in inside | _params(local.node):
                local.fn_defaults[a.id] = fn.target  # ``act=h``: calls leaving it out call h
                if d.id not in local.free:
                    local.free.append(d.id)
            elif isinstance(d, gast.Constant):
                local.defaults[a.id] = d
            else:
                slot = self.fresh(f"{local.code}_{a.id}")
                local.defaults[a.id] = slot
                local.default_nodes[slot] = d
                scope.values.add(slot)

    def solve(self, locals_, scope):
        """Each local function's needed names: the scope's values it reads, and what the functions it
        calls need (with their defaults' locals), to a fixed point."""
        locals_ = list(locals_)
        for local in locals_:
            local.needs = [n for n in local.free if n in scope.values]
        changed = True
        while changed:
            changed = False
            for local in locals_:
                for n in local.free:
                    ref = scope.aliases.get(n)
                    if ref is None:
                        continue
                    for s in _slots(ref.target):
                        if s not in local.needs:
                            local.needs.append(s)
                            changed = True
        for ref in scope.aliases.values():
            ref.slots = {s: s for s in _slots(ref.target)}

    def build(self, local: Local, scope):
        """The lifted tree of ``local`` (defined in ``scope``): its parameters, then the names it needs."""
        node = copy_tree(local.node)
        inner_names = all_names(node)
        slotmap = {}
        for s in local.needs:
            slotmap[s] = s if s not in inner_names - set(local.free) else self.fresh(s)
        params = [gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None) for p in local.params]
        params += [gast.Name(id=slotmap[s], ctx=gast.Param(), annotation=None, type_comment=None) for s in local.needs]
        for p in params:
            gast.copy_location(p, node)
        args = gast.arguments(
            args=params,
            posonlyargs=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        )
        if isinstance(node, gast.Lambda):
            ret = gast.copy_location(gast.Return(value=node.body), node.body)
            body = [ret]
        else:
            body = node.body
        aliases = {}
        for n in local.free:
            ref = scope.aliases.get(n)
            if ref is not None:
                aliases[n] = Ref(ref.target, ref.code, {k: slotmap[v] for k, v in ref.slots.items()})
        extra = {}
        for p, target in local.bound.items():  # a specialization: its function parameters call their targets
            if isinstance(target, Local):
                code = target.code if target.code not in inner_names else self.fresh(target.code)
                extra[code] = self.cells[target.code]
                aliases[p] = Ref(target, code, {s: slotmap[s] for s in _slots(target)})
            else:
                label = getattr(target, "__name__", "fn")
                code = self.fresh(label if label.isidentifier() and label not in inner_names else "fn")
                extra[code] = types.CellType(target)
                aliases[p] = Ref(target, code, {})
        own = _params(local.node) | {
            x.id for x in _shallow(local.node) if isinstance(x, gast.Name) and not isinstance(x.ctx, gast.Load)
        }
        own -= set(local.bound)
        inner = _Scope(self, own | set(slotmap.values()), aliases, self.fn, self.ns.lookup, lifting=False)
        body = inner.block(body, None)
        tree = gast.FunctionDef(
            name=local.code, args=args, body=body, decorator_list=[], returns=None, type_comment=None, type_params=[]
        )
        gast.copy_location(tree, local.node)
        local.fn = self.declare(tree, self.fn, extra, local.label, self.loc)
        if scope.lifting:
            self.lifted[local.code] = local.fn

    def declare(self, tree, origin, extra_cells: dict, label: str, loc, defaults=None, kwdefaults=None):
        """A placeholder function object for ``tree`` (made by :meth:`compile_all`), reachable through a cell."""
        cell = self.cells.setdefault(tree.name, types.CellType())
        holder = _Made(tree, origin, extra_cells, label, loc, defaults, kwdefaults, cell)
        self.made.append(holder)
        return holder

    def compile_all(self):
        for made in self.made:
            made.compile(self.cells)
        for made in self.made:
            made.cell.cell_contents = made.fn
        self.lifted = {k: (v.fn if isinstance(v, _Made) else v) for k, v in self.lifted.items()}

    def specialize_local(self, local: Local, bound: dict) -> Local:
        """``local`` without the parameters in ``bound`` (param -> Local or module-level function), each
        call of them a call of its target; made once per (local, targets), defined in f's scope."""
        key = (local, tuple((p, t if isinstance(t, Local) else id(t)) for p, t in bound.items()))
        spec = self.specs.get(key)
        if spec is not None:
            return spec
        self.keep.append(bound)
        positional = [p for p in local.params[: local.positional] if p not in bound]
        params = positional + [p for p in local.params[local.positional :] if p not in bound]
        label = "_".join(t.code if isinstance(t, Local) else getattr(t, "__name__", "fn") for t in bound.values())
        code = self.fresh(f"{local.code}_{label}" if label.isidentifier() else local.code)
        defaults = {k: v for k, v in local.defaults.items() if k not in bound}
        spec = Local(local.label, local.node, code, params, len(positional), defaults, list(local.free))
        spec.needs = list(local.needs)
        for t in bound.values():
            spec.needs += [s for s in _slots(t) if s not in spec.needs]
        spec.bound = dict(bound)
        self.cells[code] = types.CellType()
        self.specs[key] = spec
        self.build(spec, self.top)
        return spec

    # ---- clones of helpers called with functions ------------------------------------------------
    def clone(self, helper, bound: dict, where, label: str):
        """``helper`` with the parameters in ``bound`` (param -> Ref) removed; each Local's needed names
        become keyword-only parameters.  Gives (code name, the made function, {param: slot names})."""
        from .parse import parse_function

        key = (helper, tuple((p, r.target if isinstance(r.target, Local) else id(r.target)) for p, r in bound.items()))
        hit = self.clones.get(key)
        if hit is not None:
            return hit
        parsed = parse_function(helper)
        making = self.__dict__.setdefault("_making", set())
        if key in making:  # rec(f, x, n - 1) inside rec: the clone would be made again, forever
            raise parsed.loc.error(
                where,
                f"{helper.__name__}() calls itself with the function argument it is given; s2sad specializes a "
                "helper for each function argument, which a recursive one would repeat forever: call the function "
                "by its global name inside the helper, or write the recursion as a loop",
            )
        making.add(key)
        try:
            return self._clone(helper, bound, where, label, key, parsed)
        finally:
            making.discard(key)

    def _clone(self, helper, bound, where, label, key, parsed):
        self.keep.append(bound)
        tree = parsed.tree
        names = all_names(tree)
        loads = [n for n in walk(tree) if isinstance(n, gast.Name) and n.id in bound]
        for n in loads:
            if not isinstance(n.ctx, (gast.Load, gast.Param)):
                raise parsed.loc.error(
                    n,
                    f"'{n.id}' is assigned in {helper.__name__}; s2sad specializes a helper "
                    "on a function argument it only calls",
                )
        for inner in (x for x in walk(tree) if isinstance(x, _FUNCTIONS) and x is not tree):
            for n in walk(inner):
                if isinstance(n, gast.Name) and n.id in bound:
                    raise parsed.loc.error(
                        n,
                        f"the function argument '{n.id}' is used inside a local function of "
                        f"{helper.__name__}, which s2sad cannot specialize",
                    )
        args = tree.args
        positional = args.posonlyargs + args.args
        first = len(positional) - len(args.defaults)
        pos = [(a, args.defaults[i - first] if i >= first else None) for i, a in enumerate(positional)]
        pos = [(a, d) for a, d in pos if a.id not in bound]
        kw = [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if a.id not in bound]
        cells, aliases, slot_params = {}, {}, {}
        taken = set()  # slot parameters already made (two functions may close over the same local)
        for p, ref in bound.items():
            code = ref.code if ref.code not in names else self.fresh(ref.code)
            if isinstance(ref.target, Local):
                slots = {}
                for s in _slots(ref.target):
                    slots[s] = s if s not in names and s not in taken else self.fresh(s)
                    taken.add(slots[s])
                    kw.append((gast.Name(id=slots[s], ctx=gast.Param(), annotation=None, type_comment=None), None))
                    gast.copy_location(kw[-1][0], tree)
                slot_params[p] = slots
                cells[code] = self.cells[ref.target.code]
                aliases[p] = Ref(ref.target, code, slots)
            else:
                cells[code] = types.CellType(ref.target)
                aliases[p] = Ref(ref.target, code, {})
        args.posonlyargs = [a for a, _ in pos if a in args.posonlyargs]
        args.args = [a for a, _ in pos if a not in args.posonlyargs]
        defaults = [d for _, d in pos if d is not None]
        args.defaults = defaults
        args.kwonlyargs = [a for a, _ in kw]
        args.kw_defaults = [d for _, d in kw]
        sig = inspect.signature(helper)
        kept = [p for p in sig.parameters.values() if p.name not in bound]
        pos_defaults = tuple(
            p.default
            for p in kept
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty
        )
        kwdefaults = {p.name: p.default for p in kept if p.kind is p.KEYWORD_ONLY and p.default is not p.empty}
        code_name = self.fresh(f"{helper.__name__}_{label}")
        tree.name = code_name
        own = _params(tree) | {
            x.id for x in _shallow(tree) if isinstance(x, gast.Name) and not isinstance(x.ctx, gast.Load)
        }
        helper_ns = Namespace(helper, own)
        scope = _Scope(self, own, aliases, helper, helper_ns.lookup, lifting=False, loc=parsed.loc)
        tree.body = scope.block(tree.body, None)
        made = self.declare(tree, helper, cells, helper.__name__, parsed.loc, pos_defaults or None, kwdefaults or None)
        self.clones[key] = (code_name, made, slot_params)
        return self.clones[key]


class _Made:
    """A lifted function or clone, compiled once every function it calls has a cell."""

    def __init__(self, tree, origin, extra_cells, label, loc, defaults, kwdefaults, cell):
        self.tree, self.origin, self.extra, self.label, self.loc = tree, origin, extra_cells, label, loc
        self.defaults, self.kwdefaults, self.cell, self.fn = defaults, kwdefaults, cell, None

    def compile(self, lifted_cells: dict):
        origin = self.origin
        own_cells = dict(zip(origin.__code__.co_freevars, origin.__closure__ or ()))
        every = {**own_cells, **lifted_cells, **self.extra}
        tree = copy_tree(self.tree)
        bound = {n.id for n in walk(tree) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        loaded = {n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        cells = {k: v for k, v in every.items() if k in loaded - bound}
        inner = gast.gast_to_ast(tree)
        outer = ast.FunctionDef(
            name="__s2sad_lift__",
            args=ast.arguments(
                posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
            ),
            body=[ast.Assign(targets=[ast.Name(id=c, ctx=ast.Store())], value=ast.Constant(None)) for c in cells]
            + [inner, ast.Return(value=ast.Constant(None))],
            decorator_list=[],
            returns=None,
            type_params=[],
        )
        module = ast.Module(body=[outer], type_ignores=[])
        ast.copy_location(outer, inner)
        for n in ast.walk(outer):
            if n is not inner and not hasattr(n, "lineno") and isinstance(n, (ast.stmt, ast.expr)):
                ast.copy_location(n, inner)
        ast.fix_missing_locations(module)
        code = compile(module, origin.__code__.co_filename, "exec")
        outer_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        fcode = next(c for c in outer_code.co_consts if isinstance(c, types.CodeType) and c.co_name == self.tree.name)
        closure = tuple(cells[n] for n in fcode.co_freevars)
        fn = types.FunctionType(fcode, origin.__globals__, self.tree.name, self.defaults, closure or None)
        fn.__kwdefaults__ = self.kwdefaults
        fn.__qualname__ = f"{getattr(origin, '__qualname__', origin.__name__)}.<locals>.{self.label}"
        from .parse import Parsed

        fn.__s2sad_lifted__ = Parsed(self.tree, fn, self.loc)
        self.fn = fn


class _Scope:
    """Rewrites code of one scope: calls of local functions pass what they need; local functions given
    to helpers make clones; any other use of a local function is refused."""

    def __init__(self, lifter, values, aliases, origin, lookup, lifting, loc=None):
        self.lifter, self.values, self.aliases, self.origin = lifter, set(values), aliases, origin
        self.lookup, self.lifting = lookup, lifting
        self.loc = loc or lifter.loc
        self.named: dict = {}

    def error(self, node, msg):
        return self.loc.error(node, msg)

    # ---- statements ----------------------------------------------------------------------------
    def block(self, stmts, defined):
        out = []
        for s in stmts:
            out.extend(self.stmt(s, defined))
        return out or [gast.Pass()]

    def stmt(self, s, defined):
        local = None
        if self.lifting and isinstance(s, gast.FunctionDef):
            local = self.named[s.name]
        elif self.lifting and isinstance(s, gast.Assign) and isinstance(s.value, gast.Lambda):
            local = self.named.get(s.targets[0].id) if isinstance(s.targets[0], gast.Name) else None
        if local is not None:
            out = []
            for slot, node in getattr(local, "default_nodes", {}).items():
                value = self.expr(node, defined, 0)
                target = gast.copy_location(name(slot, gast.Store()), node)
                out.append(gast.copy_location(gast.Assign(targets=[target], value=value, type_comment=None), node))
            defined.add(local.label)
            return out or [gast.copy_location(gast.Pass(), s)]
        if isinstance(s, gast.FunctionDef):  # a def nested deeper: only names of ours are rewritten
            self.nested(s, defined)
            return [s]
        for fld in s._fields:
            value = getattr(s, fld)
            if isinstance(value, list) and value and isinstance(value[0], gast.stmt):
                inner = set(defined) if defined is not None else None
                setattr(s, fld, self.block(value, inner))
            elif isinstance(value, list):
                setattr(s, fld, [self.expr(v, defined, 0) if isinstance(v, gast.AST) else v for v in value])
            elif isinstance(value, gast.AST):
                setattr(s, fld, self.expr(value, defined, 0))
        return [s]

    def nested(self, node, defined):
        """Inside a function nested deeper: our names it does not bind itself are ours."""
        bound = _params(node) | {
            x.id for x in _shallow(node) if isinstance(x, gast.Name) and not isinstance(x.ctx, gast.Load)
        }
        if isinstance(node, gast.FunctionDef):
            bound |= {x.name for x in _shallow(node) if isinstance(x, gast.FunctionDef)}
        shadowed = {k: self.aliases.pop(k) for k in list(self.aliases) if k in bound}
        saved_lifting, self.lifting = self.lifting, False
        try:
            args = node.args
            args.defaults = [self.expr(d, None, 1) for d in args.defaults]
            args.kw_defaults = [d if d is None else self.expr(d, None, 1) for d in args.kw_defaults]
            if isinstance(node, gast.Lambda):
                node.body = self.expr(node.body, None, 1)
            else:
                node.body = self.block(node.body, None)
        finally:
            self.lifting = saved_lifting
            self.aliases.update(shadowed)
        return node

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, node, defined, depth):
        if isinstance(node, gast.Call):
            return self.call(node, defined, depth)
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in self.aliases:
            raise self.error(node, _ESCAPE.format(what=f"the local function '{node.id}'", how="used as a value"))
        if isinstance(node, gast.Lambda):
            return self.nested(node, defined)
        for fld in node._fields:
            value = getattr(node, fld)
            if isinstance(value, list):
                setattr(node, fld, [self.expr(v, defined, depth) if isinstance(v, gast.AST) else v for v in value])
            elif isinstance(value, gast.AST):
                setattr(node, fld, self.expr(value, defined, depth))
        return node

    def call(self, node, defined, depth):
        func = node.func
        if isinstance(func, gast.Name) and func.id in self.aliases:
            self.check_defined(func.id, node, defined)
            spec = self.specialize_local_call(self.aliases[func.id], node, defined, depth)
            if spec is not None:
                return spec
            self.arguments(node, defined, depth)
            return self.call_ref(self.aliases[func.id], node)
        if isinstance(func, gast.Lambda) and self.lifting:
            local = self.anonymous(func)
            self.arguments(node, defined, depth)
            return self.call_ref(Ref(local, local.code, {s: s for s in _slots(local)}), node)
        spec = self.specialize(node, defined, depth)
        if spec is not None:
            return spec
        node.func = self.expr(func, defined, depth)
        self.arguments(node, defined, depth)
        return node

    def specialize_local_call(self, ref: Ref, node, defined, depth):
        """``apply(np.sin, x)``, ``apply(h, x)``, ``g(x)`` with ``def g(v, act=h)``: a call of a local function
        given functions for parameters it only calls is a call of its specialization without them."""
        target = ref.target
        if not isinstance(target, Local) or target.bound:
            return None
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        given = dict(zip(target.params[: target.positional], node.args))
        given.update((k.arg, k.value) for k in node.keywords if k.arg in target.params and k.arg not in given)
        if len(given) != len(node.args) + len(node.keywords):
            return None  # (call_ref says what is wrong)
        bound, refs = {}, {}
        for p, a in given.items():
            r = self.function_argument(a, defined, lambda p=p: _only_called_in(target.node, p))
            if r is not None:
                bound[p], refs[p] = r.target, r
        for p, h in target.fn_defaults.items():
            if p not in given:
                bound[p], refs[p] = h, Ref(h, h.code, {s: ref.slots[s] for s in _slots(h)})
        if not bound:
            return None
        spec = self.lifter.specialize_local(target, {p: bound[p] for p in target.params if p in bound})
        slots = dict(ref.slots)
        for r in refs.values():
            slots.update(r.slots)
        keywords = [gast.keyword(arg=p, value=self.expr(a, defined, depth)) for p, a in given.items() if p not in bound]
        call = gast.copy_location(gast.Call(func=node.func, args=[], keywords=keywords), node)
        return self.call_ref(Ref(spec, spec.code, slots), call)

    def function_argument(self, a, defined, only_called):
        """The :class:`Ref` a call argument gives a function parameter: a local function, a lambda (lifted
        here), or a module-level function (when the parameter is only called); None for a value."""
        if isinstance(a, gast.Name) and isinstance(a.ctx, gast.Load) and a.id in self.aliases:
            self.check_defined(a.id, a, defined)
            return self.aliases[a.id]
        if isinstance(a, gast.Lambda) and self.lifting and only_called():
            local = self.anonymous(a)
            return Ref(local, local.code, {s: s for s in _slots(local)})
        path = dotted(a) if isinstance(a, (gast.Name, gast.Attribute)) else None
        if path and path.split(".")[0] not in self.values and path.split(".")[0] not in self.aliases:
            obj = self.lookup(a)
            if obj is not MISSING and callable(obj) and not isinstance(obj, type) and not _typed_instance(obj):
                if only_called():
                    return Ref(obj, getattr(obj, "__name__", "fn"), {})
        return None

    def arguments(self, node, defined, depth):
        node.args = [self.expr(a, defined, depth) for a in node.args]
        for k in node.keywords:
            k.value = self.expr(k.value, defined, depth)

    def check_defined(self, label, node, defined):
        if defined is None:
            return
        need = {label}
        todo = [label]
        while todo:
            ref = self.aliases.get(todo.pop())
            if ref is None or not isinstance(ref.target, Local):
                continue
            for n in ref.target.free:
                if n in self.aliases and n not in need:
                    need.add(n)
                    todo.append(n)
        missing = sorted(need - defined)
        if missing:
            raise self.error(
                node,
                f"the local function '{missing[0]}' is used here where its definition may not have run; "
                "define it earlier in the same block",
            )

    def anonymous(self, lam) -> Local:
        local = self.lifter.local("lambda", lam, lam)
        self.lifter.note_defaults(local, self)
        if local.defaults and any(isinstance(v, str) for v in local.defaults.values()):
            raise self.error(
                lam, "a lambda with non-constant defaults is not supported here; assign it to a name first"
            )
        local.needs = [n for n in local.free if n in self.values]
        for n in local.free:
            ref = self.aliases.get(n)
            if ref is not None:
                for s in ref.slots.values():
                    if s not in local.needs:
                        local.needs.append(s)
        self.lifter.build(local, self)
        return local

    def call_ref(self, ref: Ref, node):
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.error(node, "*args or **kwargs in a call of a local function is not supported")
        target = ref.target
        if isinstance(target, Local) and target.star != (None, None):  # one specialization per call shape
            vararg, kwarg = target.star
            extra = node.args[target.positional :]
            named = [k for k in node.keywords if k.arg not in target.params]
            if (not extra or vararg is not None) and (not named or kwarg is not None):
                spec = self.lifter.star_local(target, len(extra), [k.arg for k in named])
                renamed = dict(zip([k.arg for k in named], spec.params[len(spec.params) - len(named) :]))
                for k in named:
                    k.arg = renamed[k.arg]
                return self.call_ref(Ref(spec, spec.code, ref.slots), node)
        func = gast.copy_location(name(ref.code), node.func)
        if not isinstance(target, Local):
            return gast.copy_location(gast.Call(func=func, args=node.args, keywords=node.keywords), node)
        given = dict(zip(target.params[: target.positional], node.args))
        if len(node.args) > target.positional:
            raise self.error(
                node, f"{target.label}() takes {target.positional} positional arguments but {len(node.args)} were given"
            )
        for k in node.keywords:
            if k.arg not in target.params or k.arg in given:
                raise self.error(node, f"{target.label}() got an unexpected or repeated keyword argument '{k.arg}'")
            given[k.arg] = k.value
        args = []
        for p in target.params:
            if p in given:
                args.append(given[p])
            elif p in target.defaults:
                d = target.defaults[p]
                args.append(
                    copy_tree(d) if isinstance(d, gast.Constant) else gast.copy_location(name(ref.slots[d]), node)
                )
            else:
                raise self.error(node, f"{target.label}() missing the argument '{p}'")
        args += [gast.copy_location(name(ref.slots[s]), node) for s in target.needs]
        return gast.copy_location(gast.Call(func=func, args=args, keywords=[]), node)

    def specialize(self, node, defined, depth):
        """``apply(fn, v)`` with ``fn`` a local function, a lambda, or a module-level function the helper only calls."""
        func = node.func
        path = dotted(func)
        if path is None or path.split(".")[0] in self.values or path.split(".")[0] in self.aliases:
            return None
        helper = self.lookup(func)
        if helper is MISSING or not isinstance(helper, types.FunctionType) or not is_user_function(helper):
            return None
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        slots = [(i, None, a) for i, a in enumerate(node.args)] + [(None, k.arg, k.value) for k in node.keywords]
        found = {}
        for i, kw, a in slots:
            ref = None
            if isinstance(a, gast.Name) and isinstance(a.ctx, gast.Load) and a.id in self.aliases:
                self.check_defined(a.id, a, defined)
                ref = self.aliases[a.id]
            elif isinstance(a, gast.Lambda) and self.lifting:
                local = self.anonymous(a)
                ref = Ref(local, local.code, {s: s for s in _slots(local)})
            elif (
                isinstance(a, (gast.Name, gast.Attribute)) and dotted(a) and dotted(a).split(".")[0] not in self.values
            ):
                obj = self.lookup(a)
                if (
                    obj is not MISSING
                    and callable(obj)
                    and not isinstance(obj, type)
                    and not _typed_instance(obj)
                    and _only_called(helper, i, kw)
                ):
                    label = getattr(obj, "__name__", "fn")
                    ref = Ref(obj, label if label.isidentifier() else "fn", {})
            if ref is not None:
                found[(i, kw)] = ref
        if not found:
            return None
        try:
            params = list(inspect.signature(helper).parameters)
            binding = inspect.signature(helper).bind(*range(len(node.args)), **{k.arg: k.arg for k in node.keywords})
        except (TypeError, ValueError):
            return None
        bound = {}
        for p, v in binding.arguments.items():
            key = (v, None) if isinstance(v, int) else (None, v)
            if key in found:
                bound[p] = found[key]
        bound = {p: bound[p] for p in params if p in bound}
        label = "_".join(r.target.label if isinstance(r.target, Local) else r.code for r in bound.values())
        code, made, slot_params = self.lifter.clone(helper, bound, node, label)
        args = [self.expr(a, defined, depth) for i, a in enumerate(node.args) if (i, None) not in found]
        kws = [
            gast.keyword(arg=k.arg, value=self.expr(k.value, defined, depth))
            for k in node.keywords
            if (None, k.arg) not in found
        ]
        for p, ref in bound.items():
            for s, param in slot_params.get(p, {}).items():
                kws.append(gast.keyword(arg=param, value=gast.copy_location(name(ref.slots[s]), node)))
        if self.lifting:
            self.lifter.lifted[code] = made
        call = gast.Call(func=gast.copy_location(name(code), func), args=args, keywords=kws)
        return gast.copy_location(call, node)


_ESCAPE = (
    "{what} is {how}: s2sad differentiates a local function only where it is called, or passed to a "
    "function of yours that calls it; call it here, or define it at module level"
)


def _typed_instance(obj) -> bool:
    """A callable instance whose ``__call__`` calls methods on it (``return self.forward(x)``): passed
    as an object, typed where it is called (:mod:`star`), not made a constant of a clone."""
    from .star import receivers

    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return False
    method = inspect.getattr_static(type(obj), "__call__", None)
    if not isinstance(method, types.FunctionType) or not is_user_function(method):
        return False
    names = method.__code__.co_varnames[: method.__code__.co_argcount]
    return bool(names) and names[0] in receivers(method)


def _unbound(obj):
    return getattr(obj, "__func__", obj)


def _slots(target) -> list:
    if not isinstance(target, Local):
        return []
    own = [v for v in target.defaults.values() if isinstance(v, str)]
    return list(target.needs) + [s for s in own if s not in target.needs]


def _only_called(helper, index, keyword, depth=0) -> bool:
    """Whether ``helper``'s parameter at ``index`` (or named ``keyword``) is only called in its body."""
    try:
        params = list(inspect.signature(helper).parameters.values())
    except (TypeError, ValueError):
        return False
    if keyword is None:
        if index >= len(params) or params[index].kind not in (
            params[index].POSITIONAL_ONLY,
            params[index].POSITIONAL_OR_KEYWORD,
        ):
            return False
        p = params[index].name
    else:
        p = keyword
    try:
        from .parse import parse_function

        tree = parse_function(helper).tree
    except Exception:  # noqa: BLE001 -- not readable: not specialized
        return False
    if not _only_called_in(tree, p):
        return False
    return depth > 8 or all(_only_called(g, i, k, depth + 1) for g, i, k in _passed_on(helper, tree, p))


def _passed_on(helper, tree, p):
    """(function, index, keyword) for each call in ``tree`` of a global user function given ``p``
    (``vjp_forward(self, x)``): ``p`` is only called if it is only called there too."""
    found = []
    for n in walk(tree):
        if not isinstance(n, gast.Call) or not isinstance(n.func, gast.Name):
            continue
        callee = getattr(helper, "__globals__", {}).get(n.func.id)
        if not isinstance(callee, types.FunctionType) or not is_user_function(callee):
            continue  # (a local function: specialized in turn)
        for i, a in enumerate(n.args):
            if isinstance(a, gast.Name) and a.id == p:
                found.append((callee, i, None))
        for k in n.keywords:
            if isinstance(k.value, gast.Name) and k.value.id == p and k.arg:
                found.append((callee, None, k.arg))
    return found


_BUILTIN_NAMES = frozenset(vars(builtins))


def _only_called_in(tree, p) -> bool:
    """Whether the parameter ``p`` of the function (or lambda) ``tree`` is only called in its body, or
    passed on to a function called by name (``inner(fn, v)``, specialized in turn)."""
    calls = {id(n.func) for n in walk(tree) if isinstance(n, gast.Call)}
    calls |= {
        id(a)
        for n in walk(tree)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id not in _BUILTIN_NAMES
        for a in n.args + [k.value for k in n.keywords]
    }  # (callable(fn), isinstance(fn, ...) read fn as a value)
    uses = [n for n in walk(tree) if isinstance(n, gast.Name) and n.id == p and not isinstance(n.ctx, gast.Param)]
    return bool(uses) and all(isinstance(n.ctx, gast.Load) and id(n) in calls for n in uses)


def _params(node) -> set:
    args = node.args
    out = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    out |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    return out


def _shallow(root):
    """The nodes of ``root``'s own scope, in source order: not inside functions nested in it (their
    defaults and decorators are, and the nested FunctionDef and Lambda nodes themselves)."""
    if isinstance(root, gast.Lambda):
        todo = [root.body]
    else:
        todo = list(root.body)
    out = []

    def visit(n):
        out.append(n)
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)):
            children = n.args.defaults + [d for d in n.args.kw_defaults if d is not None] + n.decorator_list
        elif isinstance(n, gast.Lambda):
            children = n.args.defaults + [d for d in n.args.kw_defaults if d is not None]
        elif isinstance(n, gast.ClassDef):
            children = []
        else:
            children = list(gast.iter_child_nodes(n))
        for c in children:
            visit(c)

    for n in todo:
        visit(n)
    return out


def _free(node, loc) -> list:
    """The free names of a nested function (and of the functions nested in it), in order of first use;
    refuses what cannot be lifted exactly."""
    own = _params(node)
    loads = []
    nested = []
    for n in _shallow(node):
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, gast.Load):
                loads.append(n.id)
            else:
                own.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)):
            own.add(n.name)
            nested.append(n)
        elif isinstance(n, gast.Lambda):
            nested.append(n)
        elif isinstance(n, gast.Nonlocal):
            raise loc.error(
                n,
                f"nonlocal {', '.join(n.names)} in a local function: writes to enclosing variables cannot be "
                "differentiated; return the new value instead",
            )
        elif isinstance(n, gast.Global):
            raise loc.error(
                n,
                f"global {', '.join(n.names)} in a local function: writes to globals cannot be differentiated; "
                "return the value instead",
            )
        elif isinstance(n, (gast.Yield, gast.YieldFrom)):
            raise loc.error(n, "a local generator function (yield) cannot be differentiated; return a list instead")
        elif isinstance(n, gast.Await):
            raise loc.error(n, "await cannot be differentiated; use a plain function")
    for m in nested:
        loads.extend(_free(m, loc))
    out = []
    for n in loads:
        if n not in own and n not in out:
            out.append(n)
    return out


def needed(tree) -> bool:
    """Whether ``tree`` defines local functions, or may pass functions to user helpers."""
    for n in walk(tree):
        if n is not tree and isinstance(n, _FUNCTIONS):
            return True
        if isinstance(n, gast.Call) and any(
            isinstance(a, (gast.Name, gast.Attribute)) for a in n.args + [k.value for k in n.keywords]
        ):
            return True
    return False


def lift(parsed, ns: Namespace) -> Namespace:
    """Lift the local functions of ``parsed.tree`` (in place); give the namespace of the new tree."""
    if not needed(parsed.tree):
        return ns
    lifter = _Lifter(parsed, ns)
    lifter.run()
    if not lifter.made:
        return ns
    new = resolve(parsed, scope=lifter.lifted)
    new.steered.update(ns.steered)
    new.attributes += ns.attributes
    new.methods += ns.methods
    new.lifted = dict(lifter.lifted)
    return new
