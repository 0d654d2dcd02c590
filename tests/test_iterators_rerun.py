"""An iterator whose items the derivative takes a second time (a helper's VJP runs the helper again, a
Jacobian runs f once per column, a nested loop's adjoint reads each inner loop's items, a checkpointed
segment is replayed): exact where the items are saved, refused where they would be taken again, never the
empty second run's numbers.  Iterators are made afresh for every call (they cannot be copied)."""

import numpy as np
import pytest

import s2sad

X = np.array([1.0, 2.0, 3.0])


def mapped(v, m):
    return v * sum(m)


def looped(v, m):
    s = 0.0
    for a in m:
        s = s + a * v
    return s


def passes_on(v, m):
    return mapped(v, m) + 1.0


def helper_of_param(x, m):
    return mapped(x[0], m) ** 2


def helper_of_map(x, lst):
    m = map(float, lst)
    return mapped(x[0], m) ** 2


def helper_of_generator(x, lst):
    m = (float(a) for a in lst)
    return looped(x[0], m) ** 2


def helper_loop_of_param(x, m):
    return looped(x[0], m) ** 2


def helper_of_iter(x, m):
    return mapped(x[0], iter(m)) ** 2


def helper_through_helper(x, m):
    return passes_on(x[0], m) * x[1]


def helper_keyword(x, m):
    return mapped(x[0], m=m) * x[2]


def direct_sum(x, m):
    return x[0] * sum(m) + x[1]


def nested_loop(x, m):
    s = x[1]
    for i in range(3):
        for a in m:
            s = s * a + x[0]
    return s


def loop_sum(x, m):
    s = x[1]
    for i in range(3):
        s = s * sum(m) + x[0]
    return s


def checkpointed(x, m):
    s = x[1]
    for i in s2sad.checkpoint(range(3)):
        for a in m:
            s = s * a + x[0]
    return s


def _f(f, x, make):
    return f(x, make())


def _fd_grad(f, make, h=1e-6):
    g = np.zeros(3)
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        g[k] = (_f(f, X + e, make) - _f(f, X - e, make)) / (2 * h)
    return g


ITERATORS = [
    ("map", lambda: map(float, [1, 2])),
    ("list_iterator", lambda: iter([1.0, 2.0])),
    ("generator", lambda: (float(v) for v in [1, 2])),
]
LISTS = [("list", lambda: [1.0, 2.0]), ("tuple", lambda: (1.0, 2.0))]
PROGRAMS = [
    helper_of_param,
    helper_loop_of_param,
    helper_through_helper,
    helper_keyword,
    direct_sum,
    nested_loop,
    loop_sum,
    checkpointed,
]
MADE_INSIDE = [helper_of_map, helper_of_generator, helper_of_iter]


def _modes(f, make):
    """Each mode's result, or the DifferentiationError it raised (other exceptions propagate)."""
    out = {}
    calls = {
        "grad": lambda: s2sad.grad(f)(X, make()),
        "value_and_grad": lambda: s2sad.value_and_grad(f)(X, make())[1],
        "vjp": lambda: s2sad.vjp(f)(X, make(), seed=1.0),
        "jvp": lambda: np.array([s2sad.jvp(f)(X, make(), np.eye(3)[k])[1] for k in range(3)]),
        "jacobian": lambda: s2sad.jacobian(f)(X, make()),
        "hessian": lambda: s2sad.hessian(f)(X, make()),
    }
    for mode, call in calls.items():
        try:
            out[mode] = call()
        except s2sad.DifferentiationError as e:
            out[mode] = e
    return out


def _fd_hessian(f, make, h=1e-4):
    H = np.zeros((3, 3))
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        H[:, k] = (_grad_at(f, make, X + e) - _grad_at(f, make, X - e)) / (2 * h)
    return H


def _grad_at(f, make, x, h=1e-5):
    g = np.zeros(3)
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        g[k] = (f(x + e, make()) - f(x - e, make())) / (2 * h)
    return g


@pytest.mark.parametrize("kind,make", ITERATORS + LISTS, ids=[k for k, _ in ITERATORS + LISTS])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_exact_or_refused_with_an_iterator_argument(f, kind, make):
    expected = _fd_grad(f, make)
    value = s2sad.value_and_grad(f)(X, make())[0] if kind in ("list", "tuple") else None
    if value is not None:
        assert np.isclose(value, f(X, make()))
    for mode, got in _modes(f, make).items():
        if isinstance(got, s2sad.DifferentiationError):
            assert kind not in ("list", "tuple"), f"{mode} refused a {kind}: {got}"
            assert "iterator" in str(got) and str(got).startswith(__file__), str(got)
            continue
        if mode == "hessian":
            np.testing.assert_allclose(got, _fd_hessian(f, make), rtol=1e-4, atol=1e-4, err_msg=mode)
        else:
            np.testing.assert_allclose(np.ravel(got), expected, rtol=1e-6, atol=1e-6, err_msg=mode)


