"""The pipeline: parse -> resolve -> lift -> desugar -> lower_control -> anf -> Program -> activity/shapes ->
reverse | forward -> optimize -> codegen.

``derive(fn, wrt, mode)`` gives a :class:`Generated` module: its functions (the requested
derivative first, then those of the user functions it calls), for each the user function it comes
from (its *origin*, whose globals and closure it reads when it runs), and source text.
Each pass is a function of its own module; this file only chains them.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import gast

from . import codegen, runtime
from .activity import activity
from .anf import anf, assigned_names
from .callables import base_name
from .desugar import desugar
from .errors import DifferentiationError
from .ir import targets, walk, walk_stmts
from .lift import lift
from .lower_control import lower_control
from .naming import ALL, Names, clashing_globals, clashing_params, rename_loads, rename_params, swap_back
from .optimize import optimize
from .param_writes import private_arguments
from .parse import parse_function
from .program import Program
from .quiet import called_functions, output_calls, quiet_copy, redirect
from .real_output import proved_real_output, without_output
from .resolve import resolve
from .shapes import infer_shapes
from .unshare import unshare_returns


@dataclass
class Prepared:
    fn: object
    parsed: object
    ns: object
    tree: gast.FunctionDef
    names: object
    program: Program
    renamed: dict = field(
        default_factory=dict
    )  # parameters named like a global generated code reads -> their names here


@dataclass
class Generated:
    functions: list = field(default_factory=list)
    namespace: dict = field(default_factory=dict)  # objects s2sad itself puts into the module
    origins: dict = field(default_factory=dict)  # generated function name -> (user function, Namespace | None)
    entry: str = ""
    seed: str = ""  # a VJP's seed parameter

    def source(self, header: str = "", imports=None) -> str:
        return codegen.module_source(self.functions, header, imports)


def prepare(fn) -> Prepared:
    parsed = parse_function(fn)
    renamed = clashing_params(parsed.tree)
    rename_params(parsed.tree, renamed)
    helpers = clashing_globals(parsed.tree, parsed.fn)  # a user's global zeros_like: zeros_like1
    rename_loads(parsed.tree, {n: new for n, (new, _) in helpers.items()})
    ns = lift(parsed, resolve(parsed, {new: obj for new, obj in helpers.values()}))  # local functions: their own
    ns.user_names.update({new: user for user, (new, _) in helpers.items()})
    ns.renamed_globals = {new: obj for new, obj in helpers.values()}
    parsed.tree = desugar(parsed.tree, ns, parsed.loc)
    lowered = lower_control(parsed.tree)  # break/continue/return anywhere -> flags anf can replay
    if lowered is not parsed.tree:
        ns.locals |= assigned_names(lowered.body) - assigned_names(parsed.tree.body)  # the flags
        parsed.tree = lowered
    tree, names, facts = anf(parsed.tree, ns, parsed.loc)
    primal_cse(tree)
    return Prepared(parsed.fn, parsed, ns, tree, names, Program(tree, ns, parsed.loc, names, facts), renamed)


def rename_lifted(prep: Prepared, old: str, new: str) -> str:
    """Call the lifted function ``old`` of ``prep`` by ``new`` (another one in the module has its name)."""
    for node in walk(prep.tree):
        if isinstance(node, gast.Name) and node.id == old:
            node.id = new
    ns = prep.ns
    ns.lifted[new] = ns.scope[new] = ns.lifted.pop(old)
    ns.free.add(new)
    return new


def primal_cse(tree):
    """A value the user computes twice (``x**2 / (1 + x**2)``) is computed once, so its adjoint is
    summed first and pushed back through the computation once.  Not with in-place writes into arrays,
    which may change what an earlier expression read."""
    from .optimize import _cse

    if not any(isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript) for n in walk(tree)):
        _cse(tree.body, {}, {})


def primal_names(tree) -> frozenset:
    """The names of the user's values in ANF code: its parameters and what its statements assign."""
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    return frozenset(params | {t for s in walk_stmts(tree.body) for t in targets(s)})


