"""standalone: what a generated module needs besides its own functions, as source text.

Takes the names a generated module uses but does not define, with the objects they mean; gives the
lines that provide them.  ``provide`` makes import lines (``import numpy as np``, ``from model import
layer``) or, for ``--standalone``, copies: the runtime helpers' own source (``inspect.getsource``)
plus the private helpers they call, the user's functions from their files, and literal constants as
assignments; so the module imports only numpy, math and the libraries the user's code imports.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import os
import symtable
import sys
import textwrap
import types
from dataclasses import dataclass, field

from . import runtime
from .errors import DifferentiationError

_LITERALS = (bool, int, float, complex, str, bytes, type(None))


@dataclass
class Provided:
    """What a module needs: import lines, constant assignments, copied user functions, copied helpers."""

    imports: list[str] = field(default_factory=list)
    constants: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)
    # name -> ``module.name``: a value of the user's module (not a function, class or module), read through
    # its module when the code runs, so a later ``m.SCALE = 10`` is seen as ``s2sad.grad`` sees it
    qualified: dict[str, str] = field(default_factory=dict)


def is_runtime_helper(obj) -> bool:
    return inspect.isfunction(obj) and obj.__module__.startswith(runtime.__name__ + ".")


def is_literal(value) -> bool:
    if isinstance(value, tuple):
        return all(is_literal(v) for v in value)
    return type(value) in _LITERALS


def import_line(name: str, obj) -> str | None:
    """An import that binds ``name`` to ``obj``, or None when no module exports it."""
    if isinstance(obj, types.ModuleType):
        module = obj.__name__
        if module == name:
            return f"import {module}"
        parent, _, last = module.rpartition(".")
        if parent and last == name:
            return f"from {parent} import {last}"
        return f"import {module} as {name}"
    module = getattr(obj, "__module__", None)
    own = getattr(obj, "__name__", None)
    if isinstance(module, str) and isinstance(own, str) and getattr(sys.modules.get(module), own, None) is obj:
        return f"from {module} import {own}" if own == name else f"from {module} import {own} as {name}"
    return None


class _Provider:
    def __init__(self, user_dirs: list[str], standalone: bool, where: str):
        self.user_dirs = [os.path.abspath(d) for d in user_dirs]
        self.standalone = standalone
        self.where = where  # file:line:col for errors
        self.out = Provided()
        self.done: dict[str, object] = {}
        self.homes: list = []

    def is_user_code(self, obj) -> bool:
        """Defined in a file under the user's directories (not in numpy, the standard library, ...)."""
        if isinstance(obj, types.ModuleType):
            path = getattr(obj, "__file__", None)
        else:
            code = getattr(obj, "__code__", None)
            path = code.co_filename if code is not None else None
        if not path:
            return False
        path = os.path.abspath(path)
        return any(path.startswith(d + os.sep) for d in self.user_dirs) and "site-packages" not in path

    def fail(self, message):
        raise DifferentiationError(f"{self.where}: {message}")

    def read_through(self, module, name: str) -> str:
        """The import giving ``name`` the value of ``module.name``: the module itself, the code reading
        ``module.name`` when it runs (a global the user's program may rebind), except in --standalone."""
        if self.standalone:
            return f"from {module.__name__} import {name}"
        self.out.qualified[name] = f"{module.__name__}.{name}"
        return f"import {module.__name__}"

    def provide(self, name: str, obj, home=None):
        """Bind ``name`` to ``obj`` in the module; ``home``: a user module where ``name`` means ``obj``."""
        if name in self.done:
            if self.done[name] is not obj:
                self.fail(f"the name '{name}' means two different objects in the code to generate; rename one")
            return
        self.done[name] = obj
        if is_runtime_helper(obj) and obj.__name__ != name:  # zeros_like1: a parameter is named zeros_like
            if not self.standalone:
                self.out.imports.append(f"from {runtime.__name__} import {obj.__name__} as {name}")
                return
            self.provide(obj.__name__, obj, home)
            self.out.helpers.append(f"{name} = {obj.__name__}")
            return
        if is_runtime_helper(obj):
            if self.standalone:
                self.copy_function(name, obj, self.out.helpers)
            else:
                self.out.imports.append(f"from {runtime.__name__} import {name}")
            return
        if self.standalone and is_literal(obj):
            helper_constant = getattr(home, "__name__", "").startswith(runtime.__name__ + ".")
            (self.out.helpers if helper_constant else self.out.constants).append(f"{name} = {obj!r}")
            return
        twin_of = vars(obj).get("__s2sad_twin_of__") if isinstance(obj, type) else None
        if twin_of is not None:  # Dense_record: the dataclass twin s2sad builds for Dense (built.record_twin)
            if self.standalone:
                self.fail(
                    f"--standalone cannot copy '{name}', the dataclass s2sad builds for objects of your class "
                    f"{twin_of.__qualname__} made in the function; drop --standalone"
                )
            self.provide(twin_of.__name__, twin_of, home)
            line = "from s2sad.built import record_twin"
            if line not in self.out.imports:
                self.out.imports.append(line)
            self.out.constants.append(
                f"{name} = record_twin({self.out.qualified.get(twin_of.__name__, twin_of.__name__)})"
            )
            return
        if getattr(obj, "__s2sad_lifted__", None) is not None:  # a local function s2sad lifted
            self.copy_lifted(name, obj)
            return
        line = import_line(name, obj)
        if self.standalone and inspect.isfunction(obj) and self.is_user_code(obj):
            self.copy_function(name, obj, self.out.functions)
            return
        if self.standalone and (line is None or self.is_user_code(sys.modules.get(line.split()[1]))):
            self.fail(
                f"--standalone cannot copy '{name}' ({type(obj).__name__} from your code) into the module; "
                "pass it as an argument, or drop --standalone"
            )
        if line is None and home is not None and getattr(home, name, None) is obj:
            line = self.read_through(home, name)
        if line is None:  # a bound method's object, a partial's argument: a module-level name of another name
            line = next(  # (bound when s2sad made the derivative, as s2sad.grad(model.loss) binds it)
                (
                    f"from {m.__name__} import {k} as {name}"
                    for m in self.homes
                    for k, v in vars(m).items()
                    if v is obj and not k.startswith("_")
                ),
                None,
            )
        if line is None and self.bound_method(name, obj):  # jacobian's primal ``loss`` of model.loss
            return
        if line is None and is_literal(obj):  # a factory's default (``def f(x, a=a)``)
            self.out.constants.append(f"{name} = {obj!r}")
            return
        if line is None:
            self.fail(
                f"the generated code uses '{name}' ({type(obj).__name__}), which no module exports by that name; "
                "make it a module-level name of your file"
            )
        if self.standalone and line.split()[1].split(".")[0] == runtime.__name__.split(".")[0]:
            self.fail(f"--standalone cannot copy '{name}' from s2sad")
        self.out.imports.append(line)

    def bound_method(self, name: str, obj) -> bool:
        """``name`` bound to a method of an object a user module exports (the command line's target
        ``model.loss``, which a Jacobian's wrapper calls for its value): ``name = owner.method``."""
        from .callables import BoundFunction

        if not isinstance(obj, BoundFunction) or len(obj.__s2sad_bound__) != 1:
            return False
        (owner,) = obj.__s2sad_bound__.values()
        method = getattr(owner, obj.__name__, None)
        if getattr(method, "__func__", None) is not obj.function:
            return False
        found = next(
            ((m, k) for m in self.homes for k, v in vars(m).items() if v is owner and not k.startswith("_")), None
        )
        if found is None:
            return False
        alias = f"_{name}_of"
        self.out.imports.append(f"from {found[0].__name__} import {found[1]} as {alias}")
        self.out.constants.append(f"{name} = {alias}.{obj.__name__}")
        return True

    def copy_function(self, name: str, fn, into: list[str]):
        """Copy ``fn``'s source (from its ``def`` line) and provide the globals it reads."""
        if fn.__name__ != name:
            self.fail(f"--standalone cannot copy '{name}': it is the function {fn.__name__} under another name")
        if fn.__closure__:
            self.fail(f"--standalone cannot copy '{name}': it is a closure; define it at module level")
        lines, _ = inspect.getsourcelines(fn)
        start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
        source, imported = _without_relative_imports(textwrap.dedent("".join(lines[start:])).rstrip("\n"), fn)
        into.append(source)
        home = sys.modules.get(fn.__module__)
        for global_name, obj in imported.items():  # a runtime helper's ``from .refusals import refusal``
            self.provide(global_name, obj, home)
        for global_name in sorted(free_names(source) - {name} - imported.keys()):
            if global_name not in fn.__globals__ and hasattr(builtins, global_name):
                continue
            if global_name not in fn.__globals__:
                self.fail(f"--standalone cannot copy '{name}': it reads '{global_name}', which is not defined")
            self.provide(global_name, fn.__globals__[global_name], home)

    def copy_lifted(self, name: str, fn):
        """A function ``lift`` made from a local function: its code (it has no source of its own), and
        the names it reads (globals; in its cells, the other lifted functions it calls and the functions
        given to a helper it is a clone of)."""
        import gast

        from .ir import copy_tree

        tree = fn.__s2sad_lifted__.tree
        if tree.name != name:
            self.fail(f"cannot write '{name}': it is the lifted local function {tree.name} under another name")
        self.out.functions.append(ast.unparse(gast.gast_to_ast(copy_tree(tree))))
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        home = sys.modules.get(fn.__module__)
        for global_name in sorted(free_names(self.out.functions[-1]) - {name}):
            if global_name in cells:  # what lift gave it: a lifted function, a function passed to a helper
                self.provide(global_name, cells[global_name].cell_contents, home)
            elif global_name in fn.__globals__:
                self.provide(global_name, fn.__globals__[global_name], home)
            elif not hasattr(builtins, global_name):
                self.fail(f"cannot write '{name}': it reads '{global_name}', which is not defined")


