"""Rules for containers (pytrees): attribute reads of NamedTuples and dataclasses (``getattr``), the
builtins ``list(x)`` and ``tuple(x)`` (of an array: its rows; of a list or tuple: its items), and
the runtime helpers generated code uses for dicts, lists and tuples (``set_item``, ``item_of``,
``tree_add``, ``copy_dict``).  An adjoint or tangent of a container has the container's structure."""

import builtins

import numpy as np  # noqa: F401

from .. import runtime
from ..runtime import (  # noqa: F401  (names used in templates)
    columns_of_jacobian,
    copy_dict,
    copy_of,
    deep_copy,
    item_of,
    jacobian_of_columns,
    jacobian_of_rows,
    rows_of_jacobian,
    set_item,
    set_tangent,
    tree_add,
    unpacked_adjoint,
    unpacked_tangent,
    unset_item,
    zeros_like,
)
from .registry import forward_rule, nondifferentiable, reverse_rule

nondifferentiable(runtime.keys_of, name="s2sad.runtime.keys_of")
nondifferentiable(runtime.zip_length, name="s2sad.runtime.zip_length")
nondifferentiable(runtime.expect_indexed, name="s2sad.runtime.expect_indexed")
nondifferentiable(runtime.expect_unresized, name="s2sad.runtime.expect_unresized")
nondifferentiable(runtime.expect_reiterable, name="s2sad.runtime.expect_reiterable")
nondifferentiable(runtime.expect_seed, name="s2sad.runtime.expect_seed")
nondifferentiable(runtime.expect_dict, name="s2sad.runtime.expect_dict")
nondifferentiable(runtime.unit_tangents, name="s2sad.runtime.unit_tangents")


# list(x), tuple(x): the items of x (the rows of an array, the keys of a dict: no derivative)
@reverse_rule(builtins.list)
def list_(y, x=()):
    bx += unpacked_adjoint(by, x)


@forward_rule(builtins.list)
def list_(y, x=()):
    dy = unpacked_tangent(dx, x)


@reverse_rule(builtins.tuple)
def tuple_(y, x=()):
    bx += unpacked_adjoint(by, x)


@forward_rule(builtins.tuple)
def tuple_(y, x=()):
    dy = tuple(unpacked_tangent(dx, x))


@reverse_rule(getattr)
def getattr_(y, o, name):
    bo[name] += by


@forward_rule(getattr)
def getattr_(y, o, name):
    dy = item_of(do, name)


@reverse_rule(runtime.item_of, name="s2sad.runtime.item_of")
def item_of_(y, g, index):
    bg[index] += by


@forward_rule(runtime.item_of, name="s2sad.runtime.item_of")
def item_of_(y, g, index):
    dy = item_of(dg, index)


# z = set_item(g, index, v): g (a dict, list or tuple) with v at index
@reverse_rule(runtime.set_item, name="s2sad.runtime.set_item")
def set_item_(z, g, index, v):
    bg += unset_item(bz, index, g)
    bv += item_of(bz, index)


@forward_rule(runtime.set_item, name="s2sad.runtime.set_item")
def set_item_(z, g, index, v):
    dz = set_tangent(dg, index, dv, z)


@reverse_rule(runtime.set_tangent, name="s2sad.runtime.set_tangent")
def set_tangent_(z, dg, index, dv, like):
    bdg += set_item(bz, index, zeros_like(item_of(like, index)))
    bdv += item_of(bz, index)


@forward_rule(runtime.set_tangent, name="s2sad.runtime.set_tangent")
def set_tangent_(z, dg, index, dv, like):
    dz = set_tangent(ddg, index, ddv, like)


@forward_rule(runtime.unset_item, name="s2sad.runtime.unset_item")
def unset_item_(z, g, index, like):
    dz = unset_item(dg, index, like)


@reverse_rule(runtime.tree_add, name="s2sad.runtime.tree_add")
def tree_add_(z, a, b):
    ba += bz
    bb += bz


@forward_rule(runtime.tree_add, name="s2sad.runtime.tree_add")
def tree_add_(z, a, b):
    dz = tree_add(da, db)


