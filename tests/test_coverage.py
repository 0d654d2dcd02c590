"""docs/coverage.md is generated from the rule registry and must be current."""

import sys

import pytest

from s2sad.rules import coverage


@pytest.mark.skipif(sys.version_info < (3, 11), reason="generated on Python >= 3.11 (math.cbrt)")
def test_coverage_table_is_current():
    current = coverage.PATH.read_text() if coverage.PATH.exists() else ""
    assert current == coverage.render(), f"docs/coverage.md is stale; regenerate it with `{coverage.COMMAND}`"


def test_every_builtin_rule_is_listed_once():
    text = coverage.render()
    for name, rule in coverage.RULES.items():
        if rule.module.startswith("s2sad.rules."):
            assert text.count(f"| `{name}` |") == 1, name
