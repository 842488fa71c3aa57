"""A materialised snapshot of a tree in a temporary directory, for running the tests on
exactly what is being committed when the work tree holds other changes.

The user's files are never touched: the snapshot is made from the object store with
``git archive`` and removed in ``finally``, whatever happens.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tddgit.errors import GitError
from tddgit.git import Repo


@contextmanager
def snapshot(repo: Repo, tree: str) -> Iterator[Path]:
    """Yield a directory holding the files of ``tree``; removed on exit."""
    parent = Path(tempfile.mkdtemp(prefix="tddgit-snapshot-"))
    root = parent / repo.root.name  # keep the project's directory name (rootdir, imports)
    try:
        root.mkdir()
        proc = subprocess.Popen(
            ["git", "archive", "--format=tar", tree],
            cwd=repo.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        try:
            with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
                _extract(tar, root)
        finally:
            proc.stdout.close()
            err = proc.stderr.read() if proc.stderr else b""
            if proc.wait() != 0:
                raise GitError(f"git archive failed: {err.decode('utf-8', 'replace')[:200]}")
        yield root
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def _extract(tar: tarfile.TarFile, root: Path) -> None:
    if hasattr(tarfile, "data_filter"):
        tar.extractall(root, filter="data")
        return
    # Python < 3.11.4: the archive comes from our own object store, but still refuse
    # anything that would land outside the snapshot.
    for member in tar:
        target = os.path.realpath(root / member.name)
        if not target.startswith(os.path.realpath(root) + os.sep):
            continue
        tar.extract(member, root)


def import_paths(root: Path) -> list[str]:
    """Directories to put first on PYTHONPATH so the project's imports resolve to the
    snapshot rather than to an editable install of the work tree."""
    paths = [str(root)]
    if (root / "src").is_dir():
        paths.insert(0, str(root / "src"))
    return paths
