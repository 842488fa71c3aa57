"""Blob reads for the few commits whose judgement needs file contents.

One persistent ``git cat-file --batch`` process serves every read of an audit (never a
subprocess per blob). Objects are named ``<commit>:<path>``; a path with a newline cannot
be named on that protocol and reads as None, as does a missing or oversized object.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator, Sequence
from types import TracebackType

from tddgit.git import Repo, clean_env

MAX_BLOB = 512 * 1024
_NULL = "0" * 40  # larger files are never stubs, and imports sit at the top anyway


class BlobReader:
    """Reads blobs through one ``git cat-file --batch``, started on first use."""

    def __init__(self, repo: Repo) -> None:
        self._repo = repo
        self._proc: subprocess.Popen[bytes] | None = None
        self.reads = 0

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=self._repo.root,
                env=clean_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._proc

    def read(self, commit: str, path: str) -> bytes | None:
        """The content of ``path`` at ``commit``, or None (missing, odd name, too large)."""
        if "\n" in path or "\r" in path:
            return None
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        self.reads += 1
        proc.stdin.write(f"{commit}:{path}\n".encode("utf-8", "surrogateescape"))
        proc.stdin.flush()
        return self._answer(proc)

    def read_many(self, names: Sequence[tuple[str, str]]) -> Iterator[bytes | None]:
        """Blobs for many (commit, path) pairs, pipelined: a thread writes every request
        while this one reads, so there is no round trip per blob."""
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        asked = [(c, p) for c, p in names]
        stdin = proc.stdin

        def ask() -> None:
            for commit, path in asked:
                # a name with a newline cannot be asked for: ask for an id that is missing
                name = f"{commit}:{path}" if "\n" not in path and "\r" not in path else _NULL
                stdin.write(f"{name}\n".encode("utf-8", "surrogateescape"))
            stdin.flush()

        writer = threading.Thread(target=ask, daemon=True)
        writer.start()
        try:
            for _ in asked:
                self.reads += 1
                yield self._answer(proc)
        finally:
            writer.join()

    def _answer(self, proc: subprocess.Popen[bytes]) -> bytes | None:
        assert proc.stdout is not None
        header = proc.stdout.readline().split()
        if len(header) != 3:  # "<name> missing" (or an ambiguous name)
            return None
        size = int(header[2])
        if header[1] != b"blob" or size > MAX_BLOB:
            _skip(proc, size)
            return None
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # the LF after the contents
        return data

    def text(self, commit: str, path: str) -> str | None:
        return as_text(self.read(commit, path))

    def close(self) -> None:
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()
        proc.wait()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _skip(proc: subprocess.Popen[bytes], size: int) -> None:
    assert proc.stdout is not None
    left = size + 1  # the contents and their LF
    while left > 0:
        chunk = proc.stdout.read(min(left, 1 << 20))
        if not chunk:
            break
        left -= len(chunk)


def as_text(data: bytes | None) -> str | None:
    """Blob bytes as text, or None for a missing or binary blob."""
    if data is None or b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")
