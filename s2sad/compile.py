"""compile: generated source -> live functions, registered in ``linecache`` so tracebacks and
``inspect.getsource`` show the generated lines (which is also what lets s2sad differentiate its
own output)."""

from __future__ import annotations

import itertools
import linecache

_counter = itertools.count()


def load(source: str, namespace: dict, label: str) -> dict:
    """Execute ``source`` as a module; give its namespace.  ``label`` names the file in tracebacks."""
    filename = f"<s2sad {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module_ns = dict(namespace)
    module_ns["__name__"] = "s2sad.generated"
    module_ns["__file__"] = filename
    exec(compile(source, filename, "exec"), module_ns)  # noqa: S102 - this is the product
    return module_ns