def private_arguments_of(deriv, prep: Prepared) -> None:
    """Calls of user functions that change an argument in place get a private copy of it."""
    from . import runtime
    from .resolve import MISSING

    def lookup(node):
        obj = prep.ns.lookup(node)
        return None if obj is MISSING else obj

    private_arguments(deriv, lookup)
    if any(isinstance(n, gast.Name) and n.id == "copy_input" for n in walk(deriv)):
        prep.ns.scope.setdefault("copy_input", runtime.copy_input)


def param_names(fn) -> list[str]:
    return [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


class _Session:
    """One generated module: the entry derivative plus derivatives of the user functions it calls."""

    def __init__(self):
        self.gen = Generated()
        self.requested: dict = {}
        self.output_facts: dict = {}  # fn -> (whether its code prints, the user functions it calls)
        self.taken: set[str] = set()

    def unique(self, base: str) -> str:
        name, i = base, 1
        while name in self.taken:
            name, i = f"{base}_{i}", i + 1
        self.taken.add(name)
        return name

    def add_origin(self, fname: str, prep: Prepared):
        self.gen.origins[fname] = (prep.fn, prep.ns)
        for name, fn in list(prep.ns.lifted.items()):  # the functions lift made, called by name
            if self.gen.namespace.get(name, fn) is not fn:  # another function's local function of that name
                name = rename_lifted(prep, name, self.unique(name))
            self.gen.namespace[name] = fn
        for name, obj in getattr(prep.ns, "renamed_globals", {}).items():  # the user's zeros_like, as zeros_like1
            if self.gen.namespace.get(name, obj) is not obj:
                new = self.unique(name)
                for node in walk(prep.tree):
                    if isinstance(node, gast.Name) and node.id == name:
                        node.id = new
                prep.ns.scope[new] = obj
                name = new
            self.gen.namespace[name] = obj
        self.taken |= prep.ns.free  # a generated function never takes a name the code it differentiates reads
        if getattr(prep.fn, "__module__", None) == "s2sad.generated":  # and, differentiating generated
            self.taken |= set(dict.keys(prep.fn.__globals__))  # code, no name its module defines

    def reverse(
        self,
        fn,
        wrt: tuple,
        mode: str,
        fname: str,
        prep: Prepared | None = None,
        seed=None,
        as_tuple=False,
        check=False,
    ):
        from .reverse import reverse

        prep = prep or prepare(fn)
        self.add_origin(fname, prep)
        self.taken.add(prep.fn.__name__)
        act = activity(prep.program, list(wrt))
        out = prep.program.output
        # grad checks at run time that the output is a scalar; the shapes may take it as given
        shapes = infer_shapes(prep.program, assume_scalar=(out,) if mode == "grad" else ())
        deriv, seed = reverse(
            prep.program,
            list(wrt),
            shapes,
            act,
            self.request_vjp,
            mode=mode,
            fname=fname,
            seed=seed,
            as_tuple=as_tuple,
            check_seed=check,
        )
        for loop in walk(deriv):  # a checkpointed segment recomputed: its helpers print no more
            if getattr(loop, "s2sad_replay", False):
                for call, obj in list(called_functions(loop, prep.ns)):
                    quiet = self.quiet_name(obj)
                    if quiet is not None:
                        redirect(call, quiet)
        private_arguments_of(deriv, prep)
        effects = self.effects(deriv, prep, mode)
        deriv = optimize(deriv, prep.names, primal_names(prep.tree), effects)
        if mode == "grad":  # f's output computed and checked only for arguments the proof does not cover
            proved = proved_real_output(prep.program)
            if proved is not None:
                deriv = without_output(deriv, proved, prep.names, effects)
        deriv.origin_file = prep.parsed.loc.filename  # for source-map comments
        deriv.renamed = prep.renamed  # (swapped back when the module is complete: _swap_back)
        return deriv, seed

    def request_vjp(self, fn, wrt: tuple, stmt):
        key = (fn, wrt)
        if key in self.requested:
            return self.requested[key]
        prep = prepare(fn)
        self.facts_of(fn, prep)  # (read before the passes: generated VJPs rewrite calls they share)
        self.taken |= prep.ns.free
        base = f"vjp_{base_name(fn)}" if list(wrt) == param_names(fn) else f"vjp_{base_name(fn)}_{'_'.join(wrt)}"
        fname = self.unique(base)
        out = prep.tree.body[-1].value.id
        seed = prep.names.adjoint(out)
        self.requested[key] = (fname, seed)
        self.reverse_into(fn, wrt, fname, prep, seed)
        return fname, seed

    def forward(self, fn, wrt: tuple, fname: str, prep: Prepared | None = None, kwonly=False):
        from .forward import forward

        prep = prep or prepare(fn)
        self.add_origin(fname, prep)
        self.taken.add(prep.fn.__name__)
        act = activity(prep.program, list(wrt))
        shapes = infer_shapes(prep.program)
        deriv, tangents = forward(
            prep.program,
            list(wrt),
            shapes,
            act,
            self.request_jvp,
            fname=fname,
            kwonly=kwonly,
        )
        private_arguments_of(deriv, prep)
        deriv = optimize(deriv, prep.names, primal_names(prep.tree), self.effects(deriv, prep, "jvp"))
        deriv.origin_file = prep.parsed.loc.filename  # for source-map comments
        deriv.renamed = prep.renamed  # (swapped back when the module is complete: _swap_back)
        return deriv, tangents

    def request_jvp(self, fn, wrt: tuple, stmt):
        key = ("jvp", fn, wrt)
        if key in self.requested:
            return self.requested[key]
        prep = prepare(fn)
        self.facts_of(fn, prep)  # (read before the passes: generated VJPs rewrite calls they share)
        self.taken |= prep.ns.free
        base = f"jvp_{base_name(fn)}" if list(wrt) == param_names(fn) else f"jvp_{base_name(fn)}_{'_'.join(wrt)}"
        fname = self.unique(base)
        probe = Names(prep.names.taken)  # the names forward gives the tangents, for recursive calls
        self.requested[key] = (fname, [probe.tangent(w) for w in wrt])
        deriv, tangents = self.forward(fn, wrt, fname, prep, kwonly=True)
        self.requested[key] = (fname, tangents)
        self.gen.functions.append(deriv)
        return fname, tangents

    def reverse_into(self, fn, wrt, fname, prep, seed):
        deriv, _ = self.reverse(fn, wrt, "vjp_kw", fname, prep, seed)
        for call, obj in list(called_functions(deriv, prep.ns)):  # recomputed: its caller printed already
            quiet = self.quiet_name(obj)
            if quiet is not None:
                redirect(call, quiet)
        self.gen.functions.append(deriv)

    def effects(self, deriv, prep, mode) -> frozenset:
        """Names of the printing user functions ``deriv`` calls: kept where their result is unused, as f
        runs them (not in a callee's VJP, which recomputes quietly)."""
        if mode == "vjp_kw":
            return frozenset()
        calls = [call for call, obj in called_functions(deriv, prep.ns) if self.noisy(obj)]
        return frozenset(call.func.id for call in calls if isinstance(call.func, gast.Name))

    def noisy(self, fn) -> bool:
        """Whether ``fn`` prints (or logs, or warns), directly or through the functions it calls."""
        key = ("noisy", fn)
        if key not in self.requested:
            self.requested[key] = False  # (recursion: not printing until shown otherwise)
            try:
                prints, callees = self.facts_of(fn)
            except DifferentiationError:
                return False  # code s2sad cannot read is not recomputed by generated code either
            self.requested[key] = prints or any(self.noisy(c) for c in callees)
        return self.requested[key]

    def facts_of(self, fn, prep: Prepared | None = None) -> tuple:
        """Whether ``fn``'s code has output calls, and the user functions it calls: read once per session
        (from ``prep`` when the session prepared ``fn`` anyway)."""
        if fn not in self.output_facts:
            prep = prep or prepare(fn)
            callees = [obj for _, obj in called_functions(prep.tree, prep.ns)]
            self.output_facts[fn] = (bool(output_calls(prep.tree, prep.ns)), callees)
        return self.output_facts[fn]

    def quiet_name(self, fn) -> str | None:
        """The name of ``fn``'s primal without output (:mod:`quiet`), made on first request; None when
        ``fn`` prints nothing, directly or through the functions it calls."""
        key = ("quiet", fn)
        if key not in self.requested:
            self.requested[key] = None
            if self.noisy(fn):
                prep = prepare(fn)
                self.taken |= prep.ns.free
                fname = self.unique(f"quiet_{base_name(fn)}")
                self.requested[key] = fname
                self.add_origin(fname, prep)  # (with the functions it calls by name: Dense of super().forward)
                quiet = quiet_copy(prep.tree, prep.ns, fname, self.quiet_name)
                quiet.origin_file = prep.parsed.loc.filename
                self.gen.functions.append(quiet)
        return self.requested[key]

    def quiet_generated(self, fname: str, trees: dict) -> str | None:
        """The name of a copy of the generated function ``fname`` (``trees``: name -> tree) without output
        calls, calling the quiet copies of the generated and user functions it calls that print; None when
        it prints nothing.  A Jacobian's wrapper calls it for every column after the first."""
        key = ("quiet_generated", fname)
        if key in self.requested:
            return self.requested[key]
        tree = trees.get(fname)
        origin, ns = self.gen.origins.get(fname, (None, None))
        if tree is None or ns is None:
            return None
        qname = self.unique(f"quiet_{fname}")
        self.requested[key] = qname  # (a recursive call calls the copy)
        copy = quiet_copy(tree, ns, qname, self.quiet_name)
        changed = bool(output_calls(tree, ns)) or any(self.noisy(obj) for _, obj in called_functions(tree, ns))
        for call in (n for n in walk(copy) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)):
            if call.func.id in trees:
                quiet = self.quiet_generated(call.func.id, trees)
                if quiet is not None and quiet != call.func.id:
                    call.func.id = quiet
                    changed = True
        if not changed:
            self.requested[key] = None
            return None
        copy.origin_file = getattr(tree, "origin_file", None)
        self.gen.origins[qname] = (origin, ns)
        self.gen.functions.append(copy)
        return qname


