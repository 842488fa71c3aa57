"""Fixtures for hook tests: the small calc project with tddgit's hooks installed."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import GitRepo
from tests.project import start_project


def git_commit(
    repo: GitRepo, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A real `git commit ARGS` (hooks and all); never raises."""
    return subprocess.run(
        ["git", "commit", *args],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def write_config(repo: GitRepo, body: str) -> None:
    """A .tddgit.yaml, committed so it is part of the project (not a staged change)."""
    repo.write(".tddgit.yaml", body)
    repo.commit("configure tddgit", ".tddgit.yaml")


@pytest.fixture
def hooked(repo: GitRepo) -> GitRepo:
    """The calc project (one passing test) with all four hooks installed standalone."""
    start_project(repo)
    repo.tddgit("hooks", "install", check=True)
    return repo
