"""Gradients of the workloads by other tools, when they are installed: HIPS autograd, JAX (eager and
jit) and PyTorch.  The NumPy workloads run unchanged under autograd and JAX with ``np`` (and
``math``) rebound to their NumPy; PyTorch gets the same computations written with torch."""

from __future__ import annotations

import types

import numpy as np

from . import workloads as W


def _rebind(fn, **names):
    return types.FunctionType(fn.__code__, {**fn.__globals__, **names}, fn.__name__, fn.__defaults__, fn.__closure__)


def _shim(module):
    """A stand-in for ``math`` whose sin works on traced values."""
    return types.SimpleNamespace(sin=module.sin, cos=module.cos, exp=module.exp, tanh=module.tanh)


def autograd_grads() -> dict:
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return {}
    out = {}
    for w in W.WORKLOADS:
        f = _rebind(w.f, np=anp, math=_shim(anp))
        out[w.key] = autograd.grad(f, w.wrt)
    return out


def jax_grads() -> tuple[dict, dict]:
    """(eager, jit) gradients; jit ones are compiled on first call (the runner warms them up)."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return {}, {}
    jax.config.update("jax_enable_x64", True)
    eager, jit = {}, {}
    for w in W.WORKLOADS:
        f = _rebind(w.f, np=jnp, math=_shim(jnp))
        g = jax.grad(f, argnums=w.wrt)

        def eager_call(*args, g=g):
            return jax.block_until_ready(g(*args))

        compiled = jax.jit(g)

        def jit_call(*args, g=compiled):
            return jax.block_until_ready(g(*args))

        eager[w.key] = eager_call
        jit[w.key] = jit_call
    return eager, jit


def torch_grads() -> dict:
    """Per workload, ``prepare(args)``: tensors made once (sharing the arrays' memory), then a call
    that runs the forward pass and ``torch.autograd.grad`` on them."""
    try:
        import torch
    except ImportError:
        return {}
    torch.set_default_dtype(torch.float64)

    def leaves(args, wrt):
        out = []
        for i, a in enumerate(args):
            t = torch.tensor(a) if isinstance(a, float) else torch.from_numpy(a)
            out.append(t.requires_grad_(i in wrt))
        return out

    def grads(loss, params):
        return tuple(g.numpy() if g.dim() else float(g) for g in torch.autograd.grad(loss, params))

    def w1(x, y):
        z = torch.tensor(1.0)
        s = torch.tensor(0.0)
        for _ in range(100):
            z = 0.5 * z * x + torch.sin(y * z)
            s = s + z * z
        return grads(s, [x, y])

    def mlp(W1, b1, W2, b2, X, Y):
        h = torch.tanh(X @ W1 + b1)
        logits = h @ W2 + b2
        z = logits - torch.amax(logits, dim=1, keepdim=True)
        lse = torch.log(torch.sum(torch.exp(z), dim=1, keepdim=True))
        return grads(-torch.sum(Y * (z - lse)) / X.shape[0], [W1, b1, W2, b2])

    def rnn(Wx, Wh, xs, h):
        for t in range(xs.shape[0]):
            h = torch.tanh(xs[t] @ Wx + h @ Wh)
        return grads(torch.sum(h * h), [Wx, Wh])

    def elementwise(x):
        return grads(torch.sum(torch.exp(torch.sin(x)) * x**2 / (1 + x**2)), [x])

    def prepare(fn, wrt):
        def make(args):
            tensors = leaves(args, wrt)
            return lambda: fn(*tensors)

        return make

    return {
        "W1": prepare(w1, (0, 1)),
        "W2": prepare(mlp, (0, 1, 2, 3)),
        "W3": prepare(mlp, (0, 1, 2, 3)),
        "W4": prepare(rnn, (0, 1)),
        "W5": prepare(elementwise, (0,)),
    }


def normalize(result, wrt):
    """Any tool's gradient as a tuple of NumPy arrays or floats, one per ``wrt`` argument."""
    if not isinstance(result, (tuple, list)):
        result = (result,)
    return tuple(np.asarray(r, dtype=float) for r in result)
