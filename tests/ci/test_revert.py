"""Reverts understood one way by `tddgit status`, the gates and the audit: reverting a
green reopens its red (the next green is judged as its green); reverting a red closes it."""

from __future__ import annotations

import json

from tests.conftest import GitRepo
from tests.project import stage_green, stage_red, start_project


def status(repo: GitRepo) -> dict[str, object]:
    data = json.loads(repo.tddgit("status", "--json", check=True).stdout)
    assert isinstance(data, dict)
    return data


def audit_rules(repo: GitRepo) -> list[str]:
    report = json.loads(repo.tddgit("audit", "--json", check=True).stdout)
    return [f["rule"] for f in report["findings"] if f["severity"] != "note"]


def test_reverting_a_green_reopens_its_red(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    repo.tddgit("red", "-m", "sub: test", check=True)
    red = repo.head()
    stage_green(repo)
    repo.tddgit("green", "-m", "sub: implement", check=True)
    repo.git("revert", "--no-edit", "HEAD")
    data = status(repo)
    assert data["phase"] == "red" and data["phase_commit"] == red
    assert data["open_targets"] == ["tests/test_calc.py::test_sub"]
    refactor = repo.tddgit("refactor", "-m", "tidy")
    assert refactor.returncode != 0  # the red is open: no refactor
    stage_green(repo)
    again = repo.tddgit("green", "-m", "sub: implement again")
    assert again.returncode == 0, again.stderr  # judged as the reopened red's green
    assert status(repo)["phase"] == "green"
    assert audit_rules(repo) == []


def test_reverting_a_red_leaves_no_red_open(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    repo.tddgit("red", "-m", "sub: test", check=True)
    repo.git("revert", "--no-edit", "HEAD")
    data = status(repo)
    assert data["open_targets"] == []
    assert data["phase"] != "red"
    stage_green(repo)
    refused = repo.tddgit("green", "-m", "sub: implement")
    assert refused.returncode == 1 and "green-without-red" in refused.stderr + refused.stdout
