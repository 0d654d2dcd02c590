"""Round 26: calls whose value differs from one run to the next (random draws, iterators, methods that change
state, helpers with side effects) in reverse mode.

* A value a loop computes by such a call is saved per iteration (never taken for loop-invariant).
* A user function with side effects whose VJP would run it again is refused at the caller's line.
* Such a call inside a ``s2sad.checkpoint`` loop (replayed per segment) is refused.

Each function builds its own state (``np.random.default_rng(0)`` inside f, an iterator passed as an argument,
which the checker deep-copies per call), so finite differences see the same draws as the derivative.
"""

import copy
import itertools
import random

import numpy as np
import pytest
from exact_or_refused import assert_exact, check

import s2sad

REVERSE = ("grad", "value_and_grad", "hessian")
PER_COLUMN = "has side effects .*runs its derivative once per column"


def refused_in_reverse(f, args, match, *, modes=REVERSE, reset=None):
    """Every reverse mode is refused at this file with ``match`` in the message; jvp is exact (FD-checked, with
    the global state ``reset()`` before each run of f or of its derivative)."""
    reset = reset or (lambda: None)
    for mode in modes:
        reset()
        make = getattr(s2sad, mode)
        either = f"{match}|{PER_COLUMN}" if mode == "hessian" else match  # (hessian: refused before either)
        with pytest.raises(s2sad.DifferentiationError, match=either) as info:
            make(f)(*copy.deepcopy(list(args)))
        assert str(info.value).startswith(__file__), str(info.value)
    with pytest.raises(s2sad.DifferentiationError, match=match):
        s2sad.vjp(f)(*copy.deepcopy(list(args)), 1.0)
    fd_jvp(f, args, reset)


def fd_jvp(f, args, reset=lambda: None, eps=1e-6):
    """jvp of f along its first (float) argument against central differences and f's value, each run after
    ``reset()``; the other arguments are deep-copied per run."""

    def run(fn, x, *extra):
        reset()
        return fn(x, *copy.deepcopy(list(args[1:])), *extra)

    value, tangent = run(s2sad.jvp(f, wrt=0), args[0], 1.0)
    assert value == pytest.approx(run(f, args[0]), rel=1e-12)
    fd = (run(f, args[0] + eps) - run(f, args[0] - eps)) / (2 * eps)
    assert tangent == pytest.approx(fd, rel=1e-5, abs=1e-7)


def fd_all_modes(f, args, reset=lambda: None, eps=1e-6, h=1e-4, hessian=True):
    """grad, value_and_grad, vjp, jvp and hessian w.r.t. the first (float) argument of f against central
    differences, every run after ``reset()`` with fresh copies of the other arguments.  ``hessian=False``: f
    changes state it does not make (an argument's, a global's), and hessian (which may run f once per
    column) is refused at f's line."""

    def run(fn, x, *extra):
        reset()
        return fn(x, *copy.deepcopy(list(args[1:])), *extra)

    x = args[0]
    value = run(f, x)
    fd = (run(f, x + eps) - run(f, x - eps)) / (2 * eps)
    g = run(s2sad.grad(f, wrt=0), x)
    assert g == pytest.approx(fd, rel=1e-5, abs=1e-7)
    v, g2 = run(s2sad.value_and_grad(f, wrt=0), x)
    assert (v, g2) == (pytest.approx(value, rel=1e-12), pytest.approx(g, rel=1e-12))
    assert run(s2sad.vjp(f, wrt=0), x, 1.0) == pytest.approx(g, rel=1e-12)
    fd_jvp(f, args, reset)
    if not hessian:
        with pytest.raises(s2sad.DifferentiationError, match=PER_COLUMN) as info:
            run(s2sad.hessian(f, wrt=0), x)
        assert str(info.value).startswith(__file__)
        return
    second = (run(f, x + h) - 2 * value + run(f, x - h)) / (h * h)
    assert run(s2sad.hessian(f, wrt=0), x) == pytest.approx(second, rel=1e-3, abs=1e-5)


# ---- 1. a value drawn in a loop differs per iteration ----------------------------------------------------------


def loop_next_local(w):
    it = iter([1.0, 2.0, 3.0])
    h = w
    for t in range(3):
        h = h * next(it)
    return h


