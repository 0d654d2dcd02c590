"""Issue 13: methods and objects as people write them -- objects held by closures, ``super()`` in
methods of global objects and of objects built inside f, optional arguments given a literal None, and
items of arrays appended to lists."""

import numpy as np
import pytest

import s2sad
from s2sad.errors import DifferentiationError
from tests.fd import numeric_grad
from tests.test_round21_cli import PARAMS, Dense, Net, Residual, X, check_all_modes


# ---- 1. a model object captured by a closure ----------------------------------------------------------
def test_a_closure_over_a_local_model_object_def():
    net = Net()
    before = {k: v.copy() for k, v in PARAMS.items()}

    def by_t(t):
        return net.loss(PARAMS, X, t)

    check_all_modes(by_t, [0.7], 0)
    assert all(np.array_equal(PARAMS[k], before[k]) for k in PARAMS)


def test_a_lambda_over_a_local_model_object():
    net = Net()
    f = lambda t: net.loss(PARAMS, X, t)  # noqa: E731
    check_all_modes(f, [0.7], 0)


def test_a_closure_over_a_local_model_object_wrt_the_input():
    net = Net()

    def by_x(x):
        return net.loss(PARAMS, x, 0.7)

    check_all_modes(by_x, [X.copy()], 0)


def test_a_closure_over_a_local_model_object_seen_rebound():
    net = Net()

    def by_t(t):
        return net.loss(PARAMS, X, t)

    g = s2sad.grad(by_t)
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)
    net.blocks = {"r": Residual("r"), "a": Dense("a")}  # another order of the layers
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)
    net.blocks = {"a": Dense("a")}
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)
    net = Net()  # the cell rebound  # noqa: F841
    net.blocks = {"r": Residual("r")}
    assert np.allclose(g(0.7), numeric_grad(by_t, [0.7], 0), atol=1e-5)


def test_a_closure_over_a_local_object_hiding_a_method_is_refused():
    net = Net()

    def by_t(t):
        return net.loss(PARAMS, X, t)

    g = s2sad.grad(by_t)
    g(0.7)
    net.blocks["a"].forward = lambda params, x: x
    with pytest.raises(DifferentiationError, match="hides the method"):
        g(0.7)


def test_a_closure_over_a_local_callable_instance_and_a_helper():
    net = Net()

    def helper(params, x, t, model):
        return model.loss(params, x, t)

    def by_t(t):
        return helper(PARAMS, X, t, net) * t

    check_all_modes(by_t, [0.7], 0)


# ---- 2. super().forward(x, **kw) in a method called directly on a global object ------------------------
class Linear:
    def __init__(self, W):
        self.W = W

    def __call__(self, x, **kw):
        return self.forward(x, **kw)

    def forward(self, x, bias=0.0):
        return self.W @ x + bias


class Scaled(Linear):
    def forward(self, x, **kw):
        return 2.0 * super().forward(x, **kw)


class Net2:
    def __init__(self):
        self.layers = [Linear(np.eye(3) * 0.5), Scaled(np.ones((3, 3)) * 0.3)]
        self.last = Scaled(np.eye(3))

    def forward(self, x):
        for layer in self.layers:
            x = np.tanh(layer(x, bias=0.1))
        return self.last.forward(x, bias=0.2)

    def loss(self, x):
        return np.sum(self.forward(x) ** 2)


S1 = Scaled(np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3], [1.0, 0.0, -1.0]]))
NET2 = Net2()
X3 = np.array([0.3, -0.2, 0.5])


def super_direct(x):
    return np.sum(np.tanh(S1.forward(x, bias=3.0)) ** 2)


def super_through_call(x):
    return np.sum(np.tanh(S1(x, bias=3.0)) ** 2)


def subclass_in_a_net(x):
    return NET2.loss(x)


def net_as_argument(x, net):
    return net.loss(x) * np.sum(x)


@pytest.mark.parametrize("f", [super_direct, super_through_call, subclass_in_a_net])
def test_super_with_keywords_in_a_method_of_a_global_object(f):
    W = S1.W.copy()
    check_all_modes(f, [X3.copy()], 0)
    assert np.array_equal(S1.W, W)


def test_super_with_keywords_in_a_net_given_as_an_argument():
    check_all_modes(net_as_argument, [X3.copy(), NET2], 0)


