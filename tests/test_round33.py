"""Round 33 (blind tester 33b): an object f builds of a plain class is built, in the derivative, as a
record of its fields (a dataclass subclass, ``built.record_twin``); code reading its class (``type(o) is
Dense``, ``o.__class__``, a registry keyed by ``type(self)``) saw the record's and took another branch (600.0
for 6.0).  Where the code that sees the object may read classes, the call is refused at the user's line."""

import numpy as np
import pytest

import s2sad


class Dense:
    def __init__(self, W):
        self.W = W


class Base:
    def __init__(self, w):
        self.w = w

    def fwd(self, x):
        return x * self.w

    def scale(self):
        return 2.0 if self.__class__ is Base else 3.0


class Acc:
    registry: dict = {}

    def __init__(self, w):
        self.w = w

    def key(self):
        return Acc.registry.get(type(self), 1.0)


Acc.registry[Acc] = 4.0


def _is_dense(obj):
    return type(obj) is Dense


def type_is(x):
    layer = Dense(x * 2.0)
    s = 1.0 if type(layer) is Dense else 100.0
    return np.sum(layer.W) * s


def class_in_method(x):
    return np.sum(Base(x * 2).fwd(x)) * Base(x * 2).scale()


def registry(x):
    return np.sum(Acc(x * 2).w) * Acc(x * 2).key()


def through_helper(x):
    layer = Dense(x * 2.0)
    return np.sum(layer.W) * (2.0 if _is_dense(layer) else 5.0)


@pytest.mark.parametrize("f", [type_is, class_in_method, registry, through_helper], ids=lambda f: f.__name__)
def test_reading_the_class_of_a_built_object_is_refused_not_wrong(f):
    x = np.array([0.3, 0.7])
    for call in (lambda: s2sad.value_and_grad(f)(x), lambda: s2sad.jvp(f)(x, np.ones(2))):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round33.py:\d+:\d+: .*reads objects' classes"):
            call()


def test_a_built_object_whose_class_nothing_reads_stays_exact():
    def f(x):
        layer = Dense(x * 2.0)
        return np.sum(layer.W**2)

    x = np.array([0.3, 0.7])
    np.testing.assert_allclose(s2sad.grad(f)(x), 8.0 * x)


def prefix_sum_over_view(x):
    a = x.copy()
    for i, v in enumerate(a[:-1]):
        a[i + 1] += v
    return np.sum(a)


def another_name(x):
    a = x.copy()
    b = a
    for i, q in enumerate(b):
        if i < 3:
            a[i + 1] += q
    return np.sum(a * a)


def reversed_rows_read(x):
    A = x.reshape(2, 2).copy()
    s = 0.0
    for q in A[::-1]:
        s = s + np.sum(q)
        A[0] *= 2.0
    return s


def zip_of_rows(x):
    A = x.reshape(2, 2).copy()
    for p, q in zip(A[1:], A[:-1]):
        p += q
    return np.sum(A)


def tuple_of_views(x):
    a = x.copy()
    s = 0.0
    for v in (a[1:], a[1:]):
        v *= 2.0
        s = s + np.sum(v)
    return s


def tuple_of_one_name(x):
    a = x.copy()
    s = 0.0
    for v in (a, a):
        s = s + v[0]
        a[0] *= 2.0
    return s


@pytest.mark.parametrize(
    "f",
    [prefix_sum_over_view, another_name, reversed_rows_read, zip_of_rows, tuple_of_views, tuple_of_one_name],
    ids=lambda f: f.__name__,
)
def test_a_loop_over_a_view_its_body_writes_into_is_refused(f):
    """Python reads each item when the loop reaches it, after the body's earlier writes; the derivative read
    the items as they were at the start ([2, 2, 2, 1] for [4, 3, 2, 1], round 33a)."""
    x = np.array([0.3, -0.7, 1.1, 0.4])
    for call in (lambda: s2sad.grad(f)(x), lambda: s2sad.jvp(f)(x, np.ones(4))):
        with pytest.raises(s2sad.DifferentiationError, match=r"test_round33.py:\d+:\d+: a loop over a view"):
            call()


def test_loops_writing_through_their_own_items_stay_exact():
    from exact_or_refused import assert_exact

    def rows(x):
        A = x.reshape(2, 2).copy()
        for row in A:
            row *= row[0]
        return np.sum(A)

    def indexed(x):
        a = x.copy()
        for i, q in enumerate(a):
            if i < 3:
                a[i + 1] += q
        return np.sum(a * a)

    assert_exact(rows, [np.array([0.3, -0.7, 1.1, 0.4])], hessian=False)
    assert_exact(indexed, [np.array([0.3, -0.7, 1.1, 0.4])], hessian=False)


def test_a_vjp_seed_or_hvp_vector_of_another_shape_is_refused():
    """NumPy broadcast a (3, 1) seed against a (3,) output (round 34b): refused, as jvp refuses a tangent."""
    x = np.array([1.0, 2.0, 3.0])
    column = np.array([[1.0], [0.0], [0.0]])
    with pytest.raises(s2sad.DifferentiationError, match="the seed is"):
        s2sad.vjp(lambda W: W @ x)(np.eye(3), column)
    with pytest.raises(s2sad.DifferentiationError, match="the seed is"):
        s2sad.vjp(lambda v: v**2)(x, np.ones(1))
    with pytest.raises(s2sad.DifferentiationError, match="the seed is"):
        s2sad.vjp(lambda v: (v**2, np.sum(v)))(x, (np.ones(3), 1.0, 5.0))
    with pytest.raises(s2sad.DifferentiationError, match=r"the seed is \(an array of shape \(3,\),\), but"):
        s2sad.vjp(lambda v: (v**2, np.sum(v)))(x, (np.ones(3),))  # too short: was an IndexError
    with pytest.raises(
        s2sad.DifferentiationError, match=r"the seed is \{'a': an array of shape \(3,\)\}, but .* 'b': a number"
    ):
        s2sad.vjp(lambda v: {"a": v**2, "b": v[0]})(x, {"a": np.ones(3)})  # a key missing: was a KeyError
    with pytest.raises(
        s2sad.DifferentiationError, match=r"the tangent v_ is an array of shape \(3, 1\), but v is an array of shape"
    ):
        s2sad.hvp(lambda v: np.sum(v**3))(x, column)
    np.testing.assert_allclose(s2sad.vjp(lambda v: v**2)(x, np.ones(3)), 2 * x)
    np.testing.assert_allclose(s2sad.vjp(lambda v: (v**2, np.sum(v)))(x, (np.ones(3), 1.0)), 2 * x + 1)
    assert s2sad.vjp(lambda v: np.sum(v**2))(x, 1.0)[0] == 2.0
    np.testing.assert_allclose(s2sad.hvp(lambda v: np.sum(v**3))(x, np.array([1.0, 0, 0])), [6.0, 0, 0])


def test_copy_keeps_numpy_method_layout():
    def k(x):
        m = x.T.copy()
        return np.sum(m * m.strides[1])

    x = np.random.default_rng(0).normal(size=(3, 4))
    assert s2sad.value_and_grad(k)(x)[0] == k(x.copy())
    np.testing.assert_allclose(s2sad.grad(k)(x), np.full((3, 4), 8.0))
