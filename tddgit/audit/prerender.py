"""The commits array of the JSON report, encoded by a forked child while the parent goes on.

Once git's stream ends the audit is single-threaded Python and the second core sits idle,
yet the commits array (one line per commit, most of the document) does not depend on
anything computed after the pass: metrics, findings and the header do. So the CLI asks
``run_audit`` to fork right after the pass; the child writes the array's exact text (the
same ``_Lines`` of ``tddgit.audit.report``) into an anonymous memory file and exits, the
parent computes the metrics and writes everything before the array, then copies the
child's bytes into the output with ``sendfile``. Any failure in the child (or a platform
without ``fork``/``memfd_create``) leaves the parent to encode the array itself, as before.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO

from tddgit.audit.model import CommitRecord

_BATCH = 4096  # lines per write, as the parent's own writer does


class _Child:
    def __init__(self, records: Sequence[CommitRecord], pid: int, fd: int, enc: tuple[str, str]):
        self.records = records
        self.pid = pid
        self.fd = fd
        self.encoding = enc

    def done(self) -> bool:
        """Wait for the child; true when it wrote the whole array."""
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return False
        return os.waitstatus_to_exitcode(status) == 0


_PENDING: list[_Child] = []


def start(records: Sequence[CommitRecord], encoding: str, errors: str) -> None:
    """Fork a child encoding ``records``' JSON lines for a stream of that encoding."""
    if not records or not hasattr(os, "fork") or not hasattr(os, "memfd_create"):
        return
    try:
        fd = os.memfd_create("tddgit-audit-commits", os.MFD_CLOEXEC)
        pid = os.fork()
    except OSError:
        return  # the parent writes the array itself
    if pid == 0:  # the child: never returns, never runs the parent's exit handlers
        code = 1
        try:
            _encode(records, fd, encoding, errors)
            code = 0
        finally:
            os._exit(code)
    _PENDING.append(_Child(records, pid, fd, (encoding, errors)))


def copy_into(records: Sequence[CommitRecord], stream: IO[str]) -> bool:
    """Write the array's items (what follows ``"commits": [``) if a child encoded them.

    False when there is nothing to copy: the caller then encodes the array itself."""
    child = next((c for c in _PENDING if c.records is records), None)
    if child is None:
        return False
    _PENDING.remove(child)
    try:
        if child.encoding != (getattr(stream, "encoding", None), getattr(stream, "errors", None)):
            os.kill(child.pid, 9)
            child.done()
            return False
        if not child.done():
            return False
        try:
            out = stream.fileno()
        except (OSError, ValueError, AttributeError):
            return False
        stream.flush()
        _send(child.fd, out)
        return True
    finally:
        os.close(child.fd)


def _encode(records: Sequence[CommitRecord], fd: int, encoding: str, errors: str) -> None:
    import json

    from tddgit.audit.report import _Lines

    line = _Lines(json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode).commit
    for start in range(0, len(records), _BATCH):
        lead = "\n  " if start == 0 else ",\n  "
        text = lead + ",\n  ".join([line(c) for c in records[start : start + _BATCH]])
        data = memoryview(text.encode(encoding, errors))
        while data:
            data = data[os.write(fd, data) :]


def _send(src: int, out: int) -> None:
    size = os.fstat(src).st_size
    offset = 0
    try:
        while offset < size:
            sent = os.sendfile(out, src, offset, size - offset)
            if sent == 0:
                break
            offset += sent
    except OSError:
        if offset:  # a real write error after part of the array went out
            raise
    while offset < size:  # outputs sendfile cannot write to
        data = os.pread(src, min(size - offset, 1 << 20), offset)
        if not data:
            break
        view = memoryview(data)
        while view:
            view = view[os.write(out, view) :]
        offset += len(data)
