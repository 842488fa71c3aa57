"""A test command in its own process group, watched: the start that ``run_command``
(``tddgit.runners.process``) and the gate's early start (``tddgit.early``) share.

Light on purpose (``os`` and ``time`` at import): the early start spawns the test command
before the gate's own modules are imported, and before ``subprocess`` (``spawn_files``,
``os.posix_spawn``: a tenth of the gate's start-up saved before cargo runs).

Even a SIGKILL of tddgit, which runs no ``finally``, leaves no process of the group
behind: a tiny watchdog (``/bin/sh``) holds the read end of a pipe only tddgit writes to;
when tddgit dies the kernel closes it, and the watchdog kills the group.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # `typing` itself is not imported before the spawn

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence
    from pathlib import Path

# `read` returns at EOF, i.e. when tddgit closed the pipe or died: then kill the group.
# (dash's kill takes no `--`; `-KILL -PGID` works in dash and bash alike.)
_WATCHDOG = 'read _ignored; kill -KILL "-$1" 2>/dev/null; exit 0'


class Child:
    """A process started by ``os.posix_spawn`` (``spawn_files``): what ``run_command`` and
    the early start ask of a ``Popen`` (its pid, ``poll``, ``wait``, ``returncode``; no
    ``stdout``: its output goes to files)."""

    __slots__ = ("pid", "returncode")

    stdout = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self._reaped(os.WNOHANG)
        return self.returncode

    def wait(self) -> int:
        while self.returncode is None:
            self._reaped(0)
        return self.returncode

    def _reaped(self, flags: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:
            self.returncode = 0  # reaped elsewhere: its status is lost (as Popen says)
            return
        if pid:
            self.returncode = os.waitstatus_to_exitcode(status)


class Watchdog:
    """``start_watchdog``'s process, started by ``os.posix_spawn``: ``fd`` is the write end
    of its stdin, which only tddgit holds."""

    __slots__ = ("child", "fd")

    def __init__(self, child: Child, fd: int) -> None:
        self.child = child
        self.fd = fd


class Group:
    """A started command (the leader of its own process group) and its watchdog.

    A plain class, not a dataclass: the early start builds one before the gate has
    imported ``dataclasses`` (and ``inspect``, ``ast``... with it), a tenth of its
    start-up before the spawn."""

    __slots__ = ("proc", "started", "watchdog")

    def __init__(
        self,
        proc: subprocess.Popen[bytes] | Child,
        watchdog: Watchdog | None,
        started: float,  # time.monotonic() just before the spawn: the run's duration counts from it
    ) -> None:
        self.proc = proc
        self.watchdog = watchdog
        self.started = started


def spawn(argv: Sequence[str] | str, cwd: Path, env: Mapping[str, str] | None) -> Group:
    """Start ``argv`` (a shell string runs through ``/bin/sh -c``): stdin closed, stdout and
    stderr into one pipe, its own session. OSError when it cannot start."""
    import subprocess

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


def spawn_files(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], out: str, err: str | None
) -> Group:
    """Start ``argv`` (found on PATH) in ``cwd`` as ``spawn`` starts the shell line
    ``ARGV >OUT 2>ERR`` (``err`` None: ``2>&1``), without ``subprocess`` or a shell:
    stdin closed, its own session. OSError when it cannot start.

    Only while this process has one thread: Python's ``posix_spawn`` takes no working
    directory, so this process changes its own for the spawn."""
    created = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out, created, 0o666),  # the shell's mode (umask applies)
        (os.POSIX_SPAWN_DUP2, 1, 2)
        if err is None
        else (os.POSIX_SPAWN_OPEN, 2, err, created, 0o666),
    ]
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(cwd)
        started = time.monotonic()
        pid = os.posix_spawnp(argv[0], list(argv), env, file_actions=actions, setsid=True)
    finally:
        os.fchdir(here)
        os.close(here)
    return Group(Child(pid), start_watchdog(pid), started)


def start_watchdog(pgid: int) -> Watchdog | None:
    """A process that kills group ``pgid`` as soon as this process dies (even by SIGKILL).

    Its own session, so killing the test group never kills it first; its stdin is a pipe
    whose write end (non-inheritable) only we hold. Started without ``subprocess``."""
    reap_stopped()
    read, write = os.pipe()  # both not inheritable: only the dup2 below hands one on
    try:
        pid = os.posix_spawn(
            "/bin/sh",
            ["/bin/sh", "-c", _WATCHDOG, "tddgit-watchdog", str(pgid)],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, read, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, 1, 2),
            ],
            setsid=True,
        )
    except OSError:
        os.close(write)
        return None  # no /bin/sh: the in-process cleanup still covers all but SIGKILL
    finally:
        os.close(read)
    return Watchdog(Child(pid), write)


# Watchdogs killed but not reaped yet: reaped at the next start or stop, not waited for.
_dying: list[Child] = []


def stop_watchdog(watchdog: Watchdog | None) -> None:
    """End the watchdog (the group is dead by now: nothing left for it to kill).

    Killed, not waited for: its death is the kernel's to finish, and waiting for it put
    a scheduler round trip (~0.2 ms) between the test command's exit and the verdict
    (issue 29). A zombie is harmless (its pid is never signalled again); it is reaped at
    the next start or stop of a watchdog, or goes with this process."""
    if watchdog is None:
        return
    import signal

    os.close(watchdog.fd)
    try:
        os.kill(watchdog.child.pid, signal.SIGKILL)  # not yet reaped: still ours
    except ProcessLookupError:
        pass
    _dying.append(watchdog.child)
    reap_stopped()


def reap_stopped() -> None:
    """Reap the stopped watchdogs that have died (none is waited for)."""
    for child in list(_dying):
        if child.poll() is not None:
            try:
                _dying.remove(child)
            except ValueError:
                pass  # another thread reaped it first