@reverse_rule(runtime.copy_dict, name="s2sad.runtime.copy_dict")
def copy_dict_(z, d):
    bd += bz


@forward_rule(runtime.copy_dict, name="s2sad.runtime.copy_dict")
def copy_dict_(z, d):
    dz = copy_dict(dd)


@reverse_rule(runtime.copy_of, name="s2sad.runtime.copy_of")
def copy_of_(z, v):
    bv += bz


@forward_rule(runtime.copy_of, name="s2sad.runtime.copy_of")
def copy_of_(z, v):
    dz = copy_of(dv)


@reverse_rule(runtime.deep_copy, name="s2sad.runtime.deep_copy")
def deep_copy_(z, v):
    bv += bz


@forward_rule(runtime.deep_copy, name="s2sad.runtime.deep_copy")
def deep_copy_(z, v):
    dz = deep_copy(dv)


@reverse_rule(runtime.unset_item, name="s2sad.runtime.unset_item")
def unset_item_(z, g, index, like):
    bg += set_item(bz, index, zeros_like(item_of(g, index)))


# The Jacobian wrappers (jacobian, hessian) gather columns or rows into a Jacobian: linear in them, and
# columns_of_jacobian / rows_of_jacobian are their transposes (so a Jacobian differentiates again)
@forward_rule(runtime.jacobian_of_columns, name="s2sad.runtime.jacobian_of_columns")
def jacobian_of_columns_(z, columns, out, x):
    dz = jacobian_of_columns(dcolumns, out, x)


@reverse_rule(runtime.jacobian_of_columns, name="s2sad.runtime.jacobian_of_columns")
def jacobian_of_columns_(z, columns, out, x):
    bcolumns += columns_of_jacobian(bz, out, x)


@forward_rule(runtime.columns_of_jacobian, name="s2sad.runtime.columns_of_jacobian")
def columns_of_jacobian_(z, g, out, x):
    dz = columns_of_jacobian(dg, out, x)


@reverse_rule(runtime.columns_of_jacobian, name="s2sad.runtime.columns_of_jacobian")
def columns_of_jacobian_(z, g, out, x):
    bg += jacobian_of_columns(bz, out, x)


@forward_rule(runtime.jacobian_of_arguments, name="s2sad.runtime.jacobian_of_arguments")
def jacobian_of_arguments_(z, blocks, out):
    dz = jacobian_of_arguments(dblocks, out)


@reverse_rule(runtime.jacobian_of_arguments, name="s2sad.runtime.jacobian_of_arguments")
def jacobian_of_arguments_(z, blocks, out):
    bblocks += arguments_of_jacobian(bz, out, len(blocks))


@forward_rule(runtime.arguments_of_jacobian, name="s2sad.runtime.arguments_of_jacobian")
def arguments_of_jacobian_(z, g, out, n):
    dz = arguments_of_jacobian(dg, out, n)


@reverse_rule(runtime.arguments_of_jacobian, name="s2sad.runtime.arguments_of_jacobian")
def arguments_of_jacobian_(z, g, out, n):
    bg += jacobian_of_arguments(bz, out)


@forward_rule(runtime.jacobian_of_rows, name="s2sad.runtime.jacobian_of_rows")
def jacobian_of_rows_(z, rows, out, x):
    dz = jacobian_of_rows(drows, out, x)


@reverse_rule(runtime.jacobian_of_rows, name="s2sad.runtime.jacobian_of_rows")
def jacobian_of_rows_(z, rows, out, x):
    brows += rows_of_jacobian(bz, out, x)


@forward_rule(runtime.rows_of_jacobian, name="s2sad.runtime.rows_of_jacobian")
def rows_of_jacobian_(z, g, out, x):
    dz = rows_of_jacobian(dg, out, x)


@reverse_rule(runtime.rows_of_jacobian, name="s2sad.runtime.rows_of_jacobian")
def rows_of_jacobian_(z, g, out, x):
    bg += jacobian_of_rows(bz, out, x)
