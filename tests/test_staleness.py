"""The derivative sees what f sees: current globals, closure cells and defaults at call time; the cache
never returns code generated from an older definition or an older source file; decorators are
differentiated as they run, or refused."""

import importlib
import itertools
import sys
import textwrap

import numpy as np
import pytest
from fd import assert_close, numeric_grad

import s2sad
from s2sad.errors import DifferentiationError

_counter = itertools.count()


@pytest.fixture
def module(tmp_path, monkeypatch):
    """``module(source, name=None)`` writes a module file into tmp_path and imports it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []

    def make(source, name=None):
        name = name or f"stale_mod_{next(_counter)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        importlib.invalidate_caches()
        mod = importlib.import_module(name)
        made.append(name)
        return mod

    yield make
    for name in made:
        sys.modules.pop(name, None)


SCALAR = """
    import numpy as np
    SCALE = 2.0

    def g(x):
        return SCALE * x * x
"""


# ---- value globals are read at call time ----------------------------------------------------------
def test_scalar_global_read_at_call_time_in_every_mode(module):
    m = module(SCALAR)
    dg = s2sad.grad(m.g)
    vg = s2sad.value_and_grad(m.g)
    jg = s2sad.jvp(m.g)
    hg = s2sad.hessian(m.g)
    assert dg(1.0) == 4.0
    m.SCALE = 10.0
    assert dg(1.0) == 20.0
    assert vg(1.0) == (10.0, 20.0)
    assert jg(1.0, 0.5) == (10.0, 10.0)
    assert_close(hg(1.5), 20.0)
    assert s2sad.grad(m.g) is dg  # a value does not steer generation: the cache still hits


def test_array_global_mutated_in_place(module):
    m = module(
        """
        import numpy as np
        W = np.array([1.0, 2.0])

        def f(x):
            return np.sum(W * x * x)
        """
    )
    df = s2sad.grad(m.f)
    x = np.array([0.5, -1.5])
    assert_close(df(x), 2 * m.W * x)
    m.W[:] = [3.0, -4.0]
    assert_close(df(x), numeric_grad(m.f, [x], 0))
    assert_close(df(x), [3.0, 12.0])
    m.W = np.array([7.0, 1.0])  # rebound to another array: read live too
    assert_close(df(x), [7.0, -3.0])
    _, dout = s2sad.jvp(m.f)(x, np.ones(2))
    assert_close(dout, np.sum(2 * m.W * x))


def test_global_in_a_helpers_module_with_the_same_name(module):
    helper = module(
        """
        C = 3.0

        def helper(x):
            return C * x * x
        """,
        name=f"stale_helper_{next(_counter)}",
    )
    m = module(
        f"""
        from {helper.__name__} import helper
        C = 100.0

        def f(x):
            return helper(x) + C * x
        """
    )
    df, vf, jf, hf = s2sad.grad(m.f), s2sad.value_and_grad(m.f), s2sad.jvp(m.f), s2sad.hessian(m.f)
    assert df(2.0) == 2 * 3.0 * 2.0 + 100.0
    helper.C, m.C = 5.0, -1.0
    assert df(2.0) == 2 * 5.0 * 2.0 - 1.0
    assert vf(2.0) == (5.0 * 4.0 - 2.0, 19.0)
    assert jf(2.0, 1.0) == (18.0, 19.0)
    assert_close(hf(1.5), 10.0)
    assert_close(df(2.0), numeric_grad(m.f, [2.0], 0))


def test_closure_cell_rebound_with_nonlocal(module):
    m = module(
        """
        def make():
            k = 2.0

            def f(x):
                return k * x * x

            def set_k(value):
                nonlocal k
                k = value

            return f, set_k
        """
    )
    f, set_k = m.make()
    df, jf, hf = s2sad.grad(f), s2sad.jvp(f), s2sad.hessian(f)
    assert df(1.0) == 4.0
    set_k(10.0)
    assert df(1.0) == 20.0
    assert s2sad.value_and_grad(f)(1.0) == (10.0, 20.0)
    assert jf(1.0, 1.0) == (10.0, 20.0)
    assert_close(hf(1.5), 20.0)
    # another closure of the same code has its own cells
    f2, set_k2 = m.make()
    set_k2(-1.0)
    assert s2sad.grad(f2)(1.0) == -2.0
    assert df(1.0) == 20.0


def test_closure_helper_rebound_is_refused(module):
    m = module(
        """
        def make():
            def square(x):
                return x * x

            def cube(x):
                return x * x * x

            h = square

            def f(x):
                return h(x)

            def use_cube():
                nonlocal h
                h = cube

            return f, use_cube
        """
    )
    f, use_cube = m.make()
    df = s2sad.grad(f)
    assert df(2.0) == 4.0
    use_cube()
    with pytest.raises(DifferentiationError, match="'h' was redefined after"):
        df(2.0)
    assert s2sad.grad(f)(2.0) == 12.0


# ---- defaults -------------------------------------------------------------------------------------
def test_defaults_are_the_functions_own_objects(module):
    m = module(
        """
        SCALE = 2.0

        def f(x, a=SCALE, *, k=SCALE + 1.0):
            return a * k * x * x
        """
    )
    m.SCALE = 100.0  # f's defaults were evaluated when f was defined
    assert s2sad.grad(m.f)(1.0) == 2 * 2.0 * 3.0
    assert s2sad.jvp(m.f)(1.0, 1.0) == (6.0, 12.0)


def test_changed_defaults(module):
    m = module(
        """
        def f(x, a=2.0, *, k=1.0):
            return a * k * x * x
        """
    )
    df, jf = s2sad.grad(m.f), s2sad.jvp(m.f)
    assert df(1.0) == 4.0
    m.f.__defaults__ = (5.0,)
    for stale in (df, jf):
        with pytest.raises(DifferentiationError, match="defaults of f changed"):
            stale(1.0, *([1.0] if stale is jf else []))
    assert s2sad.grad(m.f) is not df
    assert s2sad.grad(m.f)(1.0) == 10.0
    m.f.__kwdefaults__ = {"k": 3.0}
    assert s2sad.grad(m.f)(1.0) == 30.0
    assert s2sad.value_and_grad(m.f)(1.0) == (15.0, 30.0)
    assert s2sad.jvp(m.f)(1.0, 1.0) == (15.0, 30.0)
    assert s2sad.grad(m.f)(1.0, 1.0) == 6.0


# ---- globals whose identity steered generation ----------------------------------------------------
HELPERS = """
    import numpy as np

    def helper(x):
        return x * x

    def other(x):
        return x * x * x

    def f(x):
        return helper(x) + np.sin(x)
