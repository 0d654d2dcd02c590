"""Round 26a (blind tester): lists f changes in place after reading them, in reverse mode.

An item read from a list that f appends to (inserts into, pops, ...) later must not be read again from the
changed list in the adjoint sweep (``lst[-1]`` in an append loop gave 512 for 8); a helper or lambda reading a
list that f appends to after the call gets, in the adjoint sweep, the list it saw; what the adjoint sweep cannot
undo (``ks.insert``, ``ks.extend``, ``ks.pop()`` of a list without derivatives, a global changed by f) is
refused at the user's line when the derivative would read it again; a ``for`` over a list its body grows is
refused (was an IndexError).  Every case: grad, value_and_grad, vjp/jvp and hessian against finite differences.
"""

import copy
import math

import numpy as np
import pytest
from exact_or_refused import assert_exact, check

import s2sad

X2 = np.array([0.7, 1.3])
G = [1.0]


def _args(f):
    return [X2.copy()] if f.__name__ in ARRAY_ARGS else [0.7]


def assert_refused(f, args, match):
    """Every mode is exact or refused at the user's line, and grad refuses with ``match`` in its message."""
    symptoms = check(f, args)
    assert not symptoms, "\n".join(symptoms)
    with pytest.raises(s2sad.DifferentiationError, match=match):
        s2sad.grad(f)(*copy.deepcopy(args))


# ---- helpers called by the functions below ------------------------------------------------------------
def scale(w, ks):
    return math.sin(w * ks[-1])


def ssum(w, ks):
    return math.sin(w * sum(ks))


def sdict(w, d):
    return math.sin(w * d["k"])


def sarr(w, a):
    return np.sin(w * a[0])


def sg(w):
    return math.sin(w * G[-1])


# ---- the functions ------------------------------------------------------------------------------------


def v_append_loop(x):
    h = x
    lst = [1.0]
    for t in range(3):
        h = h * lst[-1]
        lst.append(lst[-1] * 2)
    return h


def v_fib(x):
    hs = [x[0], x[1]]
    s = 0.0
    for t in range(3):
        a = hs[-1]
        b = hs[-2]
        s = s + a * b
        hs.append(a + b)
    return s


def v_fib_inline(x):
    hs = [x[0], x[1]]
    s = 0.0
    for t in range(3):
        s = s + hs[-1] * hs[-2]
        hs.append(hs[-1] + hs[-2])
    return s


def v_scale(x):
    h = x
    ks = [2.0]
    for t in range(3):
        h = np.sin(h * ks[-1])
        ks.append(ks[-1] + 1.0)
    return h


def v_computed_index(x):
    h = x
    ks = [1.0, 2.0]
    for t in range(3):
        i = len(ks) - 1
        h = h * ks[i]
        ks.append(ks[i] + 0.5)
    return h


def v_minus2(x):
    h = x
    ks = [1.0, 2.0]
    for t in range(3):
        h = np.sin(h * ks[-2])
        ks.append(ks[-1] + ks[-2])
    return h


def v_insert(x):
    h = x
    ks = [1.0, 2.0]
    for t in range(3):
        k = ks[0]
        h = np.sin(h * k)
        ks.insert(0, k + 1.0)
    return h


def v_extend(x):
    h = x
    ks = [1.0]
    for t in range(3):
        k = ks[-1]
        h = np.sin(h * k)
        ks.extend([k + 1.0, k + 2.0])
    return h


def v_pop(x):
    h = x
    ks = [1.0, 2.0, 3.0, 4.0]
    for t in range(3):
        k = ks[-1]
        h = np.sin(h * k)
        ks.pop()
    return h


def v_pop0(x):
    h = x
    ks = [1.0, 2.0, 3.0, 4.0]
    for t in range(3):
        k = ks[0]
        h = np.sin(h * k)
        ks.pop(0)
    return h


def v_itemwrite(x):
    h = x
    ks = [1.0, 2.0]
    for t in range(3):
        k = ks[0]
        h = np.sin(h * k)
        ks[0] = k + 0.5
    return h


def v_after_loop(x):
    ks = [1.0]
    k = ks[-1]
    h = np.sin(x * k)
    ks.append(3.0)
    return h * ks[-1]


def v_later_in_f(x):
    ks = [1.0, 2.0]
    h = x
    for t in range(2):
        k = ks[t]
        h = np.sin(h * k)
    ks.append(5.0)
    ks[0] = 7.0
    return h


