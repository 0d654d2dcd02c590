"""cli: the ``s2sad`` command (also ``python -m s2sad``).

Takes ``FILE.py:FUNC [FUNC ...]`` and options; gives a derivative module: printed, written to ``-o
OUT.py``, or with ``--check`` compared to ``OUT.py`` (exit 1 when it is stale).  The module begins
with a header saying where it comes from and the command that regenerates it; its functions are
those of ``s2sad.source`` (source-map comments included); the names they use are imported, or with
``--standalone`` copied in (see ``standalone``).  Errors print one line ``file:line:col: message`` on
stderr and exit 2; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import inspect
import linecache
import os
import shlex
import sys
import traceback
import types

from . import api, standalone, watch
from .callables import normalize
from .errors import DifferentiationError
from .pipeline import param_names
from .rules import list_rules
from .star import takes_star as star_args

# --mode: the API function each mode runs; reverse and forward are the two the design names
MODES = {
    "reverse": "grad",
    "forward": "jvp",
    "grad": "grad",
    "value_and_grad": "value_and_grad",
    "vjp": "vjp",
    "jvp": "jvp",
    "jacobian": "jacobian",
    "hessian": "hessian",
    "hvp": "hvp",
}

USAGE = "s2sad FILE.py:FUNC [FUNC ...] [--wrt a,b] [--mode MODE] [-o OUT.py] [--standalone] [--check]"


class CliError(Exception):
    """A one-line message for the user; exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(f"s2sad: {message} (usage: {USAGE})")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="s2sad",
        usage=f"{USAGE}\n       s2sad --list-rules",
        description="Write the derivative of a Python function as a Python module.",
    )
    parser.add_argument("targets", nargs="*", metavar="FILE.py:FUNC [FUNC ...]", help="the functions to differentiate")
    parser.add_argument("--wrt", help="arguments to differentiate with respect to: names or indices, comma separated")
    parser.add_argument(
        "--mode",
        default="reverse",
        choices=list(MODES),
        help="reverse (gradient, the default), forward (JVP), or an API function: " + ", ".join(list(MODES)[2:]),
    )
    parser.add_argument("-o", "--output", metavar="OUT.py", help="write the module here instead of printing it")
    parser.add_argument("--standalone", action="store_true", help="copy runtime helpers in: needs numpy only")
    parser.add_argument("--check", action="store_true", help="exit 1 if OUT.py differs from what would be written")
    parser.add_argument("--list-rules", action="store_true", help="list the primitives s2sad differentiates")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command; give its exit status (0 done, 1 stale with --check, 2 error)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    try:
        return _run(_parser().parse_args(argv))
    except (CliError, DifferentiationError) as exc:
        if debug:
            raise
        print(" ".join(str(exc).split("\n")), file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - one line, not a traceback; --debug shows it
        if debug:
            raise
        message = " ".join(str(exc).split())
        print(f"s2sad: internal error: {type(exc).__name__}: {message} (--debug shows the traceback)", file=sys.stderr)
    return 2


def _run(args) -> int:
    if args.list_rules:
        if args.targets:
            raise CliError("s2sad: --list-rules takes no FILE.py:FUNC")
        print("\n".join(list_rules()))
        return 0
    if not args.targets:
        raise CliError(f"s2sad: nothing to differentiate (usage: {USAGE})")
    if args.check and not args.output:
        raise CliError("s2sad: --check compares with the file given by -o OUT.py")
    path, names = _targets(args.targets)
    text = generate(path, names, args.wrt, args.mode, args.standalone, command(args))
    if args.check:
        return _check(args.output, text, command(args))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            raise CliError(f"s2sad: cannot write {args.output}: {exc.strerror}") from None
    else:
        sys.stdout.write(text)
    return 0


def _targets(targets: list[str]) -> tuple[str, list[str]]:
    """``FILE.py:FUNC [FUNC ...]`` (later ones may repeat ``FILE.py:``) -> the file and function names."""
    path, sep, first = targets[0].rpartition(":")
    if not sep or not path:
        raise CliError(f"s2sad: expected FILE.py:FUNC, got '{targets[0]}'")
    names = [first]
    for target in targets[1:]:
        other, sep, name = target.rpartition(":")
        if sep and other != path:
            raise CliError(f"s2sad: all functions must come from {path}; got '{target}' (run s2sad once per file)")
        names.append(name)
    for name in names:
        if not all(part.isidentifier() for part in name.split(".")):
            raise CliError(f"s2sad: '{name}' is not a function name (NAME, or a dotted path: Model.loss, model.loss)")
    return path, names


def command(args) -> str:
    """The command that regenerates the module (without --check and --debug)."""
    words = ["s2sad", *args.targets]
    if args.wrt:
        words += ["--wrt", args.wrt]
    if args.mode != "reverse":
        words += ["--mode", args.mode]
    if args.standalone:
        words.append("--standalone")
    if args.output:
        words += ["-o", args.output]
    return shlex.join(words)


def _check(output: str, text: str, cmd: str) -> int:
    try:
        with open(output, encoding="utf-8") as old:
            current = old.read()
    except OSError:
        print(f"{output}: missing; generate it with: {cmd}", file=sys.stderr)
        return 1
    if current != text:
        print(f"{output}: stale; regenerate it with: {cmd}", file=sys.stderr)
        return 1
    return 0


# ---- loading the user's file ----------------------------------------------------------------------
def load_file(path: str) -> types.ModuleType:
    """Run ``path`` as a module named after the file, as ``python path`` would import it."""
    try:
        with open(path, encoding="utf-8") as src:
            source = src.read()
    except OSError as exc:
        raise CliError(f"{path}:1:1: cannot read the file: {exc.strerror}") from None
    name = os.path.splitext(os.path.basename(path))[0]
    if not name.isidentifier():
        raise CliError(f"{path}:1:1: the file name must be a Python module name (letters, digits, _)")
    try:
        code = compile(source, path, "exec", dont_inherit=True)  # (not the future imports of cli.py)
    except SyntaxError as exc:
        raise CliError(f"{path}:{exc.lineno or 1}:{exc.offset or 1}: syntax error: {exc.msg}") from None
    linecache.checkcache(path)
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - running the user's file is the point
    except (Exception, SystemExit) as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
        line = frames[-1].lineno if frames else 1
        raise CliError(f"{path}:{line}:1: running the file raised {type(exc).__name__}: {exc}") from None
    return module


def _function(module, path: str, name: str):
    """The callable ``name`` (``loss``, ``Model.loss``, ``model.loss``) names in the module, made a
    Python function (a bound method's object and a partial's arguments as constants)."""
    fn = module
    for part in name.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            break
    if fn is None:
        defined = sorted(
            k for k, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__
        )
        raise CliError(f"{path}:1:1: no function '{name}' in {path}; it defines: {', '.join(defined) or 'none'}")
    if not callable(fn):
        raise CliError(f"{path}:1:1: '{name}' is a {type(fn).__name__}, not a function")
    try:
        return normalize(fn)
    except DifferentiationError as exc:
        raise CliError(f"{path}:1:1: '{name}': {exc}") from None


def _wrt(spec: str | None):
    if spec is None:
        return 0
    items = [int(w) if w.strip().lstrip("-").isdigit() else w.strip() for w in spec.split(",")]
    return items[0] if len(items) == 1 else tuple(items)


def _where(fn) -> str:
    return f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}:1"


