"""A pull request-shaped remote: main with a cycle, a branch `pr` with a red, a green and
a refactor (trailers and evidence notes), the notes pushed; and CI environments."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from tests.audit.helpers import Steps, note
from tests.conftest import GitRepo

TEST = "tests/test_calc.py"
PROD = "calc.py"
# fails by its own assertion until calc.py exists (the right reason for a red)
RED_TEST = """\
import importlib.util


def test_add():
    assert importlib.util.find_spec("calc") is not None, "calc is not written yet"
    from calc import add

    assert add(1, 2) == 3
"""


@dataclass
class PullRequest:
    remote: Path
    base: str  # main's tip the pull request started from
    head: str  # the pull request's last commit
    steps: tuple[str, ...]


def make_pull_request(tmp_path: Path, *, main_commits: int = 30) -> PullRequest:
    remote = tmp_path / "remote.git"
    GitRepo(tmp_path).git("init", "-q", "--bare", str(remote))
    dev = GitRepo(tmp_path / "dev")
    dev.root.mkdir()
    dev.git("init", "-q")
    steps = Steps(dev)
    for i in range(main_commits):  # history on main deeper than a shallow fetch's first step
        steps.commit(f"docs {i}", {"README": f"calc {i}\n"})
    base = dev.head()
    dev.git("checkout", "-q", "-b", "pr")
    red = steps.commit("test add", {TEST: RED_TEST}, phase="red")
    target = "tests/test_calc.py::test_add"
    failed = [{"id": target, "outcome": "failed", "cause": "assertion"}]
    passed = [{"id": target, "outcome": "passed", "cause": None}]
    note(dev, red, "red", failed, parent=base)  # as the gate records it
    green = steps.commit("add", {PROD: "def add(a, b):\n    return a + b\n"}, phase="green")
    note(dev, green, "green", passed, parent=red)
    refactor = steps.commit("tidy", {PROD: "def add(a, b):\n    return b + a\n"}, phase="refactor")
    note(dev, refactor, "refactor", passed, parent=green)
    dev.git("push", "-q", str(remote), "main", "pr", "refs/notes/tddgit")
    return PullRequest(remote, base, refactor, (red, green, refactor))


def shallow_clone(pr: PullRequest, where: Path, branch: str = "pr") -> GitRepo:
    """What actions/checkout makes: depth 1, no notes."""
    GitRepo(where.parent).git(
        "clone", "-q", "--depth", "1", "--branch", branch, f"file://{pr.remote}", where.name
    )
    return GitRepo(where)


def github_env(pr: PullRequest, work: Path) -> dict[str, str]:
    event = work / "event.json"
    event.write_text(
        json.dumps(
            {
                "action": "synchronize",
                "number": 7,
                "pull_request": {
                    "number": 7,
                    "base": {"ref": "main", "sha": pr.base},
                    "head": {"ref": "pr", "sha": pr.head},
                },
            }
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GITLAB", "CI_"))}
    env.update(
        GITHUB_ACTIONS="true",
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_EVENT_PATH=str(event),
        GITHUB_SHA=pr.head,
        GITHUB_BASE_REF="main",
        GITHUB_HEAD_REF="pr",
        GITHUB_STEP_SUMMARY=str(work / "summary.md"),
        GITHUB_OUTPUT=str(work / "output.txt"),
    )
    return env


def gitlab_env(pr: PullRequest) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GITLAB", "CI_"))}
    env.update(
        GITLAB_CI="true",
        CI_COMMIT_SHA=pr.head,
        CI_MERGE_REQUEST_DIFF_BASE_SHA=pr.base,
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main",
    )
    return env
