"""The green gate's yagni check: real repositories, real pytest (with and without coverage.py),
the real CLI; plus the pure line arithmetic behind it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tddgit.model import LineCoverage
from tddgit.runners.probelog import merge_coverage, parse_probe
from tddgit.yagni import MIN_LINES, RATIO, Heuristic, added_code, ranges
from tests.conftest import GitRepo
from tests.project import CALC, stage_red, start_project

# `sub` with a branch the red's test (sub(5, 3) == 2) never takes: lines 11 of the file.
CALC_SUB_BRANCH = (
    CALC
    + '''

def sub(a, b):
    """Subtract."""
    if b > a:
        raise ValueError("negative results are not supported")
    return a - b
'''
)

# Module-level code that only runs at import (here: when conftest.py imports calc, before
# pytest configures anything), and a function the test calls: every added line runs.
CALC_SUB_ALL_RUN = (
    CALC
    + """
OFFSET = 0  # runs at import


def sub(a, b):
    # a comment is never reported
    return a - b + OFFSET
"""
)

# Records whether the probe imported coverage.py into the test process.
CONFTEST = """\
import os
import sys

import calc  # noqa: F401  (imported while pytest loads conftests)


def pytest_sessionfinish(session):
    out = os.environ.get("YAGNI_TEST_MODULES")
    if out and not hasattr(session.config, "workerinput"):
        with open(out, "a") as fh:
            fh.write(str("coverage" in sys.modules) + "\\n")
