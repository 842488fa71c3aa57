"""Test configuration is the test side (issue 24, items 1 and 2): a green that also changes
how tests are collected, run or reported is refused, and a report rewritten by a plugin is
seen. Real repositories, real pytest, the real CLI."""

from __future__ import annotations

import pytest

from tests.conftest import GitRepo
from tests.project import CALC_SUB, PYPROJECT, rules, stage_red, start_project, verdict

OTHER = "import calc\n\n\ndef test_other():\n    assert calc.add(1, 1) == 2\n"
BROKEN = CALC_SUB.replace("return a + b", "return a * b")  # add broken, sub right

COMPAT = "# shims for older Pythons\n"
TAMPER = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
        report.longrepr = None
"""


def _red(repo: GitRepo, pyproject: str = PYPROJECT) -> GitRepo:
    start_project(repo)
    repo.write("pyproject.toml", pyproject, dedent=False)
    repo.write("tests/test_other.py", OTHER, dedent=False)
    repo.write("calc_compat.py", COMPAT, dedent=False)
    repo.commit("more tests")
    stage_red(repo)
    repo.tddgit("red", "-m", "sub", check=True)
    return repo


@pytest.fixture
def red(repo: GitRepo) -> GitRepo:
    return _red(repo)


def _messages(data: dict[str, object], rule: str) -> list[str]:
    reasons = data["reasons"]
    assert isinstance(reasons, list)
    return [str(r["message"]) for r in reasons if r["rule"] == rule]


def test_green_refuses_a_deselection_added_to_the_pytest_table(red: GitRepo) -> None:
    red.write("calc.py", BROKEN, dedent=False)
    red.write(
        "pyproject.toml",
        PYPROJECT + 'addopts = "--deselect tests/test_other.py::test_other '
        '--deselect tests/test_calc.py::test_add"\n',
        dedent=False,
    )
    red.add()
    code, data = verdict(red, "green", "--no-commit")
    assert code == 1, data
    # Certain before the run: refused without running the tests.
    assert rules(data) == ["test-config-changed"], data
    [config] = _messages(data, "test-config-changed")
    assert "pyproject.toml" in config and "addopts" in config


def test_green_refuses_a_new_pytest_ini(red: GitRepo) -> None:
    red.write("calc.py", BROKEN, dedent=False)
    red.write("pytest.ini", '[pytest]\naddopts = -k "not test_add and not test_other"\n')
    red.add()
    code, data = verdict(red, "green", "--no-commit")
    assert code == 1, data
    [config] = _messages(data, "test-config-changed")
    assert "pytest.ini" in config and "addopts" in config


def test_green_refuses_an_edit_to_a_plugin_named_by_the_configuration(repo: GitRepo) -> None:
    red = _red(repo, PYPROJECT + 'addopts = "-p calc_compat"\n')
    red.write("calc.py", BROKEN, dedent=False)
    red.write("calc_compat.py", TAMPER, dedent=False)
    red.add()
    code, data = verdict(red, "green", "--no-commit")
    assert code == 1, data
    config = _messages(data, "test-config-changed")
    assert any("calc_compat.py" in m and "pytest plugin calc_compat" in m for m in config), config


def test_green_refuses_a_conftest_edit(red: GitRepo) -> None:
    red.write("calc.py", CALC_SUB, dedent=False)
    red.write("tests/conftest.py", "collect_ignore = ['test_other.py']\n")
    red.add()
    code, data = verdict(red, "green", "--no-commit")
    assert code == 1, data
    [config] = _messages(data, "test-config-changed")
    assert "tests/conftest.py" in config


def test_allowed_configuration_still_shows_every_deselected_id(red: GitRepo) -> None:
    """With the configuration change allowed, the test it hides is still named: the ids
    collected under the previous step's configuration against this run's."""
    red.write("calc.py", CALC_SUB, dedent=False)
    red.write(
        "pyproject.toml",
        PYPROJECT + 'addopts = "--deselect tests/test_other.py::test_other"\n',
        dedent=False,
    )
    red.write(".tddgit.yaml", "green:\n  allow_test_config: true\n")
    red.add()
    code, data = verdict(red, "green", "--no-commit")
    assert code == 1, data
    assert rules(data) == ["tests-removed"], data
    assert data["reasons"][0]["test"] == "tests/test_other.py::test_other"


def test_a_plugin_rewriting_reports_is_seen(repo: GitRepo) -> None:
    """Even where the configuration allows the change, a report that says "passed" for a
    call that raised is refused, naming the plugin."""
    red = _red(repo, PYPROJECT + 'addopts = "-p calc_compat"\n')
    red.write("calc.py", BROKEN, dedent=False)
    red.write("calc_compat.py", TAMPER, dedent=False)
    red.write(".tddgit.yaml", "green:\n  allow_test_config: true\n")
    red.add()
    code, data = verdict(red, "green", "--no-commit")
    assert code == 1, data
    tampered = _messages(data, "report-tampered")
    assert tampered and all("calc_compat" in m for m in tampered), data
    assert "tests/test_calc.py::test_add" in " ".join(tampered)


def test_a_red_that_deselects_another_test_is_refused_by_id(repo: GitRepo) -> None:
    """A red may change test configuration, but what the change hides is compared by id:
    the previous step's whole suite against this run's, not just the red's own file."""
    start_project(repo)
    repo.write("tests/test_other.py", OTHER, dedent=False)
    repo.commit("more tests")
    stage_red(repo)
    repo.write("pyproject.toml", PYPROJECT + "addopts = \"-k 'not test_other'\"\n", dedent=False)
    repo.add()
    code, data = verdict(repo, "red", "--no-commit")
    assert code == 1, data
    assert rules(data) == ["tests-removed"], data
    assert data["reasons"][0]["test"] == "tests/test_other.py::test_other"


def test_a_red_changing_configuration_without_hiding_a_test_holds(repo: GitRepo) -> None:
    start_project(repo)
    repo.write("tests/test_other.py", OTHER, dedent=False)
    repo.commit("more tests")
    stage_red(repo)
    repo.write("pyproject.toml", PYPROJECT + 'addopts = "-ra"\n', dedent=False)
    repo.add()
    code, data = verdict(repo, "red", "--no-commit")
    assert code == 0, data
