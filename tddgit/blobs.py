"""Blob reads through one persistent ``git cat-file`` process.

The audit reads its evidence notes and the few file contents its judgement needs through
one reader (never a
subprocess per blob). Objects are named ``<commit>:<path>`` or by id; a path with a
newline cannot be named on that protocol and reads as None, as does a missing or
oversized object.

With git >= 2.36 the process is ``git cat-file --batch-command`` (``contents``
requests), otherwise ``--batch``; both answer the same way.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from types import TracebackType

from tddgit.git import Repo, clean_env

MAX_BLOB = 512 * 1024
_BATCH_BYTES = 16 * 1024  # requests per batch: well below any pipe's capacity
_NULL = "0" * 40  # larger files are never stubs, and imports sit at the top anyway


class BlobReader:
    """Reads blobs through one ``git cat-file``, started on first use.

    ``reads`` counts the blobs whose contents were read.
    """

    def __init__(self, repo: Repo, *, probe: bool = True) -> None:
        """``probe=False``: plain ``--batch`` without asking git's version (for a few
        reads in one batch, where the extra process would cost as much as the reads)."""
        self._repo = repo
        self._proc: subprocess.Popen[bytes] | None = None
        self._probe = probe
        self._commands = False  # --batch-command (prefixed requests) or --batch
        self.reads = 0

    @property
    def repo(self) -> Repo:
        return self._repo

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.stdin is not None and self._proc.stdin.closed:
            self.close()  # hung up: a new conversation
        if self._proc is None:
            self._commands = self._probe and _has_batch_command()
            mode = ["--batch-command", "--buffer"] if self._commands else ["--batch"]
            self._proc = subprocess.Popen(
                ["git", "cat-file", *mode],
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
        proc.stdin.write(self._ask("contents", f"{commit}:{path}"))
        if self._commands:
            proc.stdin.write(b"flush\n")
        proc.stdin.flush()
        return self._answer(proc)

    def _ask(self, command: str, name: str) -> bytes:
        # a name with a newline cannot be asked for: ask for an id that is missing
        if "\n" in name or "\r" in name:
            name = _NULL
        line = f"{command} {name}\n" if self._commands else f"{name}\n"
        return line.encode("utf-8", "surrogateescape")

    def contents_many(self, ids: Sequence[str], limit: int = MAX_BLOB) -> list[bytes | None]:
        """The contents of blobs named by id (None: missing, not a blob, or larger than
        ``limit`` bytes, which is skipped without being held)."""
        proc = self._start()
        out: list[bytes | None] = []
        for count in self._batches(proc, [self._ask("contents", i) for i in ids]):
            for _ in range(count):
                self.reads += 1
                out.append(self._answer(proc, limit))
        return out

    def _batches(self, proc: subprocess.Popen[bytes], requests: list[bytes]) -> Iterator[int]:
        """Send the requests a batch at a time; yields each batch's size, for the caller to
        read that many answers before the next batch is sent.

        A batch's requests fit in the pipe to git, so writing one never blocks even while
        git waits for us to read: no deadlock, and no writer thread (a thread would pass
        the GIL back and forth with the reader once per answer, which costs far more than
        git's own lookup). With ``--batch-command --buffer`` git answers a whole batch at
        once on ``flush``.
        """
        stdin = proc.stdin
        assert stdin is not None
        end = b"flush\n" if self._commands else b""
        i = 0
        while i < len(requests):
            size, j = 0, i
            while j < len(requests) and (j == i or size + len(requests[j]) < _BATCH_BYTES):
                size += len(requests[j])
                j += 1
            stdin.write(b"".join(requests[i:j]) + end)
            stdin.flush()
            yield j - i
            i = j

    def read_many(
        self, names: Sequence[tuple[str, str]], limit: int = MAX_BLOB
    ) -> Iterator[bytes | None]:
        """Blobs for many (commit, path) pairs, asked for in batches (no round trip per
        blob)."""
        proc = self._start()
        asked = [self._ask("contents", f"{c}:{p}") for c, p in names]
        for count in self._batches(proc, asked):
            for _ in range(count):
                self.reads += 1
                yield self._answer(proc, limit)

    def _answer(self, proc: subprocess.Popen[bytes], limit: int = MAX_BLOB) -> bytes | None:
        assert proc.stdout is not None
        header = proc.stdout.readline().split()
        if not _found(header):
            return None
        size = int(header[2])
        if header[1] != b"blob" or size > limit:
            _skip(proc, size)
            return None
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # the LF after the contents
        return data

    def text(self, commit: str, path: str) -> str | None:
        return as_text(self.read(commit, path))

    def hang_up(self) -> None:
        """End the conversation without waiting: git exits (which takes a while with a big
        pack mapped) on the other core while the audit goes on; ``close`` reaps it."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.closed:
            return
        assert proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()

    def close(self) -> None:
        if self._proc is None:
            return
        self.hang_up()
        proc, self._proc = self._proc, None
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


def _found(header: list[bytes]) -> bool:
    """An "<id> <type> <size>" answer, not "<name> missing" (or "ambiguous"), whatever
    spaces the name held."""
    return len(header) == 3 and header[2].isdigit()


_BATCH_COMMAND: bool | None = None


def _has_batch_command() -> bool:
    """Whether this git has ``cat-file --batch-command`` (2.36 and later)."""
    global _BATCH_COMMAND
    if _BATCH_COMMAND is None:
        try:
            out = subprocess.run(
                ["git", "version"], capture_output=True, text=True, env=clean_env(), check=False
            ).stdout
            parts = out.split()[2].split(".")
            _BATCH_COMMAND = (int(parts[0]), int(parts[1])) >= (2, 36)
        except (OSError, IndexError, ValueError):
            _BATCH_COMMAND = False
    return _BATCH_COMMAND


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
