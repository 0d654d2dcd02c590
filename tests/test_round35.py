"""Session of round 35: `a.mT` and `a.flat` of arrays (reverse mode crashed in `add_at`, which took them for
the fields of an object), with the same check as `.T` where the value may be an object with such a field."""

from collections import namedtuple

import numpy as np
import pytest
from exact_or_refused import check

import s2sad

Cfg = namedtuple("Cfg", "flat mT")
A = np.arange(6.0).reshape(2, 3) * 0.3 + 0.1


def flat_reads(a):
    return a.flat[::2] @ a.flat[1::2] + a.T.flat[1] * a.mT.flat[-1]


def flat_loop_over_a_view(a):
    b = a.T
    s = 0.0
    for v in b.flat:
        s = s + v * np.sin(v)
    return s


def stacked_mT(a):
    m = a.reshape(1, 2, 3)
    return np.sum(m.mT @ m * m.mT[0, 1, 0])


@pytest.mark.parametrize("f", [flat_reads, flat_loop_over_a_view, stacked_mT])
def test_mT_and_flat_of_arrays_are_exact_in_every_mode(f):
    assert check(f, (A.copy(),)) == []


def flat_loop_writing(a):
    a = a.copy()
    for v in a.flat:
        a[1, 1] = a[1, 1] + v * v  # the loop reads a[1, 1] after the body wrote it
    return np.sum(a)


def flat_write(a):
    b = a * 1.0
    b.flat[3] = 5.0 * a[0, 0]
    return np.sum(b * b)


def fields_named_flat_and_mT(a, c):
    return np.sum(a) * c.flat + c.mT


@pytest.mark.parametrize(
    "f, args, message",
    [
        (flat_loop_writing, (A,), "a loop over a view of an array"),
        (flat_write, (A,), "in-place write into 'b.flat'"),
        (fields_named_flat_and_mT, (A, Cfg(2.0, 3.0)), "`c.flat` is read as NumPy's flat iterator, of an array only"),
    ],
)
def test_flat_writes_and_fields_named_like_array_attributes_are_refused(f, args, message):
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: " + ".*" + message):
        s2sad.grad(f)(*args)
    assert check(f, args) == []


def other_array_attribute(a):
    b = a[1:]
    return np.sum(b.base * 2.0)


def test_another_attribute_of_an_array_is_refused_at_its_line():
    """Reverse mode took `b.base` for an object's field and crashed in `add_at` (IndexError)."""
    with pytest.raises(
        s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: the attribute or field `base` of an array"
    ):
        s2sad.grad(other_array_attribute)(np.ones(3))


# ---- round 35a: a real value's adjoint receiving a complex part was added into a real array in place ----


def complex_partner(x):
    v = np.sin(x)
    return np.sum(np.abs(x + 1j * v) + np.tanh(v))


def complex_partner_clipped(x):
    v = np.clip(x, -0.4, 0.25)
    return np.sum(np.abs(x + 1j * v) + np.tanh(v))


def complex_times_a_column(x):
    m = np.outer(x, x)
    return np.sum(np.real((1 + 2j) * m[:, 0]))


def complex_times_a_reshaped_column(x):
    m = x.reshape(1, 3)
    return np.sum(np.real((1 + 2j) * m[:, 0]))


@pytest.mark.parametrize(
    "f", [complex_partner, complex_partner_clipped, complex_times_a_column, complex_times_a_reshaped_column]
)
def test_a_real_values_adjoint_with_a_complex_part_is_exact(f):
    """UFuncTypeError (complex128 into float64) from `bv += bu * 1.0j` and `bw[:, 0] += bu1`."""
    assert check(f, (np.array([0.3, -0.5, 0.2]),)) == []


def modulus_times_itself(z):
    v = np.abs(z)
    t = v * z
    return np.sum(np.abs(t) + np.tanh(v))


def test_a_real_intermediate_of_a_complex_argument_times_the_argument():
    """f = sum(|z|**2 + tanh|z|): the gradient (df/dx - i df/dy) is 2 conj(z) + sech(|z|)**2 conj(z) / |z|."""
    z = np.array([1 + 2j, 0.5j, 3.0])
    expected = 2 * np.conj(z) + (1 - np.tanh(np.abs(z)) ** 2) * np.conj(z) / np.abs(z)
    np.testing.assert_allclose(s2sad.grad(modulus_times_itself)(z), expected, rtol=1e-12)
    value, g = s2sad.value_and_grad(modulus_times_itself)(z)
    assert value == modulus_times_itself(z)
    np.testing.assert_allclose(g, expected, rtol=1e-12)