"""


@pytest.mark.parametrize("kind", ["grad", "value_and_grad", "jvp", "hessian"])
def test_redefined_helper_is_refused_then_regenerated(module, kind):
    m = module(HELPERS)
    d = getattr(s2sad, kind)(m.f)
    args = (2.0, 1.0) if kind == "jvp" else (2.0,)
    d(*args)
    m.helper = m.other
    with pytest.raises(DifferentiationError, match=r"'helper' was redefined after .*call s2sad\.\w+\(f\) again"):
        d(*args)
    fresh = getattr(s2sad, kind)(m.f)
    assert fresh is not d
    if kind == "hessian":
        assert_close(fresh(2.0), 12.0 - np.sin(2.0))
    else:
        assert_close(s2sad.grad(m.f)(2.0), numeric_grad(m.f, [2.0], 0))
        assert_close(s2sad.grad(m.f)(2.0), 12.0 + np.cos(2.0))


def test_rebound_numpy_is_refused(module):
    m = module(HELPERS)
    df = s2sad.grad(m.f)

    class FakeNumpy:
        @staticmethod
        def sin(x):
            return 2.0 * x

    m.np = FakeNumpy
    with pytest.raises(DifferentiationError, match="'np' was redefined after"):
        df(2.0)


def test_redefined_helper_in_a_derivative_of_a_derivative(module):
    m = module(HELPERS)
    ddf = s2sad.grad(s2sad.grad(m.f))
    assert_close(ddf(2.0), 2.0 - np.sin(2.0))
    m.helper = m.other
    with pytest.raises(DifferentiationError, match="'helper' was redefined"):
        ddf(2.0)
    assert_close(s2sad.grad(s2sad.grad(m.f))(2.0), 12.0 - np.sin(2.0))


def test_builtin_shadowed_after_generation_is_refused(module):
    m = module(
        """
        def f(x):
            return abs(x) * x
        """
    )
    df = s2sad.grad(m.f)
    assert df(-2.0) == 4.0
    m.abs = lambda v: v
    with pytest.raises(DifferentiationError, match="'abs' was redefined"):
        df(-2.0)


def test_names_generated_code_adds_are_not_taken_from_the_users_module(module):
    m = module(
        """
        import numpy as np

        sum = None  # generated code's own helpers and builtins must not read the user's names

        def f(x):
            return np.sum(x[0] * x)
        """
    )
    x = np.array([1.0, 2.0, 3.0])
    assert_close(s2sad.grad(m.f)(x), numeric_grad(m.f, [x], 0))


# ---- the cache ------------------------------------------------------------------------------------
def test_cache_hits_and_misses(module):
    m = module(HELPERS)
    df = s2sad.grad(m.f)
    assert s2sad.grad(m.f) is df
    assert s2sad.grad(m.f, wrt="x") is df
    assert s2sad.jvp(m.f) is not df
    m.helper = m.other
    df2 = s2sad.grad(m.f)
    assert df2 is not df
    assert s2sad.grad(m.f) is df2
    m.helper = m.other  # the same object again: still a hit
    assert s2sad.grad(m.f) is df2


def test_cache_checks_globals_of_helpers_in_other_modules(module):
    helper = module(
        """
        import numpy as np

        def inner(x):
            return x * x

        def other(x):
            return x * x * x

        def helper(x):
            return inner(x) + np.cos(x)
        """,
        name=f"stale_helper_{next(_counter)}",
    )
    m = module(
        f"""
        from {helper.__name__} import helper

        def f(x):
            return helper(x) * 2.0
        """
    )
    df = s2sad.grad(m.f)
    assert_close(df(2.0), 2 * (4.0 - np.sin(2.0)))
    helper.inner = helper.other
    with pytest.raises(DifferentiationError, match="'inner' was redefined"):
        df(2.0)
    df2 = s2sad.grad(m.f)
    assert df2 is not df
    assert_close(df2(2.0), 2 * (12.0 - np.sin(2.0)))


# ---- the source file ------------------------------------------------------------------------------
def test_edited_source_file_is_refused(module, tmp_path):
    m = module(SCALAR, name="stale_edited")
    path = tmp_path / "stale_edited.py"
    path.write_text(path.read_text().replace("SCALE * x * x", "SCALE * x * x * x * x"))
    for kind in ("grad", "value_and_grad", "jvp", "hessian"):
        with pytest.raises(DifferentiationError, match=r"stale_edited\.py.*source of g .*does not match"):
            getattr(s2sad, kind)(m.g)


def test_edited_helper_file_is_refused(module, tmp_path):
    helper = module("def helper(x):\n    return x * x\n", name="stale_edited_helper")
    m = module("from stale_edited_helper import helper\n\ndef f(x):\n    return helper(x) + x\n")
    (tmp_path / "stale_edited_helper.py").write_text("def helper(x):\n    return x * x * x * 2.0\n")
    with pytest.raises(DifferentiationError, match=r"stale_edited_helper\.py.*source of helper"):
        s2sad.grad(m.f)
    assert helper.helper(2.0) == 4.0


NESTED = """
    def make(k):
        def f(x):
            parts = [k * x for _ in range(2)]
            return parts[0] * x * (lambda v: 2.0 * v)(1.0)
        return f

    pair = (lambda x: x ** 3 * 2.0, lambda x: x * x)