def test_grad_of_the_bound_method_calling_super():
    f = lambda x: np.sum(S1.forward(x, bias=1.0) ** 2)  # noqa: E731
    g = s2sad.grad(S1.forward, wrt=0)
    assert g is not None
    check_all_modes(f, [X3.copy()], 0)


# ---- 3. objects built inside f ------------------------------------------------------------------
class Base:
    def act(self, x):
        return np.tanh(x)


class Child(Base):
    def act(self, x):
        return 2.0 * super().act(x) + x


class Dense3:
    def __init__(self, W, b=0.0):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


class Dense3Init(Dense3):
    """Its own __init__ does more than store: the object may be built from constants only."""

    def __init__(self, W):
        super().__init__(np.asarray(W) * 1.0)


class Module:
    def __init__(self):
        pass


class Torchy(Module):
    def __init__(self, W):
        super().__init__()
        self.W = W

    def forward(self, x):
        return np.sin(self.W @ x)

    def __call__(self, x):
        return self.forward(x)


W0 = np.array([[1.0, 0.5, 0.0], [0.2, -1.0, 0.3]])


def child_act(x):
    return np.sum(Child().act(x) * x)


def child_named(x):
    c = Child()
    return np.sum(c.act(x) ** 2)


def dense_constant(x):
    layer = Dense3(W0)
    return np.sum(layer(x) ** 2)


def dense_of_x(x):
    layer = Dense3(np.outer(x[:2], x), b=x[0])
    return np.sum(layer(x) ** 2)


def dense_attribute_read(x):
    layer = Dense3(x * 2.0, 1.0)
    return np.sum(layer.W**2) + layer.b


def dense_in_a_loop(x):
    h = x
    for i in range(2):
        layer = Dense3(np.eye(3) * (x[i] + 1.0))
        h = layer(h)
    return np.sum(h**2)


def dense_non_simple_init_constant(x):
    layer = Dense3Init(W0)
    return np.sum(layer(x) ** 2)


def torch_style(x):
    net = Torchy(np.outer(x[:2], x[1:]))
    return np.sum(net(x[:2]) ** 2)


def helper_calls_it(layer, x):
    return layer(x)


def built_passed_to_a_helper(x):
    layer = Dense3(W0 * x[0])
    return np.sum(helper_calls_it(layer, x) ** 2)


BUILT = [
    child_act,
    child_named,
    dense_constant,
    dense_of_x,
    dense_attribute_read,
    dense_in_a_loop,
    dense_non_simple_init_constant,
    torch_style,
    built_passed_to_a_helper,
]


@pytest.mark.parametrize("f", BUILT)
def test_objects_built_inside_f(f):
    W = W0.copy()
    check_all_modes(f, [X3.copy()], 0)
    assert np.array_equal(W0, W)


def dense_non_simple_init_of_x(x):
    layer = Dense3Init(np.outer(x[:2], x))
    return np.sum(layer(x) ** 2)


@pytest.mark.parametrize("mode", ["grad", "jvp", "hessian"])
def test_an_object_whose_init_computes_built_from_x_is_refused(mode):
    args = (X3, X3) if mode == "jvp" else (X3,)
    with pytest.raises(DifferentiationError, match=r"test_objects_closures.py:\d+:\d+: `Dense3Init\(...\)` builds"):
        {"grad": s2sad.grad, "jvp": s2sad.jvp, "hessian": s2sad.hessian}[mode](dense_non_simple_init_of_x)(*args)


class Hides:
    def __init__(self, w):
        self.w = w
        self.act = np.sin

    def act(self, x):  # noqa: F811 -- hidden by the instance attribute
        return np.tanh(x)


def hides(x):
    h = Hides(1.0)
    return np.sum(h.act(x))


def test_an_object_built_in_f_whose_init_hides_the_method_is_refused():
    with pytest.raises(DifferentiationError, match="hide the method"):
        s2sad.grad(hides)(X3)


def exact_or_refused_stale(g, f, x):
    """``g`` (a gradient of ``f`` made earlier) gives f's gradient now, or refuses as stale; a new
    ``grad(f)`` is then exact."""
    expected = numeric_grad(f, [x], 0)
    try:
        got = g(x)
    except DifferentiationError as e:
        assert "after grad(" in str(e) or "builds an object" in str(e), str(e)
        try:
            got = s2sad.grad(f)(x)
        except DifferentiationError as e2:
            assert "builds an object" in str(e2)
            return
    assert np.allclose(got, expected, atol=1e-6)


