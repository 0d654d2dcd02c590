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


def _free(base: str, signature: gast.arguments) -> str:
    taken = {a.id for a in signature.args + signature.kwonlyargs}
    while base in taken:
        base += "_"
    return base


def jacobian_forward(fname, jvp, sig, wrt, tangents, many):
    """One JVP per element of each ``wrt`` argument: the Jacobian column by column."""
    args = _call_args(sig)
    cols, e, out, dout = (_free(n, sig) for n in ("columns", "e", "out", "dout"))
    lines = [f"def {fname}(ARGS):"]
    results = []
    for w, t in zip(wrt, tangents):
        others = "".join(f", {o}=zeros_like({v})" for v, o in zip(wrt, tangents) if o != t)
        jw = _free(f"j{w}", sig)
        lines += [
            f"    {cols} = []",
            f"    for {e} in np.eye(np.size({w})):",
            f"        {out}, {dout} = {jvp}({args}, {t}={e}.reshape(np.shape({w})){others})",
            f"        {cols}.append({dout})",
            f"    {jw} = np.moveaxis(np.array({cols}), 0, -1).reshape(np.shape({out}) + np.shape({w}))",
        ]
        results.append(jw)
    lines.append(f"    return {', '.join(results) if many else results[0]}")
    return _parse("\n".join(lines) + "\n", sig)


def jacobian_reverse(fname, primal, vjp, sig, wrt, many):
    """One VJP per element of the output: the Jacobian row by row."""
    args = _call_args(sig)
    rows, e, out, row = (_free(n, sig) for n in ("rows", "e", "out", "row"))
    lines = [
        f"def {fname}(ARGS):",
        f"    {out} = {primal}({args})",
        f"    {rows} = []",
        f"    for {e} in np.eye(np.size({out})):",
        f"        {rows}.append({vjp}({args}, {e}.reshape(np.shape({out}))))",
    ]
    if many:
        results = []
        for k, w in enumerate(wrt):
            jw = _free(f"j{w}", sig)
            stacked = f"np.array([{row}[{k}] for {row} in {rows}])"
            lines.append(f"    {jw} = {stacked}.reshape(np.shape({out}) + np.shape({w}))")
            results.append(jw)
        lines.append(f"    return {', '.join(results)}")
    else:
        lines.append(f"    return np.array({rows}).reshape(np.shape({out}) + np.shape({wrt[0]}))")
    return _parse("\n".join(lines) + "\n", sig)


def jacobian_auto(fname, primal, forward, reverse, sig, wrt):
    """Forward mode when the inputs are fewer than the outputs, reverse mode otherwise."""
    args = _call_args(sig)
    size = " + ".join(f"np.size({w})" for w in wrt)
    text = (
        f"def {fname}(ARGS):\n"
        f"    if {size} <= np.size({primal}({args})):\n"
        f"        return {forward}({args})\n"
        f"    return {reverse}({args})\n"
    )
    return _parse(text, sig)


def hvp(fname, jvp, sig, tangent):
    """H v as the tangent of the gradient along ``v`` (forward over reverse)."""
    args = _call_args(sig)
    v = _free("v", sig)
    fn = _parse(f"def {fname}(ARGS):\n    return {jvp}({args}, {tangent}={v})[1]\n", sig)
    param = gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
    fn.args.args.insert(len(fn.args.args) - len(fn.args.defaults), param)  # after the required parameters
    return fn
