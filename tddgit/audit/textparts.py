"""The text report's two long tables, rendered by a forked child while the parent computes
the metrics (as ``tddgit.audit.prerender`` does for the JSON report's arrays).

The recent commits and the newest findings depend on the records and the findings only;
with rich, their rendering is most of the text report's (~45 of ~75 ms on pytest's
history). ``run_audit`` hands the final records and findings to ``starter``'s callback
before it computes the metrics; the callback forks a child that renders both tables with
the report's own console settings (colour, width) into an anonymous memory file, and
``tddgit.audit.render_text.write_text`` writes that text in their place. No fork (another
thread running, no ``fork``/``memfd_create``) or a failed child: the parent renders them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from tddgit.audit.model import CommitRecord, Finding

_SEPARATOR = "\0"  # between the two tables' text (neither holds a NUL: rich drops them)
_PRELOADS: list[threading.Thread] = []


class _Child:
    def __init__(
        self, pid: int, fd: int, records: Sequence[CommitRecord], findings: Sequence[Finding]
    ) -> None:
        self.pid = pid
        self.fd = fd
        self.records = records
        self.findings = findings


_PENDING: list[_Child] = []


def preload() -> None:
    """Import rich's console and tables in a thread while the audit's pass runs: a pass
    that waits for git's stream (the compiled one) leaves the interpreter idle, and the
    import (~20 ms) is then not on the way to the report; the pure pass loses nothing
    (the same work, done earlier)."""

    def load() -> None:
        import rich.console
        import rich.table
        import rich.text  # noqa: F401

    thread = threading.Thread(target=load, name="tddgit-rich", daemon=True)
    thread.start()
    _PRELOADS.append(thread)


def starter(stream: IO[str]) -> Callable[[Sequence[CommitRecord], Sequence[Finding]], None]:
    """What ``run_audit`` calls with the final records and findings of a text report that
    will be written to ``stream``."""

    def start(records: Sequence[CommitRecord], findings: Sequence[Finding]) -> None:
        from tddgit.audit.parallel import can_fork
        from tddgit.audit.prerender import fork_writer
        from tddgit.audit.render_text import make_console

        for thread in _PRELOADS:  # a child must not inherit an import half done
            thread.join()
        if not can_fork():
            return
        width = make_console(stream).width
        try:
            fd = os.memfd_create("tddgit-audit-text", os.MFD_CLOEXEC)
        except OSError:
            return
        pid = fork_writer(fd, lambda: _render(fd, records, findings, stream, width))
        if pid is None:
            os.close(fd)
            return
        _PENDING.append(_Child(pid, fd, records, findings))

    return start


def _render(
    fd: int,
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    stream: IO[str],
    width: int,
) -> None:
    """In the child: both tables as the report's console prints them, into ``fd``."""
    import io

    from tddgit.audit.render_text import findings_table, make_console, recent_table

    texts = []
    for table in (recent_table(records), findings_table(findings) if findings else None):
        buffer = io.StringIO()
        if table is not None:
            console = make_console(stream, width)
            console.file = buffer  # the report's settings, printed into a string
            console.print(table)
        texts.append(buffer.getvalue())
    data = memoryview(_SEPARATOR.join(texts).encode("utf-8", "surrogatepass"))
    while data:
        data = data[os.write(fd, data) :]


def taken(records: Sequence[CommitRecord], findings: Sequence[Finding]) -> tuple[str, str] | None:
    """The two tables' text if a child rendered them for exactly these records and
    findings (waiting for it); None otherwise (the caller renders them)."""
    child = next((c for c in _PENDING if c.records is records and c.findings is findings), None)
    if child is None:
        return None
    _PENDING.remove(child)
    try:
        from tddgit.audit.prerender import reap

        if not reap(child.pid):
            return None
        size = os.fstat(child.fd).st_size
        data = os.pread(child.fd, size, 0) if size else b""
        parts = data.decode("utf-8", "surrogatepass").split(_SEPARATOR)
        return (parts[0], parts[1]) if len(parts) == 2 else None
    finally:
        os.close(child.fd)
