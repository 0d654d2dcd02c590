"""Runtime helpers for the linear algebra, FFT and scipy.special rules.

Each helper is the adjoint (or tangent) of one primitive where no single NumPy expression says it
well: the math is in the docstring, the code is plain NumPy.  Matrices may be stacked (``...``
leading axes) wherever the primitive allows it.  Where a derivative does not exist (repeated
eigenvalues, complex eigenvalues of ``eig``), a helper raises a ``DifferentiationError`` naming the user's
line (``refusal``) instead of returning a wrong number.
"""

from __future__ import annotations

import string

import numpy as np

from .arrays import abs_sign
from .core import unbroadcast, unnorm, unreduce
from .trees import _refusal

__all__ = [
    "polygamma_series",
    "lstsq_checked",
    "qr_checked",
    "untrace",
    "unnorm_ord",
    "unnorm_ord_tangent",
    "unnorm_ord_cotangent",
    "norm_power",
    "norm_law",
    "power_ka",
    "power_kb",
    "ord_moves",
    "spectral_norm_again",
    "untensordot_a",
    "untensordot_b",
    "uneinsum",
    "pick",
    "pick_tangent",
    "unkron_a",
    "unkron_b",
    "mT",
    "cofactor",
    "nonsingular",
    "signed_minors",
    "unminors",
    "as_columns",
    "from_columns",
    "phi",
    "symmetrize",
    "unsymmetrize",
    "eigengaps",
    "gap_weighted",
    "eigenvector_adjoint",
    "eigenvalue_adjoint",
    "unsvd",
    "svd_tangent",
    "svd_input",
    "svd_factors",
    "svd_seed",
    "svd_unseed",
    "over_s",
    "phase_over_s",
    "phase_moves",
    "result_like",
    "real_matrix",
    "unpad",
    "unrfft",
    "unirfft",
    "unrfft_t",
    "unirfft_t",
    "polygamma",
]


def mT(a):
    """The transpose of each matrix in a stack (the last two axes swapped)."""
    return np.swapaxes(a, -1, -2)


# ---- products ------------------------------------------------------------------------------


