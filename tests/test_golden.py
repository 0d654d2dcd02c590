"""The generated source of the seed example is pinned: readable names, no noise, deterministic."""

import math
import subprocess
import sys
import textwrap

import numpy as np

import s2sad


def f(x, y):
    z = x * y + math.sin(x)
    return z


EXPECTED_GRAD = """\
import math
from s2sad.runtime import astype_of, expect_scalar


def df_dx(x, y, bz=1.0):
    # z = x * y + math.sin(x)  (test_golden.py:14)
    t = x * y
    u = math.sin(x)
    z = t + u
    expect_scalar(z, 'f')
    bt = bz
    bu = bz
    bx = bu * math.cos(x)
    bx = bx + bt * y
    return astype_of(bx, x)
"""


def g(x, y):
    return np.sum(x * y + np.sin(x))


EXPECTED_NUMPY = """\
import numpy as np
from s2sad.runtime import astype_of, expect_scalar, real_arrays, unbroadcast, unreduce


def dg_dx_dy(x, y, bout=1.0):
    check_output = not real_arrays(x, y)
    # return np.sum(x * y + np.sin(x))  (test_golden.py:38)
    t = x * y
    u = np.sin(x)
    v = t + u
    if check_output:
        out = np.sum(v)
        expect_scalar(out, 'g')
    bv = unreduce(bout, v)
    bu = unbroadcast(bv, u)
    bx = bu * np.cos(x)
    bx += unbroadcast(bv * y, x)
    by = unbroadcast(bv * x, y)
    return astype_of(bx, x), astype_of(by, y)
"""


def test_seed_example_reads_like_the_design():
    assert s2sad.source(s2sad.grad(f)) == EXPECTED_GRAD


def test_numpy_example():
    assert s2sad.source(s2sad.grad(g, wrt=(0, 1))) == EXPECTED_NUMPY


def test_no_noise():
    text = s2sad.source(s2sad.grad(g, wrt=(0, 1)))
    for noise in ("* 1.0", "+ 0", "zeros_like", "* 0", "None"):
        assert noise not in text


def test_deterministic_across_processes():
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(__import__("pathlib").Path(__file__).parent)!r})
        import s2sad, test_golden
        print(s2sad.source(s2sad.grad(test_golden.g, wrt=(0, 1))), end='')
        """
    )
    outs = {
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    }
    assert outs == {EXPECTED_NUMPY}