# ---- the module -----------------------------------------------------------------------------------
def generate(path: str, names: list[str], wrt: str | None, mode: str, copy: bool, cmd: str) -> str:
    """The text of the module holding the derivatives of ``names`` in ``path``."""
    saved_modules, saved_path = dict(sys.modules), list(sys.path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        module = load_file(path)
        functions = [_function(module, path, name) for name in names]
        derivatives = [_derive(fn, mode, _wrt(wrt)) for fn in functions]
        defs = _definitions(derivatives)
        needed = {}
        candidates = _default_holders(module, names, functions, derivatives)
        for name in defs:
            live = next((d.__s2sad_module__[name] for d in derivatives if name in d.__s2sad_module__), None)
            if live is not None:
                defs[name] = _with_defaults(defs[name], live, candidates, copy, _where(functions[0]), needed)
        body = "\n\n\n".join(defs.values())
        for name in sorted(standalone.free_names(body) - set(defs) - set(needed)):
            found = next((v for d in derivatives for v in [_generated_name(d, name)] if v is not _NONE), _NONE)
            if found is _NONE:
                found = _default_named(derivatives, name)
            if found is not _NONE:
                needed[name] = found
            elif not hasattr(builtins, name):
                raise CliError(f"s2sad: internal error: the generated code reads '{name}', which is not defined")
        homes = [module] + [sys.modules[fn.__module__] for fn in functions if fn.__module__ in sys.modules]
        provided = standalone.provide(
            needed, [os.path.dirname(os.path.abspath(path))], copy, _where(functions[0]), homes
        )
        speller = watch.Speller(homes, os.path.dirname(os.path.abspath(path)))
        try:
            watched = [] if copy else watch.entries(derivatives, module, names, _where(functions[0]), speller)
        except DifferentiationError as exc:  # (refused only if the module reads the user's modules)
            watched = exc
    finally:  # forget the user's modules (a later run in this process reads the files again)
        here = os.path.dirname(os.path.abspath(path)) + os.sep
        for name, mod in list(sys.modules.items()):
            if (
                name.partition(".")[0] != "s2sad"
                and saved_modules.get(name) is not mod
                and os.path.abspath(getattr(mod, "__file__", None) or "/").startswith(here)
            ):
                del sys.modules[name]
        sys.modules.update({name: mod for name, mod in saved_modules.items() if name not in sys.modules})
        sys.path[:] = saved_path
    body = standalone.qualify(body, provided.qualified)  # (SCALE -> m5.SCALE: read when the code runs)
    header = _header(path, functions, wrt, mode, copy, cmd)
    bound = {} if copy else _bound_at_import(needed, homes, provided)
    modules = set(bound.values()) | speller.modules
    users = {m.__name__ for m in homes}
    if not any(word.partition(".")[0] in users for line in provided.imports for word in line.split()[1:2]):
        watched = []  # (reads nothing of your modules: a copy of the code as written, as --standalone is)
    if isinstance(watched, DifferentiationError):
        raise watched
    watched = [(f"{m}.{n}", f"vars({watch.alias(m)})", n, None) for n, m in bound.items()] + watched
    if watched:
        body = _checked_entries(body, [d.__name__ for d in derivatives])
        provided.imports = standalone._merge(
            provided.imports
            + [f"import {m} as {watch.alias(m)}" for m in sorted(modules)]
            + ["from s2sad.runtime.watch import watched"],
            modules,
        )
    parts = [header + "\n\n" + "\n".join(provided.imports)]
    if watched:
        parts.append(watch.text(_unique(watched), cmd))
    if provided.constants:
        parts.append("\n".join(provided.constants))
    parts.append(body)
    if provided.functions:
        how = "by --standalone" if copy else "(local functions, lifted with what they close over as parameters)"
        parts.append(f"# Your functions, copied from {path} {how}\n" + "\n\n\n".join(provided.functions))
    if provided.helpers:
        banner = f"# Runtime helpers, copied from s2sad {_version()} by --standalone"
        parts.append(banner + "\n" + "\n\n\n".join(provided.helpers))
    text = "\n\n\n".join(parts) + "\n"
    ast.parse(text)  # the module is Python (comments and copies included)
    return text


_NONE = object()


def _bound_at_import(needed: dict, homes: list, provided) -> dict:
    """The names the module imports from the user's modules (``from model import helper``, also
    ``from numpy import tanh as ACT`` for ``model.ACT``), by the module they belong to: bound when the module
    is imported, so a later ``model.helper = other`` would leave its derivatives stale."""
    out = {}
    for name, obj in sorted(needed.items()):
        if name in provided.qualified or isinstance(obj, types.ModuleType):
            continue
        home = next((m for m in homes if getattr(m, name, _NONE) is obj), None)
        if home is not None and home.__name__.partition(".")[0] != "s2sad":
            out[name] = home.__name__
    return out


def _unique(watched: list) -> list:
    seen = set()
    return [w for w in watched if (w[1], w[2]) not in seen and not seen.add((w[1], w[2]))]


def _checked_entries(body: str, entries: list[str]) -> str:
    """``body`` with ``_unchanged()`` as the first statement of each function in ``entries``."""
    lines = body.splitlines()
    spots = []
    for fn in ast.parse(body).body:
        if isinstance(fn, ast.FunctionDef) and fn.name in entries:
            at = fn.body[0].lineno - 1
            while lines[at - 1].strip().startswith("#"):  # (before the comment naming the user's line)
                at -= 1
            spots.append(at)
    for at in sorted(spots, reverse=True):
        lines.insert(at, "    _unchanged()")
    return "\n".join(lines)


def _generated_name(derivative, name: str):
    """What ``name`` means to the generated functions of ``derivative``'s module (s2sad's own names,
    then the names of the user functions they differentiate, read through their globals)."""
    module = derivative.__s2sad_module__
    if name in module:
        return module[name]
    for f in module.values():
        if getattr(f, "__module__", None) == "s2sad.generated" and hasattr(f, "__code__"):
            try:
                return f.__globals__[name]
            except KeyError:
                continue
    return _NONE


def _default_holders(module, names, functions, derivatives) -> list:
    """(spelling, module, function) for the functions whose defaults the written module may read: the
    targets (``m.loss``, ``m.Model.loss``) and the user functions the derivatives differentiate."""
    out, seen = [], set()

    def add(home, path):
        obj = home
        for part in path.split("."):
            obj = getattr(obj, part, None)
        fn = getattr(obj, "__func__", obj)
        if hasattr(fn, "__code__") and id(fn) not in seen:
            seen.add(id(fn))
            out.append((f"{home.__name__}.{path}", home, fn))

    for name in names:
        add(module, name)
    for derivative in derivatives:
        for origin in derivative.__s2sad_origins__:
            home = sys.modules.get(getattr(origin, "__module__", None) or "")
            qualname = getattr(origin, "__qualname__", "")
            if home is not None and "<" not in qualname:
                add(home, qualname)
    return out


def _literal_text(value) -> str | None:
    """``repr(value)`` when it reads back as the same literal (numbers, strings, None, tuples of those)."""
    if not standalone.is_literal(value):
        return None
    text = repr(value)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError):  # (nan, inf)
        return None
    return text if type(back) is type(value) and repr(back) == text else None


