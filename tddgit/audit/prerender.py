"""Arrays of the JSON report encoded by a forked child while the parent goes on.

Once git's stream ends the audit is single-threaded Python and the second core would sit
idle, yet the report's arrays do not depend on what is computed after the pass: the
metrics and the header do. So ``run_audit`` forks a child that writes the exact text of
some arrays (the same ``_Lines`` of ``tddgit.audit.report``) into an anonymous memory file
and exits, while the parent computes the metrics and writes everything before them; then
the parent copies the child's bytes into the output with ``sendfile``. Which arrays:
the commits array right after the pass (most of the document), or, when the pass already
encoded it (``tddgit.audit.spool``), the findings, cycles and episodes after ``finish``.
Any failure in the child (or a platform without ``fork``/``memfd_create``) leaves the
parent to encode the arrays itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
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
        """Whether this child encoded the first of ``arrays``, those exact lists."""
        return len(arrays) >= len(self.arrays) and all(
            k == mk and items is mine
            for (k, items), (mk, mine) in zip(arrays, self.arrays, strict=False)
        )

    def done(self) -> bool:
        """Wait for the child; true when it wrote all its arrays."""
        return reap(self.pid)


_PENDING: list[_Child] = []


def start(arrays: Arrays, encoding: str, errors: str) -> None:
    """Fork a child encoding the last ``arrays`` of the document (their keys and items, as
    ``tddgit.audit.report`` writes them) for a stream of that encoding."""
    from tddgit.audit.parallel import can_fork

    if not can_fork():
        return  # the parent writes the arrays itself
    try:
        fd = os.memfd_create("tddgit-audit-arrays", os.MFD_CLOEXEC)
    except OSError:
        return  # the parent writes the arrays itself
    pid = fork_writer(fd, lambda: _encode(arrays, fd, encoding, errors))
    if pid is None:
        os.close(fd)
        return
    _PENDING.append(_Child(arrays, pid, fd, (encoding, errors)))


def reap(pid: int) -> bool:
    """Wait for the forked child ``pid``; true when it exited 0 (all its work written)."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return False
    return os.waitstatus_to_exitcode(status) == 0


def fork_writer(fd: int, work: Callable[[], None]) -> int | None:
    """A child process that runs ``work`` (writing into the memory file ``fd``) and exits
    0 when it returns; its pid, or None when it could not be forked."""
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # the child: never returns, never runs the parent's exit handlers
        code = 1
        try:
            # Hold no pipe of the parent's open (its git cat-file would wait for our exit
            # to see the end of its input): keep only stdio and the memory file.
            os.closerange(3, fd)
            os.closerange(fd + 1, _FD_LIMIT)
            work()
            code = 0
        finally:
            os._exit(code)
    return pid


def copy_into(arrays: Arrays, stream: IO[str]) -> int:
    """Write the first of ``arrays`` (from the comma before the first key to the last
    ``]``) if a child encoded those; how many it wrote (0: the caller writes them)."""
    child = next((c for c in _PENDING if c.matches(arrays)), None)
    if child is None:
        return 0
    _PENDING.remove(child)
    try:
        if child.encoding != (getattr(stream, "encoding", None), getattr(stream, "errors", None)):
            os.kill(child.pid, 9)
            child.done()
            return 0
        if not child.done():
            return 0
        try:
            out = stream.fileno()
        except (OSError, ValueError, AttributeError):
            return 0
        stream.flush()
        send(child.fd, out, 0, os.fstat(child.fd).st_size)
        return len(child.arrays)
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


def send(src: int, out: int, start: int, end: int) -> None:
    """Bytes ``start:end`` of the file ``src`` into ``out`` (``sendfile``, or read and write
    where the output cannot take it)."""
    offset = start
    try:
        while offset < end:
            sent = os.sendfile(out, src, offset, end - offset)
            if sent == 0:
                break
            offset += sent
    except OSError:
        if offset > start:  # a real write error after part of the bytes went out
            raise
    while offset < end:
        data = os.pread(src, min(end - offset, 1 << 20), offset)
        if not data:
            break
        view = memoryview(data)
        while view:
            view = view[os.write(out, view) :]
        offset += len(data)
