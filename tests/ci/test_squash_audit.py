"""A squash merge's one commit read as the ordered steps of the squashed pull request."""

from __future__ import annotations

import pytest

from tests.audit.helpers import Steps, audit, rules_fired
from tests.conftest import GitRepo

TEST = "tests/test_calc.py"
PROD = "calc.py"


def pull_request(repo: GitRepo) -> Steps:
    """main with one commit, and a branch `pr` with a red, a green and a refactor."""
    steps = Steps(repo)
    steps.commit("start", {"README": "calc\n"})
    repo.git("checkout", "-q", "-b", "pr")
    steps.commit(
        "test add", {TEST: "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
        phase="red",
    )  # fmt: skip
    steps.commit("add", {PROD: "def add(a, b):\n    return a + b\n"}, phase="green")
    steps.commit("tidy add", {PROD: "def add(a, b):\n    return b + a\n"}, phase="refactor")
    repo.git("checkout", "-q", "main")
    return steps


GITHUB_MESSAGE = (
    "Add calc (#7)\n\n"
    "* test add\n\nGSD-Phase: red\n\n"
    "* add\n\nGSD-Phase: green\n\n"
    "* tidy add\n\nGSD-Phase: refactor\n"
)


@pytest.mark.parametrize("style", ["github", "git"])
def test_a_squash_merge_is_the_pull_requests_cycle(repo: GitRepo, style: str) -> None:
    steps = pull_request(repo)
    repo.git("merge", "-q", "--squash", "pr")
    if style == "github":
        steps.commit(GITHUB_MESSAGE)
    else:  # git's own message: `Squashed commit of the following:`, newest first
        message = (repo.root / ".git" / "SQUASH_MSG").read_text()
        assert message.index("GSD-Phase: refactor") < message.index("GSD-Phase: red")
        steps.commit(message)
    report = audit(repo, "main")
    fired = rules_fired(report)
    assert [rule for rule, _ in fired] == ["squashed-steps", "missing-evidence"], fired
    assert len(report.cycles) == 1
    cycle = report.cycles[0]
    assert cycle.status == "complete"
    assert report.metrics["conformance"] == 100.0
    (squashed,) = [f for f in report.findings if f.rule == "squashed-steps"]
    assert squashed.data["steps"] == ["red", "green", "refactor"]


def test_one_trailer_is_still_one_step(repo: GitRepo) -> None:
    steps = Steps(repo)
    steps.commit("test add", {TEST: "def test_add():\n    assert False\n"}, phase="red")
    report = audit(repo)
    assert [c.phase for c in report.commits] == ["red"]
    assert not [f for f in report.findings if f.rule == "squashed-steps"]