def _with_defaults(code: str, live, holders, copy: bool, where: str, needed: dict) -> str:
    """``code`` (a generated ``def``) with each default written as the object the derivative uses (the
    user function's own default object, not its default expression evaluated again): a literal as
    itself, any other object read from the function's ``__defaults__`` / ``__kwdefaults__``."""
    node = ast.parse(code).body[0]
    args = node.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, live.__defaults__ or ()))
    kw = live.__kwdefaults__ or {}
    pairs += [(a, d, kw[a.arg]) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    edits = []
    for arg, default, value in pairs:
        text = _literal_text(value)
        if text is not None:
            try:
                same = _literal_text(ast.literal_eval(default)) == text
            except (ValueError, SyntaxError):
                same = False
            if not same:
                edits.append((default, text))
            continue
        if _names_it(default, value, live.__globals__):  # act=np.tanh, a class, a module: written as it is
            continue
        found = _default_spelling(arg.arg, value, holders)
        if found is None and isinstance(default, ast.Name):  # a lifted function's ``a=a``: the factory's
            continue  # object, bound by that name (``_default_named``) or refused when no module exports it
        if copy:
            at = f"{found[2]}" if found else where
            raise DifferentiationError(
                f"{at}: --standalone cannot copy the default of '{arg.arg}' ({type(value).__name__}), an object "
                "your program made; pass it as an argument, make it a literal, or drop --standalone"
            )
        if found is None:
            raise DifferentiationError(
                f"{where}: cannot write the default of '{arg.arg}' ({type(value).__name__}) of {live.__name__}: "
                "no module-level function of your file holds it; pass it as an argument"
            )
        spelling, home, _ = found
        if needed.setdefault(home.__name__, home) is not home:
            raise DifferentiationError(f"{where}: the name '{home.__name__}' means two objects; rename one")
        edits.append((default, spelling))
    lines = code.splitlines(keepends=True)
    for default, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        first, last = lines[default.lineno - 1].encode(), lines[default.end_lineno - 1].encode()
        joined = first[: default.col_offset] + text.encode() + last[default.end_col_offset :]
        lines[default.lineno - 1 : default.end_lineno] = [joined.decode()]
    return "".join(lines)


def _names_it(node, value, space) -> bool:
    """``node`` is a name or dotted path that gives the function, class or module ``value`` itself (not
    an object it makes: ``Cfg()``, ``rng.normal()``)."""
    if not (inspect.isroutine(value) or isinstance(value, (type, types.ModuleType))):
        return False
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    try:
        obj = space[node.id]
    except KeyError:
        obj = getattr(builtins, node.id, _NONE)
    for part in reversed(parts):
        obj = getattr(obj, part, _NONE)
    return obj is value


def _default_spelling(param: str, value, holders):
    """``(m.loss.__defaults__[0], module m, 'file:line:1')``: where ``value`` is the default of ``param``."""
    for spelling, home, fn in holders:
        code = fn.__code__
        names = code.co_varnames[: code.co_argcount]
        own = fn.__defaults__ or ()
        at = f"{code.co_filename}:{code.co_firstlineno}:1"
        if param in names[len(names) - len(own) :]:
            index = names.index(param) - (len(names) - len(own))
            if own[index] is value:
                return f"{spelling}.__defaults__[{index}]", home, at
        if (fn.__kwdefaults__ or {}).get(param, _NONE) is value:
            return f"{spelling}.__kwdefaults__[{param!r}]", home, at
    return None


def _default_named(derivatives, name: str):
    """The default object of a parameter ``name`` of a function the derivatives differentiate (a
    factory's ``def f(x, a=a)``: the default expression names what the factory's scope held)."""
    for derivative in derivatives:
        for origin in derivative.__s2sad_origins__:
            if not hasattr(origin, "__code__"):
                continue
            code = origin.__code__
            names = code.co_varnames[: code.co_argcount]
            defaults = dict(zip(names[len(names) - len(origin.__defaults__ or ()) :], origin.__defaults__ or ()))
            defaults.update(origin.__kwdefaults__ or {})
            if name in defaults:
                return defaults[name]
    return _NONE


def _derive(fn, mode: str, wrt):
    kind = MODES[mode]
    entry = getattr(api, kind)
    try:
        derivative = entry(fn, wrt=wrt)
        if getattr(derivative, "__s2sad_dispatch__", None) is not None:
            star = "takes *args or **kwargs" if star_args(fn) else "calls methods of an argument's object"
            raise DifferentiationError(
                f"{_where(fn)}: {fn.__name__} {star}, so its derivative is generated for each call's "
                "arguments (their number, keyword names and classes), which a file written ahead of the call "
                "cannot know; give the command line a function with a fixed signature that calls it "
                f"(def f2(x, y): return {fn.__name__}(x, y)), or use s2sad.grad in your program"
            )
        return derivative
    except DifferentiationError as exc:
        message = str(exc)
        if message.startswith(fn.__code__.co_filename + ":"):
            raise
        raise DifferentiationError(f"{_where(fn)}: {message}") from None


def _definitions(derivatives) -> dict[str, str]:
    """The top-level functions of each generated module, by name (shared ones once)."""
    defs: dict[str, str] = {}
    for fn in derivatives:
        text = api.source(fn)
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            code = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            if defs.setdefault(node.name, code) != code:
                raise DifferentiationError(
                    f"{_where(fn.__wrapped_function__)}: two different generated functions are named "
                    f"{node.name}; generate these derivatives into separate modules"
                )
    return defs


def _header(path, functions, wrt, mode, copy, cmd) -> str:
    kind = MODES[mode]
    what = f"{mode} mode ({kind})" if mode in ("reverse", "forward") else kind
    shown = []
    for fn in functions:
        params = param_names(fn)
        items = _wrt(wrt)
        items = items if isinstance(items, tuple) else (items,)
        names = [params[i] if isinstance(i, int) else i for i in items]
        shown.append(f"{fn.__name__} wrt {', '.join(names)}")
    lines = [
        f"# Generated by s2sad {_version()} from {path}: {'; '.join(shown)}; {what}.",
        f"# Regenerate with: {cmd}",
        "# Comments `# <your code>  (file:line)` name the line each block of code differentiates.",
    ]
    if copy:
        lines.append("# Standalone: what it calls is copied in below; it runs without s2sad.")
    return "\n".join(lines)


def _version() -> str:
    from . import __version__

    return __version__
