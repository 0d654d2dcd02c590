"""Cases for containers: attribute reads of NamedTuples and dataclasses, and the helpers generated
code uses for dicts, lists and tuples (each case builds its containers from the differentiated arrays)."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from s2sad.runtime import copy_dict, item_of, keys_of, set_item, set_tangent, tree_add, unset_item

from . import A, case


class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray


@dataclass
class Box:
    a: np.ndarray
    b: float


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


@case("s2sad.runtime.keys_of", A(3))
def keys_of_(x):
    d = {"u": x, "v": x * x}
    return d[keys_of(d)[1]] * x
