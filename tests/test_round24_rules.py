"""Round 24: rules for np.vdot, np.ascontiguousarray / np.asfortranarray, np.copy(order=), np.linalg.eigvalsh,
np.linalg.matrix_power, np.median and np.linalg.qr, checked in every mode on user code, and QR's refusals
(other modes, wide, complex, rank-deficient) at the user's line."""

import numpy as np
import pytest

import s2sad
from tests.exact_or_refused import assert_exact_or_refused

RNG = np.random.default_rng(24)


def vdot_complex(a, b):
    return np.real(np.vdot(a, b) * np.vdot(b, a * 1j))


def contiguous(x):
    y = np.ascontiguousarray(x.T)
    z = np.asfortranarray(x) * 2.0
    return np.sum(y.T * z) + np.sum(x.copy(order="F") ** 3)


def median_ties(x):
    return np.median(np.concatenate([x, x[:2]]), axis=None) + np.sum(np.median(x.reshape(2, 3), axis=0) ** 2)


def median_keepdims(x):
    return np.sum(np.median(x, axis=-1, keepdims=True) * x)


def power(a):
    return np.sum(np.linalg.matrix_power(a, 3) + np.linalg.matrix_power(a, -1) * 0.5 + np.linalg.matrix_power(a, 0))


def eigvals_loss(a):
    w = np.linalg.eigvalsh(a @ a.T)
    return np.sum(w * np.arange(1.0, 4.0)) + w[0] ** 2


def qr_loss(a):
    q, r = np.linalg.qr(a)
    return np.sum(q[0] * r[0]) + np.sum(np.abs(np.diagonal(r))) + np.sum(q[:, 1] ** 3)


CASES = [
    (vdot_complex, (RNG.normal(size=(2, 3)) + 1j * RNG.normal(size=(2, 3)), RNG.normal(size=6) + 0j)),
    (contiguous, (RNG.normal(size=(3, 4)),)),
    (median_ties, (RNG.normal(size=6),)),
    (median_keepdims, (RNG.normal(size=(2, 5)),)),
    (power, (RNG.normal(size=(3, 3)) + 3 * np.eye(3),)),
    (eigvals_loss, (RNG.normal(size=(3, 3)),)),
    (qr_loss, (RNG.normal(size=(4, 3)),)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_exact_in_every_mode(f, args):
    assert_exact_or_refused(f, args)
    s2sad.grad(f)(*args)  # exact, not refused
    if not np.iscomplexobj(args[0]):  # a hessian w.r.t. a complex argument is refused by design
        s2sad.hessian(f)(*args)


def test_median_ties_follow_sort():
    # two equal middle elements of an odd count: the derivative goes to the one np.sort puts in the middle
    g = s2sad.grad(lambda x: np.median(x))(np.array([3.0, 1.0, 1.0]))
    order = np.argsort(np.array([3.0, 1.0, 1.0]), kind="stable")
    expected = np.zeros(3)
    expected[order[1]] = 1.0
    np.testing.assert_array_equal(g, expected)


def qr_wide(a):
    return np.sum(np.linalg.qr(a)[1])


def qr_complete(a):
    return np.sum(np.linalg.qr(a, mode="complete")[0])


def qr_r_only(a):
    return np.sum(np.linalg.qr(a, mode="r"))


def qr_rank_deficient(a):
    b = np.stack([a[:, 0], a[:, 0] * 2.0, a[:, 1]], axis=1)
    return np.sum(np.linalg.qr(b)[0])


def qr_complex(a):
    return np.real(np.sum(np.linalg.qr(a * (1.0 + 1j))[1]))


@pytest.mark.parametrize(
    "f, shape, message",
    [
        (qr_wide, (2, 4), "wide"),
        (qr_complete, (4, 2), "mode='complete'"),
        (qr_r_only, (4, 2), "mode='r'"),
        (qr_rank_deficient, (4, 2), "full column rank"),
        (qr_complex, (4, 2), "real matrices only"),
    ],
)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_qr_refused_at_the_users_line(f, shape, message, mode):
    a = RNG.normal(size=shape)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round24_rules\.py:\d+:\d+: .*" + message):
        if mode == "grad":
            s2sad.grad(f)(a)
        else:
            s2sad.jvp(f)(a, np.ones(shape))


def _same(t):
    return t


def qr_result_passed_twice(a):
    # the adjoints of a QRResult reaching it from two calls are added part by part (``+`` had joined the two
    # tuples into one of four parts, losing the second's: a wrong gradient)
    t = np.linalg.qr(a)
    u = _same(t)
    v = _same(t)
    return np.sum(u[0] * u[1][0]) + np.sum(v[0] ** 2 * v[1][0])


def test_qr_result_passed_twice():
    assert_exact_or_refused(qr_result_passed_twice, (RNG.normal(size=(4, 3)),))
    s2sad.hessian(qr_result_passed_twice)(RNG.normal(size=(4, 3)))


def median_overwrite(x):
    m = np.median(x, overwrite_input=True)
    return m * np.sum(x * np.arange(5.0))


def test_median_overwrite_input_refused():
    # overwrite_input=True partitions x in place: refused, not a gradient through the moved elements
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round24_rules\.py:\d+:\d+: "):
        s2sad.grad(median_overwrite)(RNG.normal(size=5))


def lstsq_fit(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x**2) + np.sum(res) * s[0] + rank


def lstsq_square(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0] ** 3)


def test_lstsq_exact_in_every_mode():
    for f, args in [
        (lstsq_fit, (RNG.normal(size=(6, 3)), RNG.normal(size=(6, 2)))),
        (lstsq_fit, (RNG.normal(size=(6, 3)), RNG.normal(size=6))),
        (lstsq_square, (RNG.normal(size=(3, 3)) + 3 * np.eye(3), RNG.normal(size=3))),
    ]:
        assert_exact_or_refused(f, args)
        s2sad.grad(f, wrt=(0, 1))(*args)  # exact, not refused


def lstsq_wide(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0])


def lstsq_rank_deficient(a, b):
    c = np.stack([a[:, 0], a[:, 0] * 2.0], axis=1)
    return np.sum(np.linalg.lstsq(c, b)[0])


def lstsq_complex(a, b):
    return np.real(np.sum(np.linalg.lstsq(a, b * 1j)[0]))


@pytest.mark.parametrize(
    "f, shape, message",
    [
        (lstsq_wide, (2, 4), "full column rank"),
        (lstsq_rank_deficient, (4, 2), "full column rank"),
        (lstsq_complex, (4, 2), "real matrices only"),
    ],
)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_lstsq_refused_at_the_users_line(f, shape, message, mode):
    a, b = RNG.normal(size=shape), RNG.normal(size=shape[0])
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round24_rules\.py:\d+:\d+: .*" + message):
        if mode == "grad":
            s2sad.grad(f)(a, b)
        else:
            s2sad.jvp(f)(a, b, np.ones(shape))


def matrix_power_one_written(a):
    # np.linalg.matrix_power(q, 1) is q itself: the write changes q too (it was taken for a new array, a wrong
    # gradient); refused now as a write into a view
    q = a * 1.0
    r = np.linalg.matrix_power(q, 1)
    r[0, 0] = 5.0
    return np.sum(q * np.linalg.matrix_power(a * 1.0, 1) * r)


def test_matrix_power_one_is_its_argument():
    assert_exact_or_refused(matrix_power_one_written, (RNG.normal(size=(2, 2)),))
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round24_rules\.py:\d+:\d+: in-place write into 'r'"):
        s2sad.grad(matrix_power_one_written)(RNG.normal(size=(2, 2)))
