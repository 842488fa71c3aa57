"""`tddgit status`: where the cycle stands, on real repositories with real gates."""

from __future__ import annotations

import json

from tests.conftest import GitRepo
from tests.project import stage_green, stage_red, start_project


def status(repo: GitRepo) -> dict[str, object]:
    proc = repo.tddgit("status", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    return data


def test_status_through_a_cycle(repo: GitRepo) -> None:
    start_project(repo)
    data = status(repo)
    assert data["phase"] is None and data["open_targets"] == []
    assert "tddgit red" in str(data["next"])

    stage_red(repo)
    repo.tddgit("red", "--no-commit", check=True)
    data = status(repo)
    assert data["fresh_evidence"] == "red"  # the index tree has evidence: plain commit next
    assert data["staged"] == {"test": ["tests/test_calc.py"], "production": [], "other": []}

    repo.git("commit", "-q", "-m", "sub\n\nGSD-Phase: red")
    data = status(repo)
    assert data["phase"] == "red" and data["phase_commit"] == repo.head()
    assert data["open_targets"] == ["tests/test_calc.py::test_sub"]  # found in the cache
    assert data["fresh_evidence"] is None

    stage_green(repo)
    data = status(repo)
    assert data["staged"]["production"] == ["calc.py"]  # type: ignore[index]
    assert "tddgit green" in str(data["next"])
    text = repo.tddgit("status", check=True).stdout
    assert "open red:" in text and "tests/test_calc.py::test_sub" in text

    repo.tddgit("green", "-m", "sub: implement", check=True)
    data = status(repo)
    assert data["phase"] == "green" and data["open_targets"] == []
    assert "refactor" in str(data["next"])


def test_status_on_detached_head(repo: GitRepo) -> None:
    start_project(repo)
    repo.git("checkout", "-q", "--detach")
    data = status(repo)
    assert data["branch"] == "(detached HEAD)"


def test_status_in_a_fresh_repository_with_a_test_staged(repo: GitRepo) -> None:
    repo.write(
        "tests/test_calc.py", "import calc\n\n\ndef test_add():\n    assert calc.add(1, 1) == 2\n"
    )
    repo.add("tests/test_calc.py")
    data = status(repo)
    assert data["head"] is None and data["staged"]["test"] == ["tests/test_calc.py"]  # type: ignore[index]
    assert "write a failing test" not in str(data["next"])
    assert "`tddgit red`" in str(data["next"])
