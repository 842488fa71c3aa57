"""Turn the history stream of ``tddgit.history``'s git processes into ``Commit`` records.

git writes each commit as NUL-separated header fields in ``history._FORMAT``'s order, the
raw message last, then its files (``--name-status`` or ``--raw``). This is the part of
reading a history that runs once per commit and per file, so it is one of the audit's
compiled modules (``HOT_MODULES`` in ``setup.py``). Decoding rules: ``tddgit.history``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Iterator
from typing import IO

from tddgit.errors import GitError
from tddgit.model import Commit, FileChange

# What git prints of each commit (``--format``), the fields NUL-separated. The raw message
# is last: it is the only free text that may hold anything but NUL.
_FIELDS = (
    "%H",
    "%P",
    "%T",
    "%aN",  # .mailmap applied: one author, whatever address they committed from
    "%aE",
    "%at",
    "%ct",
    "%(trailers:only,unfold,separator=%x1f,key_value_separator=%x1e)",
    "%B",
)
FORMAT = "%x00".join(_FIELDS)
_TRAILER_SEP = "\x1f"  # between trailers (%x1f above)
_KV_SEP = "\x1e"  # between a trailer's key and value (%x1e above)
_HEADER_FIELDS = len(_FIELDS)

_CHUNK = 1 << 20
_SMALL_READ = 1 << 18
_NAP = 0.003  # seconds; git fills ~50 KB in that time, far below the pipe's size


def parse_stream(
    stream: IO[bytes],
    with_files: bool,
    blobs: bool = False,
    idle: Callable[[], bool] | None = None,
) -> Iterator[Commit]:
    """Turn git's NUL-separated byte stream into commits, one chunk at a time.

    A chunk is cut at its last NUL, so no field (and no UTF-8 character) is ever split;
    tokens of a commit whose file list may continue in the next chunk are carried over.
    """
    fd = stream.fileno()
    tail = b""
    pending: list[str] = []
    pending_clean = True
    shared = _Shared()
    data = b""
    while True:
        # git writes a few hundred bytes at a time: reading each piece as it comes costs a
        # wake-up per commit (0.8 s of CPU at 100k commits). A short nap when we are ahead
        # of git lets the pipe fill, so each read gets much more. ``idle``: the caller's
        # own work instead of the nap, when it has some (it returns whether it did any;
        # that takes about as long as a nap).
        if len(data) < _SMALL_READ and (idle is None or not idle()):
            time.sleep(_NAP)
        data = os.read(fd, _CHUNK)
        if not data:
            break
        if tail:
            data = tail + data
        cut = data.rfind(b"\0")
        if cut < 0:
            tail = data
            continue
        tail = data[cut + 1 :]
        text, clean = _decode(data[:cut])
        tokens = text.split("\0")
        if pending:
            tokens = pending + tokens
            clean = clean and pending_clean
        used = yield from _parse_tokens(tokens, with_files, False, clean, shared, blobs)
        pending = tokens[used:]
        pending_clean = clean
    if tail:
        text, clean = _decode(tail)
        pending.append(text)
        pending_clean = pending_clean and clean
    if pending:
        used = yield from _parse_tokens(pending, with_files, True, pending_clean, shared, blobs)
        if used != len(pending):
            raise GitError("could not read git log output (unexpected format)")


def _decode(data: bytes) -> tuple[str, bool]:
    """The text of a chunk, and whether it was all valid UTF-8 (the usual, fast case)."""
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape"), False


def _text(s: str) -> str:
    """Surrogate-escaped bytes in human text become U+FFFD (see module docstring)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return s


class _Shared:
    """Values that repeat across a history, made once and shared by every commit.

    A long history touches the same files and has the same authors again and again:
    one immutable ``FileChange`` per (status, path) and one string per author name or
    e-mail keep both the time per commit and the memory per commit small.
    """

    __slots__ = ("changes", "moves", "names")

    def __init__(self) -> None:
        self.changes: dict[str, dict[str, FileChange]] = {}  # status -> path -> change
        self.moves: dict[tuple[str, str, str], FileChange] = {}  # renames and copies
        self.names: dict[str, str] = {}

    def change(self, code: str, path: str) -> FileChange:
        by_path = self.changes.get(code)
        if by_path is None:
            by_path = self.changes[code] = {}
        fc = by_path.get(path)
        if fc is None:
            fc = by_path[path] = FileChange(code, path)
        return fc

    def move(self, code: str, path: str, old: str) -> FileChange:
        key = (code, path, old)
        fc = self.moves.get(key)
        if fc is None:
            fc = self.moves[key] = FileChange(code, path, old)
        return fc


_new = object.__new__
_set = object.__setattr__


def _commit(fields: dict[str, object]) -> Commit:
    """A ``Commit`` without the frozen dataclass's per-field ``__setattr__`` (2x faster);
    ``fields`` holds exactly its fields, so it is the same object ``Commit(...)`` makes."""
    c = _new(Commit)
    _set(c, "__dict__", fields)
    return c