# ---- round 35a: a loop or comprehension over a dict display's items ('dict_items' is not subscriptable) ----


def comprehension_over_a_display(p, x):
    return np.sum({k: np.tanh(v) for k, v in {"a": x, "b": x}.items()}["a"]) + np.sum(p**2)


def comprehension_over_a_differentiated_display(x):
    return np.sum({k: np.tanh(v) for k, v in {"a": x, "b": 2 * x}.items()}["b"])


def loop_over_a_display(x):
    s = 0.0
    for v in {"a": x, "b": 2 * x}.values():
        s = s + np.sum(v**2)
    return s


X3 = np.array([0.3, -0.5, 0.2])


@pytest.mark.parametrize(
    "f, args",
    [
        (comprehension_over_a_display, (np.array([1.0, 2.0, 3.0]), X3)),
        (lambda x, p: comprehension_over_a_display(p, x), (X3, np.array([1.0, 2.0, 3.0]))),
        (comprehension_over_a_differentiated_display, (X3,)),
        (loop_over_a_display, (X3,)),
    ],
)
def test_loops_over_a_dict_displays_items_are_exact(f, args):
    s2sad.grad(f)(*args)  # not refused
    assert check(f, args) == []


def test_a_tangent_of_another_structure_names_both():
    with pytest.raises(s2sad.DifferentiationError, match=r"the tangent dx is \(an array of shape \(3,\), a number\)"):
        s2sad.jvp(loop_over_a_display)(X3, (X3, 1.0))


# ---- round 35a's most frequent refusal: a helper writing only into its own copy ----


def writes_its_copy(u, s):
    w = u.copy()
    w[0] += s
    return w * u


def writes_its_copys_first_item(u, s):
    w = u.copy()
    w[0] += s
    return w[0] * u[1]


def passes_its_parameter(v):
    return np.sum(writes_its_copy(v, 2.0) * v)


def passes_a_product(x):
    v = np.sin(x)
    return np.sum(writes_its_copy(v, x[0]) * v)


def passes_a_list_it_built(x):
    pair = [x * 1.0, x * 2.0]
    return np.sum(writes_its_copys_first_item(pair, 1.0) * pair[0])


def passes_a_list_argument(pair):
    return np.sum(writes_its_copys_first_item(pair, 1.0) * pair[0])


@pytest.mark.parametrize("f", [passes_its_parameter, passes_a_product])
def test_a_helper_writing_into_its_own_copy_of_an_array_is_exact(f):
    """It was refused: "changes its parameter 'u' in place" (w = u.copy() taken for u itself)."""
    v = np.array([0.5, 1.5, -0.3])
    if f is passes_its_parameter:  # f = sum((v + 2 e0) v v)
        np.testing.assert_allclose(s2sad.grad(f)(v), 3 * v**2 + 4 * v[0] * np.eye(3)[0])
    assert check(f, (v,)) == []


def test_a_helper_writing_into_items_of_its_copy_of_a_list_is_refused():
    """w = u.copy() of a list holds u's arrays: w[0] += s changes f's own array, which the private copy
    the derivative runs the helper on would not (refused where f builds the list, and where it runs for
    an argument that is not an array of numbers)."""
    x = np.array([0.5, 1.5, -0.3])
    with pytest.raises(
        s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: writes_its_copys_first_item\(\) changes"
    ):
        s2sad.grad(passes_a_list_it_built)(x)
    with pytest.raises(
        s2sad.DifferentiationError, match="changes items of its parameter 'u' in place .* not an array of numbers"
    ):
        s2sad.grad(passes_a_list_argument)([x, 2 * x])
    objects = np.empty(2, dtype=object)
    objects[0], objects[1] = x * 1.0, x * 2.0
    with pytest.raises(s2sad.DifferentiationError, match="not an array of numbers"):
        s2sad.grad(passes_its_parameter)(objects)


# ---- round 35b: double buffering (refused though exact) ----