def _swap_back(functions, entry=None) -> dict:
    """Each generated function takes the parameters ``prepare`` renamed (``np`` -> ``np1``) by the user's
    names again (callers pass them by keyword); gives the renaming of ``entry``'s names."""
    out = {}
    for f in functions:
        renamed = getattr(f, "renamed", None)
        if renamed:
            swapped = swap_back(f, renamed, pretty=f is entry)
            out = swapped if f is entry else out
            f.renamed = None
    return out


def derive_composite(fn, wrt: tuple, kind: str, fname: str, as_tuple: bool = False, signature_of=None) -> Generated:
    """Jacobians, Hessians and Hessian-vector products: generated JVPs/VJPs plus a small wrapper.

    ``kind``: jacobian_forward | jacobian_reverse | jacobian | hessian | hvp.  For hessian and hvp,
    ``fn`` is the generated gradient and ``signature_of`` the user's function (the wrapper's signature).
    """
    from . import wrappers
    from .parse import parse_function

    session = _Session()
    session.taken.add(fname)
    signature = parse_function(signature_of or fn)
    renamed = clashing_params(parse_function(fn).tree)  # (as prepare names them)
    rename_params(signature.tree, renamed)
    sig = signature.tree.args
    wrt = [renamed.get(w, w) for w in wrt]
    functions = []
    primal = base_name(fn)  # (``lambda`` is a keyword; ``tape``, ``np``: names the generated module binds)
    if primal != fn.__name__ or hasattr(runtime, primal) or primal in ("np", "math"):
        primal += "_"

    def quiet(deriv):  # f prints once: the other columns (rows) call a copy without output
        return session.quiet_generated(deriv.name, {f.name: f for f in session.gen.functions + functions})

    def forward_jacobian(name, all_quiet=False):
        jvp_name = session.unique(f"jvp_{base_name(fn)}")
        deriv, tangents = session.forward(fn, tuple(wrt), jvp_name)
        functions.append(deriv)
        return wrappers.jacobian_forward(name, jvp_name, sig, wrt, tangents, as_tuple, quiet(deriv), all_quiet)

    def reverse_jacobian(name, all_quiet=False):
        vjp_name = session.unique(f"vjp_{base_name(fn)}")
        deriv, seed = session.reverse(fn, tuple(wrt), "vjp", vjp_name, as_tuple=as_tuple)
        functions.append(deriv)
        session.gen.namespace[primal] = fn
        first = (session.quiet_name(fn) if all_quiet else None) or primal
        return wrappers.jacobian_reverse(name, first, quiet(deriv) or vjp_name, sig, wrt, as_tuple, seed)

    if kind == "jacobian_forward":
        wrapper = [forward_jacobian(fname)]
    elif kind == "jacobian_reverse":
        wrapper = [reverse_jacobian(fname)]
    elif kind == "jacobian":  # (the wrapper runs f once to choose, then the quiet one chosen)
        fwd = forward_jacobian(session.unique(f"{fname}_forward"), all_quiet=True)
        rev = reverse_jacobian(session.unique(f"{fname}_reverse"), all_quiet=True)
        wrapper = [wrappers.jacobian_auto(fname, primal, fwd.name, rev.name, sig, wrt), fwd, rev]
    elif kind == "hessian":
        wrapper = [forward_jacobian(fname)]
    elif kind == "hvp":
        jvp_name = session.unique(f"jvp_{base_name(fn)}")
        deriv, tangents = session.forward(fn, tuple(wrt), jvp_name)
        functions.append(deriv)
        wrapper = [wrappers.hvp(fname, jvp_name, sig, tangents[0])]
    else:
        raise ValueError(kind)
    _swap_back(functions + session.gen.functions)
    for w in wrapper:  # (they call f, each other and the derivatives with f's names)
        swap_back(w, renamed, ALL)
    if kind != "hvp":  # f's code runs once per column: an iterator argument would be empty after the first
        wrapper[0].body[:0] = _reiterable_checks(signature.fn, [a.id for a in wrapper[0].args.args], wrt)
    session.gen.functions[:0] = wrapper + functions
    origin = signature.fn
    for w in wrapper:
        session.gen.origins.setdefault(w.name, (origin, None))
    session.gen.entry = fname
    return session.gen


