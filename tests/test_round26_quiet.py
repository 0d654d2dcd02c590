"""A checkpointed loop's segments run again in the adjoint sweep: quietly. f's prints and its helpers' prints
appear once per iteration, as when f runs (round 25b found them printed again)."""

import numpy as np

import s2sad


def show(h):
    print("h", float(np.sum(h)))
    return h


def f(x):
    h = x
    for i in s2sad.checkpoint(range(6), every=2):
        print("step", i)
        h = show(np.sin(h) * 1.1)
    return np.sum(h)


def test_a_checkpointed_loop_prints_once_per_iteration(capsys):
    x = np.array([0.3, 0.4])
    f(x)
    expected = capsys.readouterr().out
    for make in (s2sad.grad, s2sad.value_and_grad):
        make(f)(x)
        assert capsys.readouterr().out == expected


def test_the_quiet_segments_give_the_same_gradient():
    x = np.array([0.3, 0.4])
    g = s2sad.grad(f)(x)
    eps = 1e-6
    fd = [(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)