@pytest.mark.parametrize("f", MADE_INSIDE, ids=lambda f: f.__name__)
def test_exact_or_refused_with_an_iterator_made_inside(f):
    make = lambda: [1, 2]  # noqa: E731
    expected = _fd_grad(f, make)
    for mode, got in _modes(f, make).items():
        if isinstance(got, s2sad.DifferentiationError):
            assert "iterator" in str(got) and str(got).startswith(__file__), str(got)
            continue
        if mode != "hessian":
            np.testing.assert_allclose(np.ravel(got), expected, rtol=1e-6, atol=1e-6, err_msg=mode)


def test_the_known_cases_are_exact_or_refused_as_documented():
    it = lambda: map(float, [1, 2])  # noqa: E731
    with pytest.raises(s2sad.DifferentiationError, match=r"argument `m` of mapped\(\).*iterator \(a map\)"):
        s2sad.grad(helper_of_param)(X, it())
    with pytest.raises(s2sad.DifferentiationError, match=r"argument `m` of direct_sum\(\).*iterator"):
        s2sad.jacobian(direct_sum)(X, it())
    with pytest.raises(s2sad.DifferentiationError, match=r"`m`, whose items a checkpointed loop takes"):
        s2sad.grad(checkpointed)(X, it())
    # exact: f runs once (grad), the items of each inner loop are saved (nested_loop)
    np.testing.assert_allclose(s2sad.grad(direct_sum)(X, it()), [3.0, 1.0, 0.0])
    np.testing.assert_allclose(s2sad.grad(nested_loop)(X, it()), [3.0, 2.0, 0.0])
    np.testing.assert_allclose(s2sad.grad(helper_of_param)(X, [1.0, 2.0]), [18.0, 0.0, 0.0])


def test_lists_get_no_checks_where_nothing_is_iterated_again():
    text = s2sad.source(s2sad.grad(lambda x, ws: x[0] * ws[0] + x[1]))
    assert "expect_reiterable" not in text


C = [1.0, 2.0, 3.0]


def local_map(x):
    m = map(float, C)
    s = 0.0
    for c in m:
        s = s + c * x
    return s


def local_enumerate(x):
    e = enumerate(C)
    s = 0.0
    for i, c in e:
        s = s + c * x**i
    return s


def local_reversed(x):
    r = reversed(C)
    s = 0.0
    for c in r:
        s = s * x + c
    return s


def paired(x):
    it = iter(C + [4.0])
    s = 0.0
    for a, b in zip(it, it):
        s = s + a * b * x
    return s


def resumed_generator(x):
    g = (c * 2 for c in C)
    s = 0.0
    for c in g:
        s = s + c * x
        if c > 2:
            break
    for c in g:
        s = s + c * x * x
    return s


def resumed_argument(x, m):
    s = 0.0
    for c in m:
        s = s + c * x
        if c > 1:
            break
    for c in m:
        s = s + c * x * x
    return s


def _scalar_modes(f, *args):
    fd = (f(1.5 + 1e-6, *[a() for a in args]) - f(1.5 - 1e-6, *[a() for a in args])) / 2e-6
    got = {
        "grad": lambda: s2sad.grad(f)(1.5, *[a() for a in args]),
        "value_and_grad": lambda: s2sad.value_and_grad(f)(1.5, *[a() for a in args])[1],
        "jvp": lambda: s2sad.jvp(f)(1.5, *[a() for a in args], 1.0)[1],
    }
    return fd, got


@pytest.mark.parametrize("f", [local_map, local_enumerate, local_reversed], ids=lambda f: f.__name__)
def test_a_loop_over_an_iterator_f_makes_is_exact(f):
    """``m = map(...); for c in m`` crashed in generated code (``len`` of a map, round 31): its items, listed."""
    fd, got = _scalar_modes(f)
    for mode, call in got.items():
        np.testing.assert_allclose(call(), fd, rtol=1e-6, err_msg=mode)


@pytest.mark.parametrize("f", [paired, resumed_generator], ids=lambda f: f.__name__)
def test_an_iterator_f_makes_and_reads_twice_is_refused(f):
    with pytest.raises(s2sad.DifferentiationError, match=r"a loop over the iterator `\w+` that f also reads"):
        s2sad.grad(f)(1.5)


def test_an_argument_iterator_left_early_and_resumed_is_refused_a_list_is_exact():
    it = lambda: iter([1.0, 2.0, 3.0])  # noqa: E731
    lst = lambda: [1.0, 2.0, 3.0]  # noqa: E731
    for call in (lambda: s2sad.grad(resumed_argument)(1.5, it()), lambda: s2sad.jvp(resumed_argument)(1.5, it(), 1.0)):
        with pytest.raises(s2sad.DifferentiationError, match=r"`m`, which a loop iterates and f leaves early"):
            call()
    fd, got = _scalar_modes(resumed_argument, lst)
    for mode, call in got.items():
        np.testing.assert_allclose(call(), fd, rtol=1e-6, err_msg=mode)
