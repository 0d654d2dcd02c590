"""The adversarial checker: every generated derivative is exact or refused, and never touches the caller's data.

``check(f, args)`` runs ``f`` itself and s2sad's ``grad``, ``value_and_grad``, ``jvp``, ``vjp`` (array outputs)
and ``hessian`` (one argument) on deep copies of ``args``, and compares them against running ``f`` and against
central finite differences of ``f``.  Each mode is acceptable when it is exact, or when it raises
``s2sad.DifferentiationError`` whose message starts with ``file:line:col:``.  It fails on a wrong value, a wrong
derivative, a wrong type or shape, an input / tangent / seed changed by the call, a result sharing memory with the
caller's data (where f's own result does not), a refusal without a location, or any other exception.  All the
symptoms of one program are collected and reported together, each prefixed with its mode.
"""

from __future__ import annotations

import copy
import inspect
import re
import traceback

import numpy as np

import s2sad

LOCATED = re.compile(r"^\S+:\d+:\d+: ")


class Symptoms(list):
    """The failures of one program, as ``mode: symptom`` lines."""

    def add(self, mode, text):
        self.append(f"{mode}: {text}")


def _run(f, args):
    return f(*copy.deepcopy(list(args)))


def _as_float_array(v):
    return np.asarray(v, dtype=complex if np.iscomplexobj(v) else float)


def numeric_jacobian(f, args, i, eps=1e-6):
    """d f(*args) / d args[i] by central differences, shaped out.shape + x.shape; f never sees the caller's arrays."""
    x = np.array(args[i], dtype=float)
    scalar = isinstance(args[i], float)
    out0 = _as_float_array(_run(f, args))
    jac = np.zeros(out0.shape + x.shape)
    for idx in np.ndindex(*x.shape) if x.shape else [()]:
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        ap, am = list(args), list(args)
        ap[i] = float(xp) if scalar else xp
        am[i] = float(xm) if scalar else xm
        jac[(Ellipsis,) + idx] = (_as_float_array(_run(f, ap)) - _as_float_array(_run(f, am))) / (2 * eps)
    return jac


def numeric_hessian(f, args, i, h=1e-4):
    """Second derivatives of a scalar f w.r.t. args[i] by central differences of f (no derivative code involved)."""
    x = np.array(args[i], dtype=float)
    scalar = isinstance(args[i], float)
    idxs = list(np.ndindex(*x.shape)) if x.shape else [()]
    hess = np.zeros(x.shape + x.shape)

    def at(dx):
        a = list(args)
        a[i] = float(x + dx) if scalar else x + dx
        return float(_run(f, a))

    for p in idxs:
        for q in idxs:
            ep, eq = np.zeros(x.shape), np.zeros(x.shape)
            ep[p] = h
            eq[q] = h
            hess[p + q] = (at(ep + eq) - at(ep - eq) - at(-ep + eq) + at(-ep - eq)) / (4 * h * h)
    return hess


def _close(actual, expected, rtol, atol_scale, floor=0.0):
    actual = _as_float_array(actual)
    expected = _as_float_array(expected)
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != {expected.shape}"
    atol = max(atol_scale * max(1.0, float(np.max(np.abs(expected), initial=0.0))), floor)
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        return f"got {_show(actual)}, expected {_show(expected)}"
    return None


def _show(a):
    a = np.asarray(a)
    return np.array2string(a, precision=6, max_line_width=200, threshold=30) if a.ndim else f"{a.item():.6g}"


def _same_data(before, after):
    """Is ``after`` (the caller's object after a call) identical in type, dtype and contents to ``before``?"""
    if type(before) is not type(after):
        return False
    if isinstance(before, np.ndarray):
        return before.dtype == after.dtype and before.shape == after.shape and np.array_equal(before, after, True)
    if isinstance(before, (list, tuple)):
        return len(before) == len(after) and all(_same_data(b, a) for b, a in zip(before, after))
    if isinstance(before, dict):
        return before.keys() == after.keys() and all(_same_data(before[k], after[k]) for k in before)
    return before == after or (before != before and after != after)