def _parse_tokens(
    t: list[str],
    with_files: bool,
    eof: bool,
    clean: bool,
    shared: _Shared | None = None,
    blobs: bool = False,
) -> Generator[Commit, None, int]:
    """Yield the complete commits in tokens ``t``; returns how many tokens they used.

    A commit is complete once the next commit's first field is seen, or at ``eof``: until
    then more file entries of it may still arrive. One flat loop, because this runs once
    per commit and per file of the whole history.
    """
    text = None if clean else _text  # a clean chunk's fields are used as they are
    if shared is None:
        shared = _Shared()
    change, move = shared.change, shared.move
    intern = shared.names.setdefault  # one string per author name and e-mail
    n = len(t)
    i = 0
    while i + _HEADER_FIELDS <= n:
        j = i + _HEADER_FIELDS
        files: tuple[FileChange, ...] = ()
        ids: tuple[tuple[str | None, str | None], ...] = ()
        if j >= n:
            if not eof:
                return i  # the file list (or the next commit) is in the next chunk
        elif with_files and blobs and t[j][:2] == "\n:":
            raw = _raw_files(t, j, eof, shared)
            if raw is None:
                return i  # the file list (or the next commit) is in the next chunk
            files, ids, j = raw
        elif with_files and t[j][:1] == "\n":
            found: list[FileChange] = []
            status = t[j][1:]  # the first status carries the "\n" that ends the header
            while True:
                code = status[:1]
                if code == "R" or code == "C":
                    if j + 2 >= n:
                        return i
                    found.append(move(code, t[j + 2], t[j + 1]))
                    j += 3
                else:
                    if j + 1 >= n:
                        return i
                    found.append(change(code, t[j + 1]))
                    j += 2
                if j >= n:
                    if not eof:
                        return i
                    break
                status = t[j]
                # A status is a letter and maybe a score ("R100"); the next commit starts
                # with its hash (40 or 64 hex digits), so length tells them apart.
                if len(status) > 8 or not status:
                    break
            files = tuple(found)
        sha = t[i]
        if len(sha) != 40 and len(sha) != 64:
            raise GitError(
                f"could not read git log output (expected a commit id, got {sha[:20]!r})"
            )
        parents = t[i + 1]
        if text is None:
            author, email, message, raw_trailers = t[i + 3], t[i + 4], t[i + 8], t[i + 7]
        else:
            author, email, message = text(t[i + 3]), text(t[i + 4]), text(t[i + 8])
            raw_trailers = text(t[i + 7])
        yield _commit(
            {
                "sha": sha,
                "parents": tuple(parents.split(" ")) if parents else (),
                "tree": t[i + 2],
                "author_name": intern(author, author),
                "author_email": intern(email, email),
                "author_time": int(t[i + 5]),
                "committer_time": int(t[i + 6]),
                "message": message,
                "trailers": _split_trailers(raw_trailers, message) if raw_trailers else (),
                "files": files,
                "blobs": ids,
            }
        )
        i = j
    return i


_NO_BLOB = frozenset({"0" * 40, "0" * 64})


def _raw_files(
    t: list[str], j: int, eof: bool, shared: _Shared
) -> tuple[tuple[FileChange, ...], tuple[tuple[str | None, str | None], ...], int] | None:
    """The ``--raw`` entries from token ``j`` (``:mode mode old new STATUS``, then one path
    or two for renames and copies): the changes, their (new, old) blob ids, and the token
    after them; None if they may continue in the next chunk."""
    n = len(t)
    found: list[FileChange] = []
    ids: list[tuple[str | None, str | None]] = []
    entry = t[j][1:]  # the first entry carries the "\n" that ends the header
    while True:
        _, _, old, new, status = entry.split(" ", 4)
        code = status[:1]
        ids.append((None if new in _NO_BLOB else new, None if old in _NO_BLOB else old))
        if code == "R" or code == "C":
            if j + 2 >= n:
                return None
            found.append(shared.move(code, t[j + 2], t[j + 1]))
            j += 3
        else:
            if j + 1 >= n:
                return None
            found.append(shared.change(code, t[j + 1]))
            j += 2
        if j >= n:
            if not eof:
                return None
            break
        entry = t[j]
        if entry[:1] != ":":  # the next commit's hash
            break
    return tuple(found), tuple(ids), j


def _split_trailers(raw: str, message: str) -> tuple[tuple[str, str], ...]:
    if _TRAILER_SEP in message or _KV_SEP in message:
        # Our separators occur in the text itself: git's split is ambiguous, so parse the
        # message ourselves with the same rules (commit-message mode: no `---` divider).
        from tddgit.trailers import parse_trailers

        return tuple(parse_trailers(message, divider=False))
    pairs = []
    for item in raw.split(_TRAILER_SEP):
        key, _, value = item.partition(_KV_SEP)
        pairs.append((key, value))
    return tuple(pairs)
