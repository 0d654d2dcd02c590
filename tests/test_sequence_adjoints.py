"""Adjoints of a tuple or list of arrays that code passes on whole (never unpacked or indexed) are added part by
part: ``+`` would join two lists into a longer one, a wrong derivative without an error (the third derivative of
np.linalg.svd passed svd's output whole to its helpers, and gave a wrong number)."""

import numpy as np
from fd import assert_close, numeric_grad

import s2sad


def _split_twice(x):
    parts = np.split(x, 2)
    return np.sum(np.concatenate(parts) * np.stack(parts).ravel())


def _gradient_twice(x):
    parts = np.gradient(x)
    return np.sum(np.stack(parts) ** 2) + np.sum(np.concatenate(parts) * x.ravel()[0])


def test_split_result_used_whole_twice():
    x = np.arange(4.0) + 1.0
    got = s2sad.grad(_split_twice)(x)
    assert np.shape(got) == np.shape(x)
    assert_close(got, numeric_grad(_split_twice, [x], 0, eps=1e-6), rtol=1e-7, atol=1e-8)


def test_gradient_result_used_whole_twice():
    x = np.random.default_rng(0).normal(size=(3, 4))
    got = s2sad.grad(_gradient_twice)(x)
    assert np.shape(got) == np.shape(x)
    assert_close(got, numeric_grad(_gradient_twice, [x], 0, eps=1e-6), rtol=1e-6, atol=1e-7)
