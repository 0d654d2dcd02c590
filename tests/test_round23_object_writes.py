"""Round 23: f changing in place an array or list it reads from an object it does not own (``self.w`` of
a bound method, ``GO.w`` of a global object) or from a global through a view or a list: refused at the
user's line in every mode (these crashed inside anf, or gave the derivative of f without the write)."""

import numpy as np
import pytest

import s2sad


class _O:
    pass


GO = _O()
G = np.array([1.0, 2.0])


def _reset():
    GO.w = np.array([1.0, 2.0])
    GO.h = []
    G[:] = [1.0, 2.0]


_reset()


def _helper(v):
    v[0] = v[0] * 3
    return v * 1.0


def item_write(x):
    GO.w[0] = x[0] * 3
    return np.sum(GO.w * x)


def item_add(x):
    GO.w[0] += x[0]
    return np.sum(GO.w * x)


def view_item_write(x):
    GO.w[:][0] = x[0] * 3  # was the derivative of f without the write
    return np.sum(GO.w * x)


def copyto(x):
    np.copyto(GO.w, x * 3)  # was the derivative of f without the write
    return np.sum(GO.w * x)


def fill(x):
    GO.w.fill(x[0])  # was the derivative of f without the write
    return np.sum(GO.w * x)


def ufunc_at(x):
    np.add.at(GO.w, 0, x[0])
    return np.sum(GO.w * x)


def helper_writes(x):
    y = _helper(GO.w)
    return np.sum(GO.w * x) + np.sum(y)


def list_append(x):
    GO.h.append(x[0] * 2)  # was the derivative of f without the append
    return np.sum(x) + GO.h[-1]


def list_pop(x):
    GO.h.append(1.0)
    return np.sum(x) * GO.h.pop()


def global_reshape_view(x):
    v = G.reshape(2)  # a view of the global: was taken for a new array
    v[0] = x[0] * 3
    return np.sum(G * x)


def global_asarray(x):
    v = np.asarray(G)
    v[0] = x[0] * 3
    return np.sum(G * x)


def global_in_a_list(x):
    ws = [G]
    ws[0][0] = x[0] * 3
    return np.sum(G * x)


def attribute_reshape_view(x):
    v = GO.w.reshape(2)
    v[0] = x[0] * 3
    return np.sum(GO.w * x)


class W:
    def __init__(self):
        self.w = np.array([1.0, 2.0])

    def item_write(self, x):
        self.w[0] = x[0] * 3
        return np.sum(self.w * x)

    def slice_write(self, x):
        self.w[:][0] = x[0] * 3
        return np.sum(self.w * x)

    def copyto(self, x):
        np.copyto(self.w, x * 3)
        return np.sum(self.w * x)

    def asarray(self, x):
        v = np.asarray(self.w)
        v[0] = x[0] * 3
        return np.sum(self.w * x)

    def in_a_list(self, x):
        ws = [self.w]
        ws[0][0] = x[0] * 3
        return np.sum(self.w * x)


FUNCTIONS = [
    item_write,
    item_add,
    view_item_write,
    copyto,
    fill,
    ufunc_at,
    helper_writes,
    list_append,
    list_pop,
    global_reshape_view,
    global_asarray,
    global_in_a_list,
    attribute_reshape_view,
    "item_write",
    "slice_write",
    "copyto",
    "asarray",
    "in_a_list",
]
MODES = {
    "grad": lambda f, x: s2sad.grad(f)(x),
    "value_and_grad": lambda f, x: s2sad.value_and_grad(f)(x),
    "vjp": lambda f, x: s2sad.vjp(f)(x, 1.0),
    "jvp": lambda f, x: s2sad.jvp(f)(x, np.ones_like(x)),
    "hessian": lambda f, x: s2sad.hessian(f)(x),
    "jacobian reverse": lambda f, x: s2sad.jacobian(f, mode="reverse")(x),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f if isinstance(f, str) else f.__name__)
def test_a_write_into_memory_f_does_not_own_is_refused_at_the_users_line(f, mode):
    _reset()
    obj = W()
    fn = getattr(obj, f) if isinstance(f, str) else f
    x = np.array([1.0, 1.0])
    with pytest.raises(s2sad.DifferentiationError, match=r"test_round23_object_writes\.py:\d+:\d+: "):
        MODES[mode](fn, x)
    np.testing.assert_array_equal(obj.w, [1.0, 2.0])
    np.testing.assert_array_equal(GO.w, [1.0, 2.0])
    np.testing.assert_array_equal(G, [1.0, 2.0])
    np.testing.assert_array_equal(x, [1.0, 1.0])


def reads_only(x):
    v = G.reshape(2)
    ws = [GO.w, G]
    return np.sum(v * x) + np.sum(ws[0] * x) + np.sum(np.sort(GO.w) * x)


def test_reading_the_same_memory_is_still_exact():
    _reset()
    x = np.array([0.3, -0.4])
    np.testing.assert_allclose(s2sad.grad(reads_only)(x), G + GO.w + np.sort(GO.w))