def v_active_append_read(x):
    hs = [x]
    for t in range(3):
        a = hs[-1]
        hs.append(np.sin(a) * 1.5)
    return hs[-1] + hs[1]


def v_active_pop(x):
    hs = [x, 2.0 * x, 3.0 * x]
    s = 0.0
    for t in range(2):
        a = hs[-1]
        s = s + a * a
        b = hs.pop()
        s = s + b
    return s


def v_extend_clear(x):
    h = x
    ks = [1.0]
    for t in range(3):
        k = ks[-1]
        h = np.sin(h * k)
        ks.clear()
        ks.append(k + 1.0)
    return h


def v_reverse(x):
    h = x
    ks = [1.0, 2.0]
    for t in range(3):
        k = ks[0]
        h = np.sin(h * k)
        ks.reverse()
    return h


def v_array_write(x):
    h = x
    ks = np.array([1.0, 2.0])
    for t in range(3):
        k = ks[0]
        h = np.sin(h * k)
        ks[0] = ks[0] + 1.0
    return h


def v_dict(x):
    h = x
    d = {"k": 1.0}
    for t in range(3):
        k = d["k"]
        h = np.sin(h * k)
        d["k"] = k + 1.0
    return h


def h_append(x):
    ks = [1.0]
    h = scale(x, ks)
    ks.append(3.0)
    return h


def h_insert(x):
    ks = [1.0]
    h = scale(x, ks)
    ks.insert(0, 3.0)
    return h * ks[0]


def h_extend(x):
    ks = [1.0]
    h = ssum(x, ks)
    ks.extend([3.0, 4.0])
    return h


def h_pop(x):
    ks = [1.0, 2.0]
    h = scale(x, ks)
    ks.pop()
    return h


def h_pop_assign(x):
    ks = [1.0, 2.0]
    h = scale(x, ks)
    k = ks.pop()
    return h * k


def h_loop(x):
    ks = [1.0]
    h = x
    for t in range(3):
        h = scale(h, ks)
        ks.append(ks[-1] + 1.0)
    return h


def h_loop_insert(x):
    ks = [1.0]
    h = x
    for t in range(3):
        h = scale(h, ks)
        ks.insert(0, ks[-1] + 1.0)
    return h


def h_dict(x):
    d = {"k": 1.0}
    h = sdict(x, d)
    d["k"] = 3.0
    return h


def h_dict_newkey(x):
    d = {"k": 1.0}
    h = sdict(x, d)
    d["j"] = 3.0
    return h


def h_dict_update(x):
    d = {"k": 1.0}
    h = sdict(x, d)
    d.update({"k": 3.0})
    return h


def h_array(x):
    a = np.array([1.0, 2.0])
    h = sarr(x, a)
    a[0] = 3.0
    return h


def h_array_fill(x):
    a = np.array([1.0, 2.0])
    h = sarr(x, a)
    a.fill(3.0)
    return h


def h_lambda(x):
    ks = [2.0]
    g = lambda t: t * ks[-1]
    h = g(x)
    ks.append(10.0)
    return math.sin(h)


def h_lambda_insert(x):
    ks = [2.0]
    g = lambda t: t * ks[-1]
    h = g(x)
    ks.insert(1, 10.0)
    ks.reverse()
    return math.sin(h)


def h_closure_def(x):
    ks = [2.0]

    def g(t):
        return t * ks[-1]

    h = g(x)
    ks.append(10.0)
    return math.sin(h) + g(x)


def h_active_list(x):
    ks = [x, 2.0 * x]
    h = scale(x, ks)
    ks.append(x * 3.0)
    return h + ks[-1]


def h_param_list(x, ks):
    h = scale(x, ks)
    ks.append(3.0)
    return h


def h_np_dot(x):
    ks = [1.0, 2.0]
    y = np.dot(x, ks)
    ks.append(3.0)
    return y


def h_np_dot_insert(x):
    ks = [1.0, 2.0]
    y = np.dot(x, ks)
    ks.insert(0, 3.0)
    return y


def h_for_then_insert(x):
    ks = [1.0, 2.0]
    h = x
    for k in ks:
        h = np.sin(h * k)
    ks.insert(0, 3.0)
    return h


def h_for_then_append(x):
    ks = [1.0, 2.0]
    h = x
    for k in ks:
        h = np.sin(h * k)
    ks.append(3.0)
    return h


def h_range_len_pop(x):
    ks = [1.0, 2.0, 3.0]
    h = x
    for i in range(len(ks)):
        h = np.sin(h * ks[-1])
        ks.pop()
    return h


