"""Central finite differences, for checking every derivative s2sad generates."""

import numpy as np


def _real_output(value):
    """``f``'s value as a real array: finite differences of a gradient need a real-valued ``f``."""
    value = np.asarray(value)
    if np.iscomplexobj(value):
        assert np.all(np.imag(value) == 0), "a gradient needs a real-valued function: take np.real(...) of it"
        value = np.real(value)
    return value.astype(float)


def _partial(f, args, i, eps, unit):
    """d f(*args) / d args[i] along ``unit`` (1 or 1j) at every element of ``args[i]``, by central differences."""
    x = args[i]
    scalar = np.ndim(x) == 0
    kind = complex if np.iscomplexobj(x) or unit != 1 else float
    x = np.array(x, dtype=kind)
    out0 = _real_output(f(*args))
    grad = np.zeros(out0.shape + x.shape)
    for idx in np.ndindex(*x.shape) if x.shape else [()]:
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps * unit
        xm[idx] -= eps * unit
        ap, am = list(args), list(args)
        ap[i] = kind(xp) if scalar else xp
        am[i] = kind(xm) if scalar else xm
        grad[(Ellipsis,) + idx] = (_real_output(f(*ap)) - _real_output(f(*am))) / (2 * eps)
    return grad


def numeric_grad(f, args, i, eps=1e-6):
    """d f(*args) / d args[i] by central differences; f may return any real shape (result: out.shape + x.shape).

    For a complex ``args[i]`` the result is JAX's and autograd's convention, df/dRe - i df/dIm: the
    differences are taken along the real and along the imaginary direction of each element."""
    if np.iscomplexobj(args[i]):
        return _partial(f, args, i, eps, 1) - 1j * _partial(f, args, i, eps, 1j)
    return _partial(f, args, i, eps, 1)


def numeric_jvp(f, args, wrt, tangents, eps=1e-6):
    """The directional derivative of ``f`` (any output, real or complex) along ``tangents`` of ``args[wrt]``."""

    def moved(step):
        a = list(args)
        for i, t in zip(wrt, tangents):
            a[i] = a[i] + step * t
        return np.asarray(f(*a))

    return (moved(eps) - moved(-eps)) / (2 * eps)


def real_vdot(a, b):
    """Re(sum(a * b)): the pairing under which a VJP is the transpose of a JVP, complex values included."""
    return float(np.real(np.sum(np.asarray(a) * np.asarray(b))))


def assert_close(actual, expected, rtol=1e-5, atol=1e-6):
    """``actual`` equals ``expected``, and is real where ``expected`` is (a real derivative is never complex)."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if not np.iscomplexobj(expected):
        assert not np.iscomplexobj(actual), f"expected a real derivative, got {actual.dtype}: {actual}"
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def random_like(value, rng):
    """A random value of ``value``'s type and shape: a float for a float, complex for complex values."""
    if isinstance(value, complex):
        return complex(rng.normal(), rng.normal())
    if isinstance(value, float):
        return float(rng.normal())
    out = rng.normal(size=np.shape(value))
    if np.iscomplexobj(value):
        out = out + 1j * rng.normal(size=np.shape(value))
    return out


def assert_type_of(derivative, argument):
    """A derivative has its argument's type: float for a float, complex for a complex, an array of the
    argument's shape and dtype (0-d included) for an array."""
    for kind in (bool, int, float, complex):
        if type(argument) is kind:
            want = float if kind in (bool, int) else kind
            assert type(derivative) is want, f"derivative of a {kind.__name__} is a {type(derivative).__name__}"
            return
    if isinstance(argument, np.ndarray):
        assert isinstance(derivative, np.ndarray), f"derivative of an array is a {type(derivative).__name__}"
        want = argument.dtype if argument.dtype.kind in "fc" else np.dtype(float)
        assert derivative.dtype == want, f"derivative of a {argument.dtype} array is {derivative.dtype}"
        assert derivative.shape == argument.shape, f"shape {derivative.shape} != {argument.shape}"


def check_grad(f, args, wrt=None, rtol=1e-5, atol=1e-6):
    """s2sad.grad of ``f`` w.r.t. each argument in ``wrt`` (default: all) against finite differences."""
    import s2sad

    wrt = tuple(range(len(args))) if wrt is None else tuple(wrt)
    got = s2sad.grad(f, wrt=wrt)(*args)
    for k, i in enumerate(wrt):
        expected = numeric_grad(f, list(args), i)
        assert_close(got[k], expected, rtol=rtol, atol=atol)
        assert_type_of(got[k], args[i])
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
    """Forward mode against the reverse mode result: Re<J t, w> == Re<t, J^T w> for random tangents t
    (and the tangent of a real output is real)."""
    rng = np.random.default_rng(7)
    tangents = [random_like(args[i], rng) for i in wrt]
    value, dout = call_jvp(f, args, wrt, tangents)
    np.testing.assert_allclose(np.asarray(value), np.asarray(f(*args)), rtol=1e-12)
    assert np.shape(dout) == np.shape(value), f"tangent shape {np.shape(dout)} != value shape {np.shape(value)}"
    if not np.iscomplexobj(value):
        assert not np.iscomplexobj(dout), f"the tangent of a real value is complex: {dout}"
    lhs = real_vdot(dout, seed)
    rhs = sum(real_vdot(t, c) for t, c in zip(tangents, cotangents))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-7, atol=1e-9)
