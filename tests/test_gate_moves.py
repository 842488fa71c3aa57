"""The gates on the moves real users make (issue 13): test cases as targets, tests that
disappear, untested refactors, missing modules, src layouts. Real repositories, real
pytest, real commits."""

from __future__ import annotations

import pytest

from tests.conftest import GitRepo
from tests.project import (
    CALC_SUB,
    PYPROJECT,
    TEST_SUB,
    rules,
    stage_green,
    stage_red,
    start_project,
    trailer,
    verdict,
)

OTHER = "import calc\n\n\ndef test_add_zero():\n    assert calc.add(0, 4) == 4\n"

PARAM = """\
import pytest

import calc


@pytest.mark.parametrize(("a", "b", "total"), [(1, 2, 3), (2, 2, 4)])
def test_add(a, b, total):
    assert calc.add(a, b) == total
"""


def messages(data: dict[str, object]) -> str:
    reasons = data["reasons"]
    assert isinstance(reasons, list)
    return "\n".join(r["message"] for r in reasons)


def evidence(data: dict[str, object]) -> dict[str, object]:
    ev = data["evidence"]
    assert isinstance(ev, dict)
    return ev


def target_ids(data: dict[str, object]) -> list[str]:
    targets = evidence(data)["targets"]
    assert isinstance(targets, list)
    return [t["id"] for t in targets]


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    start_project(repo)
    repo.write("tests/test_other.py", OTHER)
    repo.commit("another test")
    return repo


@pytest.fixture
def red(project: GitRepo) -> GitRepo:
    stage_red(project)
    project.tddgit("red", "-m", "sub: failing test", check=True)
    return project


@pytest.fixture
def green(red: GitRepo) -> GitRepo:
    stage_green(red)
    red.tddgit("green", "-m", "sub: implement", check=True)
    return red


# --- 1. targets are the new or changed test cases -------------------------------------------


def test_red_appending_a_test_targets_that_test_only(project: GitRepo) -> None:
    project.write(
        "tests/test_other.py", OTHER + "\n\ndef test_sub():\n    assert calc.sub(3, 1) == 2\n"
    )
    project.add()
    code, data = verdict(project, "red", "-m", "sub")
    assert code == 0, data
    assert target_ids(data) == ["tests/test_other.py::test_sub"]


def test_red_a_new_parametrize_case_targets_only_the_new_case(project: GitRepo) -> None:
    project.write("tests/test_param.py", PARAM)
    project.commit("parametrized")
    project.write("tests/test_param.py", PARAM.replace("(2, 2, 4)]", "(2, 2, 4), (2, 2, 5)]"))
    project.add()
    code, data = verdict(project, "red", "-m", "a failing case")
    assert code == 0, data
    assert target_ids(data) == ["tests/test_param.py::test_add[2-2-5]"]


def test_red_a_changed_case_with_an_explicit_id_is_the_target(project: GitRepo) -> None:
    source = PARAM.replace("(2, 2, 4)]", 'pytest.param(2, 2, 4, id="two")]')
    project.write("tests/test_param.py", source)
    project.commit("parametrized")
    project.write("tests/test_param.py", source.replace("2, 2, 4, id", "2, 2, 5, id"))
    project.add()
    code, data = verdict(project, "red", "-m", "a failing case")
    assert code == 0, data
    assert target_ids(data) == ["tests/test_param.py::test_add[two]"]


def test_red_naming_a_pre_existing_test_says_how_to_name_the_real_target(
    project: GitRepo,
) -> None:
    stage_red(project)
    code, data = verdict(project, "red", "tests/test_calc.py::test_add")
    assert code == 1
    assert "target-passes" in rules(data)
    assert "existed before this step" in messages(data)
    assert "tddgit red 'tests/test_calc.py::test_sub'" in str(data["next"])


# --- 2. tests never silently disappear ----------------------------------------------------------


def test_green_that_deletes_a_test_file_is_refused(red: GitRepo) -> None:
    stage_green(red)
    red.git("rm", "-q", "tests/test_other.py")
    code, data = verdict(red, "green")
    assert code == 1
    assert rules(data) == ["tests-removed"]
    assert "tests/test_other.py::test_add_zero" in messages(data)


def test_green_that_skips_a_passing_test_is_refused(red: GitRepo) -> None:
    stage_green(red)
    red.write(
        "tests/test_other.py",
        "import pytest\n\n" + OTHER.replace("\n\ndef", "\n\n@pytest.mark.skip\ndef"),
    )
    red.add()
    code, data = verdict(red, "green")
    assert code == 1
    assert rules(data) == ["tests-removed"]
    assert "tests/test_other.py::test_add_zero: passed at the previous step, now skipped" in (
        messages(data)
    )


