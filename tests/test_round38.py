"""Round 38 (blind testers 38a and 38b)."""

import numpy as np
import pytest
from exact_or_refused import check

import s2sad

X4 = np.array([0.3, -0.7, 1.1, 0.45])


def zip_of_one_list(x):
    a = x * 1.0
    b = list(zip([a]))[0][0]
    return np.sum(b * x)


def loop_over_zip_of_one_list(x):
    s = 0.0
    for (v,) in zip([x, x * 2]):
        s = s + np.sum(v**2)
    return s


@pytest.mark.parametrize("f, slope", [(zip_of_one_list, 2.0), (loop_over_zip_of_one_list, 10.0)])
def test_zip_of_one_sequence(f, slope):
    """TypeError ('int' object is not iterable) from `min(len(t))` in generated code (round 38a)."""
    np.testing.assert_allclose(s2sad.grad(f)(X4), slope * X4)
    assert check(f, (X4,)) == []


def irfft_made_complex(x):
    y = np.fft.irfft(np.fft.rfft(x), n=3) + 0j  # real, then complex
    return np.real(y[0] * 1j)  # identically 0


def irfft_of_a_complex_copy(x):
    y = np.fft.irfft(x + 0j, n=4) + 0j
    return np.real(y[1] * 1j)  # identically 0


def irfft_of_a_filtered_spectrum(x):
    return np.sum(np.fft.irfft(np.fft.rfft(x) * (1 + 0.5j), n=3) ** 2)


@pytest.mark.parametrize("f", [irfft_made_complex, irfft_of_a_complex_copy, irfft_of_a_filtered_spectrum])
def test_the_adjoint_of_irfft_takes_the_real_part(f):
    """irfft's output is real, but a complex adjoint may reach it (`y + 0j`): its imaginary part leaked into the
    gradient ([0, 0.577, -0.577] for 0, round 38b); forward mode was exact."""
    x = np.array([0.3, -1.2, 0.7])
    np.testing.assert_allclose(s2sad.grad(f)(x), s2sad.jacobian(f, mode="forward")(x), atol=1e-12)
    assert check(f, (x,)) == []


def shortest_distance(w):
    dist = np.full(3, np.inf)
    dist[0] = 0.0
    bd = np.inf  # a global number: no memory of a module's array
    for i in range(3):
        if dist[i] < bd:
            bd = dist[i]
    dist[2] = w[2] + bd
    return dist[2]


def test_a_name_given_a_global_number_shares_no_memory():
    """Refused (round 39b): 'in-place write into dist, which may be (a view of) an array the function does not own'."""
    w = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(s2sad.grad(shortest_distance)(w), [0.0, 0.0, 1.0])
    assert check(shortest_distance, (w,)) == []
