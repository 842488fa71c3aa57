"""A materialised snapshot of a tree in a temporary directory, for running the tests on
exactly what is being committed when the work tree holds other changes.

The user's files are never touched: the snapshot is checked out from the object store
through a private index and removed in ``finally``, whatever happens.

A SIGKILL runs no ``finally``: so every temporary directory tddgit makes carries its
process id (``tddgit-<pid>-*`` for the process's scratch directory, which
``use_scratch_dir`` makes the home of every ``tempfile`` call, and
``tddgit-snapshot-<pid>-*``), and the next tddgit run removes those of dead processes.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tddgit.errors import GitError
from tddgit.git import Repo, clean_env
from tddgit.importpaths import import_paths as import_paths  # its home before

_OURS = re.compile(r"^tddgit-(?:snapshot-)?(\d+)-")


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (a zombie counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except OSError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return True  # no /proc: trust kill(0)


_swept_in: str | None = None  # the scratch directory whose sweep is done already


def sweep_stale(tmp: str) -> None:
    """Remove the temporary directories of tddgit processes that died without cleaning up."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(tmp):
            m = _OURS.match(entry.name)
            if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False) and entry.stat().st_uid == os.getuid():
                        shutil.rmtree(entry.path, ignore_errors=True)


@contextmanager
def use_scratch_dir() -> Iterator[Path]:
    """Make a private ``tddgit-<pid>-*`` directory the process's ``tempfile`` home (runner
    output, probe logs, worktrees) and remove it on exit; sweep dead processes' leftovers.

    The test processes are not affected: their ``TMPDIR`` stays what the user set."""
    from tddgit import early

    base = tempfile.gettempdir()
    # The gate's early start made it already (its test command's output is there): one
    # directory to make and remove, not two.
    taken = early.take_scratch(base)
    scratch = taken or tempfile.mkdtemp(prefix=f"tddgit-{os.getpid()}-", dir=base)
    previous = tempfile.tempdir
    tempfile.tempdir = scratch
    try:
        yield Path(scratch)
    finally:
        tempfile.tempdir = previous
        if taken:
            early.discard()  # an early run nobody claimed writes there: gone first
        shutil.rmtree(scratch, ignore_errors=True)
        # At the end, not the start: a gate's tests start that much sooner. A gate has
        # swept already, while its tests ran (``sweep_while_running``).
        if _swept_in != scratch:
            sweep_stale(base)


def sweep_while_running() -> None:
    """The sweep ``use_scratch_dir`` makes at its end, made now: a gate calls this while
    its tests run, so that listing a crowded temporary directory (hundreds of entries, a
    regular expression and perhaps a process check each) is not between the test
    command's exit and the verdict. Only inside ``use_scratch_dir`` (elsewhere nothing
    is swept at the end either)."""
    global _swept_in
    if in_scratch() and _swept_in != tempfile.tempdir:
        _swept_in = tempfile.tempdir
        sweep_stale(user_tempdir())


@contextmanager
def snapshot(repo: Repo, tree: str) -> Iterator[Path]:
    """Yield a directory holding the files of ``tree``; removed on exit."""
    # Beside the scratch directory, not inside it: the name is what a user (and a test)
    # looks for in $TMPDIR while a gate runs.
    parent = Path(tempfile.mkdtemp(prefix=f"tddgit-snapshot-{os.getpid()}-", dir=user_tempdir()))
    root = parent / repo.root.name  # keep the project's directory name (rootdir, imports)
    try:
        root.mkdir()
        _checkout(repo, tree, root, parent / "index")
        yield root
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def user_tempdir() -> str:
    """The temporary directory as the user sees it: for things meant to outlive this
    process (the demo's repository), never the private scratch directory removed at exit."""
    base = tempfile.gettempdir()
    return os.path.dirname(base) if in_scratch() else base


def in_scratch() -> bool:
    """Whether ``tempfile``'s home is this process's scratch directory (private, removed
    at exit: ``use_scratch_dir``)."""
    name = os.path.basename(tempfile.tempdir or "")
    return name.startswith(f"tddgit-{os.getpid()}-")


def _checkout(repo: Repo, tree: str, root: Path, index: Path) -> None:
    """Lay ``tree`` down in ``root`` as a checkout does, with git's own checkout code:
    symbolic links stay links (absolute, relative, dangling, outward: never followed
    while writing), a submodule is an empty directory, executable bits and any file name
    survive, and git refuses to write through a link or outside ``root``. A private
    index keeps the user's index untouched (and ``git archive``'s export-ignore and
    export-subst attributes, which change what a tree holds, out of the picture)."""
    env = clean_env({"GIT_INDEX_FILE": str(index)})
    for args in (
        ("read-tree", tree),
        ("--work-tree", str(root), "checkout-index", "--all", "--force"),
    ):
        proc = subprocess.run(
            ["git", *args], cwd=repo.root, env=env, capture_output=True, check=False
        )
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip()
            raise GitError(f"git {args[0]} of tree {tree[:10]} failed: {err[:200]}")