def _arrays(obj):
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _arrays(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _arrays(o)


def _shares(result, caller):
    return any(np.shares_memory(r, c) for r in _arrays(result) for c in _arrays(caller))


def _type_ok(got, arg):
    if isinstance(arg, float):
        return isinstance(got, float)
    if isinstance(arg, np.ndarray):
        return isinstance(got, np.ndarray) and got.shape == arg.shape
    return True


class _Call:
    """One mode's call on fresh copies: records what the caller passed, and checks it is unchanged after."""

    def __init__(self, symptoms, mode):
        self.symptoms = symptoms
        self.mode = mode

    def __call__(self, make, caller_data, names=()):
        """``make()`` builds the generated function; it is then called with ``caller_data`` (positional,
        keyword).  Returns (ok, result); ok is False when the mode refused, crashed, or mutated its inputs."""
        args, kwargs = caller_data
        before = copy.deepcopy((args, kwargs))
        try:
            g = make()
            result = g(*args, **kwargs)
        except s2sad.DifferentiationError as e:
            if not LOCATED.match(str(e)):
                self.symptoms.add(self.mode, f"refused without file:line:col: {str(e)[:200]}")
            return False, None
        except Exception as e:  # noqa: BLE001 -- any other exception is a failure, reported with its origin
            where = traceback.extract_tb(e.__traceback__)[-1]
            self.symptoms.add(
                self.mode, f"crash {type(e).__name__}: {str(e)[:160]} (at {where.filename}:{where.lineno})"
            )
            return False, None
        changed = [
            names[k] if k < len(names) else f"argument {k}"
            for k, (b, a) in enumerate(zip(before[0], args))
            if not _same_data(b, a)
        ]
        if changed:
            self.symptoms.add(self.mode, f"mutated the caller's {', '.join(changed)}")
            return False, result
        return True, result


MODES = ("grad", "value_and_grad", "vjp", "jvp", "hessian")


def check(f, args, wrt=None, *, hessian=True, rtol=1e-5, atol=1e-6, value_rtol=1e-12, modes=MODES):
    """All the symptoms of ``f`` on ``args`` (an empty list when every mode is exact or refused with a location).

    ``wrt``: indices of the float / array arguments to differentiate (default: all of them); ``modes``: which
    of MODES to run (``hessian=False`` or a non-scalar output also skips the hessian)."""
    args = list(args)
    if wrt is None:
        wrt = tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray)))
    wrt = tuple(wrt)
    symptoms = Symptoms()
    value = f(*copy.deepcopy(args))
    own = copy.deepcopy(args)
    f_aliases = _shares(f(*own), own)  # f's own result is a view of its input (e.g. return x)
    scalar_out = np.ndim(value) == 0
    jacs = [numeric_jacobian(f, args, i) for i in wrt]

    def expect_value(mode, got):
        problem = _close(got, value, value_rtol, 1e-12)
        if problem:
            symptoms.add(mode, f"wrong value: {problem}")
        elif type(got) is not type(value) and not (isinstance(value, float) and isinstance(got, np.floating)):
            symptoms.add(mode, f"value type {type(got).__name__} != f's {type(value).__name__}")

    def expect_grads(mode, grads):
        for k, i in enumerate(wrt):
            problem = _close(grads[k], jacs[k], rtol, atol)
            if problem:
                symptoms.add(mode, f"wrong d/d{_param(f, i)}: {problem}")
            elif not _type_ok(grads[k], args[i]):
                symptoms.add(mode, f"d/d{_param(f, i)} has type {type(grads[k]).__name__} {np.shape(grads[k])}")

    def expect_private(mode, result, caller):
        if _shares(result, caller) and not (mode in ("value_and_grad", "jvp") and f_aliases):
            symptoms.add(mode, "result shares memory with the caller's inputs/tangents/seed")

    params = [f"input {p}" for p in list(inspect.signature(f).parameters)[: len(args)]]
    if scalar_out and "grad" in modes:
        a = copy.deepcopy(args)
        ok, got = _Call(symptoms, "grad")(lambda: s2sad.grad(f, wrt=wrt), (a, {}), params)
        if ok:
            expect_grads("grad", got)
            expect_private("grad", got, a)
    if scalar_out and "value_and_grad" in modes:
        a = copy.deepcopy(args)
        ok, got = _Call(symptoms, "value_and_grad")(lambda: s2sad.value_and_grad(f, wrt=wrt), (a, {}), params)
        if ok:
            expect_value("value_and_grad", got[0])
            expect_grads("value_and_grad", got[1])
            expect_private("value_and_grad", got, a)
    if not scalar_out and "vjp" in modes:
        rng = np.random.default_rng(3)
        seed = rng.normal(size=np.shape(value))
        a = copy.deepcopy(args)
        ok, got = _Call(symptoms, "vjp")(lambda: s2sad.vjp(f, wrt=wrt), (a + [seed], {}), params + ["seed"])
        if ok:
            for k, i in enumerate(wrt):
                expected = np.tensordot(seed, jacs[k], axes=np.ndim(value))
                problem = _close(got[k], expected, rtol, atol)
                if problem:
                    symptoms.add("vjp", f"wrong vjp d/d{_param(f, i)}: {problem}")
            expect_private("vjp", got, a + [seed])

    rng = np.random.default_rng(5)
    tangents = [float(rng.normal()) if isinstance(args[i], float) else rng.normal(size=np.shape(args[i])) for i in wrt]
    if "jvp" in modes:
        a = copy.deepcopy(args)
        names = params + [f"tangent d{_param(f, i)}" for i in wrt]
        ok, got = _Call(symptoms, "jvp")(lambda: _jvp_positional(f, wrt, len(a)), (a + tangents, {}), names)
        if ok:
            out, dout = got
            expect_value("jvp", out)
            expected = sum(np.tensordot(j, t, axes=np.ndim(t)) for j, t in zip(jacs, tangents))
            problem = _close(dout, expected, rtol, atol)
            if problem:
                symptoms.add("jvp", f"wrong tangent: {problem}")
            expect_private("jvp", got, a + tangents)

    if hessian and scalar_out and "hessian" in modes:
        for i in wrt:
            a = copy.deepcopy(args)
            ok, got = _Call(symptoms, f"hessian d/d{_param(f, i)}")(
                lambda i=i: s2sad.hessian(f, wrt=i), (a, {}), params
            )
            if ok:
                # second differences of f round off by about eps * |f| / h**2 (2e-8 |f| for h = 1e-4)
                rounding = 1e-7 * abs(float(_run(f, copy.deepcopy(args))))
                problem = _close(got, numeric_hessian(f, args, i), 1e-4, 1e-5, floor=rounding)
                if problem:
                    symptoms.add(f"hessian d/d{_param(f, i)}", f"wrong hessian: {problem}")
                expect_private(f"hessian d/d{_param(f, i)}", got, a)
    return symptoms


