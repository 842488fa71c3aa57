"""Real repositories at each step of a cycle (built once per session, copied per test), the
guard installed with `tddgit agent install`, and a way to fire the installed hooks with the
payloads each agent sends (built from the agents' documentation)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GitRepo, isolated_git
from tests.project import stage_green, stage_red, start_project

BIN = str(Path(sys.executable).parent)


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The calc project at three points: `fresh` (no phase yet), `red` (a committed red:
    test_sub fails, sub is missing), `green` (sub implemented, everything passes)."""
    base = tmp_path_factory.mktemp("guard-templates")
    with isolated_git(tmp_path_factory.mktemp("home")):
        out = {}
        repo = GitRepo(base / "build")
        repo.root.mkdir()
        repo.git("init", "-q")
        start_project(repo)
        out["fresh"] = _freeze(repo, base / "fresh")
        stage_red(repo)
        repo.tddgit("red", "-m", "subtract", check=True)
        out["red"] = _freeze(repo, base / "red")
        stage_green(repo)
        repo.tddgit("green", "-m", "subtract", check=True)
        out["green"] = _freeze(repo, base / "green")
        yield out


def _freeze(repo: GitRepo, dest: Path) -> Path:
    shutil.copytree(repo.root, dest, symlinks=True)
    return dest


def project_at(templates: dict[str, Path], stage: str, tmp_path: Path) -> GitRepo:
    root = tmp_path / "project"
    shutil.copytree(templates[stage], root, symlinks=True)
    return GitRepo(root)


@pytest.fixture
def at(templates: dict[str, Path], tmp_path: Path):  # type: ignore[no-untyped-def]
    """``at(stage, agent="claude-code")``: a project at ``stage`` with the agent's hooks
    installed."""

    def make(stage: str, agent: str = "claude-code") -> GitRepo:
        repo = project_at(templates, stage, tmp_path)
        repo.tddgit("agent", "install", agent, check=True)
        return repo

    return make


def installed_commands(repo: GitRepo, agent: str) -> dict[str, str]:
    """event -> the command the agent would run, read from the installed configuration."""
    paths = {
        "claude-code": ".claude/settings.json",
        "codex": ".codex/hooks.json",
        "gemini": ".gemini/settings.json",
        "cursor": ".cursor/hooks.json",
    }
    data = json.loads((repo.root / paths[agent]).read_text())
    out = {}
    for event, entries in data["hooks"].items():
        for entry in entries:
            for hook in entry.get("hooks", [entry]):
                if "tddgit agent hook" in hook.get("command", ""):
                    out[event] = hook["command"]
    return out


def fire(
    repo: GitRepo, agent: str, payload: dict[str, Any], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed hook for ``payload``'s event, as the agent would: the configured
    command through the shell, in the project, the event JSON on stdin."""
    event = payload["hook_event_name"]
    command = installed_commands(repo, agent)[event]
    full_env = {**os.environ, "PATH": BIN + os.pathsep + os.environ["PATH"], **(env or {})}
    return subprocess.run(
        command,
        shell=True,
        cwd=repo.root,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=full_env,
        timeout=300,
    )


def reply(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}