def loop_next_arg(w, it):
    h = w
    for t in range(3):
        h = h * next(it)
    return h


class Counter:
    def __init__(self):
        self.n = 0.0

    def tick(self):
        self.n += 1.0
        return self.n


def loop_method_state(w, c):
    h = w
    for t in range(3):
        h = h * c.tick()
    return h


def loop_itertools_count(w):
    it = itertools.count(1.0)
    h = w
    for t in range(3):
        h = np.sin(h * next(it))
    return h


def factor(log):
    log.append(1.0)
    return float(len(log))


LOG = []


def factor_global():
    LOG.append(1.0)
    return float(len(LOG))


def loop_helper_counter(w):
    LOG.clear()
    h = w
    for t in range(3):
        h = h * factor_global()
    return h


def tick_of(c):
    return c.tick()


def loop_helper_method(w, c):
    h = w
    for t in range(3):
        h = np.sin(h * tick_of(c))
    return h


def loop_rng(w):
    rng = np.random.default_rng(0)
    h = w
    for t in range(3):
        h = np.sin(h * rng.normal())
    return h


def loop_np_random(w):
    np.random.seed(0)
    h = w
    for t in range(3):
        h = np.sin(h * np.random.normal())
    return h


def loop_np_rand_only_sizes(w):
    np.random.seed(3)
    h = w
    for t in range(4):
        u = np.random.rand()
        h = np.tanh(h * (u + 0.5))
    return h


def loop_python_random(w):
    r = random.Random(0)
    h = w
    for t in range(3):
        h = np.sin(h * r.gauss(0.0, 1.0))
    return h


def while_rng_break(w):
    rng = np.random.default_rng(1)
    h = w
    while True:
        u = rng.random()
        h = np.sin(h * (u + 1))
        if u < 0.3:
            break
    return h


def nested_loop_rng(w):
    rng = np.random.default_rng(2)
    h = w
    for i in range(2):
        for j in range(3):
            h = np.tanh(h * rng.normal() + 0.1)
    return h


def loop_rng_and_invariant(W, x):
    rng = np.random.default_rng(4)
    h = x
    for t in range(3):
        noise = rng.normal(size=h.shape)
        A = np.tanh(W)  # the same at every iteration: may stay loop-invariant
        h = np.sin(A @ h + noise)
    return np.sum(h**2)


def loop_rng_array(w):
    rng = np.random.default_rng(5)
    h = w
    for t in range(3):
        h = np.tanh(h * rng.standard_normal(h.shape))
    return np.sum(h)


def loop_pop(w):
    ks = [1.0, 2.0, 3.0, 4.0]
    h = w
    for t in range(3):
        k = ks.pop()
        h = np.sin(h * k + ks[-1])
    return h


def pure_helper(v, k):
    return np.sin(v * k)


def loop_pure_helper(w):
    h = w
    for t in range(3):
        h = pure_helper(h, 1.5)
    return h


LOOPS = [
    (loop_next_local, [1.2]),
    (loop_itertools_count, [0.4]),
    (loop_rng, [0.5]),
    (loop_np_random, [0.5]),
    (loop_np_rand_only_sizes, [0.7]),
    (loop_python_random, [0.5]),
    (while_rng_break, [0.8]),
    (nested_loop_rng, [0.3]),
    (loop_rng_array, [np.array([0.3, -0.2, 0.9])]),
    (loop_pop, [0.3]),
    (loop_pure_helper, [0.6]),
]


@pytest.mark.parametrize("f, args", LOOPS, ids=[f.__name__ for f, _ in LOOPS])
def test_loop_values_per_iteration(f, args):
    assert_exact(f, args)


def test_loop_next_of_an_argument():
    fd_all_modes(loop_next_arg, [1.0, iter([1.0, 2.0, 3.0])], hessian=False)
    assert s2sad.grad(loop_next_arg)(1.0, iter([1.0, 2.0, 3.0])) == 6.0