def h_comp(x):
    ks = [1.0, 2.0]
    ys = [scale(x, ks) for _ in range(2)]
    ks.append(3.0)
    return ys[0] + ys[1]


def h_alias(x):
    ks = [1.0]
    js = ks
    h = scale(x, ks)
    js.append(3.0)
    return h


def h_mean_helper_insert(x):
    ks = [1.0]
    h = math.sin(x * np.mean(ks))
    ks.insert(0, 5.0)
    return h


def m_container_alias(x):
    ks = [1.0]
    pair = [ks]
    h = scale(x, ks)
    t = pair[0]
    t.append(3.0)
    return h


def m_container_alias2(x):
    ks = [1.0]
    pair = [ks]
    h = scale(x, ks)
    pair[0].insert(0, 3.0)
    return h


def m_global(x):
    h = sg(x)
    G.append(3.0)
    y = sg(x)
    G.pop()
    return h + 2.0 * y


def m_while(x):
    ks = [1.0]
    h = x
    while len(ks) < 4:
        h = scale(h, ks)
        ks.append(ks[-1] * 1.5)
    return h


def m_if_after(x):
    ks = [1.0]
    h = scale(x, ks)
    if x > 0:
        ks.append(3.0)
    return h * ks[-1]


def m_nested_loops(x):
    ks = [1.0]
    h = x
    for i in range(2):
        for j in range(2):
            h = np.sin(h * ks[-1])
        ks.append(ks[-1] + 0.5)
    return h


def m_inner_after(x):
    ks = [1.0]
    h = x
    for i in range(2):
        h = np.sin(h * ks[-1])
        for j in range(2):
            ks.append(ks[-1] + 0.5)
    return h


def m_slice(x):
    h = x
    ks = [1.0, 2.0]
    for t in range(3):
        w = ks[-2:]
        h = np.sin(h * w[0] + w[1])
        ks.append(ks[-1] + 0.25)
    return h


def m_len(x):
    h = x
    ks = [1.0]
    for t in range(3):
        h = np.sin(h * len(ks))
        ks.append(0.0)
    return h


def m_array_list(x):
    h = x
    ks = [np.array([1.0, 2.0])]
    for t in range(3):
        k = ks[-1]
        h = np.sin(h * k)
        ks.append(k * 1.1)
    return np.sum(h)


def m_active_fib_pop(x):
    hs = [x[0], x[1]]
    s = 0.0
    for t in range(3):
        a = hs[-1]
        b = hs[-2]
        s = s + a * b
        hs.append(a + b)
    c = hs.pop()
    return s + c * hs[-1]


def m_dict_loop(x):
    d = {"k": 1.0}
    h = x
    for t in range(3):
        h = scale(h, [d["k"]])
        d["k"] = d["k"] + 1.0
    return h


def m_comp_read_later(x):
    ks = [1.0, 2.0]
    ys = [x * k for k in ks]
    ks.insert(0, 7.0)
    return ys[0] + ys[1] * ks[0]


def m_sum_loop(x):
    ks = [1.0]
    h = x
    for t in range(3):
        h = np.sin(h * sum(ks))
        ks.append(0.5)
    return h


def m_np_stack_active(x):
    hs = [x]
    for t in range(2):
        hs.append(np.sin(hs[-1]))
    m = np.mean(hs)
    hs.append(m)
    return m * hs[-1]


def n_float_item(x):
    ks = [1.0, 2.0]
    k = ks[0]
    h = x * k
    ks.insert(0, 5.0)
    return h * ks[0]


def n_array_item(x):
    ks = [np.array([1.0, 2.0])]
    k = ks[0]
    h = x * k
    ks.insert(0, 5.0)
    return np.sum(h) * ks[0]


