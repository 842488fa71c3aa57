"""The cycle's worktree: a new branch at ``HEAD``, checked out in a linked worktree in a
temporary directory outside the repository, locked with tddgit's process id.

:func:`cycle_worktree` removes it on every way out (``finally``: approve, abort, an error,
Ctrl-C, and SIGTERM, which the CLI turns into Ctrl-C). A SIGKILL runs no ``finally``: the
lock reason names the pid, and :func:`sweep_stale` (run by the next ``tddgit cycle`` and
by ``tddgit cycle --clean``) removes the worktrees whose pid is gone, and nothing else.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tddgit.errors import GitError, UsageError
from tddgit.git import Repo, clean_env, find_repo, zsplit
from tddgit.paths import matches
from tddgit.snapshot import pid_alive, user_tempdir
from tddgit.worktrees import admin_lock

LOCK_PREFIX = "tddgit cycle pid "
DIR_PREFIX = "tddgit-cycle-"
BRANCH_PREFIX = "tddgit/"
_LOCK = re.compile(rf"^{LOCK_PREFIX}(\d+)$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_BRANCH_ATTEMPTS = 20


@dataclass(frozen=True)
class CycleWorktree:
    repo: Repo  # the worktree's own Repo
    branch: str  # short name: tddgit/<spec-id>-<n>
    base: str  # the commit the branch starts at (the user's HEAD)
    copied: tuple[str, ...]  # git-ignored files copied because of cycle.include


def branch_name(repo: Repo, spec_id: str) -> str:
    """``tddgit/<spec-id>-<n>``: the first ``n`` with no such branch yet."""
    stem = _UNSAFE.sub("-", spec_id).strip(".-") or "spec"
    existing = set(
        repo.git("for-each-ref", "--format=%(refname:short)", "refs/heads/tddgit/").split()
    )
    n = 1
    while f"{BRANCH_PREFIX}{stem}-{n}" in existing:
        n += 1
    return f"{BRANCH_PREFIX}{stem}-{n}"


def new_branch(repo: Repo, spec_id: str, base: str) -> str:
    """Create the cycle's branch at ``base``. `git branch` without ``-f`` fails when the
    name exists: another process (not tddgit's, which hold the admin lock) took it
    between the listing and the creation, so the next free name is tried."""
    for _ in range(_BRANCH_ATTEMPTS):
        branch = branch_name(repo, spec_id)
        proc = repo.run("branch", "--no-track", branch, base, env=clean_env(), check=False)
        if proc.returncode == 0:
            return branch
        if b"already exists" not in proc.stderr:
            break
    raise GitError(
        f"could not create a branch for the cycle: {proc.stderr.decode(errors='replace').strip()}",
        "check `git branch` works in this repository, then retry",
    )


@contextmanager
def cycle_worktree(repo: Repo, spec_id: str, include: tuple[str, ...]) -> Iterator[CycleWorktree]:
    base = repo.head()
    if base is None:
        raise UsageError("the repository has no commit yet", "commit something, then run the cycle")
    parent = Path(tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-", dir=user_tempdir()))
    root = parent / repo.root.name  # the project's own directory name (rootdir, imports)
    env = clean_env()
    added = False
    try:
        # The branch is made first, on its own: an add that fails then deletes only the
        # branch this process made (`worktree add -b` could not tell whose it was).
        with admin_lock(repo):
            branch = new_branch(repo, spec_id, base)
            try:
                repo.run(
                    "-c",
                    "core.hooksPath=/dev/null",  # a checkout must not run the user's hooks
                    "worktree",
                    "add",
                    "--quiet",
                    "--lock",
                    "--reason",
                    f"{LOCK_PREFIX}{os.getpid()}",
                    str(root),
                    branch,
                    env=env,
                )
            except BaseException:
                repo.run("branch", "-D", "--quiet", branch, env=env, check=False)
                raise
        added = True
        copied = copy_included(repo.root, root, include)
        yield CycleWorktree(find_repo(root), branch, base, copied)
    except BaseException:
        if added:  # an error before any commit leaves no branch behind
            tip = repo.run("rev-parse", "-q", "--verify", f"refs/heads/{branch}", check=False)
            if tip.stdout.decode().strip() == base:
                remove(repo, root)
                repo.run("branch", "-D", "--quiet", branch, check=False)
            else:
                _say_kept(repo, base, branch)
        raise
    finally:
        if added:
            remove(repo, root)
        shutil.rmtree(parent, ignore_errors=True)


def _say_kept(repo: Repo, base: str, branch: str) -> None:
    """An interrupted or failed cycle keeps the commits it made on its branch: say which,
    and what can be done with them (nothing is merged)."""
    from tddgit import console

    # one line per commit: "-" and its GSD-Phase value (if it has one)
    lines = repo.run(
        "log", "--reverse", "--format=-%(trailers:key=GSD-Phase,valueonly,separator=)",
        f"{base}..{branch}", check=False,  # never hide the error that stopped the cycle
    ).stdout.decode("utf-8", "replace").splitlines()  # fmt: skip
    n = len(lines)
    phases = [ln[1:].strip() for ln in lines if ln[1:].strip()]
    what = f" ({', '.join(phases)})" if phases else ""
    console.err(
        f"cycle: stopped; the branch {branch} keeps {n} commit{'s' if n != 1 else ''}{what}, "
        f"nothing was merged: review it with `git log -p {base[:10]}..{branch}`, merge it "
        f"with `git merge --ff-only {branch}`, or delete it with `git branch -D {branch}`"
    )


def remove(repo: Repo, root: Path) -> None:
    env = clean_env()
    with admin_lock(repo):
        repo.run("worktree", "unlock", str(root), env=env, check=False)
        repo.run("worktree", "remove", "--force", "--force", str(root), env=env, check=False)
        repo.run("worktree", "prune", env=env, check=False)


def copy_included(src: Path, dst: Path, include: tuple[str, ...]) -> tuple[str, ...]:
    """Copy the git-ignored files matching ``include`` (nothing ignored by default)."""
    if not include:
        return ()
    listing = find_repo(src).git("ls-files", "-z", "--others", "--ignored", "--exclude-standard")
    copied = []
    for rel in zsplit(listing):
        if not matches(rel, include):
            continue
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, target, follow_symlinks=False)
        copied.append(rel)
    return tuple(copied)


@dataclass(frozen=True)
class Stale:
    path: Path
    pid: int
    branch: str | None


def stale_worktrees(repo: Repo) -> list[Stale]:
    """tddgit's cycle worktrees whose locking process is gone."""
    out: list[Stale] = []
    with admin_lock(repo):  # an add in progress elsewhere is half-written until it ends
        listing = repo.git("worktree", "list", "--porcelain")
    for block in listing.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            key, _, value = line.partition(" ")
            fields[key] = value
        m = _LOCK.match(fields.get("locked", ""))
        if "worktree" not in fields or m is None:
            continue
        pid = int(m.group(1))
        if pid == os.getpid() or pid_alive(pid):
            continue
        branch = fields.get("branch", "").removeprefix("refs/heads/") or None
        out.append(Stale(Path(fields["worktree"]), pid, branch))
    return out


def sweep_stale(repo: Repo) -> list[Stale]:
    """Remove the stale worktrees (their branches stay: they may hold commits)."""
    stale = stale_worktrees(repo)
    for s in stale:
        remove(repo, s.path)
        if s.path.parent.name.startswith(DIR_PREFIX):
            shutil.rmtree(s.path.parent, ignore_errors=True)
    return stale
