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

A pure-Python pass has no time to spare for that, except while it waits for git: there
the spool works *idly* (``encode_idly``): the history reader calls ``encode_some`` instead
of napping, which encodes the next complete batches of the records made so far; when the
pass ends, a forked child encodes the rest into the same memory file while the parent
computes the metrics and writes the other arrays.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import IO

from tddgit.audit.model import CommitRecord
from tddgit.audit.prerender import reap, send

BATCH = 256  # lines per write (a batch stays below malloc's mmap threshold)
IDLE_BATCHES = 3  # batches per idle call: about as long as the reader's nap (3 ms)
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
        self.source: Sequence[CommitRecord] | None = None  # idly: the records being made
        self.tail: int | None = None  # idly: the child encoding the batches after the pass

    @classmethod
    def open(cls, line: Callable[[CommitRecord], str], encoding: str, errors: str) -> Spool | None:
        """A spool, or None where the platform has no anonymous memory files."""
        if not hasattr(os, "memfd_create"):
            return None
        try:
            return cls(line, encoding, errors)
        except OSError:
            return None

    def encode_idly(self, records: Sequence[CommitRecord]) -> None:
        """Encode ``records`` (the list the pass appends to) in ``encode_some``'s calls and
        after the pass, not as each is added."""
        self.source = records

    def add(self, record: CommitRecord) -> None:
        """The next record of the array (in order)."""
        self.count += 1
        if self.source is not None:
            return  # encoded from ``source`` later
        self.pending.append(self.line(record))
        if len(self.pending) == BATCH:
            self._write_batch()

    def replace(self, index: int, record: CommitRecord) -> None:
        """Record ``index`` changed after it was added."""
        written = (len(self.offsets) - 1) * BATCH
        if index < written:
            self.dirty.add(index // BATCH)
        elif self.source is None:
            self.pending[index - written] = self.line(record)

    def encode_some(self) -> bool:
        """Idly: encode the next complete batches of the records added so far (at most
        ``IDLE_BATCHES``); whether there were any."""
        source = self.source
        assert source is not None
        did = False
        for _ in range(IDLE_BATCHES):
            start = (len(self.offsets) - 1) * BATCH
            if self.count - start < BATCH:
                break
            self._encode_batch(source, start)
            did = True
        return did

    def close(self, records: Sequence[CommitRecord]) -> None:
        """The pass is over: ``records`` are all the array's items, in order. Idly, a
        child encodes the batches not written yet (or this process, without ``fork``)."""
        if self.source is not None:
            self._start_tail(records)
        elif self.pending:
            self._write_batch()
        self.records = records
        _READY.append(self)

    def _start_tail(self, records: Sequence[CommitRecord]) -> None:
        from tddgit.audit.parallel import can_fork
        from tddgit.audit.prerender import fork_writer

        first = len(self.offsets) - 1
        if first * BATCH >= len(records):
            return
        if can_fork():
            self.tail = fork_writer(self.fd, lambda: self._encode_from(first, records))
        if self.tail is None:
            self._encode_from(first, records)

    def _encode_from(self, batch: int, records: Sequence[CommitRecord]) -> None:
        """The batches from ``batch`` on, appended to the memory file."""
        for start in range(batch * BATCH, len(records), BATCH):
            self._encode_batch(records, start)

    def _encode_batch(self, records: Sequence[CommitRecord], start: int) -> None:
        self.pending = [self.line(r) for r in records[start : start + BATCH]]
        self._write_batch()

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
                self._write_anew(stream, b, self.records[b * BATCH : (b + 1) * BATCH])
            else:
                self._copy(stream, out, start, end)
        if self.tail is not None:  # the batches the child encoded after the pass
            first = len(self.offsets) - 1
            if reap(self.tail):
                self._copy(stream, out, self.offsets[-1], os.fstat(self.fd).st_size)
            else:  # the child failed: encode its batches here, as it would have
                self._write_anew(stream, first, self.records[first * BATCH :])
            self.tail = None

    def _write_anew(self, stream: IO[str], batch: int, items: Sequence[CommitRecord]) -> None:
        """``items``, from the start of batch ``batch`` on, encoded straight into ``stream``."""
        lead = "\n  " if batch == 0 else ",\n  "
        stream.write(lead + ",\n  ".join([self.line(r) for r in items]))
        stream.flush()

    def _copy(self, stream: IO[str], out: int, start: int, end: int) -> None:
        if out >= 0:
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
