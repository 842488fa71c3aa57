"""The post-write check's one-module line measurement (tddgit/guard/_probe)."""

from __future__ import annotations

import ast
from pathlib import Path

from tddgit.config import load_config
from tddgit.git import find_repo
from tddgit.guard._probe import tddgit_guard_lines as plugin
from tddgit.guard.checks import _run_measuring
from tddgit.guard.facts import Facts
from tests.guard.conftest import project_at

SOURCE = '''\
"""Docstring stays the docstring."""
from __future__ import annotations

import os

COUNT = 0


def used(x):
    global COUNT
    COUNT += 1
    if x > 0:
        return "positive"
    elif x < 0:
        return "negative"
    return "zero"


@staticmethod
def unused(
    y,
):
    return y * 2
'''


def run_instrumented(source: str) -> tuple[dict[str, object], set[int]]:
    plugin._statements.clear()
    hits: set[int] = set()
    code = compile(plugin.instrument(ast.parse(source)), "<m>", "exec", dont_inherit=True)
    namespace: dict[str, object] = {plugin.HIT: hits.add, "__name__": "m"}
    exec(code, namespace)
    return namespace, hits


def test_instrumented_module_records_the_statements_that_ran() -> None:
    namespace, hits = run_instrumented(SOURCE)
    assert namespace["__doc__"] == "Docstring stays the docstring."
    used = namespace["used"]
    assert callable(used)
    assert used(1) == "positive" and used(0) == "zero"
    assert namespace["COUNT"] == 2
    assert plugin._statements == {4, 6, 9, 11, 12, 13, 14, 15, 16, 20, 23}
    # the elif test ran (x was not positive), its body never did; unused's body never ran
    assert hits == {4, 6, 9, 11, 12, 13, 14, 16, 20}


def test_the_check_measures_through_the_plugin_not_coverage(templates, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = project_at(templates, "green", tmp_path)
    (repo.root / "calc.py").write_text(
        (repo.root / "calc.py").read_text() + "\n\ndef mul(a, b):\n    return a * b\n"
    )
    found = find_repo(repo.root)
    facts = Facts(found, load_config(found.root, found.tddgit_dir), repo.head())
    result, lines = _run_measuring(facts, ("tests/test_calc.py",), "calc.py")
    assert result.coverage is None  # coverage.py was not asked
    assert lines is not None
    assert 12 in lines.executed and 13 in lines.missing  # def ran at import; its body never
