"""Cases for containers: attribute reads of NamedTuples and dataclasses, and the helpers generated
code uses for dicts, lists and tuples (each case builds its containers from the differentiated arrays)."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from s2sad.runtime import (
    arguments_of_jacobian,
    columns_of_jacobian,
    copy_dict,
    copy_of,
    deep_copy,
    expect_dict,
    expect_indexed,
    expect_reiterable,
    expect_seed,
    expect_unresized,
    item_of,
    jacobian_of_arguments,
    jacobian_of_columns,
    jacobian_of_rows,
    keys_of,
    rows_of_jacobian,
    set_item,
    set_tangent,
    tree_add,
    unit_tangents,
    unset_item,
    zip_length,
)

from . import A, case


class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray


@dataclass
class Box:
    a: np.ndarray
    b: float


@case("list", A(3), A(2, 3))
def list_of_rows_and_items(x, m):
    rows = list(m)
    items = list((x, x * x))
    return rows[0] * rows[1] * items[1] + items[0]


@case("tuple", A(3), A(2, 3))
def tuple_of_rows_and_items(x, m):
    rows = tuple(m)
    items = tuple([x * x, x])
    return rows[1] * items[0] - rows[0] * items[1]


@case("getattr", A(3), A(3))
def getattr_namedtuple(x, y):
    p = Pair(x, y * x)
    return np.sin(p.a) * p.b + getattr(p, "a")  # noqa: B009  (the call itself)


@case("getattr", A(3))
def getattr_dataclass(x):
    box = Box(x * 2.0, 3.0)
    return box.a * box.a * box.b


@case("s2sad.runtime.item_of", A(3), A(3))
def item_of_(x, y):
    p = Pair(x, y)
    d = {"u": x * y, "v": y}
    return item_of(p, "b") * item_of(d, "u") + item_of([x, y], 1)


@case("s2sad.runtime.set_item", A(3), A(3))
def set_item_(x, y):
    d = {"u": x, "v": y}
    e = set_item(d, "u", y * y)
    f = set_item(e, "w", x * y)
    return e["u"] * f["w"] + f["v"] * np.cos(d["u"])


@case("s2sad.runtime.set_tangent", A(3), A(3))
def set_tangent_(x, y):
    d = {"u": x, "v": y}
    t = set_tangent({"u": y, "v": x * y}, "v", x * x, d)
    return t["u"] * t["v"]


@case("s2sad.runtime.unset_item", A(3), A(3))
def unset_item_(x, y):
    d = {"u": x, "v": y}
    g = unset_item({"u": x * y, "v": y, "w": x}, "w", d)
    h = unset_item(g, "u", d)
    return g["u"] * np.sin(h["v"])


@case("s2sad.runtime.tree_add", A(3), A(3))
def tree_add_(x, y):
    s = tree_add({"u": x, "v": [y, x]}, {"u": y * y, "v": [x, 2.0 * y]})
    return s["u"] * s["v"][0] + s["v"][1] + tree_add(x, y * x)


@case("s2sad.runtime.copy_dict", A(3), A(3))
def copy_dict_(x, y):
    d = copy_dict({"u": x * y, "v": y})
    return d["u"] * d["v"]


@case("s2sad.runtime.copy_of", A(3), A(3))
def copy_of_(x, y):
    d = copy_of({"u": x * y, "v": y})
    rows = copy_of([x, y * y])
    return d["u"] * d["v"] + rows[1] * copy_of(x)


@case("s2sad.runtime.deep_copy", A(3), A(3))
def deep_copy_(x, y):
    d = deep_copy({"u": x * y, "v": [y, x]})
    return d["u"] * d["v"][0] + d["v"][1]


@case("s2sad.runtime.keys_of", A(3))
def keys_of_(x):
    d = {"u": x, "v": x * x}
    return d[keys_of(d)[1]] * x


@case("s2sad.runtime.zip_length", A(3), A(3))
def zip_length_(x, y):
    return x[: zip_length(len(x), len(y), strict=True)] * y


@case("s2sad.runtime.expect_indexed", A(3))
def expect_indexed_(x):
    expect_indexed(x)
    return x * x


@case("s2sad.runtime.expect_unresized", A(3))
def expect_unresized_(x):
    expect_unresized([x, x], 2)
    return x * x


@case("s2sad.runtime.expect_reiterable", A(3))
def expect_reiterable_(x):
    expect_reiterable([x, x], "the argument `m` of g(), whose items it takes,")
    return x * x


@case("s2sad.runtime.expect_seed", A(3))
def expect_seed_(x):
    expect_seed(x * 2.0, x)
    return x * x


@case("s2sad.runtime.expect_dict", A(3))
def expect_dict_(x):
    d = {"x": x}
    expect_dict(d, "d.values()")
    return d["x"] * x


@case("s2sad.runtime.jacobian_of_arguments", A(2), A(3))
def jacobian_of_arguments_(x, y):  # two arguments' Jacobians of an out (u, v) into JAX's layout
    out = (np.zeros(2), 0.0)
    j = jacobian_of_arguments([(x * y[0], np.sin(y)), (y[:2] * x, np.sum(x) * y)], out)
    return j[0][0] * j[0][1] + np.sum(j[1][0] * j[1][1])


@case("s2sad.runtime.jacobian_of_arguments", A(2))
def jacobian_of_arguments_plain(x):
    return np.sum(jacobian_of_arguments([x * 2.0, np.cos(x)], np.zeros(2))[1] * x)


@case("s2sad.runtime.arguments_of_jacobian", A(2), A(3))
def arguments_of_jacobian_(x, y):
    out = {"u": np.zeros(2), "v": 0.0}
    a, b = arguments_of_jacobian({"u": (x * y[1], y[:2]), "v": (np.sum(y) * x, x[0] * y)}, out, 2)
    return a["u"] * b["u"] + a["v"] * np.sum(b["v"])


@case("s2sad.runtime.jacobian_of_columns", A(2), A(2))
def jacobian_of_columns_(x, y):  # 3 columns shaped like out (2,), for an x of 3 numbers
    out, at = np.zeros(2), np.zeros(3)
    return jacobian_of_columns([x * y, np.sin(x), y * y], out, at) @ np.array([1.0, -2.0, 0.5])


@case("s2sad.runtime.jacobian_of_columns", A(2), A())
def jacobian_of_columns_tree(x, y):  # out a dict, x a list of a number and an array of 2
    out, at = {"u": np.zeros(2), "v": 0.0}, [0.0, np.zeros(2)]
    columns = [{"u": x * y, "v": y}, {"u": x, "v": y * y}, {"u": np.cos(x), "v": 2.0 * y}]
    j = jacobian_of_columns(columns, out, at)
    return j["u"][0] * j["u"][1][0] + j["v"][1] * j["v"][0]


@case("s2sad.runtime.columns_of_jacobian", A(2, 3))
def columns_of_jacobian_(g):
    c = columns_of_jacobian(g * g, np.zeros(2), np.zeros(3))
    return c[0] * c[1] + c[2]


@case("s2sad.runtime.columns_of_jacobian", A(2), A(2))
def columns_of_jacobian_tree(x, y):
    out, at = {"u": np.zeros(2), "v": 0.0}, [0.0, np.zeros(2)]
    g = {"u": [x * y, np.stack([x, y], 1)], "v": [y[0], x * x]}
    c = columns_of_jacobian(g, out, at)
    return c[0]["u"] * c[2]["v"] + c[1]["u"]


@case("s2sad.runtime.jacobian_of_rows", A(3), A(3))
def jacobian_of_rows_(x, y):  # 2 rows shaped like x (3,), for an out of 2 numbers
    return jacobian_of_rows([x * y, np.exp(y)], np.zeros(2), np.zeros(3)).T @ np.array([1.0, -0.5])


@case("s2sad.runtime.jacobian_of_rows", A(2), A())
def jacobian_of_rows_tree(x, y):  # out a list of a number and an array of 2, x a dict
    out, at = [0.0, np.zeros(2)], {"u": np.zeros(2), "v": 0.0}
    rows = [{"u": x * y, "v": y}, {"u": x, "v": y * y}, {"u": np.cos(x), "v": 2.0 * y}]
    j = jacobian_of_rows(rows, out, at)
    return j[0]["u"] * j[1]["v"][1] + j[1]["u"][0]


@case("s2sad.runtime.rows_of_jacobian", A(2, 3))
def rows_of_jacobian_(g):
    r = rows_of_jacobian(g * g, np.zeros(2), np.zeros(3))
    return r[0] * r[1]


@case("s2sad.runtime.rows_of_jacobian", A(2), A(2))
def rows_of_jacobian_tree(x, y):
    out, at = [0.0, np.zeros(2)], {"u": np.zeros(2), "v": 0.0}
    g = [{"u": x * y, "v": y[1]}, {"u": np.stack([x, y]), "v": x + y}]
    r = rows_of_jacobian(g, out, at)
    return r[0]["u"] * r[2]["v"] + r[1]["u"]


@case("s2sad.runtime.unit_tangents", A(3))
def unit_tangents_(x):  # the columns of the identity: constants
    e = unit_tangents(x)
    return e[0] * x + e[2] * x * x
