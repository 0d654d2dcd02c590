"""Write ``docs/coverage.md``: every primitive s2sad knows, its modes, grouped by rule family.

    python -m s2sad.rules.coverage          # rewrite docs/coverage.md from the registry
    python -m s2sad.rules.coverage --check  # exit 1 if docs/coverage.md is not current

The table is generated, never edited: ``tests/test_coverage.py`` fails when it is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import RULES
from .registry import public_name

PATH = Path(__file__).resolve().parents[2] / "docs" / "coverage.md"
COMMAND = "python -m s2sad.rules.coverage"

FAMILIES = {  # module -> heading, in reading order
    "arithmetic": "Arithmetic operators and their ufuncs",
    "math_rules": "The math module",
    "numpy_elementwise": "NumPy elementwise functions",
    "reductions": "Reductions and cumulative operations",
    "shape_ops": "Shape operations, indexing, joins and splits, array construction",
    "linalg": "Products and linear algebra",
    "fft": "Fourier transforms",
    "scipy_special": "scipy.special",
    "nondifferentiable": "Nondifferentiable (no derivative flows through the result)",
    "runtime_rules": "s2sad's runtime helpers (so derivative code can be differentiated again)",
    "product_helpers": "The runtime helpers of prod and cumprod",
    "linalg_helpers": "The runtime helpers of the linear algebra rules",
}


def _family(rule) -> str:
    return rule.module.rpartition(".")[2]


def render() -> str:
    """The text of docs/coverage.md for the built-in rules."""
    rules = [r for r in RULES.values() if r.module.startswith("s2sad.rules.")]
    both = sum(1 for r in rules if r.differentiable and len(r.modes) == 2)
    nondiff = sum(1 for r in rules if not r.differentiable)
    lines = [
        "# Coverage: the primitives s2sad differentiates",
        "",
        f"Generated from the rule registry by `{COMMAND}`; do not edit. {len(rules)} primitives: "
        f"{both} with both a reverse and a forward rule, {nondiff} nondifferentiable. "
        "Aliases are other names for the same primitive; `s2sad --list-rules` prints the same table.",
    ]
    order = list(FAMILIES) + sorted({_family(r) for r in rules} - set(FAMILIES))
    for family in order:
        members = sorted((r for r in rules if _family(r) == family), key=lambda r: r.name)
        if not members:
            continue
        lines += ["", f"## {FAMILIES.get(family, family)}", "", f"`s2sad/rules/{family}.py`", ""]
        lines += ["| primitive | reverse | forward | aliases |", "|---|---|---|---|"]
        for r in members:
            aliases = sorted({public_name(p) for p in r.primitives} - {r.name})
            if r.differentiable:
                marks = ["yes" if r.reverse else "-", "yes" if r.forward else "-"]
            else:
                marks = ["zero", "zero"]
            lines.append(f"| `{r.name}` | {marks[0]} | {marks[1]} | {', '.join(f'`{a}`' for a in aliases)} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=COMMAND, description="Write docs/coverage.md from the rule registry.")
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/coverage.md is not current")
    opts = parser.parse_args(sys.argv[1:] if argv is None else argv)
    text = render()
    if opts.check:
        current = PATH.read_text() if PATH.exists() else ""
        if current != text:
            print(f"{PATH} is stale; regenerate it with `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    PATH.write_text(text)
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
