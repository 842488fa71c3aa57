"""Read a repository's history with ONE streamed ``git log -z`` (PRODUCT.md §8, §11).

The audit's throughput budget is 1.5x plain ``git log -z --name-status``, so this module
adds as little as possible on top of git: one subprocess, read in large chunks, split on
NUL, and turned into ``Commit`` records as the bytes arrive. Parents first with the files
(the audit's read) the stream comes from ``git diff-tree --stdin`` instead, fed the
order ``git rev-list`` gives (see ``_parents_first``): the same output, less work for git. Memory stays flat because
nothing is buffered beyond one chunk and the consumer may stop at any time (the
subprocess is then killed and reaped).

Decoding: paths are decoded as UTF-8 with ``surrogateescape``, like ``tddgit.git.git``, so
``os.fsencode(path)`` gives back git's exact bytes and the path can be handed to git
again. Messages, trailers and author fields are text for people, so undecodable bytes in
them become U+FFFD (``replace``) and never break a renderer. Commits that declare an
encoding (``i18n.commitEncoding``) are re-encoded to UTF-8 by git itself.

Trailers come from git's own parser (``%(trailers:only,unfold)``), which treats the
message as a commit message: a ``---`` line is *not* a patch divider there, unlike
``git interpret-trailers`` on a message file (see ``tddgit.trailers``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import tempfile
import time
from collections.abc import Generator, Iterator, Sequence
from typing import IO

from tddgit.errors import GitError, UsageError
from tddgit.git import Repo, clean_env
from tddgit.model import Commit, FileChange

# Revision "names" that are really git options; they select refs, so they are allowed.
_REF_SELECTORS = frozenset({"--all", "--branches", "--tags", "--remotes"})

_TRAILER_SEP = "\x1f"  # between trailers
_KV_SEP = "\x1e"  # between a trailer's key and value

# Field order of one commit header; the raw message is last (it is the only free text
# that may hold anything but NUL).
_FORMAT = "%x00".join(
    [
        "%H",
        "%P",
        "%T",
        "%an",
        "%ae",
        "%at",
        "%ct",
        "%(trailers:only,unfold,separator=%x1f,key_value_separator=%x1e)",
        "%B",
    ]
)
_HEADER_FIELDS = 9

_CHUNK = 1 << 20
_PIPE_SIZE = 1 << 20
_SMALL_READ = 1 << 18
_NO_FLUSH = {"GIT_FLUSH": "0"}  # git buffers its output fully (see ``_spawn``)
_NAP = 0.003  # seconds; git fills ~50 KB in that time, far below the pipe's size


def _log_args(
    revs: Sequence[str],
    since: str | None,
    until: str | None,
    author: str | None,
    paths: Sequence[str],
    with_files: bool,
    find_copies: bool,
    reverse: bool,
    blobs: bool = False,
) -> list[str]:
    args = ["-c", "log.showSignature=false", "log", "-z", "--topo-order", *_pretty_args()]
    if with_files:
        args += [*_files_args(with_files, find_copies, blobs), "--no-diff-merges"]
    if reverse:
        args.append("--reverse")
    return [*args, *_range_args(revs, since, until, author, paths)]


def _show_args(with_files: bool, find_copies: bool, blobs: bool) -> list[str]:
    """``git diff-tree --stdin``: each commit whose id it reads, as ``git log`` shows it."""
    args = ["diff-tree", "--stdin", "--always", "-r", "-z", *_pretty_args()]
    return [*args, *_files_args(with_files, find_copies, blobs)]


def _pretty_args() -> list[str]:
    return [
        f"--format={_FORMAT}",
        "--encoding=UTF-8",  # whatever i18n.logOutputEncoding says: we decode UTF-8
        "--no-color",
    ]


def _files_args(with_files: bool, find_copies: bool, blobs: bool) -> list[str]:
    if not with_files:
        return []
    # --root: a root commit lists its files even when log.showRoot is false.
    what = ["--raw", "--no-abbrev"] if blobs else ["--name-status"]
    return [*what, "--root", "-M", *(["-C"] if find_copies else [])]


def _range_args(
    revs: Sequence[str],
    since: str | None,
    until: str | None,
    author: str | None,
    paths: Sequence[str],
) -> list[str]:
    """The options and arguments that select the commits (``git log`` or ``rev-list``)."""
    args = []
    if since:
        args.append(f"--since={since}")
    if until:
        args.append(f"--until={until}")
    if author:
        args.append(f"--author={author}")
    selectors = [r for r in revs if r in _REF_SELECTORS]
    names = [r for r in revs if r not in _REF_SELECTORS]
    for rev in names:
        if not rev or rev.startswith("-"):
            raise UsageError(
                f"bad revision or range: {rev!r}",
                "give a commit, branch, tag or a range such as main..HEAD",
            )
    # --end-of-options: a revision that looks like an option is still a revision.
    return [*args, *selectors, "--end-of-options", *names, "--", *paths]


def read_history(
    repo: Repo,
    revs: Sequence[str] = ("HEAD",),
    *,
    since: str | None = None,
    until: str | None = None,
    author: str | None = None,
    paths: Sequence[str] = (),
    with_files: bool = True,
    find_copies: bool = False,
    reverse: bool = False,
    blobs: bool = False,
) -> Iterator[Commit]:
    """Yield the commits of ``revs`` in topological order (newest first unless ``reverse``).

    Merge commits come with all their parents and no files. ``find_copies`` adds git's
    ``-C`` copy detection (costs more). ``blobs``: each commit also carries the blob ids
    of its files (``git log --raw``; the same cost in git, a little more to read).
    Raises ``UsageError`` for a bad revision or range and for a repository without
    commits, ``GitError`` if git fails otherwise.
    """
    with open_history(
        repo,
        revs,
        since=since,
        until=until,
        author=author,
        paths=paths,
        with_files=with_files,
        find_copies=find_copies,
        reverse=reverse,
        blobs=blobs,
    ) as commits:
        yield from commits


@contextlib.contextmanager
def open_history(
    repo: Repo,
    revs: Sequence[str] = ("HEAD",),
    *,
    since: str | None = None,
    until: str | None = None,
    author: str | None = None,
    paths: Sequence[str] = (),
    with_files: bool = True,
    find_copies: bool = False,
    reverse: bool = False,
    blobs: bool = False,
) -> Generator[Iterator[Commit], None, None]:
    """``read_history`` with git started on entry, not on the first read: whatever the
    caller prepares before reading overlaps with git's walk (which, for ``reverse``, ends
    before the first commit comes out: it is ``git rev-list``'s). Leaving the block stops
    git."""
    with contextlib.ExitStack() as stack:
        err = stack.enter_context(tempfile.TemporaryFile())
        reader: Generator[Commit, None, None]
        if reverse and with_files and not paths:
            order = stack.enter_context(tempfile.TemporaryFile())
            walk = ["rev-list", "--topo-order", "--reverse"]
            proc = _spawn(repo, [*walk, *_range_args(revs, since, until, author, ())], err, order)
            show = _show_args(with_files, find_copies, blobs)
            reader = _parents_first(repo, revs, proc, order, show, err, blobs)
        else:
            args = _log_args(
                revs, since, until, author, paths, with_files, find_copies, reverse, blobs
            )
            proc = _spawn(repo, args, err)
            reader = _read(repo, revs, proc, err, with_files, blobs)
        try:
            yield reader
        finally:
            reader.close()
            _stop(proc)  # also when the reader never started


# Parents first, files included (the audit's read). ``git log --reverse`` makes git diff
# the trees oldest first, against the order of its packs' delta chains (newest objects
# whole, older ones deltas of them): ~15% more work for git than plain ``git log``. So
# ``git rev-list`` gives the order, and ``git diff-tree --stdin`` (which shows each
# commit as soon as it reads its id) gets the ids in runs, each run newest first; Python
# turns each run around. The first runs are short, so the audit starts at once.
_RUN = 2048
_FIRST_RUN = 128


def _runs(order: list[str]) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of ``order``."""
    start, size = 0, _FIRST_RUN
    while start < len(order):
        yield start, min(start + size, len(order))
        start += size
        size = min(size * 2, _RUN)


