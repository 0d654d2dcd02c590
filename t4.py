import numpy as np, s2sad
IDX = [0, 2]
N = 2
W = np.array([1.0, 2.0, 3.0, 4.0])
MASK = np.array([True, False, True, False])
def f1(x):
    a = x.copy()
    a[IDX] *= 3.0
    return np.sum(a * x)
def f2(x):
    a = x.copy()
    for i in range(N):
        a[i] = a[i] ** 2
    return np.sum(a)
def f3(x):
    a = x.copy()
    a[MASK] = x[MASK] ** 2
    return np.sum(a)
def f4(x, idx=[1]):
    a = x.copy()
    a[idx] = x[idx] ** 3
    return np.sum(a)
def f5(x):
    return np.sum(x[IDX] ** 2)
def fd(f, x, h=1e-6):
    return np.array([(f(x + h*e) - f(x - h*e)) / (2*h) for e in np.eye(4)])
x = np.array([0.5, 1.5, -0.7, 2.0])
def run(tag, fn, mutate):
    for mode in ["grad", "jvp", "hess"]:
        if mode == "grad": d = s2sad.grad(fn); call = lambda: d(x)
        elif mode == "jvp": d = s2sad.jvp(fn); call = lambda: np.array([d(x, e)[1] for e in np.eye(4)])
        else: d = s2sad.hessian(fn); call = lambda: np.diag(d(x))
        state = mutate(None)
        r1 = call()
        mutate(1)
        try:
            r2 = call()
        except Exception as e:
            r2 = f"{type(e).__name__}: {str(e)[:100]}"
        ref = fd(fn, x) if mode != "hess" else np.diag(np.array([ (fd(fn, x + 1e-4*e, 1e-5) - fd(fn, x - 1e-4*e, 1e-5)) / 2e-4 for e in np.eye(4)]))
        ok = isinstance(r2, str) or np.allclose(r2, ref, atol=1e-4)
        print(tag, mode, "OK" if ok else "STALE/WRONG", r2, "ref", np.round(ref, 5))
        mutate(0)
def m1(v):
    if v == 1: IDX[0] = 1
    elif v == 0: IDX[0] = 0
def m2(v):
    global N
    N = 3 if v == 1 else 2
def m3(v):
    if v == 1: MASK[1] = True
    elif v == 0: MASK[1] = False
def m4(v):
    if v == 1: f4.__defaults__[0][0] = 3
    elif v == 0: f4.__defaults__[0][0] = 1
def m5(v):
    global IDX
    if v == 1: IDX = [1, 3]
    elif v == 0: IDX = [0, 2]
run("IDX inplace", f1, m1); run("N rebind", f2, m2); run("MASK inplace", f3, m3); run("default list", f4, m4); run("IDX rebind f5", f5, m5); run("IDX inplace f5", f5, m1)
