"""The Jacobian of a vector function: polar coordinates to a point on a paraboloid."""

import numpy as np


def polar(p):
    r = p[0]
    theta = p[1]
    return np.stack([r * np.cos(theta), r * np.sin(theta), r * r])
