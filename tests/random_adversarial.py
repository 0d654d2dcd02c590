"""Random NumPy programs built to attack aliasing, views, in-place writes, tuple assignment and returned values,
checked with the exact-or-refused checker (exact_or_refused.check) in reverse and forward mode.

``program(cls, seed)`` is deterministic: the same (class, seed) always gives the same source.  A program is a list
of blocks (a statement, or a loop / branch with its body); ``shrink`` drops blocks while the failure persists, to
give a minimal reproducer.  Classes:

- ``views``: slice / reshape / ravel / [None] / [...] / helper views of created arrays, written in place;
- ``inplace``: +=, -=, *=, /=, ``out=``, element and slice writes, in loops and branches;
- ``alias``: ``b = a`` then writes through either name, lists and dicts holding arrays, helpers writing their argument,
  helpers returning a new array or a tuple of new arrays written into;
- ``tuple``: swaps and rotations (``p, q = q, p``, ``p, q = p + q, p``) of floats and arrays in loops and branches;
- ``returns``: the returned name rebound in loops, several ifs and whiles, early returns;
- ``folds``: identities (``x * 1.0``, ``x / 1.0``, ``x ** 1``, ``x + 0.0``, ``+x``) then written in place;
- ``fancy``: fancy-index writes with repeated indices and boolean masks.

Run ``python tests/random_adversarial.py --count 2000`` for failure counts by class and shrunk reproducers.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import sys
import tempfile
import zlib
from pathlib import Path

if __name__ == "__main__":  # run as a script: this worktree's s2sad, not an installed one
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from exact_or_refused import check  # noqa: E402

CLASSES = ("views", "inplace", "alias", "tuple", "returns", "folds", "fancy")

PRELUDE = """import numpy as np


def head(a):
    return a[:2]


def scale(a, k):
    a *= k
    return a


def pair(p, q):
    return q, p * q


def grow(a, k):
    r = a * k
    r[0] += k
    return r


def both(p, q):
    return p * q, p + q


