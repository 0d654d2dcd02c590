"""Findings of the round-22 blind testers."""

import numpy as np
from fd import numeric_jvp

import s2sad


def with_default(x, a=2.0):
    return np.sum(np.sin(x) * a)


def optional_act(x, act=None):
    if act is not None:
        x = act(x)
    return np.sum(x**2)


def test_jvp_takes_the_tangents_last_also_after_a_defaulted_argument():
    # the generated jvp_g(x, dx, a=2.0) took (x, 3.0, dx) as dx=3.0, a=dx: a wrong value and tangent
    x, dx = np.array([0.3, -0.7, 1.1]), np.array([2.0, -1.0, 0.5])
    value, tangent = s2sad.jvp(with_default)(x, 3.0, dx)
    assert value == with_default(x, 3.0)
    np.testing.assert_allclose(tangent, numeric_jvp(with_default, [x, 3.0], (0,), [dx]), rtol=1e-6)
    value, tangent = s2sad.jvp(with_default)(x, dx)  # the default
    np.testing.assert_allclose(tangent, numeric_jvp(with_default, [x, 2.0], (0,), [dx]), rtol=1e-6)
    assert s2sad.jvp(with_default)(x, dx=dx, a=3.0)[0] == with_default(x, 3.0)
    value, tangent = s2sad.jvp(with_default, wrt=(0, 1))(x, 3.0, dx, 1.0)
    np.testing.assert_allclose(tangent, numeric_jvp(with_default, [x, 3.0], (0, 1), [dx, 1.0]), rtol=1e-6)
    value, tangent = s2sad.jvp(optional_act)(x, np.tanh, dx)  # was a TypeError inside s2sad
    assert value == optional_act(x, np.tanh)
    np.testing.assert_allclose(tangent, numeric_jvp(optional_act, [x, np.tanh], (0,), [dx]), rtol=1e-6)
