"""Central finite differences, for checking every derivative s2sad generates."""

import numpy as np


def numeric_grad(f, args, i, eps=1e-6):
    """d f(*args) / d args[i] by central differences; f may return any shape (result: out.shape + x.shape)."""
    x = args[i]
    scalar = np.ndim(x) == 0
    x = np.array(x, dtype=float)
    out0 = np.asarray(f(*args), dtype=float)
    grad = np.zeros(out0.shape + x.shape)
    for idx in np.ndindex(*x.shape) if x.shape else [()]:
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        ap, am = list(args), list(args)
        ap[i] = float(xp) if scalar else xp
        am[i] = float(xm) if scalar else xm
        d = (np.asarray(f(*ap), dtype=float) - np.asarray(f(*am), dtype=float)) / (2 * eps)
        grad[(Ellipsis,) + idx] = d
    return grad


def assert_close(actual, expected, rtol=1e-5, atol=1e-6):
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def check_grad(f, args, wrt=None, rtol=1e-5, atol=1e-6):
    """s2sad.grad of ``f`` w.r.t. each argument in ``wrt`` (default: all) against finite differences."""
    import s2sad

    wrt = tuple(range(len(args))) if wrt is None else tuple(wrt)
    got = s2sad.grad(f, wrt=wrt)(*args)
    for k, i in enumerate(wrt):
        expected = numeric_grad(f, list(args), i)
        assert_close(got[k], expected, rtol=rtol, atol=atol)
        if isinstance(args[i], float):
            assert isinstance(got[k], float), f"d/d{i} of a float should be a float, got {type(got[k])}"
        else:
            assert np.shape(got[k]) == np.shape(args[i])
    check_forward_agrees(f, args, wrt, got)
    return got


def call_jvp(f, args, wrt, tangents):
    """``s2sad.jvp(f, wrt)`` called with ``tangents`` (by keyword: the parameters f does not have)."""
    import inspect

    import s2sad

    jvp = s2sad.jvp(f, wrt=tuple(wrt))
    names = [p for p in inspect.signature(jvp).parameters if p not in inspect.signature(f).parameters]
    return jvp(*args, **dict(zip(names, tangents)))


def check_forward_agrees(f, args, wrt, cotangents, seed=1.0):
    """Forward mode against the reverse mode result: <J t, w> == <t, J^T w> for random tangents t."""
    rng = np.random.default_rng(7)
    tangents = [float(rng.normal()) if isinstance(args[i], float) else rng.normal(size=np.shape(args[i])) for i in wrt]
    value, dout = call_jvp(f, args, wrt, tangents)
    np.testing.assert_allclose(np.asarray(value, dtype=float), np.asarray(f(*args), dtype=float), rtol=1e-12)
    assert np.shape(dout) == np.shape(value), f"tangent shape {np.shape(dout)} != value shape {np.shape(value)}"
    lhs = float(np.sum(np.asarray(dout) * seed))
    rhs = sum(float(np.sum(np.asarray(t) * np.asarray(c))) for t, c in zip(tangents, cotangents))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-7, atol=1e-9)
