"""The last arrays of the JSON report, encoded by a forked child while the parent goes on.

Once git's stream ends the audit is single-threaded Python and the second core sits idle,
yet the episodes and commits arrays (one line per commit, most of the document) do not
depend on anything computed after the pass: metrics and the header do. So the CLI asks
``run_audit`` to fork right after the pass; the child writes the arrays' exact text (the
same ``_Lines`` of ``tddgit.audit.report``) into an anonymous memory file and exits, the
parent computes the metrics and writes everything before the arrays (two loads of about
the same size on the two cores), then copies the child's bytes into the output with
``sendfile``. Any failure in the child (or a platform without ``fork``/``memfd_create``)
leaves the parent to encode the arrays itself, as before.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Any

_BATCH = 4096  # lines per write, as the parent's own writer does
_FD_LIMIT = 1 << 16


Arrays = Sequence[tuple[str, Sequence[Any]]]  # ("episodes", [...]), ("commits", [...])
_LINE = {"findings": "finding", "cycles": "cycle", "episodes": "episode", "commits": "commit"}


class _Child:
    def __init__(self, arrays: Arrays, pid: int, fd: int, enc: tuple[str, str]):
        self.arrays = arrays
        self.pid = pid
        self.fd = fd
        self.encoding = enc

    def matches(self, arrays: Arrays) -> bool:
        return len(arrays) == len(self.arrays) and all(
            k == mk and items is mine
            for (k, items), (mk, mine) in zip(arrays, self.arrays, strict=True)
        )

    def done(self) -> bool:
        """Wait for the child; true when it wrote all its arrays."""
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return False
        return os.waitstatus_to_exitcode(status) == 0


_PENDING: list[_Child] = []


def start(arrays: Arrays, encoding: str, errors: str) -> None:
    """Fork a child encoding the last ``arrays`` of the document (their keys and items, as
    ``tddgit.audit.report`` writes them) for a stream of that encoding."""
    from tddgit.audit.parallel import can_fork

    if not can_fork():
        return  # the parent writes the arrays itself
    try:
        fd = os.memfd_create("tddgit-audit-arrays", os.MFD_CLOEXEC)
        pid = os.fork()
    except OSError:
        return  # the parent writes the arrays itself
    if pid == 0:  # the child: never returns, never runs the parent's exit handlers
        code = 1
        try:
            # Hold no pipe of the parent's open (its git cat-file would wait for our exit
            # to see the end of its input): keep only stdio and the memory file.
            os.closerange(3, fd)
            os.closerange(fd + 1, _FD_LIMIT)
            _encode(arrays, fd, encoding, errors)
            code = 0
        finally:
            os._exit(code)
    _PENDING.append(_Child(arrays, pid, fd, (encoding, errors)))


def copy_into(arrays: Arrays, stream: IO[str]) -> bool:
    """Write ``arrays`` (from the comma before the first key to the last ``]``) if a child
    encoded exactly these; false when there is nothing to copy (the caller writes them)."""
    child = next((c for c in _PENDING if c.matches(arrays)), None)
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


def _encode(arrays: Arrays, fd: int, encoding: str, errors: str) -> None:
    import json

    from tddgit.audit.report import _Lines

    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    lines = _Lines(dumps)

    def put(text: str) -> None:
        data = memoryview(text.encode(encoding, errors))
        while data:
            data = data[os.write(fd, data) :]

    for key, items in arrays:
        line = getattr(lines, _LINE[key])
        put(f",\n{dumps(key)}: [")
        for start in range(0, len(items), _BATCH):
            lead = "\n  " if start == 0 else ",\n  "
            put(lead + ",\n  ".join([line(item) for item in items[start : start + _BATCH]]))
        put("\n]" if items else "]")


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