"""


def test_edited_nested_function_and_lambda_are_refused(module, tmp_path):
    # code nested in a function (comprehensions, lambdas) records its qualified name in its parent's
    # constants on Python 3.10; an edit inside them is still seen on every version
    m = module(NESTED, name="stale_nested")
    assert_close(s2sad.grad(m.make(3.0))(1.5), 3.0 * 2.0 * 2 * 1.5)
    path = tmp_path / "stale_nested.py"
    path.write_text(path.read_text().replace("2.0 * v", "3.0 * v").replace("x * x)", "x * x * x)"))
    with pytest.raises(DifferentiationError, match=r"stale_nested\.py.*source of make\.<locals>\.f .*does not"):
        s2sad.grad(m.make(2.0))
    with pytest.raises(DifferentiationError, match=r"stale_nested\.py:8:\d+: the source of this lambda"):
        s2sad.grad(m.pair[1])
    # the other lambda on the line is unedited: it is found and differentiated
    assert_close(s2sad.grad(m.pair[0])(1.5), 6.0 * 1.5**2)


UNEDITED = '''
    import functools
    import numpy as np

    SCALE = 3.0


    def make(k):
        def f(x):
            """A closure with a docstring, a comprehension and a lambda."""
            parts = [k for _ in range(2)]
            twice = (lambda v: 2.0 * v)(1.0)
            return parts[0] * x * x + twice * SCALE * x
        return f


    class Model:
        __scale = 2.0

        def loss(self, x):
            text = """a multi-line
        string"""
            return self.__scale * x * x * float(len(text) > 0)


    class Child(Model):
        def loss(self, x):
            return super().loss(x) + x


    if True:
        def indented(x, *, p: float = 2.0) -> float:
            return x ** p
'''


def test_unedited_code_is_never_refused(module):
    from s2sad.parse import parse_function

    m = module(UNEDITED)
    assert s2sad.grad(m.make(2.0))(1.5) == 4.0 * 1.5 + 6.0
    for method in (m.Model.loss, m.Model().loss, m.Child.loss):
        assert parse_function(method).fn is method
    assert s2sad.grad(m.indented)(3.0) == 6.0


# ---- decorators -----------------------------------------------------------------------------------
DECORATED = """
    import functools
    import numpy as np

    def transparent(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        return wrapper

    def doubling(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return 2.0 * func(*args, **kwargs)
        return wrapper

    def logging(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            print("called")
            return func(*args, **kwargs)
        return wrapper

    @transparent
    @transparent
    def plain(x):
        return np.sum(x * x * x)

    @doubling
    def doubled(x):
        return x * x * x

    @logging
    def logged(x):
        return x * x
"""


@pytest.mark.parametrize("kind", ["grad", "value_and_grad", "jvp", "hessian"])
def test_transparent_decorator_is_followed(module, kind):
    m = module(DECORATED)
    if kind == "hessian":
        assert_close(s2sad.hessian(m.plain)(np.ones(2) * 2.0), 12.0 * np.eye(2))
    elif kind == "jvp":
        assert s2sad.jvp(m.plain)(2.0, 1.0) == (8.0, 12.0)
    else:
        out = getattr(s2sad, kind)(m.plain)(2.0)
        assert out == (12.0 if kind == "grad" else (8.0, 12.0))


@pytest.mark.parametrize("kind", ["grad", "value_and_grad", "jvp", "hessian"])
@pytest.mark.parametrize("name", ["doubled", "logged"])
def test_other_decorators_are_refused(module, kind, name):
    m = module(DECORATED)
    with pytest.raises(DifferentiationError, match=rf"{name} is wrapped by a decorator .*undecorated"):
        getattr(s2sad, kind)(getattr(m, name))


def test_decorated_helper_is_refused_or_followed(module):
    m = module(
        DECORATED
        + """
    def f(x):
        return doubled(x) + plain(x)
    """
    )
    with pytest.raises(DifferentiationError, match="doubled is wrapped by a decorator"):
        s2sad.grad(m.f)
    m.doubled = m.plain
    assert s2sad.grad(m.f)(2.0) == 24.0


def checked_square(x):
    assert x > 0, "x must be positive"
    return x * x


def test_code_rewritten_by_pytest_is_not_refused():
    # pytest rewrites the asserts of test modules: the code that runs differs from the source
    assert any(n.startswith("@py") for n in checked_square.__code__.co_varnames + checked_square.__code__.co_names)
    assert s2sad.grad(checked_square)(3.0) == 6.0


def test_derivative_made_by_s2sad_called_from_user_code(module):
    m = module(
        """
        import numpy as np
        import s2sad

        SCALE = 2.0

        def h(x):
            return SCALE * np.sin(x) * x

        dh = s2sad.grad(h)

        def f(x):
            return dh(x) * x
        """
    )
    df = s2sad.grad(m.f)
    assert_close(df(0.7), numeric_grad(m.f, [0.7], 0))
    m.SCALE = -3.0
    assert_close(df(0.7), numeric_grad(m.f, [0.7], 0))
    m.dh = s2sad.grad(m.f)  # another function under the name f calls
    with pytest.raises(DifferentiationError, match="'dh' was redefined"):
        df(0.7)


def test_jacobian_and_hvp_read_globals_at_call_time(module):
    m = module(
        """
        import numpy as np
        W = np.array([1.0, 2.0])

        def f(x):
            return W * x * x

        def loss(x):
            return np.sum(W * x * x * x)
        """
    )
    jac, hvp = s2sad.jacobian(m.f), s2sad.hvp(m.loss)
    x, v = np.array([0.5, 1.5]), np.array([1.0, -1.0])
    m.W[:] = [3.0, -1.0]
    assert_close(jac(x), np.diag(2 * m.W * x))
    assert_close(hvp(x, v), 6 * m.W * x * v)
    m.W = np.array([0.5, 0.25])
    assert_close(s2sad.jacobian(m.f, mode="reverse")(x), np.diag(2 * m.W * x))
    assert_close(hvp(x, v), 6 * m.W * x * v)


# ---- what f calls through attributes and code objects: never stale -------------------------------
def test_method_shadowed_on_the_instance(module):
    m = module(
        """
        import numpy as np

        class Model:
            def act(self, v):
                return 2.0 * v

            def loss(self, x):
                return np.sum(self.act(x) ** 2)
        """
    )
    x = np.array([1.0, 2.0])
    model, other = m.Model(), m.Model()
    old = s2sad.grad(model.loss)
    assert_close(old(x), 8 * x)
    model.act = lambda v: 3.0 * v
    assert_close(s2sad.grad(model.loss)(x), numeric_grad(model.loss, [x], 0))
    assert_close(s2sad.jvp(model.loss)(x, np.array([1.0, 0.0]))[1], 18 * x[0])
    assert_close(s2sad.hessian(model.loss)(x), 18 * np.eye(2))
    with pytest.raises(DifferentiationError, match="'act' was redefined"):
        old(x)
    assert_close(s2sad.grad(other.loss)(x), 8 * x)
    del model.act
    assert_close(s2sad.grad(model.loss)(x), 8 * x)


def test_module_attribute_helper_rebound(module):
    helpers = module(
        """
        import numpy as np

        def helper(x):
            return np.sin(x) * 2.0
        """
    )
    m = module(
        f"""
        import numpy as np
        import {helpers.__name__} as helpmod

        def f(x):
            return helpmod.helper(x) * 1.0
        """
    )
    old = s2sad.grad(m.f)
    assert_close(old(0.3), 2 * np.cos(0.3))
    helpers.helper = np.cos
    assert_close(s2sad.grad(m.f)(0.3), -np.sin(0.3))
    with pytest.raises(DifferentiationError, match="'helper' was redefined"):
        old(0.3)


def test_code_replaced_on_f_or_on_a_helper(module):
    m = module(
        """
        def helper(x):
            return x * x

        def cube(x):
            return x * x * x

        def f(x):
            return helper(x) + 0.0

        def g(x):
            return x * x
        """
    )
    df, dg = s2sad.grad(m.f), s2sad.grad(m.g)
    assert_close(df(0.7), 1.4)
    m.helper.__code__ = m.cube.__code__  # what IPython's autoreload does
    assert_close(s2sad.grad(m.f)(0.7), 3 * 0.49)
    assert_close(s2sad.hessian(m.f)(0.7), 6 * 0.7)
    with pytest.raises(DifferentiationError, match="code of helper changed"):
        df(0.7)
    m.g.__code__ = m.cube.__code__
    assert_close(s2sad.grad(m.g)(0.7), 3 * 0.49)
    with pytest.raises(DifferentiationError, match="code of g changed"):
        dg(0.7)