def test_rebinding_the_class_or_its_methods_after_grad_is_seen():
    import sys

    mod = sys.modules[__name__]
    g = s2sad.grad(dense_of_x)
    assert np.allclose(g(X3), numeric_grad(dense_of_x, [X3], 0), atol=1e-6)
    old_call = Dense3.__call__
    try:
        Dense3.__call__ = lambda self, x: np.sin(self.W @ x + self.b)
        exact_or_refused_stale(g, dense_of_x, X3)
    finally:
        Dense3.__call__ = old_call
    exact_or_refused_stale(s2sad.grad(dense_of_x), dense_of_x, X3)
    g = s2sad.grad(dense_of_x)
    old_init = Dense3.__init__

    def init(self, W, b=0.0):
        self.W = W * 2.0
        self.b = b

    try:
        Dense3.__init__ = init
        exact_or_refused_stale(g, dense_of_x, X3)
    finally:
        Dense3.__init__ = old_init
    g = s2sad.grad(dense_of_x)
    g(X3)

    class Other(Dense3):
        def __call__(self, x):
            return np.cos(self.W @ x) * self.b

    try:
        mod.Dense3 = Other
        exact_or_refused_stale(g, dense_of_x, X3)
    finally:
        mod.Dense3 = Dense3
    exact_or_refused_stale(s2sad.grad(dense_of_x), dense_of_x, X3)


def test_the_objects_method_replaced_on_the_class_of_a_closure_object():
    net = Net()

    def by_t(t):
        return net.loss(PARAMS, X, t)

    g = s2sad.grad(by_t)
    g(0.7)
    old = Residual.forward
    try:
        Residual.forward = lambda self, params, x: np.sin(x @ params[self.name])
        exact_or_refused_stale(g, by_t, 0.7)
    finally:
        Residual.forward = old


# ---- 4. an optional argument given a literal None (or a NumPy function) at the call --------------------
def opt(x, act=None):
    if act is not None:
        x = act(x)
    return x * 2.0


def opt_callable(x, act=None):
    return act(x) if callable(act) else x


def opt_truthy(x, act=None):
    if act:
        x = act(x)
    return np.sin(x)


def none_literal(x):
    return np.sum(opt(x, None) ** 2)


def none_keyword(x):
    return np.sum(opt(x, act=None) * x)


def none_default(x):
    return np.sum(opt(x) * opt_callable(x))


def numpy_given(x):
    return np.sum(opt(x, np.tanh) + opt_callable(x, act=np.exp) + opt_truthy(x, np.sin))


def none_local(x):
    act = None
    return np.sum(opt(x, act) + opt_truthy(x, act=act))


def mixed(x):
    return np.sum(opt(x, None) * opt(x, np.sin) + opt_callable(x, None))


@pytest.mark.parametrize("f", [none_literal, none_keyword, none_default, numpy_given, none_local, mixed])
def test_an_optional_callable_given_none_or_a_numpy_function(f):
    check_all_modes(f, [X3.copy()], 0)


def test_a_closure_passing_on_none_or_a_function_it_holds():
    for act in (None, np.tanh):

        def f(x):
            return np.sum(opt(x, act) ** 2)  # noqa: B023 -- read while act is this one

        check_all_modes(f, [X3.copy()], 0)
        check_all_modes(lambda x: np.sum(opt_callable(x, act)), [X3.copy()], 0)  # noqa: B023


def test_rebinding_what_was_given_after_grad_is_seen():
    def f(x):
        return np.sum(opt(x, act) ** 2)

    act = None
    g = s2sad.grad(f)
    assert np.allclose(g(X3), numeric_grad(f, [X3], 0), atol=1e-6)
    act = np.sin  # noqa: F841 -- the closure cell changes
    exact_or_refused_stale(g, f, X3)
    old = opt.__defaults__
    g = s2sad.grad(none_default)
    assert np.allclose(g(X3), numeric_grad(none_default, [X3], 0), atol=1e-6)
    try:
        opt.__defaults__ = (np.cos,)
        exact_or_refused_stale(g, none_default, X3)
    finally:
        opt.__defaults__ = old


# ---- 5. items of a numeric array appended to a list are numbers (copies) -----------------------------
def float32_items(x):
    out = np.tanh(x.astype(np.float32))
    lst = []
    for i in range(3):
        lst.append(out[i])
        out[i] = out[i] * 2
    return sum(lst) + np.sum(out)


