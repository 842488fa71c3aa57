"""`tddgit audit --verify --mutate` on a small history made with the real gates."""

from __future__ import annotations

import json

from tests.conftest import GitRepo
from tests.mutation.test_gate import CALC_SUB_UNPINNED, UNPINNED_LINE
from tests.project import stage_red, start_project

TEST_MUL = """
def test_mul():
    assert calc.mul(2, 3) == 6
"""
CALC_MUL = CALC_SUB_UNPINNED + "\n\ndef mul(a, b):\n    return a * b\n"


def test_the_audit_scores_each_green_and_finds_the_unpinned_line(repo: GitRepo) -> None:
    start_project(repo)
    repo.write(".tddgit.yaml", 'green:\n  mutation: "off"\n')  # the gates judge nothing here
    repo.commit("configure", ".tddgit.yaml")
    stage_red(repo)
    assert repo.tddgit("red", "-m", "red: sub").returncode == 0
    repo.write("calc.py", CALC_SUB_UNPINNED, dedent=False)
    repo.add("calc.py")
    assert repo.tddgit("green", "-m", "green: sub").returncode == 0
    unpinned_green = repo.head()
    test = (repo.root / "tests/test_calc.py").read_text() + TEST_MUL
    repo.write("tests/test_calc.py", test, dedent=False)
    repo.add("tests/test_calc.py")
    assert repo.tddgit("red", "-m", "red: mul").returncode == 0
    repo.write("calc.py", CALC_MUL, dedent=False)
    repo.add("calc.py")
    assert repo.tddgit("green", "-m", "green: mul").returncode == 0

    proc = repo.tddgit("audit", "--verify", "--mutate", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    found = [f for f in report["findings"] if f["rule"] == "unpinned-green-line"]
    assert [(f["commit"], f["files"]) for f in found] == [(unpinned_green, ["calc.py"])]
    assert f"calc.py:{UNPINNED_LINE}: no test fails when `if b == 7:`" in found[0]["message"]
    lines = proc.stderr.splitlines()
    assert "mutate: 2 of 3 mutants killed (66%) over 2 greens" in lines
    cycles = [line.split(": ", 1)[1] for line in lines if line.startswith("  cycle ")]
    assert cycles == ["1 of 2 mutants killed (50%)", "1 of 1 mutants killed (100%)"], lines
    authors = [line for line in lines if line.startswith("  ") and "<" in line]
    assert len(authors) == 1 and authors[0].endswith(": 2 of 3 mutants killed (66%)"), lines


def test_mutate_without_verify_is_a_usage_error(repo: GitRepo) -> None:
    start_project(repo)
    proc = repo.tddgit("audit", "--mutate")
    assert proc.returncode == 2
    assert "add --verify" in proc.stderr
