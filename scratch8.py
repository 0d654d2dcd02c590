import numpy as np, s2sad
class B:
    def __init__(self): self.buf = np.array([1.0, 2.0])
    def scale(self, x):
        self.buf *= 2
        return np.sum(self.buf * x)
def f(b, x):
    return b.scale(x)
def g(b, x):
    b.buf *= x
    return np.sum(b.buf)
b = B()
for fn in (f, g):
  try:
    print(s2sad.grad(fn, wrt=1)(b, np.array([1.0, 3.0])), b.buf)
  except Exception as e: print(e)
