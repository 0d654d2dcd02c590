"""The ``numpy.fft`` family.  Every transform is linear, so its tangent is the transform of the
tangent.  Adjoints follow the convention of the other rules for complex values: the adjoint ``bz``
of a complex ``z`` is ``dL/dRe(z) - i dL/dIm(z)``, so that ``dL = Re(sum(bz * dz))`` and a
holomorphic ``y = f(z)`` has ``bz += by * f'(z)`` (no conjugate), as for ``*``.  The DFT matrix is
symmetric, so ``fft``'s adjoint is ``fft`` again (same ``norm``); ``unpad`` undoes ``n=``/``s=`` and
keeps the real part for a real input.
"""

import numpy as np

from .. import runtime
from ..runtime import unirfft, unirfft_t, unpad, unrfft, unrfft_t  # noqa: F401  (names used in templates)
from .registry import forward_rule, reverse_rule

# fmt: off
# ---- complex transforms: self-transposed --------------------------------------------------


@reverse_rule(np.fft.fft)
def fft(y, a, n=None, axis=-1, norm=None):
    ba += unpad(np.fft.fft(by, axis=axis, norm=norm), a)


@forward_rule(np.fft.fft)
def fft(y, a, n=None, axis=-1, norm=None):
    dy = np.fft.fft(da, n, axis=axis, norm=norm)


@reverse_rule(np.fft.ifft)
def ifft(y, a, n=None, axis=-1, norm=None):
    ba += unpad(np.fft.ifft(by, axis=axis, norm=norm), a)


@forward_rule(np.fft.ifft)
def ifft(y, a, n=None, axis=-1, norm=None):
    dy = np.fft.ifft(da, n, axis=axis, norm=norm)


@reverse_rule(np.fft.fft2)
def fft2(y, a, s=None, axes=(-2, -1), norm=None):
    ba += unpad(np.fft.fft2(by, axes=axes, norm=norm), a)


@forward_rule(np.fft.fft2)
def fft2(y, a, s=None, axes=(-2, -1), norm=None):
    dy = np.fft.fft2(da, s, axes=axes, norm=norm)


@reverse_rule(np.fft.ifft2)
def ifft2(y, a, s=None, axes=(-2, -1), norm=None):
    ba += unpad(np.fft.ifft2(by, axes=axes, norm=norm), a)


@forward_rule(np.fft.ifft2)
def ifft2(y, a, s=None, axes=(-2, -1), norm=None):
    dy = np.fft.ifft2(da, s, axes=axes, norm=norm)


# with s= and no axes, fftn transforms the last len(s) axes: by already has shape s there
@reverse_rule(np.fft.fftn)
def fftn(y, a, s=None, axes=None, norm=None):
    ba += unpad(np.fft.fftn(by, s, axes=axes, norm=norm), a)


@forward_rule(np.fft.fftn)
def fftn(y, a, s=None, axes=None, norm=None):
    dy = np.fft.fftn(da, s, axes=axes, norm=norm)


@reverse_rule(np.fft.ifftn)
def ifftn(y, a, s=None, axes=None, norm=None):
    ba += unpad(np.fft.ifftn(by, s, axes=axes, norm=norm), a)


@forward_rule(np.fft.ifftn)
def ifftn(y, a, s=None, axes=None, norm=None):
    dy = np.fft.ifftn(da, s, axes=axes, norm=norm)


# ---- real transforms ----------------------------------------------------------------------


@reverse_rule(np.fft.rfft)
def rfft(y, a, n=None, axis=-1, norm=None):
    ba += unrfft(by, a, n, axis, norm)


@forward_rule(np.fft.rfft)
def rfft(y, a, n=None, axis=-1, norm=None):
    dy = np.fft.rfft(da, n, axis=axis, norm=norm)


@reverse_rule(np.fft.irfft)
def irfft(y, a, n=None, axis=-1, norm=None):
    """``y`` is real: only the real part of its adjoint counts (a complex one may reach it, ``y + 0j``)."""
    ba += unirfft(np.real(by), a, n, axis, norm)


@forward_rule(np.fft.irfft)
def irfft(y, a, n=None, axis=-1, norm=None):
    dy = np.fft.irfft(da, n, axis=axis, norm=norm)


# ---- shifts: permutations, each the other's inverse -----------------------------------------


@reverse_rule(np.fft.fftshift)
def fftshift(y, x, axes=None):
    bx += np.fft.ifftshift(by, axes=axes)


@forward_rule(np.fft.fftshift)
def fftshift(y, x, axes=None):
    dy = np.fft.fftshift(dx, axes=axes)


@reverse_rule(np.fft.ifftshift)
def ifftshift(y, x, axes=None):
    bx += np.fft.fftshift(by, axes=axes)


@forward_rule(np.fft.ifftshift)
def ifftshift(y, x, axes=None):
    dy = np.fft.ifftshift(dx, axes=axes)


# unpad(g, a) crops/pads g to a's shape (real part for a real a): its adjoint goes back to g's
@reverse_rule(runtime.unpad, name="s2sad.runtime.unpad")
def unpad_(y, g, a):
    bg += unpad(by, g)


@forward_rule(runtime.unpad, name="s2sad.runtime.unpad")
def unpad_(y, g, a):
    dy = unpad(dg, a)


# the adjoints of rfft and irfft are linear in g: each helper's transpose is its _t twin, and back
@forward_rule(runtime.unrfft, name="s2sad.runtime.unrfft")
def unrfft_(z, g, a, n=None, axis=-1, norm=None):
    dz = unrfft(dg, a, n, axis, norm)


@reverse_rule(runtime.unrfft, name="s2sad.runtime.unrfft")
def unrfft_(z, g, a, n=None, axis=-1, norm=None):
    bg += unrfft_t(bz, g, a, n, axis, norm)


@forward_rule(runtime.unrfft_t, name="s2sad.runtime.unrfft_t")
def unrfft_t_(z, b, g, a, n=None, axis=-1, norm=None):
    dz = unrfft_t(db, g, a, n, axis, norm)


@reverse_rule(runtime.unrfft_t, name="s2sad.runtime.unrfft_t")
def unrfft_t_(z, b, g, a, n=None, axis=-1, norm=None):
    bb += unrfft(bz, a, n, axis, norm)


@forward_rule(runtime.unirfft, name="s2sad.runtime.unirfft")
def unirfft_(z, g, a, n=None, axis=-1, norm=None):
    dz = unirfft(dg, a, n, axis, norm)


@reverse_rule(runtime.unirfft, name="s2sad.runtime.unirfft")
def unirfft_(z, g, a, n=None, axis=-1, norm=None):
    bg += unirfft_t(bz, g, a, n, axis, norm)


@forward_rule(runtime.unirfft_t, name="s2sad.runtime.unirfft_t")
def unirfft_t_(z, b, g, a, n=None, axis=-1, norm=None):
    dz = unirfft_t(db, g, a, n, axis, norm)


@reverse_rule(runtime.unirfft_t, name="s2sad.runtime.unirfft_t")
def unirfft_t_(z, b, g, a, n=None, axis=-1, norm=None):
    bb += unirfft(bz, a, n, axis, norm)