def heat_double_buffer(u0, alpha):
    u = u0.copy()
    un = np.empty_like(u)
    for _ in range(10):
        un[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        un[0] = un[-1] = 0.0
        u, un = un, u
    return np.sum(u**2) + 0.5 * np.sum(un)


def verlet_slice_copies(x0, m):
    x = x0.copy()
    xp = x0.copy() - 0.01
    for _ in range(8):
        xn = 2 * x - xp + 0.05**2 * (-(x**3) / m)
        xp[:] = x
        x[:] = xn
    return np.sum(x**2) + np.sum(xp)


def three_buffers(u0, alpha):
    a, b, c = u0 * 1.0, u0 * 2.0, u0 * 3.0
    for _ in range(4):
        c[:] = a * alpha + b
        a, b, c = b, c, a
    return np.sum(a * b) + np.sum(c)


def swap_on_some_passes(u0, alpha):
    u, un = u0 * 1.0, u0 * 2.0
    for t in range(4):
        un[1:] = u[:-1] * alpha + un[1:]
        if t % 2 == 0:
            u, un = un, u
    return np.sum(u**2) + np.sum(un**3)


def swap_in_a_while_loop(u0, alpha):
    u, un = u0 * 1.0, u0 * 2.0
    t = 0
    while t < 3:
        un[:] = np.roll(u, 1) * alpha
        u, un = un, u
        t += 1
    return np.sum(u**2) + np.sum(un)


U0 = np.sin(np.linspace(0.0, 3.0, 7))


@pytest.mark.parametrize("f", [heat_double_buffer, three_buffers, swap_on_some_passes, swap_in_a_while_loop])
def test_double_buffers_swapped_by_name_are_exact(f):
    s2sad.grad(f)(U0, 0.2)  # not refused
    assert check(f, (U0, 0.2)) == []
    assert check(lambda alpha, u0: f(u0, alpha), (0.2, U0)) == []


def test_slice_copies_between_two_arrays_in_a_loop_are_exact():
    """`xp[:] = x` copies x's values into xp: it made them one memory for the loop ("may share memory")."""
    s2sad.grad(verlet_slice_copies)(np.array([1.0, 0.5]), 1.3)
    assert check(verlet_slice_copies, (np.array([1.0, 0.5]), 1.3)) == []
    assert check(lambda m, x0: verlet_slice_copies(x0, m), (1.3, np.array([1.0, 0.5]))) == []


def swap_with_a_view_made_before(u0, alpha):
    u, un = u0 * 1.0, u0 * 2.0
    v = u[1:]  # a view of what becomes un after a swap
    for _ in range(3):
        un[1:] = u[1:] * alpha + v * 0.5
        u, un = un, u
    return np.sum(u**2) + np.sum(v)


def swap_of_one_array(u0, alpha):
    u = u0 * 1.0
    un = u
    for _ in range(3):
        un[1:] = u[:-1] * alpha
        u, un = un, u
    return np.sum(u**2)


def swap_with_another_name_in_the_body(u0, alpha):
    u, un = u0 * 1.0, u0 * 2.0
    for _ in range(3):
        un[0] = u[1] * alpha
        w = un
        u, un = un, u
        w[1] = w[1] + 1.0
    return np.sum(u**2) + np.sum(un)


def swap_with_a_view_in_the_body(u0, alpha):
    u, un = u0 * 1.0, u0 * 2.0
    for _ in range(3):
        inner = u[1:]
        un[:-1] = inner * alpha
        u, un = un, u
        un[0] = un[0] + inner[0]
    return np.sum(u**2) + np.sum(un)


@pytest.mark.parametrize(
    "f",
    [swap_with_a_view_made_before, swap_of_one_array, swap_with_another_name_in_the_body, swap_with_a_view_in_the_body],
)
def test_swaps_of_buffers_something_else_shares_stay_exact_or_refused(f):
    assert check(f, (U0, 0.2)) == []
    assert check(lambda alpha, u0: f(u0, alpha), (0.2, U0)) == []


# ---- round 35a: a write into one leaf of a dict argument while another leaf is read later ----


def writes_one_leaf(p, x):
    pb = p["b"]
    pb[0] = pb[0] * x[0]
    return np.sum(p["a"] * pb) + np.sum(x * p["b"])


def writes_two_leaves(p, x):
    pb = p["b"]
    pb *= x
    pa = p["a"]
    pa[1] = pa[0] * pb[1]
    return np.sum(p["a"] * p["b"])


def writes_a_leaf_in_a_loop(p, x):
    pb = p["b"]
    for i in range(2):
        pb[i] = pb[i] * x[i]
    return np.sum(p["b"] * x)


def leaves():
    return {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])}