ARRAY_ARGS = ["h_np_dot", "h_np_dot_insert", "m_active_fib_pop", "m_array_list", "v_fib", "v_fib_inline"]
EXACT = [
    v_append_loop,
    v_fib,
    v_fib_inline,
    v_scale,
    v_computed_index,
    v_minus2,
    v_insert,
    v_extend,
    v_pop,
    v_pop0,
    v_itemwrite,
    v_after_loop,
    v_later_in_f,
    v_active_append_read,
    v_extend_clear,
    v_reverse,
    v_array_write,
    v_dict,
    h_append,
    h_loop,
    h_dict,
    h_dict_newkey,
    h_array,
    h_lambda,
    h_closure_def,
    h_active_list,
    h_np_dot,
    h_for_then_append,
    h_range_len_pop,
    h_comp,
    h_mean_helper_insert,
    m_while,
    m_if_after,
    m_nested_loops,
    m_inner_after,
    m_slice,
    m_len,
    m_array_list,
    m_active_fib_pop,
    m_dict_loop,
    m_sum_loop,
    m_np_stack_active,
    n_float_item,
    n_array_item,
]
REFUSED = {
    h_insert: "ks",
    h_extend: "ks",
    h_pop: "ks",
    h_pop_assign: "ks",
    h_loop_insert: "ks",
    h_dict_update: "'d'",
    h_array_fill: "'a'",
    h_lambda_insert: "ks",
    h_for_then_insert: "ks",
    h_alias: "ks",
    h_param_list: "ks",
    h_np_dot_insert: "ks",
    m_container_alias: "ks",
    m_container_alias2: "ks",
    m_global: "global",
    m_comp_read_later: "ks",
}


@pytest.mark.parametrize("f", EXACT, ids=lambda f: f.__name__)
def test_exact(f):
    G[:] = [1.0]
    args = [0.7, [1.0]] if f is h_param_list else _args(f)
    assert_exact(f, args)


@pytest.mark.parametrize("f", list(REFUSED), ids=lambda f: f.__name__)
def test_refused_at_the_users_line(f):
    G[:] = [1.0]
    args = [0.7, [1.0]] if f is h_param_list else _args(f)
    assert_refused(f, args, f"in place later.*{REFUSED[f]}|{REFUSED[f]}.*in place later")


# ---- pops of a list display (its adjoint has a place for every item; was an IndexError and a NameError) ---


def p_append_from_constant(x):
    hs = [1.0]
    for t in range(3):
        hs.append(hs[-1] * x)
    return hs[-1]


def p_pop_display_rest_read(x):
    hs = [x, 2.0 * x, 3.0 * x]
    s = 0.0
    for t in range(2):
        b = hs.pop()
        s = s + b * b
    return s + hs[0]


def p_pop_display(x):
    hs = [x, 2.0 * x, 3.0 * x]
    s = 0.0
    for t in range(2):
        b = hs.pop()
        s = s + b * b
    return s


def p_pop_until_empty(x):
    hs = []
    for t in range(3):
        hs.append(x * t)
    s = 0.0
    while hs:
        b = hs.pop()
        s = s + np.sin(b)
    return s


@pytest.mark.parametrize(
    "f", [p_append_from_constant, p_pop_display_rest_read, p_pop_display, p_pop_until_empty], ids=lambda f: f.__name__
)
def test_pops_of_a_display(f):
    assert_exact(f, [0.7])


def test_a_pop_read_before_popping_is_exact_or_refused():
    # (its hessian is refused: the derivative writes into a list it keeps for its adjoint sweep)
    symptoms = check(v_active_pop, [0.7])
    assert not symptoms, "\n".join(symptoms)
    np.testing.assert_allclose(s2sad.grad(v_active_pop)(0.7), 23.2, rtol=1e-12)


# ---- the tester's helpers reading a list appended to after the call ------------------------------------


def s_sum(w, ks):
    return math.sin(w * sum(ks))


def s_len(w, ks):
    return math.sin(w * len(ks))


def s_max(w, ks):
    return math.sin(w * max(ks))


def s_np(w, ks):
    return math.sin(w * np.mean(ks))


def s_min_loop(w, ks):
    t = w
    for k in ks:
        t = t * k
    return math.sin(t)


@pytest.mark.parametrize("h", [s_sum, s_len, s_max, s_np, s_min_loop], ids=lambda h: h.__name__)
def test_helper_reading_a_list_appended_to_after_the_call(h):
    def f(x):
        ks = [1.0, 2.0]
        y = h(x, ks)
        ks.append(3.0)
        return y * ks[-1]

    assert_exact(f, [0.5])


@pytest.mark.parametrize("h", [s_sum, s_len, s_max, s_np, s_min_loop], ids=lambda h: h.__name__)
def test_helper_in_a_loop_reading_a_list_the_loop_appends_to(h):
    def f(x):
        ks = [1.0]
        y = x
        for t in range(3):
            y = h(y, ks)
            ks.append(0.5 * ks[-1] + 0.25)
        return y

    assert_exact(f, [0.5])


def test_lambda_reading_a_list_appended_to_later_in_a_loop():
    def f(x):
        ks = [2.0]
        g = lambda t: np.sin(t * ks[-1])  # noqa: E731
        h = x
        for i in range(3):
            h = g(h)
            ks.append(ks[-1] * 0.5)
        return h

    assert_exact(f, [0.5])