def items_then_written(x):
    out = np.zeros(3, dtype=np.float32)
    vals = []
    for i in range(3):
        out[i] = x[i] * 2
        vals.append(out[i])
    out[0] = 5.0
    return sum(vals) * np.sum(out)


def float64_items(x):
    out = np.sin(x)
    vals = []
    for i in range(3):
        vals.append(out[i])
        out[i] = 0.0
    return vals[0] * vals[1] + vals[2] + np.sum(out * x)


def rows_appended_then_written(x):
    out = np.outer(x, x)
    rows = []
    for i in range(2):
        rows.append(out[i])
        out[i] = 0.0
    return np.sum(rows[0] * rows[1]) + np.sum(out)


def rows_appended(x):
    out = np.outer(x, x)
    rows = []
    for i in range(2):
        rows.append(out[i])
    return np.sum(rows[0] * rows[1])


@pytest.mark.parametrize("f", [float64_items, rows_appended])
def test_items_of_an_array_appended_to_a_list(f):
    check_all_modes(f, [X3.copy()], 0)


def test_items_of_a_float32_array_appended_to_a_list():
    x = X3.copy()
    t = np.tanh(x.astype(np.float32)).astype(float)
    g = 3 * (1 - t**2)  # d/dx (sum(t) + 2 sum(t))
    assert np.allclose(s2sad.grad(float32_items)(x), g, atol=1e-5)
    assert np.allclose(s2sad.jvp(float32_items)(x, np.ones(3))[1], g.sum(), atol=1e-5)
    assert np.allclose(s2sad.hessian(float32_items)(x), np.diag(-6 * t * (1 - t**2)), atol=1e-5)
    assert np.allclose(s2sad.vjp(float32_items)(x, 2.0), 2 * g, atol=1e-5)
    assert np.array_equal(x, X3)
    a, b, c = x
    s = 5 + 2 * b + 2 * c  # items_then_written = 2 (a + b + c) (5 + 2 b + 2 c)
    g2 = np.array([2 * s, 2 * s + 4 * (a + b + c), 2 * s + 4 * (a + b + c)])
    assert np.allclose(s2sad.grad(items_then_written)(x), g2, atol=1e-4)
    assert np.allclose(s2sad.jvp(items_then_written)(x, np.ones(3))[1], g2.sum(), atol=1e-4)
    h = _hessian_items_then_written()
    assert np.allclose(s2sad.hessian(items_then_written)(x), h, atol=1e-4)


def _hessian_items_then_written():
    # f = 2 (a + b + c) (5 + 2 b + 2 c): d2f = 2 * (u v^T + v u^T) with u = (1, 1, 1), v = (0, 2, 2)
    u, v = np.ones(3), np.array([0.0, 2, 2])
    return 2 * (np.outer(u, v) + np.outer(v, u))


@pytest.mark.parametrize("mode", ["grad", "jvp", "hessian"])
def test_rows_of_an_array_appended_then_written_are_refused_at_the_line(mode):
    d = {"grad": s2sad.grad, "jvp": s2sad.jvp, "hessian": s2sad.hessian}[mode]
    args = (X3, X3) if mode == "jvp" else (X3,)
    with pytest.raises(DifferentiationError, match=r"test_objects_closures.py:\d+:\d+: `out\[i\]` appended to a list"):
        d(rows_appended_then_written)(*args)


class UsesOpt:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(opt(x * self.w, None) + opt(x, np.sin) + opt(x, np.cos))


def loss_of_model(x, m):
    return m.loss(x)


def test_calls_given_none_and_numpy_functions_in_a_typed_method_are_told_apart():
    # (one derivative of opt served all three calls: a wrong number)
    m = UsesOpt(np.array([1.0, 2.0, 3.0]))
    check_all_modes(lambda x: loss_of_model(x, m), [X3.copy()], 0)
    check_all_modes(m.loss, [X3.copy()], 0)
    assert np.allclose(s2sad.grad(loss_of_model)(X3, m), numeric_grad(loss_of_model, [X3, m], 0), atol=1e-6)


# ---- objects built inside f: class constants, methods on self, None fields ----------------------------
class WithConstant:
    scale = 2.0

    def __init__(self, W, b=None):
        self.W = W
        self.b = b

    def pre(self, x):
        return self.W @ x

    def __call__(self, x):
        h = self.scale * self.pre(x)
        if self.b is not None:
            h = h + self.b
        return np.tanh(h)


def class_constant(x):
    d = WithConstant(np.outer(x, x))
    return np.sum(d(x))


