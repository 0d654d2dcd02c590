"""wrappers: the small generated functions that assemble Jacobians, Hessians and Hessian-vector
products from the JVP / VJP functions the passes generate.

Takes the name of the derivative function, the primal parameters and the ``wrt`` names; gives a
``FunctionDef`` parsed from readable text, placed in the same module, so ``s2sad.source`` shows
the whole computation and the module runs without s2sad's API.
"""

from __future__ import annotations

import gast

from .ir import copy_tree


def _parse(text: str, signature: gast.arguments) -> gast.FunctionDef:
    """Parse a wrapper written as ``def name(ARGS): ...`` and give it the primal's signature."""
    fn = gast.parse(text.replace("(ARGS)", "()", 1)).body[0]
    fn.args = copy_tree(signature)
    return fn


def _call_args(signature: gast.arguments) -> str:
    """How the wrapper passes its own parameters on: required ones positionally, the others by name
    (derivative functions put tangents and seeds among them)."""
    required = signature.args[: len(signature.args) - len(signature.defaults)]
    named = signature.args[len(required) :] + signature.kwonlyargs
    return ", ".join([a.id for a in required] + [f"{a.id}={a.id}" for a in named])


def _copied_args(signature: gast.arguments) -> str:
    """As ``_call_args``, each argument a private copy: the user's function may write into its
    arguments, and a derivative call never changes the caller's data."""
    required = signature.args[: len(signature.args) - len(signature.defaults)]
    named = signature.args[len(required) :] + signature.kwonlyargs
    return ", ".join([f"copy_input({a.id})" for a in required] + [f"{a.id}=copy_input({a.id})" for a in named])


def _free(base: str, signature: gast.arguments, functions=()) -> str:
    """``base`` (or ``base_``, ...): a local name the wrapper's parameters and the functions it calls
    do not use."""
    taken = {a.id for a in signature.args + signature.kwonlyargs} | set(functions)
    while base in taken:
        base += "_"
    return base


def jacobian_forward(fname, jvp, sig, wrt, tangents, many, quiet=None, all_quiet=False):
    """One JVP per number of each ``wrt`` argument: the Jacobian column by column (containers give
    the nested layout of ``jacobian_of_columns``).  With ``quiet`` (the JVP without f's output calls),
    the first JVP prints what f prints and the others call ``quiet`` (all of them: ``all_quiet``)."""
    args = _call_args(sig)
    names = (fname, jvp, quiet or jvp)
    cols, e, out, dout = (_free(n, sig, names) for n in ("columns", "e", "out", "dout"))
    lines = [f"def {fname}(ARGS):"]
    results = []
    for k, (w, t) in enumerate(zip(wrt, tangents)):
        others = "".join(f", {o}=zeros_like({v})" for v, o in zip(wrt, tangents) if o != t)
        jw = _free(f"j{w}", sig, names)
        first = jvp if quiet is None or (k == 0 and not all_quiet) else quiet  # the first JVP of all
        column = f"{out}, {dout} = {{}}({args}, {t}={e}{others})"
        if first == (quiet or jvp):
            loop = [f"        {column.format(first)}"]
        else:  # (the first column prints: f runs once)
            loop = [f"        if {cols}:", f"            {column.format(quiet)}", "        else:"]
            loop += [f"            {column.format(first)}"]
        lines += [
            f"    {cols} = []",
            f"    for {e} in unit_tangents({w}):",
            *loop,
            f"        {cols}.append({dout})",
            f"    if not {cols}:",  # an empty argument: no column, one JVP for the output's shape
            f"        {out}, {dout} = {first}({args}, {t}=zeros_like({w}){others})",
            f"    {jw} = jacobian_of_columns({cols}, {out}, {w})",
        ]
        results.append(jw)
    lines.append(
        f"    return jacobian_of_arguments(({', '.join(results)},), {out})" if many else f"    return {results[0]}"
    )
    return _parse("\n".join(lines) + "\n", sig)


def jacobian_reverse(fname, primal, vjp, sig, wrt, many, seed):
    """One VJP per number of the output: the Jacobian row by row (the seed ``seed`` passed by name:
    it follows defaulted parameters, which the wrapper passes by name too).  ``primal`` prints what f
    prints; ``vjp`` should be a copy of the VJP without output calls."""
    args = _call_args(sig)
    rows, e, out = (_free(n, sig, (fname, primal, vjp)) for n in ("rows", "e", "out"))
    lines = [
        f"def {fname}(ARGS):",
        f"    {out} = {primal}({_copied_args(sig)})",
        f"    {rows} = []",
        f"    for {e} in unit_tangents({out}):",
        f"        {rows}.append({vjp}({args}, {seed}={e}))",
    ]
    if many:
        lines.append(f"    return jacobian_of_rows({rows}, {out}, ({', '.join(wrt)},))")
    else:
        lines.append(f"    return jacobian_of_rows({rows}, {out}, {wrt[0]})")
    return _parse("\n".join(lines) + "\n", sig)


def jacobian_auto(fname, primal, forward, reverse, sig, wrt):
    """Forward mode when the inputs are no more than the outputs or the output is complex, reverse mode
    otherwise or when an input is complex (``jacobian_forward_first``)."""
    args = _call_args(sig)
    xs = wrt[0] if len(wrt) == 1 else f"({', '.join(wrt)})"
    text = (
        f"def {fname}(ARGS):\n"
        f"    if jacobian_forward_first({primal}({_copied_args(sig)}), {xs}):\n"
        f"        return {forward}({args})\n"
        f"    return {reverse}({args})\n"
    )
    return _parse(text, sig)


def hvp(fname, jvp, sig, tangent):
    """H v as the tangent of the gradient along ``v`` (forward over reverse)."""
    args = _call_args(sig)
    v = _free("v", sig, (fname, jvp))
    fn = _parse(f"def {fname}(ARGS):\n    return {jvp}({args}, {tangent}={v})[1]\n", sig)
    param = gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
    fn.args.args.insert(len(fn.args.args) - len(fn.args.defaults), param)  # after the required parameters
    return fn