def _reiterable_checks(fn, params, wrt) -> list:
    """``expect_reiterable(m, ...)`` for each parameter of ``fn`` (not in ``wrt``) whose items it may take."""
    from .effects import iterated
    from .naming import const, name

    taken = iterated(fn)
    return [
        gast.Expr(
            value=gast.Call(
                func=name("expect_reiterable"),
                args=[name(p), const(f"the argument `{p}` of {base_name(fn)}(), whose items it takes,")],
                keywords=[],
            )
        )
        for p in params
        if p in taken and p not in wrt
    ]


def derive(fn, wrt: tuple, mode: str, fname: str, as_tuple: bool = False) -> Generated:
    """Generate the module for one request.  ``mode``: grad | value_and_grad | vjp | jvp."""
    session = _Session()
    session.taken.add(fname)
    prep = prepare(fn)
    wrt = tuple(prep.renamed.get(w, w) for w in wrt)
    if mode == "jvp":
        deriv, _ = session.forward(fn, wrt, fname, prep)
    else:
        deriv, session.gen.seed = session.reverse(fn, wrt, mode, fname, prep, as_tuple=as_tuple, check=mode == "vjp")
    if mode in ("jvp", "vjp"):  # (grad's seed is a number: nothing to share)
        primal = {prep.renamed.get(p, p) for p in param_names(fn)}
        inputs = [a.id for a in deriv.args.args + deriv.args.kwonlyargs if a.id not in primal]
        unshare_returns(deriv, inputs, prep.ns, [1] if mode == "jvp" else None)
    session.gen.functions.insert(0, deriv)
    swapped = _swap_back(session.gen.functions, deriv)
    session.gen.seed = swapped.get(session.gen.seed, session.gen.seed)
    session.gen.entry = fname
    return session.gen
