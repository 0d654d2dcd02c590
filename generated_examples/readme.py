"""The example at the top of README.md: the gradient of a NumPy function."""

import numpy as np


def f(x, y):
    return np.sum(x * y + np.sin(x))