def class_constant_and_field(x):
    d = WithConstant(np.outer(x, x), b=x)
    return np.sum(d(x) ** 2)


def two_built_objects(x):
    d = WithConstant(np.eye(3))
    e = WithConstant(d.W * x[0])
    return np.sum(e(x) * d(x))


def built_object_copied(x):
    d = Dense3(np.eye(3) * x[0])
    d2 = d
    return np.sum(d2(x))


@pytest.mark.parametrize("f", [class_constant, class_constant_and_field, two_built_objects, built_object_copied])
def test_objects_built_inside_f_reading_class_constants(f):
    check_all_modes(f, [X3.copy()], 0)


# ---- the command line writes the dataclass twin of a class built in f ----------------------------------
BUILT_MODULE = """\
import numpy as np
class Dense:
    def __init__(self, W):
        self.W = W
    def __call__(self, x):
        return np.tanh(self.W @ x)
class Base:
    def act(self, x):
        return np.tanh(x)
class Child(Base):
    def act(self, x):
        return 2.0 * super().act(x)
def f(x):
    layer = Dense(np.outer(x, x))
    return np.sum(layer(x) ** 2) + np.sum(Child().act(x))
def opt(x, act=None):
    if act is not None:
        x = act(x)
    return x
def g(x):
    return np.sum(opt(x, None) * opt(x, np.tanh))
"""


@pytest.mark.parametrize("target", ["f", "g"])
def test_the_command_line_writes_objects_built_in_f(tmp_path, monkeypatch, target):
    import importlib
    import sys

    from tests.test_cli import run
    from tests.test_round21_cli import load

    (tmp_path / "mb13.py").write_text(BUILT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("mb13", None)
    run([f"mb13.py:{target}", "-o", "d13.py"], tmp_path, check_rc=0)
    mb13 = importlib.import_module("mb13")
    d = load(tmp_path / "d13.py", "d13")
    fn = getattr(d, f"d{target}_dx")
    assert np.allclose(fn(X3), numeric_grad(getattr(mb13, target), [X3], 0), atol=1e-6)
    if target == "f":
        assert "Dense_record = record_twin(Dense)" in (tmp_path / "d13.py").read_text()
        result = run([f"mb13.py:{target}", "--standalone", "-o", "s13.py"], tmp_path, check_rc=2)
        assert "mb13.py:13:1: --standalone cannot copy" in result.stderr
    sys.modules.pop("mb13", None)


def called_where_built(x):
    return np.sum(Dense3(np.outer(x, x), 0.5)(x) ** 2) + np.sum(Child().act(x))


def test_an_object_called_where_it_is_built():
    check_all_modes(called_where_built, [X3.copy()], 0)
    jac = s2sad.jacobian(lambda x: Dense3(np.outer(x, x))(x))(X3)
    fd = np.stack([numeric_grad(lambda x, k=k: Dense3(np.outer(x, x))(x)[k], [X3], 0) for k in range(3)])
    assert np.allclose(jac, fd, atol=1e-6)


def test_a_printing_method_of_an_object_built_in_f_prints_once(capsys):
    class Loud(Dense3):
        def __call__(self, x):
            print("called")
            return np.tanh(self.W @ x)

    def f(x):
        return np.sum(Loud(np.outer(x, x))(x))

    for d in (s2sad.grad, s2sad.hessian, s2sad.jacobian):
        capsys.readouterr()
        d(f)(X3)
        assert capsys.readouterr().out == "called\n", d.__name__


class NetBuilding:
    def __init__(self, W):
        self.W = W
        self.act = Child()

    def forward(self, x):
        layer = Dense3(self.W * x[0])
        return self.act.act(layer(x))

    def loss(self, x):
        return np.sum(self.forward(x) ** 2)


def test_a_method_of_a_typed_object_building_objects():
    net = NetBuilding(np.eye(3) * 0.7)
    check_all_modes(lambda x: loss_of_model(x, net), [X3.copy()], 0)
    check_all_modes(net.loss, [X3.copy()], 0)
    g = s2sad.grad(loss_of_model)
    g(X3, net)
    net.W = np.eye(3) * 0.2
    assert np.allclose(g(X3, net), numeric_grad(loss_of_model, [X3, net], 0), atol=1e-6)
    net.act = Base()
    assert np.allclose(g(X3, net), numeric_grad(loss_of_model, [X3, net], 0), atol=1e-6)
