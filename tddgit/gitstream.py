"""The git processes behind ``tddgit.history``: started with their output in a pipe (or a
file), read as commits (``tddgit.logparse``), stopped and reaped however the reader ends,
and their failures worded for the user. One of the audit's compiled modules.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import IO

from tddgit.errors import GitError
from tddgit.git import Repo, clean_env
from tddgit.logparse import parse_stream
from tddgit.model import Commit

_PIPE_SIZE = 1 << 20
_NO_FLUSH = {"GIT_FLUSH": "0"}  # git buffers its output fully (see ``spawn``)


def spawn(
    repo: Repo,
    args: list[str],
    err: IO[bytes],
    out: IO[bytes] | None = None,
    stdin: IO[bytes] | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """git with ``args``; its output in a pipe we read, or in the file ``out``."""
    proc = subprocess.Popen(
        ["git", *args],
        cwd=repo.root,
        # Into a pipe git writes each commit with its own write(2) unless GIT_FLUSH=0:
        # 100k system calls and reader wake-ups at 100k commits (~0.3 s of CPU).
        env=clean_env({**_NO_FLUSH, **env} if env else _NO_FLUSH),
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        stdout=subprocess.PIPE if out is None else out,
        stderr=err,  # a file, not a pipe: git's warnings can never block it
    )
    if proc.stdout is not None:
        _grow_pipe(proc.stdout)
    return proc


def read(
    repo: Repo,
    revs: Sequence[str],
    proc: subprocess.Popen[bytes],
    err: IO[bytes],
    with_files: bool,
    blobs: bool,
    idle: Callable[[], bool] | None = None,
) -> Generator[Commit, None, None]:
    try:
        assert proc.stdout is not None
        yield from parse_stream(proc.stdout, with_files, blobs, idle)
        code = proc.wait()
    finally:
        stop(proc)
    if code != 0:
        raise log_error(repo, code, read_err(err), revs)


def _grow_pipe(stream: IO[bytes]) -> None:
    """Ask Linux for a bigger pipe: fewer, larger reads while git runs ahead of us."""
    with contextlib.suppress(Exception):
        import fcntl

        setsz = getattr(fcntl, "F_SETPIPE_SZ", None)
        if setsz is not None:
            fcntl.fcntl(stream.fileno(), setsz, _PIPE_SIZE)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill and reap git if the consumer stopped early; always close our end."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    if proc.stdout is not None:
        proc.stdout.close()
    proc.wait()


def read_err(err: IO[bytes]) -> str:
    err.seek(0)
    return err.read(64 * 1024).decode("utf-8", "replace")


def log_error(repo: Repo, code: int, stderr: str, revs: Sequence[str]) -> GitError:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else f"exit code {code}"
    # With --end-of-options git reports an unborn HEAD as a bad revision: ask directly.
    if "does not have any commits yet" in stderr or repo.head() is None:
        return GitError("the repository has no commits yet", "make a first commit, then run again")
    if "bad revision" in stderr or "unknown revision" in stderr or "bad object" in stderr:
        shown = " ".join(revs)
        fix = "check the names with `git rev-parse --verify REV`; a range looks like main..HEAD"
        if repo.is_shallow():  # actions/checkout's depth 1: the base is simply not here
            fix = (
                "this is a shallow clone: fetch the base and its history, e.g. `git fetch "
                "--deepen=200 origin main:refs/remotes/origin/main` (or `git fetch "
                "--unshallow`), or run `tddgit ci`, which deepens as far as the range needs"
            )
        return GitError(f"bad revision or range: {shown} ({last.removeprefix('fatal: ')})", fix)
    return GitError(f"git failed reading the history: {last.removeprefix('fatal: ')}")
