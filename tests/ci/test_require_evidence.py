"""`tddgit audit --require-evidence` / `--min-evidence`: trailers with nothing behind them
count against the result."""

from __future__ import annotations

import json

from tests.audit.helpers import Steps, note
from tests.conftest import GitRepo


def history(repo: GitRepo) -> None:
    """A red and a green with trailers; only the red has its evidence note (the green's
    was never fetched)."""
    steps = Steps(repo)
    red = steps.commit(
        "test add", {"tests/test_calc.py": "def test_add():\n    assert add(1, 2) == 3\n"},
        phase="red",
    )  # fmt: skip
    note(repo, red, "red")
    steps.commit("add", {"calc.py": "def add(a, b):\n    return a + b\n"}, phase="green")


def test_missing_evidence_leaves_conformance_alone_by_default(repo: GitRepo) -> None:
    history(repo)
    proc = repo.tddgit("audit", "--json", "--fail-under", "100")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["metrics"]["conformance"] == 100.0
    assert data["metrics"]["evidence_coverage"] == 50.0


def test_require_evidence_counts_the_missing_note(repo: GitRepo) -> None:
    history(repo)
    proc = repo.tddgit("audit", "--json", "--require-evidence")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["metrics"]["conformance"] < 100.0
    assert "--require-evidence: 1 declared step(s) without evidence" in proc.stderr
    fail = repo.tddgit("audit", "--json", "--require-evidence", "--fail-under", "90")
    assert "below --fail-under 90" in fail.stderr


def test_min_evidence_is_a_coverage_threshold(repo: GitRepo) -> None:
    history(repo)
    assert repo.tddgit("audit", "--json", "--min-evidence", "50").returncode == 0
    low = repo.tddgit("audit", "--json", "--min-evidence", "75")
    assert low.returncode == 1
    assert "evidence coverage 50.0 is below --min-evidence 75" in low.stderr
