"""Cases for the ``numpy.fft`` rules.  Transforms of real arrays are complex: each case ends in
something real (``np.real``/``np.imag``, or ``irfft``) so that finite differences apply, and
several multiply by complex constants on the way so the adjoints' complex parts are checked."""

import numpy as np

from s2sad.runtime import unirfft, unirfft_t, unpad, unrfft, unrfft_t

from . import A, C, case

# ---- complex transforms -------------------------------------------------------------------


@case("numpy.fft.fft", A(6))
def fft_(x):
    z = np.fft.fft(x)
    return np.real(z) * np.imag(z)


@case("numpy.fft.fft", A(4, 3))
def fft_pad_axis_norm(x):
    z = np.fft.fft(x, 5, axis=0, norm="ortho")
    return np.real(z) + 2 * np.imag(z)


@case("numpy.fft.fft", A(3, 5))
def fft_crop(x):
    return np.imag(np.fft.fft(x, n=3, norm="forward")) ** 2


@case("numpy.fft.fft", A(5))
def fft_complex_weights(x):
    w = np.exp(1j * np.arange(5.0))
    return np.fft.irfft(np.fft.fft(x) * w, 8)


@case("numpy.fft.ifft", A(6))
def ifft_(x):
    z = np.fft.ifft(x * (1 + 2j))
    return np.real(z) * x + np.imag(z)


@case("numpy.fft.ifft", A(2, 5))
def ifft_pad_norm(x):
    return np.imag(np.fft.ifft(x, n=7, norm="forward"))


@case("numpy.fft.rfft", A(6))
def rfft_even(x):
    z = np.fft.rfft(x)
    return np.real(z) + np.imag(z) ** 2


@case("numpy.fft.rfft", A(7))
def rfft_odd(x):
    z = np.fft.rfft(x, norm="ortho")
    return np.real(z) * np.imag(z)


@case("numpy.fft.rfft", A(5, 2))
def rfft_pad_axis(x):
    return np.imag(np.fft.rfft(x, n=6, axis=0))


@case("numpy.fft.irfft", A(5), A(5))
def irfft_(x, y):
    return np.fft.irfft(x + 1j * y)


@case("numpy.fft.irfft", A(5), A(5))
def irfft_odd(x, y):
    return np.fft.irfft(x * (0.5 - 1j) + 1j * y, n=9)


@case("numpy.fft.irfft", A(5))
def irfft_crop(x):
    return np.fft.irfft(x * (1 + 1j), 6) ** 2


@case("numpy.fft.irfft", A(4, 3), A(4, 3))
def irfft_axis_norm(x, y):
    return np.fft.irfft(x - 1j * y, axis=0, norm="ortho")


@case("numpy.fft.fft2", A(3, 4))
def fft2_(x):
    z = np.fft.fft2(x)
    return np.real(z) * np.imag(z)


@case("numpy.fft.fft2", A(3, 4))
def fft2_shape(x):
    return np.imag(np.fft.fft2(x, s=(4, 3), norm="ortho"))


@case("numpy.fft.fft2", A(2, 3, 4))
def fft2_axes(x):
    return np.real(np.fft.fft2(x * (1 - 1j), axes=(0, 2)))


@case("numpy.fft.ifft2", A(3, 4))
def ifft2_(x):
    z = np.fft.ifft2(x)
    return np.real(z) + np.imag(z) ** 2


@case("numpy.fft.ifft2", A(2, 3, 4))
def ifft2_shape_axes(x):
    return np.imag(np.fft.ifft2(x, s=(2, 5), axes=(-1, 0), norm="forward"))


@case("numpy.fft.fftn", A(2, 3, 4))
def fftn_(x):
    z = np.fft.fftn(x)
    return np.real(z) * np.imag(z)


@case("numpy.fft.fftn", A(2, 3, 4))
def fftn_shape_axes(x):
    return np.real(np.fft.fftn(x, s=(3, 2), axes=(0, 1)))


@case("numpy.fft.fftn", A(3, 4))
def fftn_one_axis(x):
    return np.imag(np.fft.fftn(x * 1j, axes=[1], norm="ortho"))


@case("numpy.fft.ifftn", A(2, 3, 4))
def ifftn_(x):
    z = np.fft.ifftn(x)
    return np.real(z) + np.imag(z) ** 2


@case("numpy.fft.ifftn", A(3, 4))
def ifftn_shape_axes(x):
    return np.imag(np.fft.ifftn(x, s=(5,), axes=(0,)))


# ---- shifts -------------------------------------------------------------------------------


@case("numpy.fft.fftshift", A(5))
def fftshift_(x):
    return np.fft.fftshift(x) * np.arange(5.0)


@case("numpy.fft.fftshift", A(3, 4))
def fftshift_axes(x):
    return np.fft.fftshift(x, axes=0) * np.arange(4.0)


@case("numpy.fft.ifftshift", A(5))
def ifftshift_(x):
    return np.fft.ifftshift(x) * np.arange(5.0)


@case("numpy.fft.ifftshift", A(3, 4))
def ifftshift_axes(x):
    return np.fft.ifftshift(x, axes=(0, 1)) ** 2


# ---- runtime helpers (what derivative code calls), for derivatives of derivatives -----------

SHAPE_34 = np.zeros((3, 4))
SHAPE_25 = np.zeros((2, 5))


@case("s2sad.runtime.unpad", A(4, 3))
def unpad_crop_pad(g):
    return unpad(g, SHAPE_34) + unpad(g * (1 + 2j), SHAPE_34)


@case("s2sad.runtime.unpad", A(2, 5))
def unpad_same_shape(g):
    return unpad(g, SHAPE_25) * g


# ---- the runtime helpers of the real transforms (derivatives of derivatives) ------------------------


@case("s2sad.runtime.unrfft", C(4), A(6))
def unrfft_(g, a):
    return unrfft(g, a) * a


@case("s2sad.runtime.unrfft", C(2, 4), A(2, 5))
def unrfft_pad_axis(g, a):
    return unrfft(g, np.zeros((2, 5)), 7, 1, "ortho") * a


@case("s2sad.runtime.unirfft", A(8), C(5))
def unirfft_(g, a):
    return unirfft(g, a) * a


@case("s2sad.runtime.unirfft", A(2, 7), A(2, 3))
def unirfft_odd_crop(g, a):
    return unirfft(g, a, 7, -1, "forward") * a


@case("s2sad.runtime.unrfft_t", A(6), C(4))
def unrfft_t_(b, g):
    return unrfft_t(b, g, np.zeros(6)) * g


@case("s2sad.runtime.unrfft_t", C(2, 5), A(2, 4))
def unrfft_t_complex_target(b, g):
    return unrfft_t(b, g, np.zeros((2, 5), complex), 7, 1, "ortho") * g


@case("s2sad.runtime.unirfft_t", C(5), A(8))
def unirfft_t_(b, g):
    return unirfft_t(b, g, np.zeros(5)) * g


@case("s2sad.runtime.unirfft_t", A(2, 3), A(2, 7))
def unirfft_t_odd(b, g):
    return unirfft_t(b, g, np.zeros((2, 3)), 7, -1, "forward") * g
