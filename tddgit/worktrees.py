"""The temporary worktrees tddgit makes: `tddgit cycle`'s branch worktree and
`audit --verify`'s detached ones, in temporary directories, removed on the way out.

Every add, remove and prune of them takes :func:`admin_lock`, a lock shared by all tddgit
processes and threads of the repository. Without it, two of them at once failed: removing
the last worktree deletes git's empty ``.git/worktrees`` while an add is creating its
directory in it ("could not create directory of '.git/worktrees/…'"), an add reads
another add's half-written admin directory ("failed to read .git/worktrees/…/commondir"),
and a prune deletes it. The lock dies with its holder (SIGKILL included).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tddgit.git import Repo, clean_env
from tddgit.repolock import exclusive

# An add or a remove takes well under a second; many waiting in turn take longer.
ADMIN_LOCK_TIMEOUT = 300.0
# Threads of one process queue here instead of polling the file lock.
_THREADS = threading.Lock()


@contextmanager
def admin_lock(repo: Repo) -> Iterator[None]:
    """Exclusive use of git's worktree administration among tddgit's processes."""
    with _THREADS, exclusive(repo, "worktrees.lock", ADMIN_LOCK_TIMEOUT):
        yield


@contextmanager
def detached(repo: Repo, commit: str) -> Iterator[Path]:
    """A detached worktree of ``commit`` in a new temporary directory; removed on exit."""
    parent = Path(tempfile.mkdtemp(prefix="tddgit-verify-"))
    root = parent / repo.root.name  # the project's own directory name (rootdir, imports)
    env = clean_env()
    try:
        with admin_lock(repo):
            repo.run(
                "-c",
                "core.hooksPath=/dev/null",  # a checkout must not run the user's hooks
                "worktree",
                "add",
                "--detach",
                "--quiet",
                str(root),
                commit,
                env=env,
            )
        yield root
    finally:
        with admin_lock(repo):
            repo.run("worktree", "remove", "--force", "--force", str(root), env=env, check=False)
        shutil.rmtree(parent, ignore_errors=True)


def prune(repo: Repo) -> None:
    """``git worktree prune``: forget the worktrees whose directory is gone."""
    with admin_lock(repo):
        repo.run("worktree", "prune", env=clean_env(), check=False)