"""


@pytest.fixture
def red(repo: GitRepo) -> GitRepo:
    """A project with a committed red (tests/test_calc.py::test_sub) and a conftest that
    imports the production module."""
    start_project(repo)
    repo.write("tests/conftest.py", CONFTEST, dedent=False)
    # These tests pin yagni's findings exactly: the mutation check is tests/mutation's
    # (CALC_SUB_BRANCH's `if b > a:` is unpinned, a real finding of its own; `+ OFFSET`
    # where OFFSET is 0 no longer makes one: tests/mutation/test_gate.py)
    repo.write(".tddgit.yaml", 'green:\n  mutation: "off"\n')
    repo.commit("conftest")
    stage_red(repo)
    proc = repo.tddgit("red", "-m", "red: sub")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return repo


def green(repo: GitRepo, calc: str, *args: str, env: dict[str, str] | None = None) -> Any:
    repo.write("calc.py", calc, dedent=False)
    repo.add("calc.py")
    proc = repo.tddgit("green", "--json", "-m", "green: sub", *args, env=env)
    assert proc.stdout, proc.stderr
    data = json.loads(proc.stdout)
    data["returncode"] = proc.returncode
    return data


def note(repo: GitRepo) -> Any:
    return json.loads(repo.git("notes", "--ref=tddgit", "show", "HEAD"))


def configure(repo: GitRepo, text: str) -> None:
    repo.write(".tddgit.yaml", text)
    repo.commit("configure tddgit", ".tddgit.yaml")


# --- coverage measured by the probe --------------------------------------------------------


def test_untested_branch_is_a_finding_in_the_note(red: GitRepo) -> None:
    data = green(red, CALC_SUB_BRANCH)
    assert data["returncode"] == 0, data  # a warning: the green holds and is committed
    [finding] = note(red)["findings"]
    assert finding == {
        "rule": "yagni",
        "severity": "warning",
        "file": "calc.py",
        "lines": [[11, 11]],
        "message": "calc.py:11: 1 added line no test executed",
        "method": "coverage",
    }
    assert CALC_SUB_BRANCH.splitlines()[10].strip().startswith("raise ValueError")


def test_text_output_shows_the_finding(red: GitRepo) -> None:
    red.write("calc.py", CALC_SUB_BRANCH, dedent=False)
    red.add("calc.py")
    proc = red.tddgit("green", "--no-commit")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning yagni: calc.py:11: 1 added line no test executed" in proc.stdout


def test_all_added_lines_executed_no_finding(red: GitRepo, tmp_path: Path) -> None:
    modules = tmp_path / "modules.txt"
    data = green(red, CALC_SUB_ALL_RUN, env={"YAGNI_TEST_MODULES": str(modules)})
    assert data["returncode"] == 0, data
    assert note(red)["findings"] == []
    # the check can fail: coverage.py really was loaded for this run
    assert modules.read_text().split() == ["True"]


def test_block_refuses_with_rule_yagni(red: GitRepo) -> None:
    configure(red, 'green:\n  yagni: block\n  mutation: "off"\n')
    head = red.head()
    data = green(red, CALC_SUB_BRANCH)
    assert data["returncode"] == 1
    assert [r["rule"] for r in data["reasons"]] == ["yagni"]
    assert "calc.py:11" in data["reasons"][0]["message"]
    assert data["evidence"]["findings"][0]["severity"] == "error"
    assert red.head() == head  # nothing committed


def test_off_measures_nothing(red: GitRepo, tmp_path: Path) -> None:
    # YAML reads a bare off as false; the mutation check would measure coverage too
    configure(red, 'green:\n  yagni: "off"\n  mutation: "off"\n')
    modules = tmp_path / "modules.txt"
    data = green(red, CALC_SUB_BRANCH, env={"YAGNI_TEST_MODULES": str(modules)})
    assert data["returncode"] == 0, data
    assert note(red)["findings"] == []
    assert modules.read_text().split() == ["False"]


def test_probe_does_not_import_coverage_when_not_asked(repo: GitRepo, tmp_path: Path) -> None:
    start_project(repo)
    repo.write("tests/conftest.py", CONFTEST, dedent=False)
    # These tests pin yagni's findings exactly: the mutation check is tests/mutation's
    # (CALC_SUB_BRANCH's `if b > a:` is unpinned, a real finding of its own; `+ OFFSET`
    # where OFFSET is 0 no longer makes one: tests/mutation/test_gate.py)
    repo.write(".tddgit.yaml", 'green:\n  mutation: "off"\n')
    repo.commit("conftest")
    stage_red(repo)
    modules = tmp_path / "modules.txt"
    proc = repo.tddgit("red", "--no-commit", env={"YAGNI_TEST_MODULES": str(modules)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert modules.read_text().split() == ["False"]


def test_xdist_workers_are_merged(red: GitRepo) -> None:
    red.write("pytest.ini", "[pytest]\npythonpath = .\ntestpaths = tests\naddopts = -n 2\n")
    red.commit("run under xdist", "pytest.ini")
    data = green(red, CALC_SUB_BRANCH)
    assert data["returncode"] == 0, data
    assert "-n" in (red.root / "pytest.ini").read_text()
    assert [f["lines"] for f in note(red)["findings"]] == [[[11, 11]]]


def test_snapshot_run_maps_paths_back(red: GitRepo) -> None:
    red.write("scratch.py", "x = 1\n")  # untracked source: the gate runs on a snapshot
    data = green(red, CALC_SUB_BRANCH)
    assert data["returncode"] == 0, data
    assert any("snapshot" in n for n in data["notes"])
    assert [(f["file"], f["lines"]) for f in note(red)["findings"]] == [("calc.py", [[11, 11]])]


# --- without coverage: the size heuristic ---------------------------------------------------


def _big_sub() -> str:
    body = "".join(f"    r{i} = a - b\n" for i in range(MIN_LINES + 2))
    return CALC + f"\n\ndef sub(a, b):\n{body}    return r0\n"


def test_no_coverage_falls_back_to_the_heuristic(red: GitRepo, tmp_path: Path) -> None:
    # A `coverage` package that cannot be imported, first on the tests' sys.path: exactly
    # what an interpreter without coverage.py looks like to the probe.
    blocker = tmp_path / "blocker" / "coverage"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('coverage is not installed')\n")
    data = green(red, _big_sub(), env={"PYTHONPATH": str(blocker.parent)})
    assert data["returncode"] == 0, data
    [finding] = note(red)["findings"]
    assert finding["method"] == "heuristic"
    assert finding["file"] == "calc.py"
    assert finding["lines"] == [[8, 8 + MIN_LINES + 3]]
    assert "heuristic" in finding["message"]
    assert "coverage.py is not importable" in finding["message"]
    assert f"{MIN_LINES + 4} production lines for 2 test lines" in finding["message"]


def test_heuristic_stays_quiet_for_a_small_green(red: GitRepo, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "coverage"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('coverage is not installed')\n")
    data = green(red, CALC_SUB_BRANCH, env={"PYTHONPATH": str(blocker.parent)})
    assert data["returncode"] == 0, data
    assert note(red)["findings"] == []
    assert any("yagni judged by size" in n for n in data["notes"])


# --- the line arithmetic ------------------------------------------------------------------


SOURCE = '''\
"""Module docstring."""
import os


@staticmethod
def f(a,
      b):
    """Doc
    string."""
    x = (a +
         b)
    if x:  # pragma: no cover
        return 1
    pass
    ...
    raise NotImplementedError

    # comment
    return os.sep
'''


def test_added_code_skips_trivia_and_maps_statements() -> None:
    added = added_code("m.py", SOURCE, range(1, 30))
    assert added.lines == (2, 5, 6, 7, 10, 11, 19)
    assert added.spans[11] == (10, 11)  # a continuation line belongs to its statement
    assert added.spans[5] == (5, 7)  # decorator and header
    # coverage saw line 10 (statement start) as not run: its continuation line is reported
    cov = LineCoverage(frozenset({2, 5, 6, 10, 19}), frozenset({2, 5, 6}))
    flagged = added.unexecuted(cov)
    assert flagged == [10, 11, 19]
    # lines 12-18 are not code (pragma block, stubs, comment): the range runs over them
    assert ranges(flagged, added.lines) == [[10, 19]]


def test_ranges_run_over_blank_lines_but_stop_at_executed_code() -> None:
    assert ranges([3, 6], [3, 6]) == [[3, 6]]
    assert ranges([3, 6], [3, 5, 6]) == [[3, 3], [6, 6]]


def test_non_python_files_count_non_comment_lines() -> None:
    added = added_code(
        "web/app.js", "// hi\nconst a = 1;\n\n/* x */\nexport { a };\n", [1, 2, 3, 4, 5]
    )
    assert added.lines == (2, 5)
    assert not added.python


@pytest.mark.parametrize(
    ("production", "tests", "fires"),
    [
        (MIN_LINES - 1, 0, False),
        (MIN_LINES, 0, True),
        (30, int(30 / RATIO) - 1, True),
        (30, 10, False),
    ],
)
def test_heuristic_threshold(production: int, tests: int, fires: bool) -> None:
    assert Heuristic(production, tests, "").fires is fires


def test_merge_coverage_unions_workers_and_honours_unavailable() -> None:
    rec = {"t": "coverage", "files": {"/s/calc.py": {"statements": [1, 2, 3], "executed": [1]}}}
    other = {"t": "coverage", "worker": "gw1", "files": {"/s/calc.py": {"executed": [2]}}}
    other["files"]["/s/calc.py"]["statements"] = [1, 2, 3]
    log = parse_probe([json.dumps(rec), json.dumps(other)])
    cov, note_text = merge_coverage(log, {"/s/calc.py": "calc.py"})
    assert cov == {"calc.py": LineCoverage(frozenset({1, 2, 3}), frozenset({1, 2}))}
    assert note_text == ""
    gone = parse_probe([json.dumps(rec), '{"t":"coverage","unavailable":"no coverage"}'])
    assert merge_coverage(gone, {"/s/calc.py": "calc.py"}) == (None, "no coverage")
    assert merge_coverage(parse_probe([]), {"/s/calc.py": "calc.py"})[0] is None
