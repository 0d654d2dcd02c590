"""Round 36 (blind testers 36a and 36b): a write into a leaf of a nested dict argument, read again through
the outer dict, lost the write in every mode (a wrong gradient); forward mode wrote a complex tangent into
a real tangent array (the tangent of ``u = x + 0j`` is ``dx``) and lost its imaginary part."""

import numpy as np
import pytest
from exact_or_refused import check

import s2sad


def nested_leaf_written(p):
    pb = p["n"]["b"]
    pb *= p["a"]
    return np.sum(p["n"]["b"] ** 2)  # (a b)**2


def nested_list_leaf_written(p):
    pb = p["n"][0]
    pb[0] = pb[0] * p["a"][0]
    return np.sum(p["n"][0] ** 2) + np.sum(p["n"][1])


def inner_dict_named(p, x):
    n = p["n"]
    pb = n["b"]
    pb[0] = pb[0] * x[0]
    return np.sum(n["b"] ** 2)  # read through the inner dict's name: exact


def nested():
    return {"a": np.array([0.3, 0.7]), "n": {"b": np.array([0.5, 1.5])}}


def nested_list():
    return {"a": np.array([0.3, 0.7]), "n": [np.array([0.5, 1.5]), np.array([2.0, 3.0])]}


@pytest.mark.parametrize("f, make", [(nested_leaf_written, nested), (nested_list_leaf_written, nested_list)])
def test_a_write_into_a_nested_leaf_read_through_the_outer_dict_is_refused(f, make):
    """grad {'a': [0.], 'n': {'b': [0.3]}} for {'a': [0.15], 'n': {'b': [0.09]}}: refused where it runs."""
    with pytest.raises(
        s2sad.DifferentiationError, match=r"test_round36.py:\d+:\d+: an in-place write into an array inside"
    ):
        s2sad.value_and_grad(f)(make())
    assert check(f, (make(),)) == []


def test_a_nested_leaf_written_and_read_through_the_inner_name_is_exact():
    x = np.array([0.2, 0.4])
    p = nested()
    g = s2sad.grad(inner_dict_named, wrt=(0, 1))(p, x)
    np.testing.assert_allclose(g[1], [2 * 0.5**2 * 0.2, 0.0])
    assert check(inner_dict_named, (nested(), x)) == []
    assert check(lambda x, p: inner_dict_named(p, x), (x, nested())) == []


def complex_copy_written(x):
    u = x + 0j
    u[0] = u[0] * 1j
    return np.imag(u)[0]  # x[0]


def complex_buffers_swapped(x):
    u = x + 0j
    un = np.zeros_like(u)
    for _ in range(2):
        un[:] = u * (1 + 1j)
        u, un = un, u
    return np.imag(u)[0]  # 2 x[0]


def complex_owned_tangent_written(x):
    u = (2 + 1j) + 2 * x  # the tangent 2 dx is an array of its own, real
    u[1] = u[1] * 1j
    return np.imag(u)[1] + np.real(u)[0]


@pytest.mark.parametrize(
    "f, slope",
    [
        (complex_copy_written, [1.0, 0.0]),
        (complex_buffers_swapped, [2.0, 0.0]),
        (complex_owned_tangent_written, [2.0, 2.0]),
    ],
)
def test_complex_items_written_into_the_tangent_of_a_complex_copy_keep_their_imaginary_part(f, slope):
    x = np.array([0.3, 0.8])
    for k in range(2):
        e = np.eye(2)[k]
        assert s2sad.jvp(f)(x, e)[1] == pytest.approx(slope[k])
    np.testing.assert_allclose(s2sad.jacobian(f, mode="forward")(x), slope)
    np.testing.assert_allclose(s2sad.grad(f)(x), slope)


def trajectory_of_copies(x0, v):
    x = x0.copy()
    traj = []
    for _ in range(3):
        x += 0.1 * v * x
        traj.append(x.copy())
    return np.sum(np.stack(traj) ** 2)


def trajectory_of_copies_of_a_list(xs, v):
    traj = []
    for _ in range(2):
        xs[0] += v
        traj.append(xs.copy())
    return np.sum(traj[0][0] * traj[1][0])


def test_a_trajectory_of_copies_written_after_is_exact():
    """`traj.append(x.copy())` then `x += ...`: refused ("'x' may share memory with 'traj'") though the list
    holds copies (round 35b, 36b); a list's copy holds its arrays: refused where it runs."""
    x = np.array([1.0, 2.0])
    s2sad.grad(trajectory_of_copies)(x, 0.5)  # not refused
    assert check(trajectory_of_copies, (x, 0.5)) == []
    assert check(lambda v, x: trajectory_of_copies(x, v), (0.5, x)) == []
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round36.py:\d+:\d+: `xs.copy\(\)` of a value"):
        s2sad.grad(trajectory_of_copies_of_a_list, wrt=1)([np.array([1.0, 2.0])], 0.5)


def copied_into(x):
    a = np.zeros(3)
    np.copyto(a, x**2)
    return np.sum(a * x)


def gp_noise_on_the_diagonal(X, s):
    K = np.exp(-((X[:, None] - X[None, :]) ** 2))
    np.fill_diagonal(K, np.diag(K) + s)
    return np.linalg.slogdet(K)[1]


def copied_into_integers(x):
    a = np.zeros(3, dtype=np.int64)
    np.copyto(a, x)  # NumPy raises (same_kind casting)
    return np.sum(a * x)


def test_copyto_and_fill_diagonal_are_writes():
    """No derivative rule for np.copyto / np.fill_diagonal (round 35b, 36b: the GP idiom)."""
    X = np.array([0.1, 0.5, 1.3])
    np.testing.assert_allclose(s2sad.grad(copied_into)(X), 3 * X**2)
    assert check(copied_into, (X,)) == []
    s2sad.grad(gp_noise_on_the_diagonal, wrt=(0, 1))(X, 0.3)
    assert check(gp_noise_on_the_diagonal, (X, 0.3)) == []
    assert check(lambda s, X: gp_noise_on_the_diagonal(X, s), (0.3, X)) == []
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round36.py:\d+:\d+: NumPy raises here"):
        s2sad.grad(copied_into_integers)(X)