def test_loop_method_changing_state():
    fd_all_modes(loop_method_state, [1.0, Counter()], hessian=False)
    assert s2sad.grad(loop_method_state)(1.0, Counter()) == 6.0
    # a Hessian or Jacobian runs f's derivative once per column: c.tick() of the argument c, typed at the
    # call, changes c's state, so they refuse (test_round26_state.py)
    with pytest.raises(s2sad.DifferentiationError, match="c.tick"):
        s2sad.hessian(loop_method_state)(1.0, Counter())
    fd_all_modes(loop_helper_method, [0.4, Counter()], hessian=False)  # (through tick_of(c): refused too)
    fd_all_modes(loop_helper_counter, [1.1], hessian=False)


def test_loop_draw_with_an_invariant():
    rng = np.random.default_rng(0)
    assert_exact(loop_rng_and_invariant, [rng.normal(size=(2, 2)), rng.normal(size=2)])


def test_while_rng_reported_example():
    def f(w):
        h = w
        while True:
            u = np.random.rand()
            h = h * (u + 1)
            if u < 0.3:
                break
        return h

    np.random.seed(1)
    v = f(1.0)
    np.random.seed(1)
    assert s2sad.grad(f)(1.0) == pytest.approx(v, rel=1e-12)


# ---- 2. a helper with side effects: its VJP would run it again --------------------------------------------------


def scaled(w, log):
    log.append(w)
    return w * len(log)


def helper_appends(w):
    log = []
    return scaled(w, log) ** 2


CALLS = []


def scaled_global(w):
    CALLS.append(w)
    return w * len(CALLS)


def helper_appends_global(w):
    return scaled_global(w) ** 2


RNG = np.random.default_rng(0)


def noisy(w):
    return w * RNG.normal()


def helper_draws_global(w):
    a = noisy(w)
    return np.sin(a) * a


def dropout(h, rng, p=0.5):
    mask = rng.random(h.shape) > p
    return h * mask / (1 - p)


def loss_dropout(w, x):
    rng = np.random.default_rng(0)
    h = dropout(np.tanh(x @ w), rng)
    return np.sum(h**2)


def dropout_with_mask(h, mask, p=0.5):
    return h * mask / (1 - p)


def loss_dropout_mask_in_f(w, x):
    rng = np.random.default_rng(0)
    h = np.tanh(x @ w)
    mask = rng.random(h.shape) > 0.5
    h = dropout_with_mask(h, mask)
    return np.sum(h**2)


def np_draw(w):
    return w * np.random.normal()


def helper_np_random(w):
    np.random.seed(0)
    return np.sin(np_draw(w))


class Scaler:
    def __init__(self):
        self.n = 0.0

    def scale(self, w):
        self.n += 1.0
        return w * self.n


def method_with_state(w, s):
    return np.sin(s.scale(w))


def outer_helper(w):
    return np.tanh(noisy(w)) + w


def helper_transitive(w):
    return outer_helper(w) ** 2


N = 0


def bump(w):
    global N
    N += 1
    return w * N


def helper_global_statement(w):
    return np.sin(bump(w))


def next_helper(w, it):
    return w * next(it)


def helper_next(w):
    it = iter([2.0, 3.0])
    return np.sin(next_helper(w, it))


def builds_own_list(w):
    acc = []
    for k in range(3):
        acc.append(w * k)
    out = np.zeros(2)
    out[0] = acc[-1]
    return out[0] + len(acc)


def helper_pure_locals(w):
    return np.sin(builds_own_list(w))


REFUSED = [
    (helper_appends_global, [3.0], "scaled_global\\(\\) has side effects"),
    (helper_draws_global, [0.5], "noisy\\(\\) has side effects .*random"),
    (helper_np_random, [0.5], "np_draw\\(\\) has side effects .*random"),
    (helper_transitive, [0.5], "outer_helper\\(\\) has side effects .*noisy"),
    (helper_next, [0.5], "next_helper\\(\\) has side effects .*next"),
]


