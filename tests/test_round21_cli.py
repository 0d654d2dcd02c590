"""Round 21: the command line's module uses f's own default objects (not its default expressions run
again), and the blind tester's other findings (a logging method's ``super()``, jvp of an f-string over
``enumerate(x, start=1)``'s index, ``itertools.pairwise``)."""

import importlib.util
import itertools
import logging
import sys
from pathlib import Path

import numpy as np
import pytest

import s2sad
from tests.fd import numeric_grad
from tests.test_cli import run

ROOT = Path(__file__).resolve().parent.parent

MODEL = """\
from dataclasses import dataclass

import numpy as np

rng = np.random.default_rng(0)
SCALE = 2.0


@dataclass
class Cfg:
    alpha: float = 0.5


def loss(x, w=rng.normal(size=3), s=SCALE, n=2, tag="t", *, cfg=Cfg(), k=(1, 2.5)):
    return np.sum(np.tanh(x * w) ** n) * s * cfg.alpha * k[1]
"""

MODES = ["grad", "value_and_grad", "vjp", "jvp", "hessian", "jacobian"]


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "m21.py").write_text(MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("m21", None)
    yield tmp_path
    sys.modules.pop("m21", None)


@pytest.mark.parametrize("mode", MODES)
def test_the_written_module_uses_the_default_objects_of_f(project, mode):
    run(["m21.py:loss", "--mode", mode, "-o", "d21.py"], project, check_rc=0)
    text = (project / "d21.py").read_text()
    assert "rng.normal" not in text and "Cfg()" not in text
    assert "n=2" in text and "tag='t'" in text and "k=(1, 2.5)" in text and "s=2.0" in text
    m21 = importlib.import_module("m21")
    d = load(project / "d21.py", "d21")
    fn = next(
        v
        for k, v in vars(d).items()
        if callable(v) and not k.startswith("_") and getattr(v, "__module__", None) == "d21"
    )
    x = np.array([0.3, -0.2, 0.5])
    x0 = x.copy()
    w = m21.loss.__defaults__[0]
    m21.loss.__kwdefaults__["cfg"].alpha = 0.25  # a later change of the default object is seen
    g = numeric_grad(m21.loss, [x], 0)
    if mode == "grad":
        assert np.allclose(fn(x), g, atol=1e-6)
    elif mode == "value_and_grad":
        v, gv = fn(x)
        assert np.isclose(v, m21.loss(x)) and np.allclose(gv, g, atol=1e-6)
    elif mode == "vjp":
        out = fn(x, bout=1.0)
        gv = out[-1] if isinstance(out, tuple) else out
        assert np.allclose(gv, g, atol=1e-6)
    elif mode == "jvp":
        t = np.array([1.0, 2.0, -1.0])
        out = fn(x, t)
        assert np.isclose(out[-1] if isinstance(out, tuple) else out, g @ t, atol=1e-6)
    elif mode == "jacobian":
        assert np.allclose(fn(x), g, atol=1e-6)
    else:
        h = numeric_grad(lambda y: s2sad.grad(m21.loss)(y), [x], 0, eps=1e-5)
        assert np.allclose(fn(x), h, atol=1e-5)
    assert np.allclose(s2sad.grad(m21.loss)(x), g, atol=1e-6)
    assert m21.loss.__defaults__[0] is w and np.array_equal(x, x0)


def test_standalone_refuses_a_default_it_cannot_copy(project):
    result = run(["m21.py:loss", "--standalone"], project, check_rc=2)
    assert "default" in result.stderr and "'w'" in result.stderr and "m21.py:14" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_standalone_copies_literal_defaults(tmp_path):
    (tmp_path / "lit.py").write_text(
        "import numpy as np\nSCALE = 3.0\n\ndef f(x, s=SCALE, n=2):\n    return np.sum(x ** n) * s\n"
    )
    run(["lit.py:f", "--standalone", "-o", "dlit.py"], tmp_path, check_rc=0)
    text = (tmp_path / "dlit.py").read_text()
    assert "def df_dx(x, s=3.0, n=2, bout=1.0):" in text
    d = load(tmp_path / "dlit.py", "dlit")
    x = np.array([0.5, -1.0])
    assert np.allclose(d.df_dx(x), 2 * x * 3.0)


CALLEES = """\
import numpy as np

rng = np.random.default_rng(3)
A = np.array([1.0, 2.0, -1.0])


def layer(h, s=rng.normal(size=3)):
    return np.tanh(h * s)


def loss(x):
    return np.sum(layer(x) ** 2)


class Model:
    def loss(self, x, w=rng.normal(size=3)):
        return np.sum(np.sin(x * w))


model = Model()


def make(a=A * 2):
    def inner(x, a=a):
        return np.sum(np.tanh(x * a))

    return inner


f_local = make()
"""


@pytest.mark.parametrize(
    "target, spelled, mode",
    [
        ("loss", "s=m22.layer.__defaults__[0]", "grad"),
        ("loss", "s=m22.layer.__defaults__[0]", "jvp"),
        ("model.loss", "w=m22.model.loss.__defaults__[0]", "grad"),
        ("f_local", "a=m22.f_local.__defaults__[0]", "hessian"),
    ],
)
def test_defaults_of_callees_methods_and_local_functions(tmp_path, monkeypatch, target, spelled, mode):
    (tmp_path / "m22.py").write_text(CALLEES)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("m22", None)
    run([f"m22.py:{target}", "--mode", mode, "-o", "d22.py"], tmp_path, check_rc=0)
    text = (tmp_path / "d22.py").read_text()
    assert spelled in text and "rng.normal" not in text
    m22 = importlib.import_module("m22")
    d = load(tmp_path / "d22.py", "d22")
    fn = next(
        v
        for k, v in vars(d).items()
        if callable(v) and not k.startswith("_") and getattr(v, "__module__", None) == "d22"
    )
    f = m22.model.loss if target == "model.loss" else getattr(m22, target)
    x = np.array([0.3, -0.2, 0.5])
    expected = {"grad": s2sad.grad, "jvp": s2sad.jvp, "hessian": s2sad.hessian}[mode](f)
    args = (x, np.ones(3)) if mode == "jvp" else (x,)
    assert np.allclose(fn(*args), expected(*args))
    if mode == "grad":
        assert np.allclose(fn(x), numeric_grad(f, [x], 0), atol=1e-6)
    sys.modules.pop("m22", None)


# ---- a logging method calling super().forward: the quiet copy knows the class ----------------------
log = logging.getLogger("s2sad.tests.round21")


class Dense:
    def __init__(self, name):
        self.name = name

    def forward(self, params, x):
        return x @ params[self.name]


class Residual(Dense):
    def forward(self, params, x):
        log.debug("residual %s", self.name)
        return super().forward(params, x) + x


class Net:
    def __init__(self):
        self.blocks = {"a": Dense("a"), "r": Residual("r")}

    def forward(self, params, x, t):
        for name, blk in self.blocks.items():
            x = blk.forward(params, x)
        return x / t

    def loss(self, params, x, t):
        return np.sum(self.forward(params, x, t) ** 2)


def check_all_modes(f, args, i):
    """grad, value_and_grad, vjp, jvp, hessian (a scalar f) against finite differences; inputs unchanged."""
    before = [np.array(a, copy=True) for a in args]
    g = numeric_grad(f, list(args), i)
    assert np.allclose(s2sad.grad(f, wrt=i)(*args), g, atol=1e-5)
    v, gv = s2sad.value_and_grad(f, wrt=i)(*args)
    assert np.isclose(v, f(*args)) and np.allclose(gv, g, atol=1e-5)
    out = s2sad.vjp(f, wrt=i)(*args, 1.0)
    assert np.allclose(out[-1] if isinstance(out, tuple) else out, g, atol=1e-5)
    t = np.linspace(0.5, -0.5, np.size(args[i])).reshape(np.shape(args[i]))
    out = s2sad.jvp(f, wrt=i)(*args, t)
    assert np.isclose(out[-1] if isinstance(out, tuple) else out, np.sum(g * t), atol=1e-5)
    h = numeric_grad(lambda *a: s2sad.grad(f, wrt=i)(*a), list(args), i, eps=1e-5)
    assert np.allclose(s2sad.hessian(f, wrt=i)(*args), h, atol=1e-4)
    for a, b in zip(args, before):
        assert np.array_equal(np.asarray(a), b)


RNG = np.random.default_rng(1)
PARAMS = {"a": RNG.normal(size=(3, 3)), "r": RNG.normal(size=(3, 3))}
X = RNG.normal(size=3)
NET = Net()


def net_loss_of_t(t):
    return NET.loss(PARAMS, X, t)


def test_a_logging_method_calling_super_forward():
    g = numeric_grad(net_loss_of_t, [0.7], 0)
    assert np.allclose(s2sad.grad(NET.loss, wrt="t")(PARAMS, X, 0.7), g, atol=1e-5)
    check_all_modes(net_loss_of_t, [0.7], 0)


# ---- jvp: an f-string over enumerate(x, start=1)'s index ---------------------------------------------
def keyed(x):
    d = {}
    for i, v in enumerate(x, start=1):
        d[f"k{i}"] = v * 2
    return d["k1"] * d["k2"]


def test_an_fstring_over_enumerates_index_with_start():
    check_all_modes(keyed, [np.array([0.3, -1.2, 0.5])], 0)


# ---- itertools.pairwise -------------------------------------------------------------------------
def pairs_loop(x):
    s = 0.0
    for a, b in itertools.pairwise(x):
        s = s + (b - a) ** 2 * a
    return s


def pairs_comprehension(x):
    return sum([a * np.sin(b) for a, b in itertools.pairwise(x)])


def pairs_list(x):
    xs = [x[0], x[1] * 2, x[2]]
    return sum(a * b for a, b in itertools.pairwise(xs))


@pytest.mark.parametrize("f", [pairs_loop, pairs_comprehension, pairs_list])
def test_pairwise(f):
    check_all_modes(f, [np.array([0.3, -1.2, 0.5, 2.0])], 0)
