"""Thin, fast wrappers around the git CLI (``-z`` everywhere, no GitPython on hot paths)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tddgit.errors import GitError, NotARepoError, UsageError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

# Variables a parent git process (a hook) exports that would redirect our git calls.
# GIT_INDEX_FILE is deliberately *not* here: inside `git commit -a` it names the index
# being committed, and the gates must judge exactly that tree.
_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_COMMON_DIR")


def zsplit(data: str) -> list[str]:
    """Split NUL-terminated git output into fields (no trailing empty field)."""
    parts = data.split("\0")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def run_git(
    args: Sequence[str],
    cwd: Path | str,
    *,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git ARGS`` in ``cwd`` and return the completed process (bytes)."""
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=dict(env) if env is not None else None,
        input=input,
        capture_output=True,
        check=False,
    )
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        first = err[-1] if err else f"exit code {proc.returncode}"
        raise GitError(f"git {' '.join(args[:2])} failed: {first}")
    return proc


def git(
    args: Sequence[str],
    cwd: Path | str,
    *,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
) -> str:
    """Run git and return stdout decoded as UTF-8 (undecodable bytes escaped)."""
    out = run_git(args, cwd, env=env, input=input).stdout
    return out.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Repo:
    """A discovered work tree: where it is and where its git data lives."""

    root: Path  # top of the work tree
    git_dir: Path  # this work tree's git dir (per-worktree for linked worktrees)
    common_dir: Path  # shared git dir (objects, refs, notes, config)

    def git(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        return git(args, self.root, env=env)

    def run(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        input: bytes | None = None,
        check: bool = True,
    ) -> subprocess.CompletedProcess[bytes]:
        return run_git(args, self.root, env=env, input=input, check=check)

    @property
    def tddgit_dir(self) -> Path:
        """tddgit's private state (evidence cache, lineage cache), shared by worktrees."""
        return self.common_dir / "tddgit"

    def head(self) -> str | None:
        """The commit HEAD points at, or None in an empty repository (unborn branch)."""
        proc = self.run("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode().strip()

    def index_file(self) -> Path:
        """The index being committed: $GIT_INDEX_FILE when a hook runs inside `git commit -a`."""
        env_index = os.environ.get("GIT_INDEX_FILE")
        if env_index:
            p = Path(env_index)
            return p if p.is_absolute() else (self.root / p)
        return self.git_dir / "index"

    def is_shallow(self) -> bool:
        return (self.common_dir / "shallow").exists()


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for our git calls, without a parent hook's repo redirections."""
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV}
    if extra:
        env.update(extra)
    return env


def find_repo(path: Path | str = ".") -> Repo:
    """Discover the work tree containing ``path``; clear errors for the usual bad cases."""
    return _discover(path, ())[0]


def find_repo_at_head(path: Path | str = ".") -> tuple[Repo, tuple[str | None, str]]:
    """``find_repo``, and HEAD's commit and tree ((None, the empty tree) on an unborn
    branch) from the same git process: a gate needs both before its first step, and a
    process is ~1.5 ms of CPU taken from the test command beside it."""
    # --revs-only: a HEAD that does not resolve prints nothing instead of failing the call
    repo, revs = _discover(path, ("--revs-only", "HEAD^{commit}", "HEAD^{tree}"))
    return repo, ((revs[0], revs[1]) if len(revs) == 2 else (None, EMPTY_TREE))


def _discover(path: Path | str, revs: Sequence[str]) -> tuple[Repo, list[str]]:
    """The work tree containing ``path``, and the lines ``git rev-parse`` printed for
    ``revs`` after the three paths."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"no such directory: {p}", "pass an existing path to -C")
    proc = run_git(
        [
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-dir",
            "--git-common-dir",
            *revs,
        ],
        p,
        check=False,
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        if "must be run in a work tree" in err or "this operation must be run" in err:
            raise UsageError(
                f"{p.resolve()} is a bare repository or a git dir, not a work tree",
                "run tddgit inside a checked-out work tree",
            )
        raise NotARepoError(str(p.resolve()))
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) < 3 or not all(os.path.isabs(line) for line in lines[:3]):
        raise UsageError(
            f"{p.resolve()} is a bare repository or a git dir, not a work tree",
            "run tddgit inside a checked-out work tree",
        )
    repo = Repo(root=Path(lines[0]), git_dir=Path(lines[1]), common_dir=Path(lines[2]))
    return repo, lines[3:]