@pytest.mark.parametrize("f, args, match", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_helper_with_side_effects_refused_in_reverse(f, args, match):
    global N
    state = RNG.bit_generator.state

    def reset():
        global N
        RNG.bit_generator.state = state
        CALLS.clear()
        N = 0

    try:
        refused_in_reverse(f, args, match, reset=reset)
    finally:
        reset()


def test_helpers_refused_everywhere():
    for f, args in [(helper_appends, [3.0]), (helper_global_statement, [0.5])]:
        assert not check(f, args)  # refused at a located line in every mode (anf and lift refuse them)
        with pytest.raises(s2sad.DifferentiationError):
            s2sad.grad(f)(*args)


def test_helper_counter_reported_example():
    CALLS.clear()
    with pytest.raises(s2sad.DifferentiationError, match="side effects") as info:
        s2sad.grad(helper_appends_global)(3.0)
    assert "draw the random numbers" in str(info.value) and "jvp" in str(info.value)
    CALLS.clear()
    assert s2sad.jvp(helper_appends_global)(3.0, 1.0) == (9.0, 6.0)
    assert len(CALLS) == 1  # jvp runs the helper once, as f does


def test_dropout_refused_and_mask_in_f_exact():
    rng = np.random.default_rng(1)
    w, x = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    with pytest.raises(s2sad.DifferentiationError, match="dropout\\(\\) has side effects"):
        s2sad.grad(loss_dropout)(w, x)
    assert not check(loss_dropout, [w, x], modes=("jvp",))
    assert_exact(loss_dropout_mask_in_f, [w, x])


def test_method_changing_state_refused():
    with pytest.raises(s2sad.DifferentiationError, match="self.n"):
        s2sad.grad(method_with_state)(0.5, Scaler())
    with pytest.raises(s2sad.DifferentiationError, match="self.n"):  # (jvp refuses it too)
        s2sad.jvp(method_with_state, wrt=0)(0.5, Scaler(), 1.0)


def test_pure_helpers_not_refused():
    assert_exact(helper_pure_locals, [0.7])


def straight_line_draws(w):
    rng = np.random.default_rng(0)
    a = w * rng.normal()
    b = np.sin(a) * rng.normal()
    c = np.random.default_rng(1).normal()
    return b * c + a * a


def test_f_drawing_in_straight_line_code():
    assert_exact(straight_line_draws, [0.5])


def test_f_drawing_twice_from_the_global_state():
    def f(w):
        a = np.random.rand()
        b = np.random.rand()
        return w * a + w * w * b

    np.random.seed(0)
    a, b = np.random.rand(), np.random.rand()
    np.random.seed(0)
    assert s2sad.grad(f)(2.0) == pytest.approx(a + 4 * b, rel=1e-12)


# ---- 3. checkpointed loops replay their segments ----------------------------------------------------------------


def ckpt_rng(w):
    rng = np.random.default_rng(0)
    h = w
    for t in s2sad.checkpoint(range(6), every=2):
        h = np.tanh(h * rng.normal())
    return h


def ckpt_inactive_helper(w):
    LOG.clear()
    h = w
    for t in s2sad.checkpoint(range(4), every=2):
        k = factor_global()
        h = np.sin(h * k)
    return h


def ckpt_next(w):
    it = iter([1.0, 2.0, 3.0, 4.0])
    h = w
    for t in s2sad.checkpoint(range(4), every=2):
        h = np.sin(h * next(it))
    return h


@pytest.mark.parametrize("f", [ckpt_rng, ckpt_inactive_helper, ckpt_next])
def test_checkpoint_with_draws_refused(f):
    refused_in_reverse(f, [0.5], "checkpointed loop gives another value when the loop is replayed")
    if f is ckpt_inactive_helper:
        with pytest.raises(s2sad.DifferentiationError, match=PER_COLUMN):
            s2sad.jacobian(f)(0.5)


def ckpt_draws_before(w):
    rng = np.random.default_rng(0)
    noise = rng.normal(size=6)
    h = w
    for t in s2sad.checkpoint(range(6), every=2):
        h = np.tanh(h * noise[t])
    return h


def test_checkpoint_with_draws_before_the_loop():
    assert_exact(ckpt_draws_before, [0.5])


# ---- more ways to draw in a loop ---------------------------------------------------------------------------------


def loop_rng_parameter(w, rng):
    h = w
    for t in range(3):
        h = np.sin(h * rng.normal())
    return h


def test_loop_generator_passed_in():
    fd_all_modes(loop_rng_parameter, [0.5, np.random.default_rng(7)], hessian=False)


def loop_local_lambda(w):
    rng = np.random.default_rng(8)
    draw = lambda: rng.normal()  # noqa: E731
    h = w
    for t in range(3):
        h = np.sin(h * draw())
    return h


def loop_local_def(w):
    rng = np.random.default_rng(8)

    def draw():
        return rng.normal()

    h = w
    for t in range(3):
        h = np.sin(h * draw())
    return h


def while_draw_in_condition(w):
    rng = np.random.default_rng(3)
    h = w
    while rng.random() > 0.2:
        h = np.sin(h * 1.3 + 0.1)
    return h


G = []


def push_global(v):
    G.append(v)
    return 0.0


def loop_global_read_after_helper(w):
    G.clear()
    G.append(1.0)
    h = w
    for t in range(3):
        push_global(G[-1] + 1.0)
        k = G[-1]
        h = np.sin(h * k)
    return h


MORE = [
    (loop_local_lambda, [0.5]),
    (loop_local_def, [0.5]),
    (while_draw_in_condition, [0.5]),
    (loop_global_read_after_helper, [0.5]),
]


@pytest.mark.parametrize("f, args", MORE, ids=[f.__name__ for f, _ in MORE])
def test_more_loop_draws(f, args):
    assert not check(f, args), check(f, args)


# ---- Jacobians and Hessians run f's derivative once per column -------------------------------------------------


def global_draws(x):
    return np.sum(np.sin(x * RNG.normal(size=2)))


def own_draws(x):
    rng = np.random.default_rng(3)
    return np.sum(np.sin(x * rng.normal(size=2)) * np.random.default_rng(4).normal())


def seeded_draws(x):
    np.random.seed(5)
    return np.sum(np.sin(x * np.random.normal(size=2)))


def test_jacobian_and_hessian_of_draws():
    x = np.array([0.3, 0.7])
    for make in (s2sad.hessian, s2sad.jacobian, lambda f: s2sad.jacobian(f, mode="reverse")):
        with pytest.raises(s2sad.DifferentiationError, match=PER_COLUMN):
            make(global_draws)(x)
    for f in (own_draws, seeded_draws):
        assert_exact(f, [x])
        J = s2sad.jacobian(f)(x)
        assert J == pytest.approx(s2sad.grad(f)(x), rel=1e-12)
        assert s2sad.jacobian(f, mode="reverse")(x) == pytest.approx(J, rel=1e-12)


def helper_own_rng(v):
    rng = np.random.default_rng(9)
    return v * rng.normal()


def uses_helper_own_rng(w):
    return np.sin(helper_own_rng(w)) * helper_own_rng(w * w)


def helper_unseeded_rng(v):
    rng = np.random.default_rng()
    return v * rng.normal()


def uses_unseeded(w):
    return np.sin(helper_unseeded_rng(w))


def local_lambda_draws(w):
    rng = np.random.default_rng(0)
    noise = lambda v: v * rng.normal()  # noqa: E731
    return np.sin(noise(w))


def test_helper_making_its_own_generator():
    assert_exact(uses_helper_own_rng, [0.6])  # the same draws when its VJP runs it again
    with pytest.raises(s2sad.DifferentiationError, match="helper_unseeded_rng\\(\\) has side effects"):
        s2sad.grad(uses_unseeded)(0.5)  # default_rng(): new entropy at every run
    with pytest.raises(s2sad.DifferentiationError, match="has side effects .*normal"):
        s2sad.grad(local_lambda_draws)(0.5)  # f's generator, advanced by the first run
    fd_jvp(local_lambda_draws, [0.5])


def loop_reads_state_a_method_changes(w, c):
    h = w
    for t in range(3):
        c.tick()
        h = np.sin(h * c.n)
    return h


def test_loop_reads_state_a_method_changes():
    f = loop_reads_state_a_method_changes
    fd = (f(0.5 + 1e-6, Counter()) - f(0.5 - 1e-6, Counter())) / 2e-6
    assert s2sad.grad(f)(0.5, Counter()) == pytest.approx(fd, rel=1e-5)
    assert s2sad.value_and_grad(f)(0.5, Counter()) == (pytest.approx(f(0.5, Counter())), pytest.approx(fd, rel=1e-5))
    assert s2sad.vjp(f, wrt=0)(0.5, Counter(), 1.0) == pytest.approx(fd, rel=1e-5)
    fd_jvp(f, [0.5, Counter()])
    with pytest.raises(s2sad.DifferentiationError, match="c.tick"):  # (a second derivative: refused)
        s2sad.hessian(f)(0.5, Counter())
