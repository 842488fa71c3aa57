"""The green gate's mutation check (green.mutation): real repositories, real pytest with
coverage.py recording which test ran each line, mutants run on snapshots, the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GitRepo
from tests.project import CALC, CALC_SUB, stage_red, start_project

# `sub` with a branch no test takes or needs: `sub(5, 3)` passes with or without it.
CALC_SUB_UNPINNED = (
    CALC
    + """

def sub(a, b):
    if b == 7:
        return 0
    return a - b
"""
)
UNPINNED_LINE = 9  # `if b == 7:`


@pytest.fixture
def red(repo: GitRepo) -> GitRepo:
    start_project(repo)
    stage_red(repo)
    proc = repo.tddgit("red", "-m", "red: sub")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return repo


def green(repo: GitRepo, calc: str, *args: str) -> Any:
    repo.write("calc.py", calc, dedent=False)
    repo.add("calc.py")
    proc = repo.tddgit("green", "--json", "-m", "green: sub", *args)
    assert proc.stdout, proc.stderr
    data = json.loads(proc.stdout)
    data["returncode"] = proc.returncode
    return data


def configure(repo: GitRepo, text: str) -> None:
    repo.write(".tddgit.yaml", text)
    repo.commit("configure tddgit", ".tddgit.yaml")


def mutation_findings(data: Any) -> list[dict[str, Any]]:
    findings = data["evidence"]["findings"]
    return [f for f in findings if f["rule"] == "unpinned-green-line"]


def test_an_unpinned_branch_is_warned_with_its_line_mutant_and_fix(red: GitRepo) -> None:
    assert CALC_SUB_UNPINNED.splitlines()[UNPINNED_LINE - 1].strip() == "if b == 7:"
    data = green(red, CALC_SUB_UNPINNED)
    assert data["returncode"] == 0, data  # warn: the green holds and is committed
    [finding] = mutation_findings(data)
    assert finding["file"] == "calc.py"
    assert finding["line"] == UNPINNED_LINE
    assert finding["operator"] == "skip-branch"
    assert finding["mutant"] == "if False:"
    # run against only the test that ran the line, from the gate's own run
    assert finding["tests"] == ["tests/test_calc.py::test_sub"]
    assert finding["severity"] == "warning"
    assert "add a test that fails for this change, or remove the line" in finding["message"]
    note = json.loads(red.git("notes", "--ref=tddgit", "show", "HEAD"))
    assert [f["rule"] for f in note["findings"]].count("unpinned-green-line") == 1


def test_the_text_output_names_the_line_and_counts_the_mutants(red: GitRepo) -> None:
    red.write("calc.py", CALC_SUB_UNPINNED, dedent=False)
    red.add("calc.py")
    proc = red.tddgit("green", "--no-commit")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "warning unpinned-green-line: calc.py:9: no test fails when `if b == 7:` becomes "
        "`if False:`"
    ) in proc.stdout
    assert "mutation: 1 of 2 mutants killed" in proc.stdout


def test_refuse_refuses_and_commits_nothing(red: GitRepo) -> None:
    configure(red, "green:\n  mutation: refuse\n")
    head = red.head()
    data = green(red, CALC_SUB_UNPINNED)
    assert data["returncode"] == 1
    assert [r["rule"] for r in data["reasons"]] == ["unpinned-green-line"]
    assert red.head() == head
    assert red.git("status", "--porcelain") == "M  calc.py\n"  # the tree as it was


def test_a_green_whose_every_line_is_pinned_holds_silently(red: GitRepo) -> None:
    configure(red, "green:\n  mutation: refuse\n")
    data = green(red, CALC_SUB)
    assert data["returncode"] == 0, data
    assert mutation_findings(data) == []


def test_off_makes_no_mutant(red: GitRepo) -> None:
    configure(red, 'green:\n  mutation: "off"\n')
    data = green(red, CALC_SUB_UNPINNED)
    assert data["returncode"] == 0
    assert mutation_findings(data) == []
    assert not any(n.startswith("mutation:") for n in data["notes"])


def test_a_second_judgement_of_the_same_tree_comes_from_the_cache(red: GitRepo) -> None:
    red.write("calc.py", CALC_SUB_UNPINNED, dedent=False)
    red.add("calc.py")
    first = red.tddgit("green", "--no-commit")
    assert "from the cache" not in first.stdout
    second = red.tddgit("green", "--no-commit")
    assert "mutation: 1 of 2 mutants killed, 2 from the cache" in second.stdout
    assert "warning unpinned-green-line: calc.py:9" in second.stdout


def test_the_budget_ends_the_check_cleanly(red: GitRepo) -> None:
    configure(red, "mutation:\n  budget: 0.000001\n")
    data = green(red, CALC_SUB_UNPINNED)
    assert data["returncode"] == 0
    assert (
        "mutation: 0 of 0 mutants killed (0 of 2 mutants run within the budget)" in (data["notes"])
    )


def test_no_mutant_is_ever_written_into_the_users_tree(red: GitRepo, tmp_path: Path) -> None:
    red.write("calc.py", CALC_SUB_UNPINNED, dedent=False)
    red.add("calc.py")
    before = (red.root / "calc.py").read_bytes()
    proc = red.tddgit("green", "--no-commit")
    assert proc.returncode == 0
    assert (red.root / "calc.py").read_bytes() == before
    assert red.git("status", "--porcelain", "--ignored") == "M  calc.py\n"


# `+ OFFSET` where OFFSET is a module-level 0: `- OFFSET` is the same program (an
# equivalent mutant), so no test could ever kill it.
CALC_SUB_OFFSET = (
    CALC
    + """
OFFSET = 0
SCALE = 1


def sub(a, b):
    return (a - b + OFFSET) * SCALE
"""
)


def test_an_identity_operand_makes_no_equivalent_mutant(red: GitRepo) -> None:
    configure(red, "mutation:\n  per_line: 3\n")
    data = green(red, CALC_SUB_OFFSET)
    assert data["returncode"] == 0, data
    assert mutation_findings(data) == []
    # still mutated where a mutant changes the program: `a - b` -> `a + b`, `return None`
    assert "mutation: 2 of 2 mutants killed" in data["notes"]
