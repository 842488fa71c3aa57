"""Running `tddgit cycle` in this process, and the model's scripted red step."""

from __future__ import annotations

import io
from typing import Any

from tests.agent.conftest import in_process
from tests.agent.fakeapi import reply, tool
from tests.conftest import GitRepo

TEST_SUB = """\
import calc


def test_tc_1_five_minus_three():
    assert calc.sub(5, 3) == 2


def test_tc_2_negative():
    assert calc.sub(3, 5) == -2
"""


def red_step(content: str = TEST_SUB) -> list[dict[str, Any]]:
    """Two answers: write the tests, then call finish."""
    return [
        reply(tool("write_file", path="tests/test_sub.py", content=content)),
        reply(tool("finish", summary="tests for sub")),
    ]


class Terminal(io.StringIO):
    """A stdin that says it is a terminal, with the person's answers."""

    def isatty(self) -> bool:
        return True


def cycle(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    """``tddgit cycle ARGS`` in this process (exit code, stdout, stderr)."""
    return in_process(repo, "cycle", *args)


def worktrees(repo: GitRepo) -> list[str]:
    return [
        line.split(" ", 1)[1]
        for line in repo.git("worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]


def cycle_branches(repo: GitRepo) -> list[str]:
    return repo.git("for-each-ref", "--format=%(refname:short)", "refs/heads/tddgit/").split()