def _without_relative_imports(source: str, fn) -> tuple[str, dict]:
    """``source`` without its ``from .module import name`` lines (a runtime helper importing another inside
    its body, to break an import cycle), and the objects they bind: a copy has no package to import from,
    so those become module-level names of the written module."""
    tree = ast.parse(source)
    relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    if not relative:
        return source, {}
    package = fn.__module__.rsplit(".", 1)[0]
    imported = {}
    for node in relative:
        module = importlib.import_module(
            "." * (node.level - 1) + "." + node.module if node.module else package, package
        )
        for alias in node.names:
            imported[alias.asname or alias.name] = getattr(module, alias.name)
    lines = source.splitlines()
    for node in sorted(relative, key=lambda n: -n.lineno):
        del lines[node.lineno - 1 : node.end_lineno]
        if node.lineno - 1 < len(lines) and not lines[node.lineno - 1].strip():  # (the blank line after it)
            del lines[node.lineno - 1]
    return "\n".join(lines), imported


def free_names(source: str) -> set[str]:
    """Names ``source`` reads but does not define (globals and builtins)."""
    top = symtable.symtable(source, "<generated>", "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    free = {s.get_name() for s in top.get_symbols() if s.is_referenced() and s.get_name() not in defined}
    tables = list(top.get_children())
    while tables:
        table = tables.pop()
        tables += table.get_children()
        free |= {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    return free - defined


def provide(names: dict, user_dirs: list[str], standalone: bool, where: str, homes=()) -> Provided:
    """Lines that give each ``name`` its object: imports, or (standalone) copies of runtime helpers,
    user functions and literal constants.  ``homes``: user modules to import other values from."""
    provider = _Provider(user_dirs, standalone, where)
    provider.homes = list(homes)
    for name, obj in sorted(names.items()):
        if getattr(builtins, name, None) is obj:
            continue
        home = next((m for m in homes if getattr(m, name, None) is obj), None)
        provider.provide(name, obj, home)
    out = provider.out
    out.imports = _merge(out.imports, {m.__name__.split(".")[0] for m in homes})
    return out


def qualify(text: str, qualified: dict[str, str]) -> str:
    """``text`` (Python) with every read of a name in ``qualified`` spelled as its ``module.name``."""
    if not qualified:
        return text
    lines = text.splitlines(keepends=True)
    spots = set()
    for fn in ast.parse(text).body:
        nodes = list(ast.walk(fn))
        bound = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        args = [a for n in nodes if isinstance(n, ast.arguments) for a in (*n.posonlyargs, *n.args, *n.kwonlyargs)]
        glob = qualified.keys() - bound - {a.arg for a in args}  # (a local of the same name is not the global)
        spots |= {(n.lineno, n.col_offset, n.id) for n in nodes if isinstance(n, ast.Name) and n.id in glob}
    spots = sorted(spots)
    for lineno, col, ident in reversed(spots):  # (right to left: earlier offsets stay valid)
        line = lines[lineno - 1].encode()
        lines[lineno - 1] = (line[:col] + qualified[ident].encode() + line[col + len(ident.encode()) :]).decode()
    return "".join(lines)


def _merge(lines: list[str], local: set[str]) -> list[str]:
    """Import lines as isort writes them: one ``from M import a, b`` per module; standard library,
    then other libraries, then s2sad and the user's modules (``local``), a blank line between groups."""
    plain = {line for line in lines if line.startswith("import ")}
    names: dict[str, set[str]] = {}
    for line in lines:
        if line.startswith("from "):
            module, _, what = line[len("from ") :].partition(" import ")
            names.setdefault(module, set()).add(what)
    merged = plain | {f"from {module} import {', '.join(sorted(what))}" for module, what in names.items()}
    groups: list[list[str]] = [[], [], []]
    for line in merged:
        top = line.split()[1].split(".")[0]
        group = 0 if top in sys.stdlib_module_names else 2 if top in local or top == "s2sad" else 1
        groups[group].append(line)
    out: list[str] = []
    for group in groups:
        if group:
            out += ([""] if out else []) + sorted(group, key=lambda line: (line.startswith("from "), line))
    return out