def shared_leaves():
    shared = np.array([3.0, 4.0])
    return {"a": shared, "b": shared}


@pytest.mark.parametrize("f", [writes_one_leaf, writes_two_leaves, writes_a_leaf_in_a_loop])
def test_a_write_into_a_leaf_of_a_dict_argument_is_exact(f):
    """It was refused ("may share memory with 'p'"); leaves sharing memory are refused when the call runs,
    also where f is called through a lambda (whose writes into its parameters went unseen: a wrong value)."""
    x = np.array([0.5, 1.5])
    s2sad.grad(f, wrt=(0, 1))(leaves(), x)  # not refused
    assert check(f, (leaves(), x)) == []
    assert check(lambda x, p: f(p, x), (x, leaves())) == []
    assert check(f, (shared_leaves(), x)) == []
    assert check(lambda x, p: f(p, x), (x, shared_leaves())) == []
    with pytest.raises(s2sad.DifferentiationError, match="share memory"):
        s2sad.value_and_grad(lambda x, p: f(p, x))(x, shared_leaves())


class CopyingItems:
    def __init__(self, d):
        self.d = d

    def __getitem__(self, k):
        return self.d[k].copy()


def test_a_leaf_of_an_object_giving_copies_is_never_written_back():
    x = np.array([0.5, 1.5])
    obj = CopyingItems(leaves())
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: "):
        s2sad.grad(lambda x, p: writes_one_leaf(p, x))(x, obj)
    np.testing.assert_array_equal(obj.d["b"], [3.0, 4.0])


# ---- found by the lead while fixing round 35: a list holding an array written in place afterwards ----


def stored_then_written(x):
    buf = [0.0, 0.0]
    v = x * 1.0
    buf[0] = v
    v[0] = v[0] * 3.0  # buf[0] is v: it changes too
    return np.sum(buf[0] * x)


def preallocated_then_written(x):
    buf = [0.0] * 2  # a list (it was taken for a number or an array)
    for i in range(2):
        v = x * (i + 1.0)
        buf[i] = v
        v[0] = v[0] * 3.0
    return np.sum(buf[0] * buf[1])


def stored_then_overwritten(x):
    buf = [0.0, 0.0]
    v = x * 1.0
    buf[0] = v
    buf[0] = x * 2.0  # v is no longer buf[0]: a write into v must not go back there
    v[1] = v[1] * 5.0
    return np.sum(buf[0] * v)


@pytest.mark.parametrize("f", [stored_then_written, preallocated_then_written, stored_then_overwritten])
def test_an_array_a_list_holds_written_in_place_is_exact(f):
    """[2, 3] for [3, 3] in every mode: `buf[0] = v` was taken for a copy of v's values."""
    x = np.array([0.5, 1.5])
    if f is stored_then_written:
        np.testing.assert_allclose(s2sad.grad(f)(x), [6 * x[0], 2 * x[1]])
    assert check(f, (x,)) == []


def slice_of_a_list(xs, y):
    xs[0:2] = [y, y * 2.0]
    return np.sum(xs[0] * xs[1]) + np.sum(xs[2])


def slice_of_a_list_made_here(y):
    buf = [0.0, 0.0] * 1
    for _ in range(2):
        buf[:] = [y, y]
        y = y * 2.0
    return np.sum(buf[0] * buf[1])


def test_a_slice_of_a_list_assigned_is_refused_at_its_line():
    """TypeError ('can only assign an iterable') from the adjoint, which wrote 0.0 into the list's slice."""
    y = np.array([0.5, 1.5])
    xs = [np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0, 6.0])]
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: assigning to a slice of 'xs'"):
        s2sad.grad(slice_of_a_list, wrt=1)(xs, y)
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round35.py:\d+:\d+: assigning to a slice of the list"):
        s2sad.grad(slice_of_a_list_made_here)(y)
    np.testing.assert_allclose(s2sad.grad(slice_of_a_list, wrt=1)(np.array(xs), y), 4 * y)  # an array: exact