def _parents_first(
    repo: Repo,
    revs: Sequence[str],
    walk: subprocess.Popen[bytes],
    order_file: IO[bytes],
    show: list[str],
    err: IO[bytes],
    blobs: bool,
) -> Generator[Commit, None, None]:
    """The commits ``walk`` (``git rev-list``, writing to ``order_file``) lists, each shown
    by ``git diff-tree`` with ``show``, in the walk's order."""
    code = walk.wait()
    if code != 0:
        raise _log_error(repo, code, _read_err(err), revs)
    order_file.seek(0)
    order = order_file.read().decode("ascii").split()
    if not order:
        return
    with tempfile.TemporaryFile() as ids:
        ids.write("".join(["\n".join(order[a:b][::-1]) + "\n" for a, b in _runs(order)]).encode())
        ids.seek(0)
        proc = _spawn(repo, show, err, stdin=ids)
        commits = _read(repo, revs, proc, err, True, blobs)
        try:
            for a, b in _runs(order):
                run = list(itertools.islice(commits, b - a))
                run.reverse()
                if [c.sha for c in run] != order[a:b]:
                    raise GitError("could not read git diff-tree output (commits out of order)")
                yield from run
            if next(commits, None) is not None:
                raise GitError("could not read git diff-tree output (more commits than asked)")
        finally:
            commits.close()


