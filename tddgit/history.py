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

This module runs git and hands its output to ``tddgit.logparse``, which turns the bytes
into commits.
"""

from __future__ import annotations

import contextlib
import itertools
import subprocess
import tempfile
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import IO

from tddgit.earlywalk import claim
from tddgit.errors import GitError, UsageError
from tddgit.git import Repo, clean_env
from tddgit.gitstream import log_error, read, read_err, spawn, stop
from tddgit.logparse import FORMAT
from tddgit.model import Commit

# Revision "names" that are really git options; they select refs, so they are allowed.
_REF_SELECTORS = frozenset({"--all", "--branches", "--tags", "--remotes"})


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
        f"--format={FORMAT}",
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
    idle: Callable[[], bool] | None = None,
    walk_env: Mapping[str, str] | None = None,
) -> Generator[Iterator[Commit], None, None]:
    """``read_history`` with git started on entry, not on the first read: whatever the
    caller prepares before reading overlaps with git's walk (which, for ``reverse``, ends
    before the first commit comes out: it is ``git rev-list``'s). Leaving the block stops
    git. ``idle`` is called instead of waiting when the reader is ahead of git (between
    two commits the caller has consumed); it returns whether it did some work.
    ``walk_env``: more environment for the git that walks the history in order (the
    audit's commit-graph, ``tddgit.commitgraph``)."""
    default = not (since or until or author or paths or find_copies) and revs == ("HEAD",)
    walked = claim(repo, walk_env or {}, blobs) if default and reverse and with_files else None
    with contextlib.ExitStack() as stack:
        reader: Generator[Commit, None, None]
        if reverse and with_files and not paths:  # a claimed early walk is one of these
            if walked is None:
                walked = _walk(repo, revs, since, until, author, find_copies, blobs, walk_env)
            stack.enter_context(walked.stack)
            err, proc = walked.err, walked.proc
            reader = _parents_first(repo, revs, walked.shown, err, blobs, idle)
        else:
            err = stack.enter_context(tempfile.TemporaryFile())
            args = _log_args(
                revs, since, until, author, paths, with_files, find_copies, reverse, blobs
            )
            proc = spawn(repo, args, err)
            reader = read(repo, revs, proc, err, with_files, blobs, idle)
        try:
            yield reader
        finally:
            reader.close()
            stop(proc)  # also when the reader never started


class _Walk:
    """The git processes of a parents-first read (``git rev-list``, then ``git diff-tree``
    started by ``_Show``), with their files; ``stack`` stops and removes them all."""

    def __init__(
        self,
        stack: contextlib.ExitStack,
        err: IO[bytes],
        proc: subprocess.Popen[bytes],
        shown: _Show,
        key: tuple[str, ...] = (),
    ) -> None:
        self.stack, self.err, self.proc, self.shown = stack, err, proc, shown
        self.key = key  # an early walk's (``tddgit.earlywalk``)


def _walk(
    repo: Repo,
    revs: Sequence[str],
    since: str | None,
    until: str | None,
    author: str | None,
    find_copies: bool,
    blobs: bool,
    walk_env: Mapping[str, str] | None,
) -> _Walk:
    with contextlib.ExitStack() as stack:
        err = stack.enter_context(tempfile.TemporaryFile())
        order = stack.enter_context(tempfile.TemporaryFile())
        walk = ["rev-list", "--topo-order", "--reverse"]
        proc = spawn(
            repo, [*walk, *_range_args(revs, since, until, author, ())], err, order, env=walk_env
        )
        ids = stack.enter_context(tempfile.TemporaryFile())
        shown = _Show(repo, proc, order, ids, _show_args(True, find_copies, blobs), err)
        stack.callback(shown.reap)  # after the walk is stopped (the callback below)
        stack.callback(stop, proc)
        return _Walk(stack.pop_all(), err, proc, shown)


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


class _Show:
    """``git diff-tree --stdin`` of the walk's commits, started by a thread as soon as the
    walk (``git rev-list``, writing to ``order_file``) ends, not when the caller first
    reads: what the caller prepares meanwhile (the audit's imports and caches) overlaps
    with git's first output. With a commit-graph (``tddgit.commitgraph``) the walk takes
    milliseconds and the caller's preparations are most of the wait before the first
    commit."""

    def __init__(
        self,
        repo: Repo,
        walk: subprocess.Popen[bytes],
        order_file: IO[bytes],
        ids: IO[bytes],
        show: list[str],
        err: IO[bytes],
    ) -> None:
        self.repo, self.walk, self.order_file, self.ids = repo, walk, order_file, ids
        self.show, self.err = show, err
        self.code = 0
        self.order: list[str] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="tddgit-history", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.code = self.walk.wait()
            if self.code != 0:
                return
            self.order_file.seek(0)
            self.order = self.order_file.read().decode("ascii").split()
            if not self.order:
                return
            runs = ["\n".join(self.order[a:b][::-1]) + "\n" for a, b in _runs(self.order)]
            self.ids.write("".join(runs).encode())
            self.ids.seek(0)
            self.proc = spawn(self.repo, self.show, self.err, stdin=self.ids)
        except BaseException as exc:  # handed to the reader, raised there
            self.error = exc

    def result(self) -> tuple[int, list[str], subprocess.Popen[bytes] | None]:
        """(the walk's exit code, its order, the diff-tree) once started."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.code, self.order, self.proc

    def reap(self) -> None:
        """Reap the diff-tree, whether it was read or not (after the walk is stopped, so
        the thread never starts one that nobody reads)."""
        self.thread.join()
        if self.proc is not None:
            stop(self.proc)


def _parents_first(
    repo: Repo,
    revs: Sequence[str],
    shown: _Show,
    err: IO[bytes],
    blobs: bool,
    idle: Callable[[], bool] | None = None,
) -> Generator[Commit, None, None]:
    """The commits the walk lists, each shown by ``git diff-tree`` (``shown``), in the
    walk's order."""
    code, order, proc = shown.result()
    if code != 0:
        raise log_error(repo, code, read_err(err), revs)
    if proc is None:
        return
    commits = read(repo, revs, proc, err, True, blobs, idle)
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
        raise log_error(repo, proc.returncode, proc.stderr.decode("utf-8", "replace"), revs)
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
