"""The benchmark workloads stay correct: on tiny inputs, s2sad's gradient, the hand-written one and
(when installed) the other tools' agree, and the runner's pieces work.  No timing here."""

import numpy as np
import pytest

from benchmarks import frameworks, run
from benchmarks import workloads as W


@pytest.mark.parametrize("w", W.WORKLOADS, ids=lambda w: w.key)
def test_every_gradient_of_a_workload_agrees_with_the_hand_written_one(w):
    engines = (frameworks.autograd_grads(), *frameworks.jax_grads(), frameworks.torch_grads())
    rows = run.rows_for(w, engines, tiny=True)
    assert [m for m, _, _ in rows][:3] == ["f", "s2sad", "hand-written"]
    run.check(w, rows)  # raises if any gradient disagrees


@pytest.mark.parametrize("w", W.WORKLOADS, ids=lambda w: w.key)
def test_hand_written_gradients_match_finite_differences(w):
    from fd import numeric_grad

    args = w.inputs(tiny=True)
    hand = frameworks.normalize(w.hand(*args), w.wrt)
    for k, i in enumerate(w.wrt):
        np.testing.assert_allclose(hand[k], numeric_grad(w.f, args, i), rtol=1e-5, atol=1e-6)


def test_straight_line_sources_compile_and_differentiate():
    (label, n, seconds), *_ = run.generation_times((20,), repeats=1)
    assert n == 20 and seconds > 0 and "20 statements" in label


def test_quick_run_of_one_workload_prints_a_table(capsys):
    assert run.main(["--quick", "--only", "W1"]) == 0
    out = capsys.readouterr().out
    assert "| W1 scalar loop, 100 iterations | s2sad |" in out
    assert "hand-written" in out
