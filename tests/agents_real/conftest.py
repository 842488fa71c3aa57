"""Fixtures for the real-agent tests: the pinned agents (installed once, see
tests/agentdeps.py), and a real git project with the guard installed for one agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import agentdeps
from tests.conftest import GitRepo
from tests.npmcache import unavailable
from tests.project import start_project


@pytest.fixture(scope="session")
def agents() -> Path:
    """The agents' bin directory; skipped with the reason when npm cannot install them,
    a failure under CI (a CI run that skipped them would prove nothing)."""
    try:
        return agentdeps.bin_dir()
    except agentdeps.Unavailable as exc:
        unavailable("the real agents", exc)


def guarded_project(root: Path, agent: str) -> GitRepo:
    """The calc project (``add``, one passing test), committed, with the guard for
    ``agent`` installed by ``tddgit agent install``."""
    root.mkdir(parents=True)
    repo = GitRepo(root)
    repo.git("init", "-q")
    start_project(repo)
    repo.tddgit("agent", "install", agent, check=True)
    return repo


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The agent's own home: its configuration is written here, never the user's."""
    path = tmp_path / "agent-home"
    path.mkdir()
    return path
