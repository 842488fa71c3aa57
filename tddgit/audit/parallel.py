"""Blob work on both cores: the second half of a list in a forked child.

Analysing never-seen test blobs (``tddgit audit --detectors`` with a cold cache) is pure
Python over independent blobs, and it runs after git's history stream has ended, so one
core is idle. A forked child takes the second half with its own ``git cat-file`` and hands
its results back pickled through an anonymous memory file; the parent does the first half
meanwhile. Results come back in the list's order, so nothing downstream can tell. Any
failure in the child leaves the parent to do that half itself.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from tddgit.blobs import BlobReader

T = TypeVar("T")
R = TypeVar("R")
Work = Callable[[Sequence[T], "BlobReader"], list[R]]

# Below this many items the fork and the second git process cost more than they save.
# TDDGIT_PARALLEL_MIN_ITEMS overrides it (a test seam: small repositories reach the fork).
MIN_ITEMS = int(os.environ.get("TDDGIT_PARALLEL_MIN_ITEMS", "256") or 256)


def can_fork() -> bool:
    """Forking is safe only while this process runs no other thread: a child would inherit
    locks other threads hold (a progress display's console lock, a library user's
    threads) and could hang on them. Otherwise the work stays in one process."""
    return hasattr(os, "fork") and hasattr(os, "memfd_create") and threading.active_count() == 1


def in_two(items: Sequence[T], work: Work[T, R], blobs: BlobReader) -> list[R]:
    """``work(items, blobs)``, the second half in a child process when that pays."""
    if len(items) < MIN_ITEMS or not can_fork():
        return work(items, blobs)
    cut = len(items) // 2
    first, second = items[:cut], items[cut:]
    try:
        fd = os.memfd_create("tddgit-audit-work", os.MFD_CLOEXEC)
    except OSError:
        return work(items, blobs)
    try:
        pid = _fork(second, work, blobs, fd)
        out = work(first, blobs)
        rest: list[R] | None = _collect(pid, fd, len(second)) if pid else None
        return out + (rest if rest is not None else work(second, blobs))
    finally:
        os.close(fd)


def _fork(items: Sequence[T], work: Work[T, R], blobs: BlobReader, fd: int) -> int:
    from tddgit.blobs import BlobReader

    try:
        pid = os.fork()
    except OSError:
        return 0
    if pid:
        return pid
    code = 1  # the child: never returns, never runs the parent's exit handlers
    try:
        import pickle

        with BlobReader(blobs.repo) as own:
            data = pickle.dumps(work(items, own), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        code = 0
    finally:
        os._exit(code)


def _collect(pid: int, fd: int, count: int) -> list[Any] | None:
    from tddgit.audit.prerender import reap

    if not reap(pid):
        return None
    size = os.fstat(fd).st_size
    chunks = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    import pickle

    try:
        out = pickle.loads(b"".join(chunks))
    except Exception:  # a truncated hand-over: do the half again
        return None
    return out if isinstance(out, list) and len(out) == count else None