# ---- for over a list its body grows: refused (Python iterates over the new items too) -----------------


def it_growing(x):
    hs = [x[0], x[1]]
    s = 0.0
    for v in hs:
        s = s + v * x[1]
        if len(hs) < 5:
            hs.append(v * 2.0)
    return s


def it_growing_enumerate(x):
    hs = [x[0], x[1]]
    s = 0.0
    for i, v in enumerate(hs):
        s = s + v * x[1]
        if i < 2:
            hs.insert(0, v)
    return s


def it_shrinking(x):
    hs = [x[0], x[1], x[0] * x[1]]
    s = 0.0
    for v in hs:
        s = s + v
        hs.pop()
    return s


def it_copy_growing(x):  # iterating a copy: exact
    hs = [x[0], x[1]]
    s = 0.0
    for v in list(hs):
        s = s + v * x[1]
        hs.append(v * 2.0)
    return s + hs[-1]


def it_item_writes(x):  # writes into items the loop reads later: Python sees them, so does s2sad
    hs = [x[0], x[1], x[0]]
    s = 0.0
    for v in hs:
        s = s + v * x[1]
        hs[-1] = v * 2.0
    return s


@pytest.mark.parametrize("f", [it_growing, it_growing_enumerate, it_shrinking], ids=lambda f: f.__name__)
def test_for_over_a_list_the_loop_resizes_is_refused(f):
    for make in (s2sad.grad, lambda g: s2sad.jvp(g, wrt=0)):
        with pytest.raises(s2sad.DifferentiationError, match="changes how many items 'hs' holds") as e:
            make(f)(X2.copy(), *([] if make is s2sad.grad else [np.ones(2)]))
        assert "test_round26_lists.py:" in str(e.value)
    assert not check(f, [X2.copy()])


@pytest.mark.parametrize("f", [it_copy_growing, it_item_writes], ids=lambda f: f.__name__)
def test_for_over_a_copy_or_with_item_writes(f):
    assert_exact(f, [X2.copy()])


# ---- more shapes of the same: break, branches, nested loops with item writes, +=, dicts, arrays --------


def b_break(x):
    ks = [1.0]
    h = x
    for t in range(5):
        h = scale(h, ks)
        ks.append(ks[-1] + 0.5)
        if len(ks) > 3:
            break
    return h


def _inner(w):
    ks = [1.0]
    h = w
    for t in range(3):
        h = np.sin(h * ks[-1])
        ks.append(ks[-1] * 2.0)
    return h


def b_in_a_helper(x):
    return _inner(x) * _inner(2.0 * x)


def b_branch_append(x):
    ks = [1.0]
    h = x
    for t in range(3):
        if t % 2 == 0:
            ks.append(ks[-1] + 1.0)
        h = scale(h, ks)
    return h


def b_nested_with_item_write(x):
    ks = [1.0]
    h = x
    for t in range(2):
        for j in range(2):
            h = scale(h, ks)
        ks.append(ks[-1] + 1.0)
        ks[0] = ks[0] + 0.5
    return h


def b_iadd_list(x):
    h = x
    ks = [1.0]
    for t in range(3):
        h = np.sin(h * ks[-1])
        ks += [ks[-1] + 1.0]
    return h


def b_rebind_list(x):
    h = x
    ks = [1.0]
    for t in range(3):
        h = np.sin(h * ks[-1])
        ks = ks + [ks[-1] + 1.0]
    return h


def b_dict_update(x):
    h = x
    ks = {"a": 1.0}
    for t in range(3):
        h = np.sin(h * ks["a"])
        ks.update({"a": ks["a"] + 1.0})
    return h


def b_array_iadd(x):
    h = x
    ks = np.array([1.0, 2.0])
    for t in range(3):
        h = np.sin(h * ks[0])
        ks += 1.0
    return h


def b_array_out(x):
    h = x
    ks = np.array([1.0, 2.0])
    for t in range(3):
        h = np.sin(h * ks[0])
        np.add(ks, 1.0, out=ks)
    return h


@pytest.mark.parametrize(
    "f",
    [
        b_break,
        b_in_a_helper,
        b_branch_append,
        b_nested_with_item_write,
        b_iadd_list,
        b_rebind_list,
        b_dict_update,
        b_array_iadd,
        b_array_out,
    ],
    ids=lambda f: f.__name__,
)
def test_more_shapes(f):
    assert_exact(f, [0.7])
