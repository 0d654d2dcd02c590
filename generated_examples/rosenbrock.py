"""The Hessian of the Rosenbrock function: forward mode over the generated gradient."""

import numpy as np


def rosenbrock(x):
    a = x[1:] - x[:-1] ** 2
    b = 1.0 - x[:-1]
    return np.sum(100.0 * a * a + b * b)