def test_test_side_refactor_into_parametrize_holds_and_lists_the_ids(green: GitRepo) -> None:
    green.write(
        "tests/test_calc.py",
        "import pytest\n\nimport calc\n\n\n"
        '@pytest.mark.parametrize(("op", "want"), [("add", 5), ("sub", 1)])\n'
        "def test_op(op, want):\n    assert getattr(calc, op)(3, 2) == want\n",
    )
    green.add()
    code, data = verdict(green, "refactor", "-m", "one parametrized test")
    assert code == 0, data
    ev = evidence(data)
    assert ev["removed"] == ["tests/test_calc.py::test_add", "tests/test_calc.py::test_sub"]
    assert ev["added"] == [
        "tests/test_calc.py::test_op[add-5]",
        "tests/test_calc.py::test_op[sub-1]",
    ]
    audit = green.tddgit("audit", "--format", "json")
    assert "tests/test_calc.py::test_add" in audit.stdout
    assert '"tests-removed"' in audit.stdout


def test_production_refactor_that_loses_a_test_is_refused(green: GitRepo) -> None:
    """A production-side refactor may not touch test configuration (certain before the
    run); where it is allowed, the test it deselects is still named."""
    deselect = 'addopts = "--deselect tests/test_other.py::test_add_zero"\n'
    green.write("pyproject.toml", PYPROJECT + deselect)
    green.write("calc.py", CALC_SUB + "\n# tidy\n")
    green.add()
    code, data = verdict(green, "refactor", "--no-commit")
    assert code == 1
    assert rules(data) == ["test-config-changed"]
    assert "pyproject.toml: [tool.pytest] addopts" in messages(data)
    green.write(".tddgit.yaml", "refactor:\n  allow_test_config: true\n")
    green.add()
    code, data = verdict(green, "refactor")
    assert code == 1
    assert "tests-removed" in rules(data)
    assert "tests/test_other.py::test_add_zero" in messages(data)


# --- 3. a refactor adds no untested behaviour ---------------------------------------------------


def test_production_refactor_adding_an_uncalled_function_is_refused(green: GitRepo) -> None:
    green.write(
        "calc.py", CALC_SUB + "\n\ndef mul(a, b):\n    product = a * b\n    return product\n"
    )
    green.add()
    code, data = verdict(green, "refactor")
    assert code == 1
    assert rules(data) == ["untested-code"]
    assert "calc.py:" in messages(data)
    assert "untested" in str(data["next"])


def test_production_refactor_whose_lines_run_holds(green: GitRepo) -> None:
    green.write("calc.py", CALC_SUB.replace("return a - b", "diff = a - b\n    return diff"))
    green.add()
    code, data = verdict(green, "refactor", "-m", "name the difference")
    assert code == 0, data
    assert trailer(green) == "refactor"


# --- 4. missing modules judged by evidence ------------------------------------------------------


def test_red_importing_an_undeclared_third_party_module_is_amber(project: GitRepo) -> None:
    project.write(
        "tests/test_frame.py",
        "import pandas\n\n\ndef test_frame():\n    assert pandas.DataFrame()\n",
    )
    project.add()
    code, data = verdict(project, "red")
    assert code == 1
    assert rules(data) == ["target-amber"]
    reason = data["reasons"][0]  # type: ignore[index]
    assert reason["cause"] == "environment"
    assert "install pandas (or declare it)" in str(data["next"])


def test_red_importing_a_project_module_not_written_yet_holds(repo: GitRepo) -> None:
    start_project(repo)
    repo.git("rm", "-q", "calc.py")
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    )
    repo.commit("no calc yet")
    repo.write(
        "tests/test_calc.py",
        "from calc import add, sub\n\n\ndef test_sub():\n    assert sub(2, 3) == -1\n",
    )
    repo.add()
    code, data = verdict(repo, "red", "-m", "sub")
    assert code == 0, data


def test_red_syntax_error_says_to_fix_the_test(project: GitRepo) -> None:
    project.write("tests/test_calc.py", TEST_SUB + "\ndef test_broken(:\n    pass\n")
    project.add()
    code, data = verdict(project, "red")
    assert code == 1
    assert "fix the syntax error in the test" in str(data["next"])


# --- 5. same staged tree, same verdict ----------------------------------------------------------


@pytest.mark.parametrize("untracked", [False, True], ids=["clean", "untracked-file"])
def test_src_layout_gets_one_verdict_with_or_without_an_untracked_file(
    repo: GitRepo, untracked: bool
) -> None:
    repo.write("pyproject.toml", '[project]\nname = "calc"\nversion = "0.1.0"\n')
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n")
    repo.write("src/calc/__init__.py", "def add(a, b):\n    return a + b\n")
    repo.write(
        "tests/test_calc.py", "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n"
    )
    repo.commit("start")
    repo.write("tests/test_calc.py", TEST_SUB)
    repo.add()
    if untracked:
        repo.write("notes.py", "# scratch\n")
    code, data = verdict(repo, "red", "--no-commit")
    assert code == 0, data
    assert target_ids(data) == ["tests/test_calc.py::test_sub"]