def _param(f, i):
    return list(inspect.signature(f).parameters)[i]


def _jvp_positional(f, wrt, n):
    """s2sad.jvp(f, wrt) called as jvp(*args, *tangents); tangents go by keyword (the parameters of the
    generated function that f does not have) so that f's defaults do not get in the way."""
    jvp = s2sad.jvp(f, wrt=wrt)
    names = [p for p in inspect.signature(jvp).parameters if p not in inspect.signature(f).parameters]
    return lambda *a: jvp(*a[:n], **dict(zip(names, a[n:])))


def assert_exact_or_refused(f, args, wrt=None, **kw):
    symptoms = check(f, args, wrt, **kw)
    if symptoms:
        try:
            src = inspect.getsource(f)
        except (OSError, TypeError):
            src = repr(f)
        raise AssertionError("\n".join(symptoms) + "\n\n" + src)


def assert_exact(f, args, **kw):
    """Every mode is exact: no symptom, and no mode refused (``check`` alone accepts a located refusal)."""
    symptoms = check(f, args, **kw)
    assert not symptoms, "\n".join(symptoms)
    if np.ndim(f(*copy.deepcopy(list(args)))) == 0:
        s2sad.grad(f)(*copy.deepcopy(list(args)))
        s2sad.value_and_grad(f)(*copy.deepcopy(list(args)))
        if kw.get("hessian", True):
            s2sad.hessian(f)(*copy.deepcopy(list(args)))
    else:
        s2sad.vjp(f)(*copy.deepcopy(list(args)), np.ones(np.shape(f(*copy.deepcopy(list(args))))))
    s2sad.jvp(f)(*copy.deepcopy(list(args)), np.ones_like(args[0]))
