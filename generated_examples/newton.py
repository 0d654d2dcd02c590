"""Newton's method for the square root, ten steps: its derivative is 1 / (2 sqrt(a))."""


def newton_sqrt(a):
    x = a
    for _ in range(10):
        x = 0.5 * (x + a / x)
    return x
