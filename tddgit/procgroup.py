"""A test command in its own process group, watched: the start that ``run_command``
(``tddgit.runners.process``) and the gate's early start (``tddgit.early``) share.

Light on purpose (the standard library only): the early start spawns the test command
before the gate's own modules are imported.

Even a SIGKILL of tddgit, which runs no ``finally``, leaves no process of the group
behind: a tiny watchdog (``/bin/sh``) holds the read end of a pipe only tddgit writes to;
when tddgit dies the kernel closes it, and the watchdog kills the group.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported this early (mypy reads the block)
if TYPE_CHECKING:
    from pathlib import Path

# `read` returns at EOF, i.e. when tddgit closed the pipe or died: then kill the group.
# (dash's kill takes no `--`; `-KILL -PGID` works in dash and bash alike.)
_WATCHDOG = 'read _ignored; kill -KILL "-$1" 2>/dev/null; exit 0'


class Group:
    """A started command (the leader of its own process group) and its watchdog. A plain
    class, not a dataclass: ``dataclasses`` (with ``inspect``) costs the early start
    ~9 ms before its spawn."""

    __slots__ = ("proc", "started", "watchdog")

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        watchdog: subprocess.Popen[bytes] | None,
        started: float,  # time.monotonic() just before the spawn: the duration counts from it
    ) -> None:
        self.proc = proc
        self.watchdog = watchdog
        self.started = started


def spawn(argv: Sequence[str] | str, cwd: Path, env: Mapping[str, str] | None) -> Group:
    """Start ``argv`` (a shell string runs through ``/bin/sh -c``): stdin closed, stdout and
    stderr into one pipe, its own session. OSError when it cannot start."""
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        shell=isinstance(argv, str),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: we can kill all of it
    )
    return Group(proc, start_watchdog(proc.pid), started)


def start_watchdog(pgid: int) -> subprocess.Popen[bytes] | None:
    """A process that kills group ``pgid`` as soon as this process dies (even by SIGKILL).

    Its own session, so killing the test group never kills it first; its stdin is a pipe
    whose write end (non-inheritable) only we hold."""
    try:
        return subprocess.Popen(
            ["/bin/sh", "-c", _WATCHDOG, "tddgit-watchdog", str(pgid)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return None  # no /bin/sh: the in-process cleanup still covers all but SIGKILL


def stop_watchdog(watchdog: subprocess.Popen[bytes] | None) -> None:
    if watchdog is None:
        return
    if watchdog.stdin is not None:
        try:
            watchdog.stdin.close()  # EOF: it kills the (already dead) group and exits
        except OSError:
            pass
    try:
        watchdog.wait(timeout=5)
    except subprocess.TimeoutExpired:
        watchdog.kill()
        watchdog.wait()