"""

_counter = itertools.count()
_tmp = None


class Gen:
    """Draws statements; tracks which names hold (4,) arrays and which hold floats."""

    def __init__(self, cls, seed):
        self.cls = cls
        self.rng = np.random.default_rng(zlib.crc32(f"{cls}:{seed}".encode()))
        self.arrays = ["x", "y"]
        self.created = []  # arrays made inside f (safe to write into)
        self.floats = ["s"]
        self.n = 0
        self.ret = None  # the name the program returns alone (class "returns")

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p):
        return self.rng.random() < p

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    # ---- expressions -------------------------------------------------------------------------------------
    def arr(self):
        a, b, f = self.pick(self.arrays), self.pick(self.arrays), self.pick(self.floats)
        return self.pick(
            [
                f"np.sin({a}) * {b}",
                f"{a} * {b} + {f}",
                f"np.tanh({a} + {b})",
                f"{a} * {f} - {b}",
                f"np.cos({a}) * 0.5 + {b} * {b} * 0.1",
            ]
        )

    def scalar(self):
        a, b, f = self.pick(self.arrays), self.pick(self.arrays), self.pick(self.floats)
        i, j = int(self.rng.integers(4)), int(self.rng.integers(4))
        return self.pick([f"np.sum({a} * {b}) * 0.1", f"{f} * {f}", f"np.sin({f}) + {a}[{i}]", f"{a}[{i}] * {b}[{j}]"])

    def shaped(self, shape):
        """An expression of the given shape (a scalar broadcasts too)."""
        if self.chance(0.3):
            return self.scalar()
        b, f = self.pick(self.arrays), self.pick(self.floats)
        if shape == (2, 2):
            return f"{b}.reshape(2, 2) * {f}"
        if shape == (1, 4):
            return f"np.sin({b}[None])"
        n = shape[0]
        return self.pick([f"np.sin({b}[:{n}])", f"{b}[-{n}:] * {f}", f"np.tanh({b}[{4 - n}:]) * {b}[:{n}]"])

    def target(self):
        """A created array to write into (made now when there is none); rarely an input."""
        if self.created and not self.chance(0.1):
            return self.created[-1] if self.chance(0.5) else self.pick(self.created), []
        if self.created:
            return self.pick(["x", "y"]), []
        name = self.fresh("a")
        lines = [f"{name} = {self.pick(self.arrays)} * {self.pick(self.floats)} + 0.5"]
        self.new_array(name)
        return name, lines

    def new_array(self, name):
        self.arrays.append(name)
        self.created.append(name)

    # ---- statements (blocks of lines) ---------------------------------------------------------------------
    def pure(self):
        if self.chance(0.7):
            name = self.fresh("a")
            line = f"{name} = {self.arr()}"
            self.new_array(name)
        else:
            name = self.fresh("f")
            line = f"{name} = {self.scalar()}"
            self.floats.append(name)
        return [line]

    def write(self, name, shape):
        op = self.pick(["+=", "-=", "*=", "/=", "setitem", "ellipsis"])
        rhs = self.shaped(shape)
        if op == "/=":
            return [f"{name} /= 1.5 + ({rhs}) * ({rhs})"]
        if op == "setitem":
            idx = ", ".join(str(int(self.rng.integers(d))) for d in shape)
            return [f"{name}[{idx}] = {self.scalar()}"]
        if op == "ellipsis":
            return [f"{name}[...] = {rhs}"]
        return [f"{name} {op} {rhs}"]

    def maybe_wrap(self, body):
        """The body as is, in a for loop, or in a branch."""
        r = self.rng.random()
        if r < 0.5:
            return body
        if r < 0.75:
            return [f"for i in range({int(self.rng.integers(1, 4))}):"] + ["    " + b for b in body]
        f = self.pick(self.floats)
        out = [f"if {f} > 0:"] + ["    " + b for b in body]
        if self.chance(0.5):
            out += ["else:"] + ["    " + b for b in self.pure_in_branch()]
        return out

    def pure_in_branch(self):
        # an else branch must not define new names (a later block may use them only when both define them)
        a = self.pick(self.created) if self.created else None
        return [f"{a} = {a} * 0.5 + 0.1"] if a else ["pass"]

    def views(self):
        a, lines = self.target()
        spec = self.pick(
            [
                ("{}[1:]", (3,)),
                ("{}[:2]", (2,)),
                ("{}[::2]", (2,)),
                ("{}[1::2]", (2,)),
                ("{}[::-1]", (4,)),
                ("{}[...]", (4,)),
                ("{}[:]", (4,)),
                ("{}.reshape(2, 2)", (2, 2)),
                ("{}.reshape(2, 2).T", (2, 2)),
                ("{}[None]", (1, 4)),
                ("{}.ravel()", (4,)),
                ("np.reshape({}, (2, 2))", (2, 2)),
                ("{}[1:][::2]", (2,)),
                ("head({})", (2,)),
                ("np.split({}, 2)[1]", (2,)),
                ("{}.flatten()", (4,)),
                ("{}.copy()[1:]", (3,)),
            ]
        )
        if self.chance(0.4):  # written without a name: a[1:] *= ..., a.reshape(2, 2)[0, 1] = ...
            view = spec[0].format(a)
            if not view.endswith("]"):
                view += "[...]"  # a call or attribute is not a target; its [...] is
            return lines + self.maybe_wrap(self.write(view, spec[1]))
        v = self.fresh("v")
        lines.append(f"{v} = {spec[0].format(a)}")
        if spec[1] == (2, 2) and self.chance(0.3):
            return lines + self.maybe_wrap([f"for row in {v}:", f"    row += {self.scalar()}"])
        return lines + self.maybe_wrap(self.write(v, spec[1]))

    def inplace(self):
        a, lines = self.target()
        r = self.rng.random()
        if r < 0.35:
            body = self.write(a, (4,))
        elif r < 0.5:
            b = self.pick(self.arrays)
            body = [f"np.{self.pick(['multiply', 'add', 'subtract'])}({a}, np.sin({b}), out={a})"]
        elif r < 0.7:
            i, j = sorted(int(k) for k in self.rng.choice(5, 2, replace=False))
            b = self.pick(self.arrays)
            body = [f"{a}[{i}:{j}] {self.pick(['+=', '*=', '-='])} {b}[{i}:{j}] * {self.pick(self.floats)}"]
        else:
            b, f = self.pick(self.arrays), self.pick(self.floats)
            return lines + [
                f"for i in range({int(self.rng.integers(1, 5))}):",
                f"    {a}[i] = {a}[i - 1] * 0.5 + {b}[i] * {f}",
            ]
        return lines + self.maybe_wrap(body)

    def alias(self):
        a, lines = self.target()
        b = self.fresh("a")
        r = self.rng.random()
        if r < 0.4:
            lines.append(f"{b} = {a}")
            self.new_array(b)
            return lines + self.maybe_wrap(self.write(self.pick([a, b]), (4,)))
        if r < 0.55:
            lines += [f"{b} = {a}", f"{a} = {a} * 2.0"]
            self.new_array(b)
            return lines + self.write(b, (4,))
        if r < 0.7:
            items = self.fresh("items")
            return (
                lines
                + [f"{items} = [{a}, {self.pick(self.arrays)}]"]
                + self.maybe_wrap(self.write(f"{items}[0]", (4,)))
            )
        if r < 0.8:
            return lines + self.maybe_wrap([f"scale({a}, {self.pick(self.floats)})"])
        if r < 0.88:  # a helper's new result, written into, its argument still read (and rebound in loops)
            if self.chance(0.5):
                return lines + self.maybe_wrap([f"{a} = grow({a}, {self.pick(self.floats)})"] + self.write(a, (4,)))
            lines.append(f"{b} = grow({a}, {self.pick(self.floats)})")
            self.new_array(b)
            return lines + self.maybe_wrap(self.write(self.pick([a, b]), (4,)))
        if r < 0.94:  # a helper's tuple of new results, unpacked, one of them written into
            c = self.fresh("a")
            lines.append(f"{b}, {c} = both({a}, {self.pick(self.arrays)})")
            self.new_array(b)
            self.new_array(c)
            return lines + self.maybe_wrap(self.write(self.pick([b, c]), (4,)))
        d = self.fresh("d")
        return lines + [f"{d} = {{'k': {a}}}"] + self.maybe_wrap(self.write(f"{d}['k']", (4,)))

    def tuple_(self):
        r = self.rng.random()
        if r < 0.5:  # floats: a new one swapped with s or another float
            name = self.fresh("f")
            lines = [f"{name} = np.sum({self.pick(self.arrays)}) * 0.1 + {self.pick(self.floats)}"]
            other = self.pick(self.floats)
            self.floats.append(name)
            return lines + self.swap_block(*self.rng.permutation([name, other]).tolist(), arrays=False)
        lines = []
        for _ in range(max(0, 2 - len(self.created))):
            lines += self.pure_array()
        p, q = self.rng.choice(self.created, 2, replace=False)
        return lines + self.swap_block(str(p), str(q), arrays=True)

    def pure_array(self):
        name = self.fresh("a")
        line = f"{name} = {self.arr()}"
        self.new_array(name)
        return [line]

    def swap_block(self, p, q, arrays):
        r3 = self.pick(self.created if arrays else self.floats)
        body = [
            self.pick(
                [
                    f"{p}, {q} = {q}, {p}",
                    f"{p}, {q} = {q}, {p}",
                    f"{p}, {q} = {p} + {q}, {p}",
                    f"{p}, {q} = pair({p}, {q})",
                    f"{q}, {p} = {p} * 0.5, {q}",
                    f"{p}, {q}, {r3} = {q}, {r3}, {p}" if r3 not in (p, q) else f"{q}, {p} = {p}, {q}",
                ]
            )
        ]
        if arrays and self.chance(0.4):
            body.append(self.pick([f"{p} *= 1.5", f"{q} += 0.25", f"{p}[0] = {q}[1]"]))
        r = self.rng.random()
        if r < 0.45:
            return [f"for _ in range({int(self.rng.integers(1, 5))}):"] + ["    " + b for b in body]
        if r < 0.8:
            out = [f"if {self.pick(self.floats)} > 0:"] + ["    " + b for b in body]
            if self.chance(0.5):
                out += ["else:", f"    {q}, {p} = {p}, {q} * 2.0"]
            return out
        return body

    def returns(self):
        if self.chance(0.4) or not (self.created or len(self.floats) > 1):  # y = s, then y rebound, return y
            name = self.fresh("f")
            self.floats.append(name)
            self.ret = name
            upd = self.pick([f"{name} = {name} * s", f"{name} *= s", f"{name} = {name} + s * s"])
            k = int(self.rng.integers(1, 4))
            return [f"{name} = s", f"for i in range({k}):", f"    {upd}"] + self.pick(
                [[], ["if s > 0:", f"    {name} = {name} * {name}"], ["if s < 0:", f"    {name} = -{name}"]]
            )
        name = self.pick(self.created + self.floats[1:])
        f = self.pick(self.floats)
        is_float = name in self.floats
        self.ret = name
        upd = self.pick(
            [f"{name} = {name} * {f}", f"{name} = {name} + {f} * {f}", f"{name} *= 0.9", f"{name} = -{name}"]
        )
        r = self.rng.random()
        if r < 0.35:
            return [f"for i in range({int(self.rng.integers(1, 4))}):", f"    {upd}"]
        if r < 0.6:
            return [f"if {f} > 0:", f"    {upd}", f"if {f} < 1:", f"    {name} = {name} + 1.0"]
        if r < 0.75:
            cond = f"abs({name}) < 3.0" if is_float else f"np.sum({name} * {name}) < 9.0"
            return ["n = 0", f"while {cond} and n < 3:", f"    {name} = {name} * 1.5 + 0.1", "    n += 1"]
        total = f"{name}" if is_float else f"np.sum({name})"
        return [f"if {f} > 0.5:", f"    return {total} * {f}"]

    def folds(self):
        src = self.pick(self.arrays)
        name = self.fresh("a")
        ident = self.pick(
            [f"{src} * 1.0", f"{src} / 1.0", f"{src} ** 1", f"{src} + 0.0", f"+{src}", f"1.0 * {src}", f"{src} - 0.0"]
        )
        lines = [f"{name} = {ident}"]
        self.new_array(name)
        return lines + self.maybe_wrap(self.write(name, (4,)))

    def fancy(self):
        a, lines = self.target()
        b = self.pick(self.arrays)
        idx = self.pick(["[0, 0, 1]", "[2, 2]", "[3, 1, 3]", "[0, 1, 0, 1]"])
        n = idx.count(",") + 1
        r = self.rng.random()
        if r < 0.4:
            body = [f"{a}[{idx}] {self.pick(['+=', '*=', '-='])} {b}[:{n}]"]
        elif r < 0.7:
            body = [f"{a}[{idx}] = {b}[-{n}:] * {self.pick(self.floats)}"]
        else:
            body = [f"{a}[{a} > 0] *= 2.0"]
        return lines + self.maybe_wrap(body)

    def statement(self, pure_chance=0.35):
        if self.chance(pure_chance):
            return self.pure()
        return getattr(self, "tuple_" if self.cls == "tuple" else self.cls)()


def program(cls, seed):
    """(blocks, returned name or None): a deterministic random program of class ``cls``."""
    g = Gen(cls, seed)
    blocks = [g.statement() for _ in range(int(g.rng.integers(1, 5)))]
    blocks.append(g.statement(pure_chance=0.0))  # at least one statement of the class
    if cls == "returns" and g.ret is None:
        blocks.append(g.returns())
    return blocks, g.ret


def render(blocks, ret=None):
    """The source of ``f(x, y, s)``: the blocks, then a return reading every array and float they made
    (or only ``ret``, a name rebound in loops and branches)."""
    body = [line for block in blocks for line in block]
    text = "\n".join("    " + line for line in body)
    if ret is not None:
        return f"def f(x, y, s):\n{text}\n    return {ret if ret.startswith('f') else f'np.sum({ret} * {ret})'}\n"
    defined = []
    for line in body:
        head = line.strip().split(" = ")[0] if " = " in line else ""
        for name in head.replace(" ", "").split(","):
            if name.isidentifier() and name[0] in "af" and name not in defined and name not in ("for",):
                defined.append(name)
    arrays = [n for n in defined if n.startswith("a")]
    floats = [n for n in defined if n.startswith("f")]
    # distinct weights: a swap of two names changes the value
    terms = [f"np.sum({a} * {a})" for a in arrays] + [f"{f} * {f}" for f in floats[-2:]] + ["np.sum(x * y)", "s * s"]
    terms = [t if k == 0 else f"{t} * {k + 1}.0" for k, t in enumerate(terms)]
    return f"def f(x, y, s):\n{text}\n    return {' + '.join(terms)}\n"


def load(source):
    global _tmp
    if _tmp is None:
        _tmp = Path(tempfile.mkdtemp(prefix="s2sad_adv_"))
    path = _tmp / f"adv_{next(_counter)}.py"
    path.write_text(PRELUDE + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def arguments(cls, seed):
    rng = np.random.default_rng(zlib.crc32(f"args:{cls}:{seed}".encode()))
    return [rng.normal(size=4), rng.normal(size=4), float(rng.uniform(0.2, 1.2)) * rng.choice([-1.0, 1.0])]


def runs(source, args):
    """Does the program run on these arguments and give a finite, moderate value?"""
    import copy

    try:
        with np.errstate(all="raise"):
            value = load(source)(*copy.deepcopy(args))
    except Exception:  # noqa: BLE001 -- a shrunk program that no longer runs is simply not a candidate
        return False
    return bool(np.all(np.isfinite(value))) and float(np.max(np.abs(value))) < 1e6


def run_one(cls, seed, hessian=False, modes=("value_and_grad", "jvp", "vjp", "hessian")):
    """(source, symptoms) of program (cls, seed); symptoms is None when the program itself does not run."""
    source = render(*program(cls, seed))
    args = arguments(cls, seed)
    if not runs(source, args):
        return source, None
    f = load(source)
    return source, check(f, args, hessian=hessian, rtol=1e-4, atol=1e-5, modes=modes)


def kind(symptom):
    """The kind of a symptom line: wrong value / wrong derivative / mutated input / crash / unlocated refusal."""
    text = symptom.split(": ", 1)[1]
    for key, label in [
        ("wrong value", "wrong value"),
        ("wrong", "wrong derivative"),
        ("mutated", "mutated caller data"),
        ("shares memory", "result aliases caller data"),
        ("crash", "crash"),
        ("refused without", "unlocated refusal"),
    ]:
        if text.startswith(key):
            return label
    return "other"


def shrink(cls, seed, symptoms_kind):
    """Drop blocks (then lines inside loops / branches are kept whole) while a symptom of the same kind remains."""
    blocks, ret = program(cls, seed)
    args = arguments(cls, seed)

    def still_fails(bs):
        source = render(bs, ret)
        if not runs(source, args):
            return False
        found = check(load(source), args, hessian=False, rtol=1e-4, atol=1e-5)
        return any(kind(s) == symptoms_kind for s in found)

    changed = True
    while changed:
        changed = False
        for k in range(len(blocks)):
            trial = blocks[:k] + blocks[k + 1 :]
            if trial and still_fails(trial):
                blocks = trial
                changed = True
                break
    return render(blocks, ret), args


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="programs per class")
    parser.add_argument("--classes", default=",".join(CLASSES))
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--examples", type=int, default=3, help="shrunk reproducers per class")
    parser.add_argument("--hessian", action="store_true")
    opts = parser.parse_args()
    for cls in opts.classes.split(","):
        failures, skipped, kinds = [], 0, {}
        for seed in range(opts.start, opts.start + opts.count):
            source, symptoms = run_one(cls, seed, hessian=opts.hessian)
            if symptoms is None:
                skipped += 1
            elif symptoms:
                failures.append((seed, source, symptoms))
                for k in {kind(s) for s in symptoms}:
                    kinds[k] = kinds.get(k, 0) + 1
        ran = opts.count - skipped
        print(f"== {cls}: {len(failures)} failing of {ran} programs ({skipped} did not run); by kind: {kinds}")
        shown = []
        for seed, source, symptoms in sorted(failures, key=lambda t: len(t[1])):
            k = kind(symptoms[0])
            small, args = shrink(cls, seed, k)
            if small in [s for s, _ in shown]:
                continue
            shown.append((small, k))
            print(f"-- seed {seed} ({k}: {symptoms[0][:150]}); args x={args[0]}, y={args[1]}, s={args[2]}")
            print(small)
            if len(shown) >= opts.examples:
                break


if __name__ == "__main__":
    main()
