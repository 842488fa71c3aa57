"""Locks shared by every tddgit process (and thread) working in one repository: an
``flock`` on a file in ``<git common dir>/tddgit/``, so linked worktrees share it too.

``flock`` belongs to the open file, so two threads of one process that each open the file
exclude each other as two processes do, and the kernel releases it when its holder dies,
SIGKILL included: a lock is never left behind.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tddgit.errors import GitError
from tddgit.git import Repo


@contextmanager
def exclusive(repo: Repo, name: str, timeout: float) -> Iterator[None]:
    """Hold ``<common dir>/tddgit/<name>`` exclusively; GitError after ``timeout`` s of waiting."""
    try:
        import fcntl
    except ImportError:  # not POSIX: git's own locks are all there is
        yield
        return
    path = repo.tddgit_dir / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield  # a read-only git dir: git itself will say what is wrong
        return
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise GitError(
                        f"another tddgit process has held {path} for {timeout:.0f} s",
                        "wait for it to finish, then retry",
                    ) from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # releases the lock
