"""Shared fixtures: real git repositories in tmp_path, isolated from the user's git config."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
TDDGIT = [sys.executable, "-m", "tddgit"]

# A suite started in the background by a shell without job control (`make test &`, a CI
# step run that way) inherits SIGINT ignored (POSIX), and so would every tddgit it starts:
# an ignored SIGINT stays ignored (tddgit.signals), so the interrupt tests would wait on
# gates that never see their Ctrl-C. The tests need the default, whoever started them; a
# Python handler here is reset to the default in every child at exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@contextlib.contextmanager
def isolated_git(home: Path) -> Iterator[None]:
    """Git with a known identity and no user/system configuration, while in the block.

    The autouse fixture applies it to every test; module-scoped builds use it directly."""
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
        '[advice]\n\tdetachedHead = false\n[protocol "file"]\n\tallow = always\n'
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        mp.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for var in ("AUTHOR", "COMMITTER"):
            mp.setenv(f"GIT_{var}_NAME", "Tess Driven")
            mp.setenv(f"GIT_{var}_EMAIL", "tess@example.com")
        for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "VIRTUAL_ENV", "TDDGIT_DEBUG"):
            mp.delenv(var, raising=False)
        mp.setenv("NO_COLOR", "1")
        mp.setenv("TDDGIT_NO_PROGRESS", "1")
        mp.setenv("PYTHONDONTWRITEBYTECODE", "1")
        yield


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test gets git with a known identity and no user/system configuration."""
    with isolated_git(tmp_path_factory.mktemp("home")):
        yield


class GitRepo:
    """A real git repository in a temporary directory, with terse helpers for tests."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
        proc = subprocess.run(
            ["git", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc.stdout

    def write(self, path: str, content: str, *, dedent: bool = True) -> Path:
        p = self.root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(content) if dedent else content)
        return p

    def add(self, *paths: str) -> None:
        self.git("add", "--", *(paths or (".",)))

    def commit(
        self, message: str, *paths: str, allow_empty: bool = False, date: str | None = None
    ) -> str:
        """Stage ``paths`` (everything when none) and commit; returns the new sha."""
        self.add(*paths)
        args = ["commit", "-q", "-m", message]
        if allow_empty:
            args.append("--allow-empty")
        env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else None
        self.git(*args, env=env)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def tddgit(
        self,
        *args: str,
        input: str | None = None,
        env: dict[str, str] | None = None,
        check: bool | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run the real CLI in a subprocess, in this repo."""
        proc = subprocess.run(
            [*TDDGIT, *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            input=input,
            env={**os.environ, **(env or {})},
        )
        if check is True and proc.returncode != 0:
            raise AssertionError(
                f"tddgit {' '.join(args)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            )
        return proc


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[GitRepo]:
    """An empty, initialised repository (no commits yet)."""
    root = tmp_path / "repo"
    root.mkdir()
    r = GitRepo(root)
    r.git("init", "-q")
    yield r
