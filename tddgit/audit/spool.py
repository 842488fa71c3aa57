"""The JSON report's ``commits`` array, encoded as the pass makes the records.

The array is most of the document (one line per commit), and a record is final once the
pass has made it, but for the rare commit a later revert undoes. So for ``--format json``
the audit hands each record to a ``Spool`` as it is made: its line is built while the
record's data is at hand, and every ``BATCH`` lines go, encoded for the output stream,
into an anonymous memory file. After the pass the array is already there; writing it is a
``sendfile`` per batch. A batch holding a record that was replaced afterwards is encoded
again from the final records when the array is written. Memory stays flat: at most one
batch of lines is held.

Without ``memfd_create`` (or when the report is written to another stream than the one the
spool was made for) nothing is spooled and the renderer encodes the array as usual.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import IO

from tddgit.audit.model import CommitRecord
from tddgit.audit.prerender import send

BATCH = 256  # lines per write (a batch stays below malloc's mmap threshold)
_READY: list[Spool] = []  # closed spools, until the renderer takes their array


class Spool:
    """Collects the ``commits`` array's lines for a stream of ``encoding``/``errors``."""

    def __init__(self, line: Callable[[CommitRecord], str], encoding: str, errors: str) -> None:
        self.line = line
        self.encoding = encoding
        self.errors = errors
        self.fd = os.memfd_create("tddgit-audit-commits", os.MFD_CLOEXEC)
        self.count = 0  # records added
        self.offsets = [0]  # byte offset where each written batch starts, and the end
        self.dirty: set[int] = set()  # written batches with a replaced record
        self.pending: list[str] = []
        self.records: Sequence[CommitRecord] | None = None  # set by ``close``

    @classmethod
    def open(cls, line: Callable[[CommitRecord], str], encoding: str, errors: str) -> Spool | None:
        """A spool, or None where the platform has no anonymous memory files."""
        if not hasattr(os, "memfd_create"):
            return None
        try:
            return cls(line, encoding, errors)
        except OSError:
            return None

    def add(self, record: CommitRecord) -> None:
        """The next record of the array (in order)."""
        self.pending.append(self.line(record))
        self.count += 1
        if len(self.pending) == BATCH:
            self._write_batch()

    def replace(self, index: int, record: CommitRecord) -> None:
        """Record ``index`` changed after it was added."""
        written = (len(self.offsets) - 1) * BATCH
        if index >= written:
            self.pending[index - written] = self.line(record)
        else:
            self.dirty.add(index // BATCH)

    def close(self, records: Sequence[CommitRecord]) -> None:
        """The pass is over: ``records`` are all the array's items, in order."""
        if self.pending:
            self._write_batch()
        self.records = records
        _READY.append(self)

    def _write_batch(self) -> None:
        lead = "\n  " if len(self.offsets) == 1 else ",\n  "
        data = memoryview((lead + ",\n  ".join(self.pending)).encode(self.encoding, self.errors))
        self.pending = []
        size = len(data)
        while data:
            data = data[os.write(self.fd, data) :]
        self.offsets.append(self.offsets[-1] + size)

    def serves(self, records: Sequence[CommitRecord], stream: IO[str]) -> bool:
        """Whether this spool holds exactly the lines of ``records`` for ``stream``."""
        return (
            self.records is records
            and self.count == len(records)
            and (getattr(stream, "encoding", None), getattr(stream, "errors", None))
            == (self.encoding, self.errors)
        )

    def write_items(self, stream: IO[str]) -> None:
        """The array's items (from the first line's lead to the last line) into ``stream``:
        bytes copied from the memory file, batches with a replaced record encoded anew."""
        assert self.records is not None
        stream.flush()
        try:
            out = stream.fileno()
        except (OSError, ValueError, AttributeError):
            out = -1
        for b in range(len(self.offsets) - 1):
            start, end = self.offsets[b], self.offsets[b + 1]
            if b in self.dirty:
                lead = "\n  " if b == 0 else ",\n  "
                items = self.records[b * BATCH : (b + 1) * BATCH]
                stream.write(lead + ",\n  ".join([self.line(r) for r in items]))
                stream.flush()
            elif out >= 0:
                send(self.fd, out, start, end)
            else:  # a stream without a file descriptor (tests, a library caller's buffer)
                stream.write(os.pread(self.fd, end - start, start).decode(self.encoding))

    def discard(self) -> None:
        if self in _READY:
            _READY.remove(self)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def ready_for(records: Sequence[CommitRecord], stream: IO[str]) -> Spool | None:
    """The closed spool that holds ``records``' lines for ``stream``, if any."""
    return next((s for s in _READY if s.serves(records, stream)), None)