def untrace(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.trace(a, offset, axis1, axis2)``: ``g`` on that diagonal, zeros elsewhere."""
    shape = np.shape(a)
    diagonal = np.eye(shape[axis1], shape[axis2], k=offset)
    return np.moveaxis(np.expand_dims(g, (-2, -1)) * diagonal, (-2, -1), (axis1, axis2))


def _tensordot_axes(a, b, axes):
    """``np.tensordot``'s ``axes`` as two lists of non-negative axes (of ``a``, of ``b``)."""
    if np.ndim(axes) == 0:
        n = int(axes)
        return list(range(np.ndim(a) - n, np.ndim(a))), list(range(n))
    axes_a, axes_b = ([ax] if np.ndim(ax) == 0 else list(ax) for ax in axes)
    return [ax % np.ndim(a) for ax in axes_a], [ax % np.ndim(b) for ax in axes_b]


def untensordot_a(g, a, b, axes=2):
    """Adjoint of ``a`` in ``z = np.tensordot(a, b, axes)``: contract ``g`` with ``b`` over b's free axes."""
    axes_a, axes_b = _tensordot_axes(a, b, axes)
    free_a = [i for i in range(np.ndim(a)) if i not in axes_a]
    free_b = [i for i in range(np.ndim(b)) if i not in axes_b]
    r = np.tensordot(g, b, axes=(list(range(len(free_a), np.ndim(g))), free_b))
    matched = [axes_a[axes_b.index(j)] for j in sorted(axes_b)]  # a's axes of r's last dimensions
    return _real_like(np.transpose(r, np.argsort(free_a + matched)), a)


def untensordot_b(g, a, b, axes=2):
    """Adjoint of ``b`` in ``z = np.tensordot(a, b, axes)``: contract ``a`` with ``g`` over a's free axes."""
    axes_a, axes_b = _tensordot_axes(a, b, axes)
    free_a = [i for i in range(np.ndim(a)) if i not in axes_a]
    free_b = [i for i in range(np.ndim(b)) if i not in axes_b]
    r = np.tensordot(a, g, axes=(free_a, list(range(len(free_a)))))
    matched = [axes_b[axes_a.index(i)] for i in sorted(axes_a)]  # b's axes of r's first dimensions
    return _real_like(np.transpose(r, np.argsort(matched + free_b)), b)


def _einsum_explicit(args):
    """``(inputs, output, operands)`` of an einsum call, subscripts spelled out: '...' and the
    implicit output replaced by letters, the interleaved form ``(x, [0, 1], y, [1, 2])`` read too."""
    if isinstance(args[0], str):
        spec, operands = args[0].replace(" ", ""), list(args[1:])
    else:  # interleaved: operand, sublist, operand, sublist, ..., [output sublist]
        letters = lambda sub: "".join("..." if s is Ellipsis else string.ascii_letters[s] for s in sub)
        operands = list(args[0::2][: len(args) // 2])
        spec = ",".join(letters(sub) for sub in args[1::2][: len(operands)])
        if len(args) % 2:
            spec += "->" + letters(args[-1])
    inputs, arrow, output = spec.partition("->")
    inputs = inputs.split(",")
    spare = [c for c in string.ascii_letters if c not in spec]
    dots = [np.ndim(x) - len(s) + 3 for s, x in zip(inputs, operands) if "..." in s]
    ellipsis = "".join(spare[: max(dots, default=0)])
    inputs = [s.replace("...", ellipsis[len(ellipsis) - np.ndim(x) + len(s) - 3 :]) for s, x in zip(inputs, operands)]
    if not arrow:
        once = [c for c in "".join(inputs) if "".join(inputs).count(c) == 1 and c not in ellipsis]
        output = ellipsis + "".join(sorted(once))
    return inputs, output.replace("...", ellipsis), operands


def uneinsum(g, k, *args):
    """Adjoint of the k-th positional argument of ``np.einsum(*args)`` (0 for the first operand of
    the interleaved form, which comes first): the einsum of ``g`` with the other operands into that
    operand's subscripts, broadcast over indices only it has.  One contraction of the slots (the
    output's and each operand's) into the slot ``k``: ``k = -1`` is the output's slot, where the result
    is ``np.einsum(*args)`` and ``g`` only gives its type.  The value in slot ``k`` is never read
    (only its shape and type), so the result is linear in every other slot.  Zeros for a slot of
    subscripts, and where a slot holds None (the zero tangent of the subscripts string)."""
    if isinstance(args[0], str):
        subscripts = k == 0
    else:  # interleaved: operands at even positions, sublists at odd ones and last (the output's)
        subscripts = k % 2 == 1 or k == len(args) - 1 and len(args) % 2 == 1
    if (k != -1 and subscripts) or any(a is None for a in args):
        target = np.asarray(g if k == -1 else args[k])
        return np.zeros(target.shape, dtype=target.dtype if target.dtype.kind in "fc" else float)
    if k == -1:
        return _real_like(np.einsum(*args), g)
    inputs, output, operands = _einsum_explicit(args)
    if not isinstance(args[0], str):
        k //= 2
    else:
        k -= 1
    target, x = inputs[k], operands[k]
    if len(set(target)) != len(target):
        raise _refusal(
            f"s2sad cannot differentiate einsum operand '{target}' with a repeated index (a diagonal); "
            "use np.diagonal or np.trace first"
        )
    others = [s for i, s in enumerate(inputs) if i != k]
    known = set(output).union(*others)
    kept = "".join(c for c in target if c in known)
    spec = ",".join([output, *others]) + "->" + kept
    r = np.einsum(spec, g, *(op for i, op in enumerate(operands) if i != k), optimize=len(others) > 1)
    r = np.expand_dims(r, tuple(i for i, c in enumerate(target) if c not in known))
    return _real_like(unbroadcast(r, x), x)


def pick(cond, x, y):
    """``x`` if ``cond`` else ``y``: a slot of an einsum replaced by an adjoint where the slot is known only
    at run time (the rules of ``uneinsum``)."""
    return x if cond else y


def pick_tangent(cond, tx, ty, x, y):
    """The tangent of ``pick(cond, x, y)``: ``tx`` if ``cond`` else ``ty``, where a number 0 (a zero tangent written
    by generated code) stands for the zeros of its value (``x`` or ``y``: arrays, tuples of them, a string's None)."""
    from .core import zeros_like

    t, v = (tx, x) if cond else (ty, y)
    if isinstance(t, (int, float)) and t == 0 and not isinstance(v, (int, float)):
        return zeros_like(v)
    return t


def _kron_blocks(g, a, b):
    """``g`` (shaped like ``np.kron(a, b)``) as blocks: axes (a0, b0, a1, b1, ...), and the shapes of
    ``a`` and ``b`` padded to the same rank."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + np.shape(a)
    sb = (1,) * (nd - np.ndim(b)) + np.shape(b)
    return np.reshape(g, [n for pair in zip(sa, sb) for n in pair]), sa, sb


def unkron_a(g, a, b):
    """Adjoint of ``a`` in ``np.kron(a, b)``: each block of ``g`` dotted with ``b``."""
    blocks, sa, sb = _kron_blocks(g, a, b)
    nd = len(sa)
    r = np.tensordot(blocks, np.reshape(b, sb), axes=(list(range(1, 2 * nd, 2)), list(range(nd))))
    return _real_like(np.reshape(r, np.shape(a)), a)


def unkron_b(g, a, b):
    """Adjoint of ``b`` in ``np.kron(a, b)``: the blocks of ``g`` weighted by ``a`` and summed."""
    blocks, sa, sb = _kron_blocks(g, a, b)
    nd = len(sa)
    r = np.tensordot(blocks, np.reshape(a, sa), axes=(list(range(0, 2 * nd, 2)), list(range(nd))))
    return _real_like(np.reshape(r, np.shape(b)), b)


# ---- norms ---------------------------------------------------------------------------------


def unnorm_ord(g, x, y, ord=None, axis=None, keepdims=False):
    """Adjoint of ``y = np.linalg.norm(x, ord, axis, keepdims)`` for every ``ord`` NumPy accepts:
    ``g`` times dy/dx.  At ties (``inf`` norms, a repeated largest singular value for ``ord=2``) a
    norm has no derivative: the max/min norms split ``g`` among the tied entries, like ``np.max``;
    the spectral and nuclear norms raise."""
    x = np.asarray(x)
    g = np.real(g) if not isinstance(g, (int, float)) else np.asarray(g, np.result_type(y, np.float16))
    g = np.broadcast_to(g, np.shape(y))  # g = 1.0 for the tangent (in y's precision); a norm is real
    if ord is None or (isinstance(ord, str) and ord == "fro"):
        return unnorm(g, x, y, axis, keepdims)
    axes = tuple(range(x.ndim)) if axis is None else (axis,) if np.ndim(axis) == 0 else tuple(axis)
    axes = tuple(a % x.ndim for a in axes)
    g, y = unreduce(g, x, axes, keepdims), unreduce(y, x, axes, keepdims)
    sign = abs_sign(x)  # d|x| = Re(sign * dx)
    if len(axes) == 1:
        if ord in (np.inf, -np.inf):
            return g * sign * _split(np.abs(x) == y, axes)
        if ord == 0:
            return g * np.zeros_like(x)
        safe = np.where(y == 0, 1.0, y)
        if np.iscomplexobj(x) and ord < 1 and np.any((x == 0) & (y != 0) & (g != 0)):
            # |z|^p with p < 1 at z = 0: an infinite slope whose direction depends on dz (real x: inf)
            raise _refusal(f"the ord={ord} norm at a zero entry of a complex vector has no derivative")
        return g * np.where(y == 0, 0.0, sign * (np.abs(x) / safe) ** (ord - 1))
    rows, cols = axes
    if ord in (1, -1):
        return g * sign * _split(np.sum(np.abs(x), axis=rows, keepdims=True) == y, (cols,))
    if ord in (np.inf, -np.inf):
        return g * sign * _split(np.sum(np.abs(x), axis=cols, keepdims=True) == y, (rows,))
    if ord in (2, -2, "nuc"):
        u, s, vh = np.linalg.svd(np.moveaxis(x, axes, (-2, -1)), full_matrices=False)
        zero = s[..., :1] == 0  # a zero matrix: its gradient is taken as 0 there, like the 2-norm's (unnorm)
        if ord == "nuc":
            _nonzero(np.where(zero, 1.0, s), "the nuclear norm of a rank-deficient matrix", s)
            d = u @ vh
        else:
            i = 0 if ord == 2 else -1
            if s.shape[-1] > 1:
                _nonzero(
                    np.where(zero, 1.0, s[..., [0]] - s[..., [1]] if ord == 2 else s[..., [-2]] - s[..., [-1]]),
                    f"the ord={ord} matrix norm at a repeated singular value",
                    s,
                )
            if ord == -2:  # the smallest singular value at 0 moves like |t|: a kink, as norm(x, 1) at 0
                _nonzero(np.where(zero, 1.0, s[..., [-1]]), "the ord=-2 matrix norm of a rank-deficient matrix", s)
            d = u[..., :, i, None] @ vh[..., i, None, :]
        d = np.where(zero[..., None], 0.0, d)
        return g * np.moveaxis(np.conj(d) if np.iscomplexobj(d) else d, (-2, -1), axes)
    raise ValueError(f"np.linalg.norm: invalid ord {ord!r} for a matrix norm")


def _norm_axes(x, axis):
    return tuple(a % np.ndim(x) for a in (range(np.ndim(x)) if axis is None else np.atleast_1d(axis)))


def _spectral_factors(x, ord, axes):
    xm = np.moveaxis(np.asarray(x), axes, (-2, -1))
    u, s, vh = np.linalg.svd(xm, full_matrices=False)
    return xm, (u, s, vh), None if ord == "nuc" else 0 if ord == 2 else -1


def _spectral(x, ord, axis):
    if len(_norm_axes(x, axis)) != 2:
        return False
    return ord == "nuc" if isinstance(ord, str) else ord in (2, -2)


def norm_power(c, x, Y, m, q, r, t, ord=None):
    """``c conj(x)^m |x|^q Y^r t`` elementwise (``x^m |x|^q Y^r`` for real ``x``): the closed family the gradient
    ``W`` of every elementwise norm and all its derivatives belong to (``dT = q/2 T(m+1, q-2) dx + (m + q/2)
    T(m-1, q) conj(dx) + r T(m, q, r-1) dY``; for real ``x`` the two first are ``(m + q) T(m-1, q) dx``).
    Zero where ``c`` or ``t`` is 0; refused where ``x`` (or ``Y``) is 0, the power has no finite limit there
    (``conj(x)^m |x|^q`` with ``m + q < 0``, or ``= 0`` and a phase ``m`` that moves) and ``c t`` is not 0
    (``ord``: the norm's, for the message)."""
    x = np.asarray(x)
    m, q, r = int(m), float(q), float(r)
    complex_ = np.iscomplexobj(x)
    A = np.abs(x)
    live = (np.asarray(c) != 0) & (np.asarray(t) != 0)
    if not np.any(live):
        return np.zeros(
            np.broadcast_shapes(np.shape(c), np.shape(x), np.shape(Y), np.shape(t)),
            dtype=np.result_type(c, x, Y, t, float),
        )
    e, at0 = m + q, A == 0
    turns = m != 0 if complex_ else m % 2 != 0
    bad = (at0 & (e < 0 or (e == 0 and turns))) | ((np.asarray(Y) == 0) & (r < 0))
    if np.any(live & bad):
        raise _refusal(
            f"np.linalg.norm(x, ord={ord!r}) has no derivative of this order here (a zero entry or a zero norm)"
        )
    safe = np.where(at0, 1.0, A)
    phase = np.where(at0, 1.0, np.conj(x) / safe) if complex_ else np.where(x < 0, -1.0, 1.0)
    mag = np.where(at0, 0.0 if e > 0 else 1.0, safe**e)
    Ys = np.where(Y == 0, 1.0, Y)
    yr = np.where(Y == 0, 0.0 if r > 0 else 1.0, Ys**r)
    return np.where(live, c * phase**m * mag * yr * t, 0.0)


def power_ka(c, x, q):
    """The coefficient of ``dx`` in the derivative of ``norm_power(c, x, Y, m, q, r, t)``: ``c q/2`` (0 for real x)."""
    return np.asarray(c) * (q / 2 if np.iscomplexobj(x) else 0.0)


def power_kb(c, x, m, q):
    """The coefficient of ``conj(dx)`` in the derivative of ``norm_power``: ``c (m + q/2)`` (``c (m + q)``, real x)."""
    return np.asarray(c) * (m + q / 2 if np.iscomplexobj(x) else m + q)


def norm_law(x, y, ord=None, axis=None, keepdims=False):
    """``(c, m, q, r)`` with ``unnorm_ord(1, x, y, ord, ...) = norm_power(c, x, Y, m, q, r, 1)`` (``Y`` the norm
    spread over ``x``) for every elementwise norm: ``conj(x) |x|^(p-2) Y^(1-p)`` for p-norms, ``c`` the tied
    entries' shares for the max/min norms, 0 for ord 0 and for the spectral and nuclear norms (their own helpers)."""
    x = np.asarray(x)
    axes = _norm_axes(x, axis)
    if _spectral(x, ord, axis) or (len(axes) == 1 and ord == 0):
        return np.zeros(np.shape(x)), 1, -1.0, 0.0
    if ord is None or isinstance(ord, str) or (len(axes) == 1 and ord not in (np.inf, -np.inf)):
        p = 2.0 if ord is None or isinstance(ord, str) else float(ord)
        return np.ones(np.shape(x)), 1, p - 2, 1 - p
    A, Y = np.abs(x), unreduce(y, x, axes, keepdims)
    if len(axes) == 1:
        mask = _split(A == Y, axes)
    elif ord in (1, -1):
        mask = _split(np.sum(A, axis=axes[0], keepdims=True) == Y, (axes[1],))
    else:
        mask = _split(np.sum(A, axis=axes[1], keepdims=True) == Y, (axes[0],))
    return mask, 1, -1.0, 0.0


def ord_moves(t, x, y, ord=None, axis=None, keepdims=False):
    """``t`` (a tangent or adjoint of ``x`` in the rules of ``unnorm_ord``), after checking that it does not move
    where a norm is 0: there its gradient ``W`` has no limit (it depends on the direction ``x`` leaves 0 in), so
    no derivative of ``G W`` exists, also where ``G`` is 0 (``hessian(norm(x, ord=o) ** 2)`` at 0)."""
    x = np.asarray(x)
    axes = _norm_axes(x, axis)
    if _spectral(x, ord, axis) or (len(axes) == 1 and ord == 0):
        return t
    zero = np.broadcast_to(unreduce(y, x, axes, keepdims) == 0, np.shape(x))
    if np.any(zero & (np.asarray(t) != 0)):
        raise _refusal(f"np.linalg.norm(x, ord={ord!r}) has no second derivative here (a zero norm, or a zero entry)")
    return t


def spectral_norm_again(like, x, ord=None, axis=None):
    """Zeros like ``like``, after refusing a spectral or nuclear norm: ``unnorm_ord_tangent`` and
    ``unnorm_ord_cotangent`` (0 for the other norms) differentiate those through svd, at most twice."""
    if _spectral(np.asarray(x), ord, axis):
        raise _refusal(
            f"s2sad differentiates np.linalg.norm(x, ord={ord!r}) at most twice "
            "(unnorm_ord_tangent / unnorm_ord_cotangent differentiate svd once)"
        )
    return np.zeros(np.shape(like), dtype=np.result_type(like, float))


def unnorm_ord_tangent(g, x, y, dx, dy, ord=None, axis=None, keepdims=False):
    """The tangent of ``unnorm_ord(g, x, y, ord, axis, keepdims)`` along ``dx`` with ``g`` fixed for the spectral and
    nuclear norms (0 for the others: ``norm_power`` terms): ``G dW``, ``W = conj(u_i v_iᴴ)`` (``conj(u vᴴ)``),
    differentiated through ``svd_tangent`` (gauge-invariant: any phase of ``u_i`` and ``v_i`` gives the same)."""
    x = np.asarray(x)
    if not _spectral(x, ord, axis):
        return np.zeros(np.shape(x), dtype=np.result_type(x, dx, float))
    axes = _norm_axes(x, axis)
    G = unreduce(np.broadcast_to(np.real(g), np.shape(y)), x, axes, keepdims)
    dx = np.broadcast_to(dx, np.shape(x))
    xm, (u, s, vh), i = _spectral_factors(x, ord, axes)
    du, _, dvh = svd_tangent(np.moveaxis(dx, axes, (-2, -1)), xm, (u, s, vh), False)
    if i is None:
        dd = du @ vh + u @ dvh
    else:
        dd = du[..., :, i, None] @ vh[..., i, None, :] + u[..., :, i, None] @ dvh[..., i, None, :]
    return G * np.moveaxis(np.conj(dd), (-2, -1), axes)


def unnorm_ord_cotangent(t, g, x, y, ord=None, axis=None, keepdims=False):
    """The transpose of ``unnorm_ord_tangent`` (pairing ``Re(sum(t * dz))``): the adjoint of ``x`` for the adjoint
    ``t`` of ``unnorm_ord(g, x, y, ...)``, spectral and nuclear norms only (0 for the others)."""
    x = np.asarray(x)
    if not _spectral(x, ord, axis):
        return np.zeros(np.shape(x), dtype=np.result_type(x, t, float) if np.iscomplexobj(x) else float)
    axes = _norm_axes(x, axis)
    G = unreduce(np.broadcast_to(np.real(g), np.shape(y)), x, axes, keepdims)
    gt = G * np.broadcast_to(t, np.shape(x))
    xm, (u, s, vh), i = _spectral_factors(x, ord, axes)
    gm = np.conj(np.moveaxis(gt, axes, (-2, -1)))  # Re(sum(t G conj(dd))) = Re(sum(conj(t G) dd))
    if i is None:
        gu, gvh = gm @ mT(vh), mT(u) @ gm
    else:
        gu, gvh = np.zeros(u.shape, gm.dtype), np.zeros(vh.shape, gm.dtype)
        gu[..., :, i] = (gm @ vh[..., i, :, None])[..., 0]
        gvh[..., i, :] = (u[..., None, :, i] @ gm)[..., 0, :]
    bx = unsvd((gu, np.zeros(s.shape), gvh), xm, (u, s, vh), False)
    return np.moveaxis(bx, (-2, -1), axes)


def _split(mask, axes):
    """``mask`` as weights summing to one over ``axes`` (ties share equally)."""
    return mask / np.sum(mask, axis=axes, keepdims=True)


def _nonzero(values, what, like=None):
    """Raise if one of ``values`` is zero up to rounding (relative to ``like``, default ``values``)."""
    like = values if like is None else like
    scale = np.max(np.abs(like), initial=0.0) * np.shape(like)[-1] * np.finfo(float).eps
    if np.any(np.abs(values) <= scale):
        raise _refusal(f"{what} has no derivative")


# ---- solving -------------------------------------------------------------------------------


def cofactor(a):
    """The cofactor matrix of each matrix in ``a`` (the transpose of its adjugate; ``det(a) a^-T`` when ``a``
    is invertible), computed without inverting, so that it exists at singular matrices too: with
    ``a = u diag(s) vh``, ``cofactor(a) = det(u) det(vh) conj(u) diag(p) conj(vh)``, ``p[i]`` the product
    of the other singular values."""
    a = np.asarray(a)
    if a.shape[-1] == 0:
        return np.zeros(a.shape, dtype=np.result_type(a, float))
    u, s, vh = np.linalg.svd(a)
    phase = np.linalg.det(u) * np.linalg.det(vh)
    if np.iscomplexobj(a):
        u, vh = np.conj(u), np.conj(vh)
    n = s.shape[-1]
    others = np.where(np.eye(n, dtype=bool), 1.0, s[..., None, :])  # row i: the singular values but s[i]
    p = np.prod(others, axis=-1)
    return phase[..., None, None] * (u * p[..., None, :]) @ vh


def _removals(n):
    """``s[i, r, k] = 1`` where row ``k`` is the ``r``-th row left when row ``i`` is removed: (n, n-1, n)."""
    keep = np.arange(n - 1)
    return (np.arange(n)[None, None, :] == (keep + (keep >= np.arange(n)[:, None]))[:, :, None]).astype(float)


def signed_minors(a):
    """``m[..., i, j, :, :]``: each matrix of ``a`` without row ``i`` and column ``j``, its first row times
    ``(-1)**(i + j)``, so that ``det(m) = cofactor(a)`` (Laplace); linear in ``a``."""
    n = np.shape(a)[-1]
    s = _removals(n)
    m = np.einsum("irk,...kl,jcl->...ijrc", s, a, s)
    if n > 1:
        m[..., 0, :] *= (-1.0) ** np.add.outer(np.arange(n), np.arange(n))[..., None]
    return m


def unminors(g, a):
    """Adjoint of ``signed_minors(a)``: each entry of ``g`` back where it came from in ``a``, summed."""
    n = np.shape(a)[-1]
    s = _removals(n)
    if n > 1:
        g = np.array(g, dtype=np.result_type(g, float))
        g[..., 0, :] *= (-1.0) ** np.add.outer(np.arange(n), np.arange(n))[..., None]
    return _real_like(np.einsum("irk,...ijrc,jcl->...kl", s, g, s), a)


def nonsingular(a, sign):
    """``a`` itself, after checking that none of its matrices is singular (where ``sign``, slogdet's, is 0):
    log|det| is -inf there and the sign jumps, so slogdet has no derivative."""
    if np.any(np.asarray(sign) == 0):
        raise _refusal("np.linalg.slogdet of a singular matrix (log|det| = -inf) has no derivative")
    return a


def as_columns(v, b):
    """``v`` as a stack of matrices for ``np.linalg.solve(a, b)``: a trailing axis of length 1 when ``b``
    is one vector (1-d), ``v`` itself otherwise."""
    return v[..., None] if np.ndim(b) == 1 else v


def from_columns(v, b):
    """The inverse of ``as_columns``: the trailing axis dropped again when ``b`` is 1-d."""
    return v[..., 0] if np.ndim(b) == 1 else v


# ---- symmetric matrices: cholesky, eigh ----------------------------------------------------


def phi(a):
    """The lower triangle of each matrix with half its diagonal (``Φ`` in Murray 2016)."""
    return np.tril(a) - 0.5 * a * np.eye(np.shape(a)[-1])


def _mH(a):
    """The conjugate transpose of each matrix (the transpose for real ones)."""
    return np.conj(mT(a)) if np.iscomplexobj(a) else mT(a)


def _real_diagonal(a):
    """``a`` with the imaginary part of its diagonal dropped (LAPACK reads a Hermitian diagonal as real)."""
    if not np.iscomplexobj(a):
        return a
    return a - 1j * np.imag(a) * np.eye(np.shape(a)[-1])


def symmetrize(a, uplo=None):
    """The symmetric (Hermitian) matrix NumPy reads from one triangle of ``a``: the lower one unless
    ``uplo="U"``."""
    if uplo != "U":
        return _real_diagonal(np.tril(a) + _mH(np.tril(a, -1)))
    return _real_diagonal(np.triu(a) + _mH(np.triu(a, 1)))


def unsymmetrize(g, uplo=None):
    """Adjoint of ``symmetrize``: the read triangle gets ``g`` plus the mirror (conjugated) of ``g``'s other half."""
    if uplo != "U":
        return _real_diagonal(np.tril(g) + np.tril(_mH(g), -1))
    return _real_diagonal(np.triu(g) + np.triu(_mH(g), 1))


def eigengaps(w, what="eigenvectors have no derivative at repeated eigenvalues"):
    """``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal, 0 on it, for eigenvalues ``w``; raises
    where the eigenvectors have no derivative (repeated or complex eigenvalues)."""
    if np.iscomplexobj(w):
        if np.any(np.imag(w) != 0):
            raise _refusal(
                "s2sad differentiates np.linalg.eig only for real eigenvalues, and this matrix has complex "
                "ones; for a symmetric matrix use np.linalg.eigh"
            )
        w = np.real(w)  # NumPy >= 2.5 returns eigenvalues as complex numbers even when they are real
    diff = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    off = ~np.eye(np.shape(w)[-1], dtype=bool)
    scale = np.max(np.abs(w), initial=0.0) * np.shape(w)[-1] * np.finfo(float).eps
    if np.any(np.abs(diff[..., off]) <= scale):
        raise _refusal(what)
    return np.where(off, 1.0 / np.where(off, diff, 1.0), 0.0)


def gap_weighted(w, m):
    """``F * m`` with ``F[i, j] = 1 / (w[j] - w[i])`` (0 on the diagonal), entry by entry: 0 where ``m`` is 0
    (that pair of eigenvectors is not used), so repeated eigenvalues are refused only where they matter
    (``m`` not 0 at a tied pair), as are complex ones of ``eig``."""
    shape = np.broadcast_shapes(np.shape(m), np.shape(w)[:-1] + (np.shape(w)[-1],) * 2)
    if not np.any(m):
        return np.zeros(shape)
    if np.iscomplexobj(w):
        eigengaps(w)  # refuses complex eigenvalues
        w = np.real(w)
    diff = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    off = ~np.eye(np.shape(w)[-1], dtype=bool)
    scale = np.max(np.abs(w), initial=0.0) * np.shape(w)[-1] * np.finfo(float).eps
    tied = off & (np.abs(diff) <= scale)
    used = np.broadcast_to(np.asarray(m) != 0, shape)
    if np.any(np.broadcast_to(tied, shape) & used):
        raise _refusal("eigenvectors (singular vectors) have no derivative at repeated eigenvalues (singular values)")
    return np.where(off & ~tied, 1.0 / np.where(off & ~tied, diff, 1.0), 0.0) * m


def eigenvector_adjoint(g, v, c, u=0.0, h=0.0):
    """The adjoint ``g`` of the eigenvectors ``v`` of ``eigh``, given ``c = Im diag(vᵀ g)``: ``g`` itself, after
    checking that the loss does not turn the free phase of a complex eigenvector (``v_i -> e^{it} v_i`` moves
    it by ``-t c_i``): a loss that reads the phase depends on LAPACK's choice of it, which no rule sees, and is
    refused.  ``c = 0`` to rounding (``sqrt(eps)`` relative to ``sum |v||g| + |u||h|`` down each column;
    ``u, h`` the other product of ``c``'s derivative).  The rules pass the derivative of ``c`` in place of
    ``c``, so that each order checks the derivative of the condition (a loss that reads the phase only where
    LAPACK fixes it, ``np.real(v[0, 0])`` with a real first row, is exact once and refused after)."""
    if np.ndim(g) == 0 and not np.any(g):
        g = np.zeros(np.shape(v), dtype=np.result_type(v, g, float))  # no adjoint: the zeros of v's shape
    if not np.any(c):
        return g
    scale = np.sum(np.abs(v) * np.abs(g), axis=-2) + np.sum(np.abs(u) * np.abs(h) + np.zeros(np.shape(v)), axis=-2)
    if np.any(np.abs(c) > np.sqrt(np.finfo(float).eps) * scale):
        raise _refusal(
            "the loss reads the phase of a complex eigenvector of np.linalg.eigh (v_i -> e^{it} v_i is free: "
            "its value is LAPACK's choice), which has no derivative; functions of abs(v), v @ diag(c) @ v.conj().T "
            "or v_i^H B v_i are fine"
        )
    return g


def eigenvalue_adjoint(g, w):
    """The adjoint ``g`` of the eigenvalues ``w`` of ``eig``, differentiated where they are real only:
    ``g`` (its real part when ``w`` is complex-typed with real values), or a refusal."""
    if np.iscomplexobj(w):
        eigengaps(w)  # raises where they are not real
        return np.real(g)
    return g


# ---- svd, pinv -----------------------------------------------------------------------------


def _real_only(a, what):
    if np.iscomplexobj(a):
        raise _refusal(f"s2sad differentiates {what} of real matrices only")


def _svd_check(a, full_matrices, compute_uv, hermitian):
    m, n = np.shape(a)[-2:]
    if full_matrices and compute_uv and m != n:
        raise _refusal(
            "s2sad differentiates np.linalg.svd of a non-square matrix only with full_matrices=False "
            "(the extra singular vectors are not unique)"
        )
    if hermitian:
        raise _refusal("s2sad differentiates np.linalg.svd with hermitian=False only")


_REPEATED_SINGULAR = "singular vectors have no derivative at repeated singular values"


def unsvd(g, a, y, full_matrices=True, compute_uv=True, hermitian=False):
    """Adjoint of ``a`` in ``y = np.linalg.svd(a, full_matrices, compute_uv)`` (Townsend 2016; complex ``a``:
    Wan and Zhang 2019, the transpose of ``svd_tangent``).  With ``Gu = conj(ū)``, ``Gv = v̄hᵀ``,
    ``J = uᴴ Gu``, ``L = vᴴ Gv``, ``F[i, j] = 1 / (s_j² - s_i²)``:
    ``ā = conj(u [diag(s̄) + F*(J - Jᴴ) s + s F*(L - Lᴴ) + I*(J - Jᴴ)/2 s⁻¹] vᴴ + (I - uuᴴ) Gu s⁻¹ vᴴ
    + u s⁻¹ Gvᴴ (I - vvᴴ))``.  Raises at repeated (or, where they are used, zero) singular values when the
    singular vectors are used."""
    _svd_check(a, full_matrices, compute_uv, hermitian)
    if not compute_uv:
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        return np.conj((u * np.expand_dims(np.real(g), -2)) @ vh)
    u, s, vh = y
    gu, gs, gvh = g
    gu, gv = np.conj(gu), mT(gvh)
    inner = np.expand_dims(np.real(gs), -2) * np.eye(np.shape(s)[-1])
    if np.any(gu) or np.any(gv):
        f = eigengaps(s * s, _REPEATED_SINGULAR)
        m, n = np.shape(a)[-2:]
        if m != n:
            _nonzero(s, "a singular vector of a rank-deficient non-square matrix")
        j, k = _mH(u) @ gu, vh @ gv
        sm = np.expand_dims(s, -2)  # multiplies columns by s
        inner = inner + f * (j - _mH(j)) * sm + mT(sm) * (f * (k - _mH(k))) + phase_over_s((j - _mH(j)) / 2, s)
        ga = u @ inner @ vh
        if m > n:
            ga = ga + (gu - u @ j) / sm @ vh
        if n > m:
            ga = ga + (u / sm) @ (_mH(gv) - _mH(gv) @ _mH(vh) @ vh)
        return np.conj(ga)
    return np.conj(u @ inner @ vh)


def svd_tangent(da, a, y, full_matrices=True, compute_uv=True, hermitian=False):
    """Tangent of ``y = np.linalg.svd(a, ...)`` along ``da`` (JAX's ``svd_jvp_rule``): ``P = uᴴ da v``,
    ``ds = Re diag(P)``, ``du = u (F * (P s + s Pᴴ) + I * (P - Pᴴ)/2 s⁻¹) + (I - uuᴴ) da v s⁻¹``,
    ``dv = v (F * (s P + Pᴴ s)) + (I - vvᴴ) daᴴ u s⁻¹``.  For complex ``a`` the phase of each pair ``(u_i, v_i)``
    is free: this tangent puts its change into ``du`` (``I * (P - Pᴴ)/2 s⁻¹``, zero for real ``a``)."""
    _svd_check(a, full_matrices, compute_uv, hermitian)
    if not compute_uv:
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        return np.real(np.sum(np.conj(u) * (da @ _mH(vh)), axis=-2))
    u, s, vh = y
    v = _mH(vh)
    p = _mH(u) @ da @ v
    ds = np.real(np.diagonal(p, axis1=-2, axis2=-1))
    f = eigengaps(s * s, _REPEATED_SINGULAR)
    sm = np.expand_dims(s, -2)
    du = u @ (f * (p * sm + mT(sm) * _mH(p)) + phase_over_s((p - _mH(p)) / 2, s))
    dv = v @ (f * (mT(sm) * p + _mH(p) * sm))
    m, n = np.shape(a)[-2:]
    if m != n:
        _nonzero(s, "a singular vector of a rank-deficient non-square matrix")
    if m > n:
        du = du + (da @ v - u @ p) / sm
    if n > m:
        dv = dv + (_mH(da) @ u - v @ _mH(p)) / sm
    return du, ds, _mH(dv)


# The rules of np.linalg.svd (s2sad/rules/linalg.py) are formulas over matmul, mT, gap_weighted and the small
# helpers below, each linear in what it selects or scales, so that the derivative of svd differentiates again.


def svd_input(a, full_matrices=True, compute_uv=True, hermitian=False):
    """The matrix whose singular vectors the rules of ``np.linalg.svd(a, ...)`` compute again: ``a`` when the
    primal computed singular values only (``compute_uv=False``), else an empty stack (the primal's output holds
    them), after checking that s2sad differentiates this call (real ``a``; thin or square factors)."""
    _svd_check(a, full_matrices, compute_uv, hermitian)
    return np.asarray(a)[..., :0, :0] if compute_uv else a


def svd_factors(y, again, compute_uv=True):
    """``(u, s, vh)`` of the svd: the primal's output ``y`` when it has them, else ``again`` (the thin svd of
    ``svd_input(a)``)."""
    return tuple(y) if compute_uv else tuple(again)


def svd_seed(g, factors, compute_uv=True):
    """The adjoint of svd's output as ``(gu, gs, gvh)``: ``g`` itself, or ``(0, g, 0)`` when only the singular
    values were computed (shaped like ``factors``)."""
    if compute_uv:
        return tuple(g)
    return np.zeros(np.shape(factors[0])), g, np.zeros(np.shape(factors[2]))


def svd_unseed(t, compute_uv=True):
    """The transpose of ``svd_seed``: ``(du, ds, dvh)`` as svd's output, ``ds`` alone when only the singular
    values were computed (an ``SVDResult``, so that ``.U``/``.S``/``.Vh`` read it as they read svd's output)."""
    return _SVD_RESULT(*t) if compute_uv else t[1]


_SVD_RESULT = type(np.linalg.svd(np.ones((1, 1))))


def over_s(m, s, a):
    """``m`` with column ``i`` divided by ``s[i]`` for a non-square ``a`` (the part of a singular vector of a
    tall or wide matrix outside the other factor's span); zeros for a square ``a``, where that part is 0.
    Zeros where ``m`` is 0; refused where it is not and a singular value is 0 (no derivative there)."""
    shape = np.broadcast_shapes(np.shape(m), np.shape(s)[:-1] + (1, np.shape(s)[-1]))
    rows, cols = np.shape(a)[-2:]
    if rows == cols or not np.any(m):
        return np.zeros(shape)
    if np.any(np.asarray(s) == 0) or np.any(np.abs(s) <= np.max(np.abs(s)) * max(rows, cols) * np.finfo(float).eps):
        raise _refusal("the singular vectors of a rank-deficient non-square matrix have no derivative")
    return m / np.expand_dims(s, -2)


def phase_over_s(m, s):
    """``I * i Im(m) s⁻¹``: the imaginary part of ``m``'s diagonal, entry ``i`` divided by ``s[i]``, as a diagonal
    matrix (the change of phase ``I * (P - Pᴴ)/2 s⁻¹`` of complex singular vectors; ``P - Pᴴ`` has an imaginary
    diagonal).  Real zeros for a real ``m``; refused where ``Im(m)`` is not 0 and ``s[i]`` is, to rounding (the
    phase of ``u_i`` has no derivative there)."""
    k = np.shape(s)[-1]
    shape = np.broadcast_shapes(np.shape(m), np.shape(s)[:-1] + (k, k))
    d = np.imag(np.diagonal(m, axis1=-2, axis2=-1))
    if not np.any(d):
        return np.zeros(shape, dtype=np.result_type(m, float))
    zero = _numerically_zero(s)
    if np.any((d != 0) & zero):
        raise _refusal("the phase of a complex singular vector has no derivative at a zero singular value")
    return 1j * np.eye(k) * np.expand_dims(d / np.where(zero, 1.0, s), -2) + np.zeros(shape)


def _numerically_zero(s):
    """Singular values ``s`` that are 0 to rounding (svd returns ~1e-16 for an exact 0): at most
    ``max(s) * k * eps``, ``k`` the number of singular values."""
    a = np.abs(np.asarray(s))
    return a <= np.max(a, axis=-1, keepdims=True, initial=0.0) * np.shape(a)[-1] * np.finfo(float).eps


def phase_moves(t, m, s):
    """``t``, a tangent or adjoint in the rules of ``phase_over_s(m, s)`` (a matrix like ``m``, of which the imaginary
    diagonal is used, or a vector like ``s``, used where ``Im(diag m)`` is not 0), after checking that it does not
    move where ``m`` is complex and a singular value ``s`` is 0 to rounding (svd returns ~1e-16 for an exact 0):
    there the singular value is not differentiable (``|det|``-like) and its vectors' phase has no limit, so a
    derivative of order 3 or more of a complex svd is refused (``sum(s ** 2)`` included)."""
    if not (np.iscomplexobj(m) or np.iscomplexobj(t)):
        return t
    zero = _numerically_zero(s)
    if np.ndim(t) == np.ndim(s):
        moving = (np.asarray(t) != 0) & (np.imag(np.diagonal(m, axis1=-2, axis2=-1)) != 0)
    else:
        moving = np.imag(np.diagonal(t, axis1=-2, axis2=-1)) != 0
    if np.any(moving & zero):
        raise _refusal(
            "s2sad differentiates a complex np.linalg.svd at most twice where a singular value is 0 "
            "(the singular value is not differentiable there; its vectors' phase has no limit)"
        )
    return t


def result_like(parts, y):
    """The tangent ``parts`` (a tuple) of a linear-algebra result ``y`` as ``y``'s NamedTuple type (``SVDResult``,
    ``EighResult``, ``EigResult``, ``SlogdetResult``), so that ``r.S`` or ``r.eigenvectors`` read its
    tangent as they read ``y``; ``parts`` itself when ``y`` is not a NamedTuple (an array: ``compute_uv=False``)."""
    if isinstance(y, tuple) and hasattr(y, "_fields") and isinstance(parts, (tuple, list)):
        return type(y)(*parts)
    return parts


def qr_checked(x, y, a, mode="reduced"):
    """``x`` itself, after checking that ``y = np.linalg.qr(a, mode)`` has the derivative s2sad gives: the (q, r) of
    mode 'reduced' (or 'complete' of a square ``a``), a real ``a`` with no more columns than rows, of full
    column rank (no diagonal element of r that is 0 next to its largest)."""
    m, n = np.shape(a)[-2:]
    if mode not in ("reduced", "complete") or mode == "complete" and m != n:
        raise _refusal(f"np.linalg.qr(a, mode={mode!r}) is not supported; use mode='reduced'")
    if n > m:
        raise _refusal("np.linalg.qr of a wide matrix (more columns than rows) is not supported")
    _real_only(a, "np.linalg.qr")
    d = np.abs(np.diagonal(y[1], axis1=-2, axis2=-1))
    top = np.max(d, axis=-1, keepdims=True) if n else d
    if np.any(d <= n * np.finfo(float).eps * top):
        raise _refusal("np.linalg.qr of a matrix without full column rank has no derivative")
    return x


def lstsq_checked(x, y, a, b):
    """``x`` itself, after checking that ``y = np.linalg.lstsq(a, b)`` has the derivative s2sad gives: real ``a``
    and ``b``, ``a`` with no more columns than rows and of full column rank (``y[2]``, NumPy's rank under rcond)."""
    _real_only(a, "np.linalg.lstsq")
    _real_only(b, "np.linalg.lstsq")
    m, n = np.shape(a)[-2:]
    if n > m or y[2] < n:
        raise _refusal("np.linalg.lstsq of a matrix without full column rank (or wide) is not supported")
    return x


def real_matrix(a, what="np.linalg.pinv"):
    """``a`` itself, after checking that it is real (s2sad differentiates ``what`` of real matrices only)."""
    _real_only(a, what)
    return a


# ---- FFT -----------------------------------------------------------------------------------


def _real_like(g, x):
    """``g`` as the adjoint of ``x``: its real part when ``x`` is real (dL = Re(sum(g * dx)))."""
    if np.iscomplexobj(g) and not np.iscomplexobj(x):
        g = np.real(g)
    return g


def unpad(g, a):
    """Adjoint of NumPy's FFT ``n=``/``s=`` (crop or zero-pad ``a`` to the transform length): ``g``
    cropped or zero-padded back to ``a``'s shape, and its real part when ``a`` is real."""
    shape = np.shape(a)
    if np.shape(g) != shape:
        g = g[tuple(slice(0, n) for n in shape)]
        g = np.pad(g, [(0, n - m) for n, m in zip(shape, np.shape(g))])
    return _real_like(g, a)


def unrfft(g, a, n=None, axis=-1, norm=None):
    """Adjoint of ``a`` in ``np.fft.rfft(a, n, axis, norm)``: the full FFT of ``g`` zero-padded to
    length ``n`` (the rows rfft drops get no adjoint), real part."""
    n = np.shape(a)[axis] if n is None else n
    return unpad(np.fft.fft(g, n, axis=axis, norm=norm), a)


def unirfft(g, a, n=None, axis=-1, norm=None):
    """Adjoint of ``a`` in ``y = np.fft.irfft(a, n, axis, norm)``: ``w * ifft(g)[: n//2 + 1]`` where
    ``w = 2`` for the bins that stand for a conjugate pair and 1 for the zero (and even-``n`` Nyquist)
    bin, whose imaginary parts irfft ignores."""
    n = 2 * (np.shape(a)[axis] - 1) if n is None else n
    half = np.moveaxis(np.fft.ifft(g, axis=axis, norm=norm), axis, -1)[..., : n // 2 + 1]
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return unpad(np.moveaxis(half * w, -1, axis), a)


def _fit(x, length, axis):
    """``x`` cropped or zero-padded to ``length`` along ``axis``."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    x = x[..., :length]
    if x.shape[-1] < length:
        x = np.concatenate([x, np.zeros(x.shape[:-1] + (length - x.shape[-1],), dtype=x.dtype)], axis=-1)
    return np.moveaxis(x, -1, axis)


def unrfft_t(b, g, a, n=None, axis=-1, norm=None):
    """The transpose of ``g -> unrfft(g, a, n, axis, norm)`` (a linear map; no conjugation): ``b`` (shaped
    like ``a``; its real part for a real ``a``) padded to ``n``, its FFT, cropped to ``g``'s length."""
    n = np.shape(a)[axis] if n is None else n
    b = _real_like(b, a)
    return _fit(np.fft.fft(_fit(b, n, axis), axis=axis, norm=norm), np.shape(g)[axis], axis)


def unirfft_t(b, g, a, n=None, axis=-1, norm=None):
    """The transpose of ``g -> unirfft(g, a, n, axis, norm)``: ``b`` (its real part for a real ``a``) fitted
    to the ``n // 2 + 1`` bins, weighted like ``unirfft``, zero-padded to ``n`` and inverse transformed."""
    n = 2 * (np.shape(a)[axis] - 1) if n is None else n
    b = np.moveaxis(_fit(_real_like(b, a), n // 2 + 1, axis), axis, -1)
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return np.fft.ifft(_fit(np.moveaxis(b * w, -1, axis), n, axis), axis=axis, norm=norm)


# ---- scipy.special -------------------------------------------------------------------------


def polygamma(n, x):
    """``scipy.special.polygamma(n, x)``, the n-th derivative of digamma (``n = 0``: digamma, the
    derivative of gammaln and of ``math.lgamma``).  SciPy's when it imports (when a derivative runs);
    otherwise ``polygamma_series``, accurate to a few units in the last place.  A Python float gives a
    float (``math.lgamma``'s derivatives stay plain floats)."""
    if np.iscomplexobj(x):
        raise _refusal("s2sad differentiates scipy.special's gamma functions for real x only (no complex polygamma)")
    try:
        import scipy.special
    except ImportError:  # pragma: no cover - SciPy is optional
        value = polygamma_series(n, x)
    else:
        value = scipy.special.polygamma(n, x)
    return float(value) if isinstance(x, (int, float)) and np.ndim(n) == 0 else value


# Bernoulli numbers B_2, B_4, ..., B_20 of the asymptotic series of digamma and its derivatives
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)


def polygamma_series(n, x):
    """The n-th derivative of digamma for real ``x`` without SciPy: the recurrence
    psi_n(x) = psi_n(x + 1) + (-1)^(n+1) n! / x^(n+1) moves x to
    x >= 20, where the asymptotic series (Bernoulli numbers to B_20) is exact to double precision; digamma
    below 1/2 by the reflection psi(x) = psi(1 - x) - pi / tan(pi x).  Relative error a few 1e-16 (absolute
    near the roots of psi_n, where the recurrence's terms cancel); nan at the poles 0, -1, -2, ..."""
    import math

    n = int(n)
    x = np.asarray(x, dtype=float)
    poles = (x <= 0) & (x == np.floor(x))
    x = np.where(poles, 1.0, x)
    out = np.zeros_like(x)
    if n == 0:
        left = x < 0.5
        out = np.where(left, -np.pi / np.tan(np.pi * np.where(left, x - np.round(x), 0.25)), 0.0)  # x - round(x) exact
        x = np.where(left, 1.0 - x, x)
    sign, fact = (-1.0) ** (n + 1), math.factorial(n)
    t = x.copy()
    while np.any(t < 20.0):
        low = t < 20.0
        out = out + np.where(low, sign * fact / np.where(low, t, 1.0) ** (n + 1), 0.0)
        t = np.where(low, t + 1.0, t)
    if n == 0:
        series = np.log(t) - 0.5 / t
        for k, b in enumerate(_BERNOULLI, start=1):
            series = series - b / (2 * k * t ** (2 * k))
    else:
        series = math.factorial(n - 1) / t**n + fact / (2 * t ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            series = series + b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * t ** (2 * k + n))
        series = sign * series
    value = np.where(poles, np.nan, out + series)
    return value[()] if value.ndim == 0 else value
