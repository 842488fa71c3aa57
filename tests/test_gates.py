"""The three gates end to end: real repositories, real pytest, real commits."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GitRepo
from tests.project import (
    CALC,
    CALC_SUB,
    TEST_SUB,
    rules,
    snapshot_state,
    stage_green,
    stage_red,
    start_project,
    trailer,
    verdict,
)


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    start_project(repo)
    return repo


# --- red ------------------------------------------------------------------------------


def test_red_holds_commits_with_trailer_and_note(project: GitRepo) -> None:
    stage_red(project)
    proc = project.tddgit("red", "-m", "sub: subtract")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "✓ red holds" in proc.stdout
    assert "tests/test_calc.py::test_sub" in proc.stdout
    assert trailer(project) == "red"
    note = json.loads(project.git("notes", "--ref=tddgit", "show", "HEAD"))
    assert note["schema"] == "tddgit.evidence/2"
    assert note["phase"] == "red"
    assert note["tree"] == project.git("rev-parse", "HEAD^{tree}").strip()
    [target] = note["targets"]
    assert target["id"] == "tests/test_calc.py::test_sub"
    assert (target["outcome"], target["cause"], target["light"]) == (
        "failed",
        "not-implemented",
        "red",
    )
    assert "sub" in target["message"]


def test_red_assertion_failure_holds(project: GitRepo) -> None:
    project.write(
        "tests/test_more.py", "import calc\n\ndef test_neg():\n    assert calc.add(-1, -1) == -3\n"
    )
    project.add()
    code, data = verdict(project, "red", "--no-commit")
    assert code == 0, data
    assert data["evidence"]["targets"][0]["cause"] == "assertion"
    assert project.git("rev-list", "--count", "HEAD").strip() == "1"  # nothing committed


def test_red_refuses_syntax_error_in_test_and_changes_nothing(project: GitRepo) -> None:
    project.write("tests/test_calc.py", TEST_SUB + "\ndef test_broken(:\n    pass\n")
    project.add()
    before = snapshot_state(project)
    proc = project.tddgit("red", "-m", "broken")
    assert proc.returncode == 1
    assert "target-amber" in proc.stdout and "syntax" in proc.stdout
    assert "nothing was committed" in proc.stdout
    assert snapshot_state(project) == before
    assert project.git("rev-list", "--count", "HEAD").strip() == "1"


def test_red_refuses_a_test_that_already_passes(project: GitRepo) -> None:
    project.write(
        "tests/test_calc.py", TEST_SUB.replace("calc.sub(5, 3) == 2", "calc.add(1, 1) == 2")
    )
    project.add()
    code, data = verdict(project, "red")
    assert code == 1
    assert rules(data) == ["target-passes"]


def test_red_refuses_missing_third_party_module_as_amber(project: GitRepo) -> None:
    project.write(
        "pyproject.toml",
        (project.root / "pyproject.toml")
        .read_text()
        .replace('version = "0.1.0"', 'version = "0.1.0"\ndependencies = ["no_such_dep_xyz"]'),
    )
    project.write(
        "tests/test_dep.py",
        "import no_such_dep_xyz\n\ndef test_dep():\n    assert no_such_dep_xyz.f()\n",
    )
    project.add()
    code, data = verdict(project, "red")
    assert code == 1
    assert rules(data) == ["target-amber"]
    assert data["reasons"][0]["cause"] == "environment"


def test_red_refuses_pre_test_code_but_allows_stubs(project: GitRepo) -> None:
    stage_red(project)
    stage_green(project)  # the real implementation: not a stub
    code, data = verdict(project, "red")
    assert code == 1
    assert rules(data) == ["pre-test-code"]
    project.write("calc.py", CALC + "\n\ndef sub(a, b):\n    raise NotImplementedError\n")
    project.add("calc.py")
    code, data = verdict(project, "red", "--no-commit")
    assert code == 0, data
    assert data["evidence"]["targets"][0]["cause"] == "not-implemented"


def test_red_needs_a_test_change(project: GitRepo) -> None:
    project.write("README.md", "# calc\n")
    project.add()
    code, data = verdict(project, "red")
    assert code == 1
    assert "no-test-change" in rules(data)


def test_red_refuses_when_a_pre_existing_test_breaks(project: GitRepo) -> None:
    project.write("tests/test_calc.py", TEST_SUB.replace("== 5", "== 6"))
    project.add()
    code, data = verdict(project, "red", "tests/test_calc.py::test_sub")
    assert code == 1
    assert rules(data) == ["test-failing"] or rules(data) == ["regression"]
    assert data["reasons"][0]["test"] == "tests/test_calc.py::test_add"


def test_red_on_the_root_commit_of_an_empty_repo(repo: GitRepo) -> None:
    repo.write("tests/test_new.py", "import newmod\n\ndef test_it():\n    assert newmod.f() == 1\n")
    repo.add()
    proc = repo.tddgit("red", "-m", "first test")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert repo.git("rev-list", "--count", "HEAD").strip() == "1"
    assert trailer(repo) == "red"


def test_red_on_detached_head(project: GitRepo) -> None:
    project.git("checkout", "-q", "--detach")
    stage_red(project)
    proc = project.tddgit("red", "-m", "detached red")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trailer(project) == "red"


# --- green ----------------------------------------------------------------------------


@pytest.fixture
def red(project: GitRepo) -> GitRepo:
    stage_red(project)
    project.tddgit("red", "-m", "sub", check=True)
    return project


def test_green_holds_after_red(red: GitRepo) -> None:
    stage_green(red)
    proc = red.tddgit("green", "-m", "sub: implement")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trailer(red) == "green"
    note = json.loads(red.git("notes", "--ref=tddgit", "show", "HEAD"))
    assert [t["id"] for t in note["targets"]] == ["tests/test_calc.py::test_sub"]
    assert note["targets"][0]["outcome"] == "passed"


def test_green_without_red_is_refused(project: GitRepo) -> None:
    stage_green(project)
    code, data = verdict(project, "green")
    assert code == 1
    assert rules(data) == ["green-without-red"]


def test_green_refuses_a_regression(red: GitRepo) -> None:
    red.write("calc.py", CALC_SUB.replace("return a + b", "return a + b + 1"))
    red.add("calc.py")
    code, data = verdict(red, "green")
    assert code == 1
    assert rules(data) == ["regression"]
    assert data["reasons"][0]["test"] == "tests/test_calc.py::test_add"


def test_green_refuses_edits_to_the_red_tests(red: GitRepo) -> None:
    stage_green(red)
    red.write("tests/test_calc.py", TEST_SUB.replace("== 2", "== 2  # tweaked"))
    red.add()
    code, data = verdict(red, "green")
    assert code == 1
    assert "test-edited-in-green" in rules(data)


def test_green_allows_test_edits_when_configured(red: GitRepo) -> None:
    stage_green(red)
    red.write("tests/test_calc.py", TEST_SUB + "\n# a comment\n")
    red.write(".tddgit.yaml", "green:\n  allow_test_edits: true\n")
    red.add()
    code, data = verdict(red, "green", "--no-commit")
    assert code == 0, data


def test_green_needs_production_code(red: GitRepo) -> None:
    red.write("README.md", "hi\n")
    red.add()
    code, data = verdict(red, "green")
    assert code == 1
    assert "no-production-change" in rules(data)


def test_green_refuses_while_the_target_still_fails(red: GitRepo) -> None:
    red.write("calc.py", CALC_SUB.replace("return a - b", "return b - a"))
    red.add()
    code, data = verdict(red, "green")
    assert code == 1
    assert rules(data) == ["target-fails"]
    assert data["reasons"][0]["cause"] == "assertion"


# --- refactor -------------------------------------------------------------------------


@pytest.fixture
def green(red: GitRepo) -> GitRepo:
    stage_green(red)
    red.tddgit("green", "-m", "sub: implement", check=True)
    return red


def test_refactor_holds_after_green(green: GitRepo) -> None:
    green.write("calc.py", CALC_SUB.replace("return a - b", "return add(a, -b)"))
    green.add()
    proc = green.tddgit("refactor", "-m", "sub via add")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trailer(green) == "refactor"


def test_refactor_while_red_is_refused(red: GitRepo) -> None:
    red.write("calc.py", CALC.replace("a + b", "b + a"))
    red.add()
    code, data = verdict(red, "refactor")
    assert code == 1
    assert rules(data) == ["refactor-while-red"]


def test_refactor_one_side_at_a_time(green: GitRepo) -> None:
    green.write("calc.py", CALC_SUB + "\n")
    green.write("tests/test_calc.py", TEST_SUB + "\n")
    green.add()
    code, data = verdict(green, "refactor")
    assert code == 1
    assert rules(data) == ["refactor-changes-tests"]


def test_refactor_refuses_new_test_ids_beside_production_code(green: GitRepo) -> None:
    green.write("tests/test_extra.py", "def test_extra():\n    assert True\n")
    green.write("calc.py", CALC_SUB + "\n")
    green.write(".tddgit.yaml", "refactor:\n  one_side: false\n")
    green.add()
    code, data = verdict(green, "refactor")
    assert code == 1
    assert rules(data) == ["test-ids-changed"]


def test_test_side_refactor_records_the_ids_it_adds(green: GitRepo) -> None:
    green.write("tests/test_extra.py", "def test_extra():\n    assert True\n")
    green.add()
    code, data = verdict(green, "refactor", "-m", "split the tests")
    assert code == 0, data
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    assert evidence["added"] == ["tests/test_extra.py::test_extra"]
    assert "removed" not in evidence


def test_refactor_refuses_a_failing_suite(green: GitRepo) -> None:
    green.write("calc.py", CALC_SUB.replace("return a - b", "return a - b - 1"))
    green.add()
    code, data = verdict(green, "refactor")
    assert code == 1
    assert rules(data) == ["regression"]


# --- exactly the staged tree -----------------------------------------------------------


def test_gate_judges_the_index_not_the_work_tree(red: GitRepo) -> None:
    """Staged: a wrong implementation. Work tree: the right one. Green must refuse, and
    the work tree must stay exactly as it was."""
    red.write("calc.py", CALC_SUB.replace("return a - b", "return b - a"))
    red.add("calc.py")
    red.write("calc.py", CALC_SUB)  # unstaged fix
    red.write("scratch.py", "x = 1\n")  # untracked
    before = snapshot_state(red)
    code, data = verdict(red, "green")
    assert code == 1
    assert rules(data) == ["target-fails"]
    assert any("snapshot" in n for n in data["notes"])
    assert snapshot_state(red) == before


def test_gate_honours_git_index_file(red: GitRepo) -> None:
    """Inside `git commit -a` the index being committed is another file."""
    alt = red.root / ".git" / "alt-index"
    env = {"GIT_INDEX_FILE": str(alt)}
    red.git("read-tree", "HEAD", env=env)
    red.write("calc.py", CALC_SUB)
    red.git("add", "calc.py", env=env)
    assert red.git("diff", "--cached", "--name-only").strip() == ""  # real index: nothing
    proc = red.tddgit("green", "--no-commit", "--json", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["tree"] == red.git("write-tree", env=env).strip()


def test_odd_file_names(red: GitRepo) -> None:
    stage_green(red)
    red.write("docs/notes with spaces ü.txt", "ünïcode\n")
    red.add()
    proc = red.tddgit("green", "-m", "sub + notes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    files = red.git("show", "--name-only", "--format=", "-z", "HEAD").split("\0")
    assert "docs/notes with spaces ü.txt" in files


def test_green_in_a_shallow_clone_with_fetched_notes(red: GitRepo, tmp_path) -> None:
    clone = GitRepo(tmp_path / "clone")
    red.git("clone", "-q", "--depth", "1", f"file://{red.root}", str(clone.root))
    clone.git("fetch", "-q", "origin", "refs/notes/tddgit:refs/notes/tddgit")
    stage_green(clone)
    proc = clone.tddgit("green", "-m", "sub: implement")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trailer(clone) == "green"


def test_amend_is_refused_with_a_reason(red: GitRepo) -> None:
    stage_green(red)
    proc = red.tddgit("green", "--amend")
    assert proc.returncode == 2
    assert "--amend is refused" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_nothing_staged_is_a_usage_error(green: GitRepo) -> None:
    proc = green.tddgit("refactor")
    assert proc.returncode == 2
    assert "nothing is staged" in proc.stderr
