"""A while loop whose trip count depends on the data: grow y until it passes a threshold."""

import math


def grow(x, rate):
    y = x
    while y < 10.0:
        y = y * rate + math.sin(y)
    return y
