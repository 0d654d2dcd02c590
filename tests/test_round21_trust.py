"""Findings of the round-21 trust tester that are not about shapes (tests/test_shapes_branches.py)."""

import numpy as np
from exact_or_refused import check

import s2sad


def append_then_set_item(x):
    hs = [x[0]]
    for t in range(2):
        hs.append(hs[-1] * x[t + 1])
    hs[0] = hs[2] * 3
    return sum(hs)


def test_a_list_item_written_after_appends_has_an_exact_hessian():
    # the forward pass copied the list's tangent with np.copy before writing its item: an array, whose
    # .pop() then crashed in hessian and jvp(grad)
    x = np.array([0.5, 2.0, 3.0])
    symptoms = check(append_then_set_item, [x])
    assert not symptoms, "\n".join(symptoms)
    np.testing.assert_allclose(s2sad.hessian(append_then_set_item)(x), [[0, 13, 8], [13, 0, 2], [8, 2, 0]])
    np.testing.assert_allclose(s2sad.jvp(s2sad.grad(append_then_set_item))(x, np.ones(3))[1], [21, 15, 10])
