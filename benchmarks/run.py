"""Benchmark runner: ``python -m benchmarks [--quick] [--only W1,W4] [--json out.json]``.

For each workload, in one process: f itself, s2sad's generated gradient, the hand-written gradient,
and (when installed) autograd.grad, jax.grad eager, jax.jit(jax.grad) and PyTorch backward.  Every
gradient is first checked against the hand-written one.  Repeats are interleaved (round-robin over
the rows), so drift of a shared machine hits every row alike; the table shows medians and ratios to
f and to the hand-written gradient.  W6 times generation (source to compiled function).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time

import numpy as np

if __package__ in (None, ""):  # python benchmarks/run.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import s2sad  # noqa: E402
from benchmarks import frameworks  # noqa: E402
from benchmarks import workloads as W  # noqa: E402
from s2sad import api  # noqa: E402


def _per_call(fn, number):
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def _calibrate(fn, target):
    """Calls per sample so that one sample lasts about ``target`` seconds."""
    once = _per_call(fn, 1)
    once = min(once, _per_call(fn, 1))
    return max(1, int(target / max(once, 1e-7)))


def rows_for(w, engines, tiny=False):
    """[(method, zero-argument callable, is_gradient)] for one workload."""
    args = w.inputs(tiny)
    rows = [
        ("f", lambda: w.f(*args), False),
        ("s2sad", (lambda g: lambda: g(*args))(s2sad.grad(w.f, wrt=w.wrt)), True),
        ("hand-written", lambda: w.hand(*args), True),
    ]
    autograd_g, jax_eager, jax_jit, torch_prepare = engines
    if w.key in autograd_g:
        rows.append(("autograd", (lambda g: lambda: g(*args))(autograd_g[w.key]), True))
    if w.key in jax_eager:
        rows.append(("jax.grad (eager)", (lambda g: lambda: g(*args))(jax_eager[w.key]), True))
        rows.append(("jax.jit(jax.grad)", (lambda g: lambda: g(*args))(jax_jit[w.key]), True))
    if w.key in torch_prepare:
        rows.append(("torch backward", torch_prepare[w.key](args), True))
    return rows


def check(w, rows):
    """Every gradient agrees with the hand-written one (raises otherwise)."""
    reference = frameworks.normalize(dict((m, fn) for m, fn, _ in rows)["hand-written"](), w.wrt)
    for method, fn, is_grad in rows:
        if not is_grad:
            continue
        got = frameworks.normalize(fn(), w.wrt)
        for a, b in zip(got, reference):
            if not np.allclose(a, b, rtol=1e-6, atol=1e-9):
                raise AssertionError(f"{w.key}: {method} disagrees with the hand-written gradient")


def time_rows(rows, rounds, target):
    numbers = [_calibrate(fn, target) for _, fn, _ in rows]
    samples = [[] for _ in rows]
    for _ in range(rounds):
        for k, (_, fn, _) in enumerate(rows):
            samples[k].append(_per_call(fn, numbers[k]))
    return [statistics.median(s) for s in samples]


def _fmt(seconds):
    if seconds >= 1e-1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


# ---- W6: generation time -------------------------------------------------------------------------

_LINES = [
    "v{k} = np.sin(v{a}) * x + v{b}",
    "v{k} = v{a} * v{b} - np.tanh(y)",
    "v{k} = np.exp(-v{a} * v{a}) + v{b} / (1.0 + y * y)",
    "v{k} = np.maximum(v{a}, v{b}) * 0.5",
]


def straight_line_source(n):
    lines = ["import numpy as np", "", "", f"def f{n}(x, y):", "    v0 = x * y", "    v1 = x + y"]
    for k in range(2, n):
        lines.append("    " + _LINES[k % len(_LINES)].format(k=k, a=k - 1, b=k - 2))
    lines.append(f"    return np.sum(v{n - 1})")
    return "\n".join(lines) + "\n"


def generation_times(sizes, repeats):
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"straight_{n}.py")
            with open(path, "w") as fh:
                fh.write(straight_line_source(n))
            spec = importlib.util.spec_from_file_location(f"straight_{n}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            fn = getattr(module, f"f{n}")
            out.append((f"straight line, {n} statements", n, _generation(fn, (0, 1), repeats)))
    out.append(("W4 (RNN loop)", None, _generation(W.rnn_loss, (0, 1), repeats)))
    return out


def _generation(fn, wrt, repeats):
    times = []
    for _ in range(repeats):
        api._CACHE.clear()
        start = time.perf_counter()
        s2sad.grad(fn, wrt=wrt)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# ---- main -------------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few short repeats: a smoke run")
    parser.add_argument("--only", help="comma-separated workloads, e.g. W1,W4,W6")
    parser.add_argument("--json", help="also write the results to this file")
    opts = parser.parse_args(argv)
    only = set(opts.only.split(",")) if opts.only else None
    rounds, target = (3, 0.01) if opts.quick else (11, 0.05)

    engines = (frameworks.autograd_grads(), *frameworks.jax_grads(), frameworks.torch_grads())
    missing = [n for n, e in zip(("autograd", "jax", "torch"), (engines[0], engines[1], engines[3])) if not e]
    print(f"# s2sad {s2sad.__version__} benchmarks")
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"NumPy {np.__version__}; median of {rounds} interleaved rounds"
    )
    if missing:
        print(f"not installed (rows left out): {', '.join(missing)}")
    results = []
    print()
    print("| workload | method | median | × f | × hand-written |")
    print("|---|---|---|---|---|")
    for w in W.WORKLOADS:
        if only and w.key not in only:
            continue
        rows = rows_for(w, engines)
        jit = [fn for m, fn, _ in rows if m.startswith("jax.jit")]
        compile_time = None
        if jit:  # compile outside the timing, report it
            start = time.perf_counter()
            jit[0]()
            compile_time = time.perf_counter() - start
        check(w, rows)
        medians = time_rows(rows, rounds, target)
        base = medians[0]
        hand = medians[[m for m, _, _ in rows].index("hand-written")]
        for (method, _, _), t in zip(rows, medians):
            ratio_f = f"{t / base:.2f}"
            ratio_h = f"{t / hand:.2f}" if method != "f" else ""
            note = f" (compile {compile_time:.2f} s)" if method.startswith("jax.jit") and compile_time else ""
            print(f"| {w.key} {w.title} | {method}{note} | {_fmt(t)} | {ratio_f} | {ratio_h} |")
            results.append({"workload": w.key, "method": method, "median_s": t, "x_f": t / base, "x_hand": t / hand})
        sys.stdout.flush()
    if not only or "W6" in only:
        print()
        print("| W6 generation (parse to compiled gradient) | time | per statement |")
        print("|---|---|---|")
        for label, n, t in generation_times((200, 400, 800, 1600), 2 if opts.quick else 3):
            per = f"{t / n * 1e3:.2f} ms" if n else ""
            print(f"| {label} | {_fmt(t)} | {per} |")
            results.append({"workload": "W6", "method": label, "median_s": t})
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