def _spawn(
    repo: Repo,
    args: list[str],
    err: IO[bytes],
    out: IO[bytes] | None = None,
    stdin: IO[bytes] | None = None,
) -> subprocess.Popen[bytes]:
    """git with ``args``; its output in a pipe we read, or in the file ``out``."""
    proc = subprocess.Popen(
        ["git", *args],
        cwd=repo.root,
        # Into a pipe git writes each commit with its own write(2) unless GIT_FLUSH=0:
        # 100k system calls and reader wake-ups at 100k commits (~0.3 s of CPU).
        env=clean_env(_NO_FLUSH),
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        stdout=subprocess.PIPE if out is None else out,
        stderr=err,  # a file, not a pipe: git's warnings can never block it
    )
    if proc.stdout is not None:
        _grow_pipe(proc.stdout)
    return proc


def _read(
    repo: Repo,
    revs: Sequence[str],
    proc: subprocess.Popen[bytes],
    err: IO[bytes],
    with_files: bool,
    blobs: bool,
) -> Generator[Commit, None, None]:
    try:
        assert proc.stdout is not None
        yield from _parse_stream(proc.stdout, with_files, blobs)
        code = proc.wait()
    finally:
        _stop(proc)
    if code != 0:
        raise _log_error(repo, code, _read_err(err), revs)


def _grow_pipe(stream: IO[bytes]) -> None:
    """Ask Linux for a bigger pipe: fewer, larger reads while git runs ahead of us."""
    with contextlib.suppress(Exception):
        import fcntl

        setsz = getattr(fcntl, "F_SETPIPE_SZ", None)
        if setsz is not None:
            fcntl.fcntl(stream.fileno(), setsz, _PIPE_SIZE)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill and reap git if the consumer stopped early; always close our end."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    if proc.stdout is not None:
        proc.stdout.close()
    proc.wait()


def _read_err(err: IO[bytes]) -> str:
    err.seek(0)
    return err.read(64 * 1024).decode("utf-8", "replace")


def _log_error(repo: Repo, code: int, stderr: str, revs: Sequence[str]) -> GitError:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else f"exit code {code}"
    # With --end-of-options git reports an unborn HEAD as a bad revision: ask directly.
    if "does not have any commits yet" in stderr or repo.head() is None:
        return GitError("the repository has no commits yet", "make a first commit, then run again")
    if "bad revision" in stderr or "unknown revision" in stderr or "bad object" in stderr:
        shown = " ".join(revs)
        return GitError(
            f"bad revision or range: {shown} ({last.removeprefix('fatal: ')})",
            "check the names with `git rev-parse --verify REV`; a range looks like main..HEAD",
        )
    return GitError(f"git failed reading the history: {last.removeprefix('fatal: ')}")


def _parse_stream(stream: IO[bytes], with_files: bool, blobs: bool = False) -> Iterator[Commit]:
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
        if len(data) < _SMALL_READ:
            # git writes a few hundred bytes at a time: reading each piece as it comes
            # costs a wake-up per commit (0.8 s of CPU at 100k commits). A short nap when
            # we are ahead of git lets the pipe fill, so each read gets much more.
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


def shallow_boundary(repo: Repo) -> tuple[str, ...]:
    """The commits a shallow clone cut the history at (git shows them without parents,
    though they have some), in the order of ``.git/shallow``."""
    shallow = repo.common_dir / "shallow"
    if not shallow.exists():
        return ()
    return tuple(ln.strip() for ln in shallow.read_text(errors="replace").splitlines() if ln)


def touching(
    repo: Repo,
    revs: Sequence[str],
    paths: Sequence[str],
    *,
    since: str | None = None,
    until: str | None = None,
    author: str | None = None,
) -> frozenset[str]:
    """The ids of the commits ``git log REVS -- PATHS`` shows (git's history
    simplification included)."""
    args = ["rev-list", *_range_args(revs, since, until, author, paths)]
    proc = repo.run(*args, env=clean_env(), check=False)
    if proc.returncode != 0:
        raise _log_error(repo, proc.returncode, proc.stderr.decode("utf-8", "replace"), revs)
    return frozenset(proc.stdout.decode("ascii").split())


def history_notes(repo: Repo) -> list[str]:
    """Facts about the repository that limit what its history can show (for reports)."""
    notes: list[str] = []
    cut = shallow_boundary(repo)
    if cut:
        shown = ", ".join(c[:12] for c in cut[:3]) + (", ..." if len(cut) > 3 else "")
        notes.append(
            f"shallow clone: history before {shown} is cut "
            "(run `git fetch --unshallow` for the full history)"
        )
    if (repo.common_dir / "info" / "grafts").exists():
        notes.append("grafts file present: git shows a rewritten ancestry (info/grafts)")
    proc = repo.run(
        "for-each-ref", "--count=1", "--format=%(refname)", "refs/replace/", check=False
    )
    if proc.returncode == 0 and proc.stdout.strip():
        notes.append("replace refs present: some commits are shown as their replacements")
    return notes
