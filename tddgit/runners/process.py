"""Run a test command in its own process group, with a timeout that kills the whole group.

Output is drained by a thread that keeps only the tail, so a suite that prints gigabytes
costs bounded memory. Whatever happens (timeout, Ctrl-C, SIGTERM to tddgit), no process
of the group is left behind; even a SIGKILL of tddgit leaves none (the watchdog of
``tddgit.procgroup``, which starts the group).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tddgit import faults
from tddgit.errors import RunnerError
from tddgit.procgroup import Child, Group, spawn, stop_watchdog

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from tddgit.jail import Jail

TAIL_BYTES = 64 * 1024
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_GRACE = 1.0  # seconds to wait for the rest of the output once the group is dead


class ProcResult:
    """How a test command ended: its exit code, the tail of its output, its time. A plain
    class: a dataclass is code generated and compiled at import, CPU a gate spends
    beside its test command (issue 29)."""

    __slots__ = ("duration", "exit_code", "output_tail", "timed_out")

    def __init__(
        self, *, exit_code: int, output_tail: str, timed_out: bool, duration: float
    ) -> None:
        self.exit_code = exit_code
        self.output_tail = output_tail
        self.timed_out = timed_out
        self.duration = duration

    def __repr__(self) -> str:
        return (
            f"ProcResult(exit_code={self.exit_code!r}, output_tail={self.output_tail!r}, "
            f"timed_out={self.timed_out!r}, duration={self.duration!r})"
        )


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _drain(stream: object, tail: bytearray, lock: threading.Lock) -> None:
    read = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
    while True:
        chunk = read(65536)
        if not chunk:
            break
        with lock:
            tail.extend(chunk)
            if len(tail) > 2 * TAIL_BYTES:
                del tail[: len(tail) - TAIL_BYTES]


def _start_error(argv: Sequence[str] | str, cwd: Path, exc: OSError) -> RunnerError:
    """Why the command could not start: a missing directory is not a missing command."""
    if exc.filename is not None and os.fspath(exc.filename) == os.fspath(cwd):
        return RunnerError(
            f"cannot start the test command: directory {cwd} is missing or not a directory"
        )
    name = argv if isinstance(argv, str) else argv[0]
    if isinstance(exc, FileNotFoundError):
        return RunnerError(
            f"cannot start the test command: {name!s} not found",
            "install it or set `python` / `test_command` in the configuration",
        )
    return RunnerError(f"cannot start the test command {name!s}: {exc.strerror or exc}")


def _wait_exited(proc: subprocess.Popen[bytes] | Child) -> None:
    """Block until the leader exits, without reaping it: while its zombie exists its pgid
    cannot be reused, so killing the group afterwards is always safe."""
    if hasattr(os, "waitid"):
        try:
            os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
            return
        except ChildProcessError:
            return  # already reaped
    proc.wait()


def active_jail() -> Jail | None:
    """The jail the test command must run in, if any. A jail is active only inside
    ``tddgit.jail.jailed``, so only once that module is loaded: a gate outside one does not
    load it (and its imports) before its tests start."""
    jails = sys.modules.get("tddgit.jail")
    return jails.active() if jails is not None else None


def run_command(
    argv: Sequence[str] | str,
    cwd: Path,
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
    started: Group | None = None,
) -> ProcResult:
    """Run ``argv`` (a shell string runs through ``/bin/sh -c``) under a timeout.

    ``on_start`` receives the process group id as soon as the command runs, so another
    thread can cancel the run (``os.killpg(pgid, SIGKILL)``); the result is then that of a
    killed command. ``started``: the command, already running (the gate's early start,
    ``tddgit.early``); its timeout and duration count from its spawn."""
    if started is None:
        from tddgit import early

        early.discard()  # an early start nobody claimed must not compete with this run
        faults.point("run.before")
        jail = active_jail()
        if jail is not None:  # code a model wrote: run it in the jail (tddgit.jail)
            from tddgit.jail import wrap

            argv, env = wrap(jail, argv, cwd, env)
        try:
            started = spawn(argv, cwd, env)
        except OSError as exc:
            raise _start_error(argv, cwd, exc) from exc
    proc, watchdog, start = started.proc, started.watchdog, started.started
    pgid = proc.pid
    tail = bytearray()
    lock = threading.Lock()
    reader = None  # a Child's output goes to files (``procgroup.spawn_files``): no pipe
    if proc.stdout is not None:
        reader = threading.Thread(target=_drain, args=(proc.stdout, tail, lock), daemon=True)
        reader.start()
    exited = threading.Event()
    timed_out = threading.Event()
    # Whoever takes it first ends the run: the timeout, or the leader's exit. The
    # timeout's signals are sent only once it holds it; the exit that holds it knows no
    # signal can come after the leader is reaped, and does not wait for the timer.
    ending = threading.Lock()

    def on_timeout() -> None:
        if not ending.acquire(blocking=False):
            return  # the leader exited first
        timed_out.set()
        _kill_group(pgid, signal.SIGTERM)
        if not exited.wait(TERM_GRACE):
            _kill_group(pgid, signal.SIGKILL)

    # A timer enforces the timeout so the wait below can block: Popen.wait(timeout=...)
    # polls with sleeps of up to 50 ms, which made every run notice its end that late.
    timer = threading.Timer(max(0.0, timeout - (time.monotonic() - start)), on_timeout)
    timer.daemon = True
    timer.start()
    try:
        if on_start is not None:
            on_start(pgid)
        faults.point("run.started")
        _wait_exited(proc)
    finally:
        exited.set()
        timer.cancel()
        if not ending.acquire(blocking=False):
            # A timeout in progress finishes signalling before we reap. Otherwise the
            # timer ends on its own: joining it cost a thread switch (~0.4 ms) between
            # the test command's exit and the verdict (issue 29).
            timer.join()
        # Always: leftovers of the group (forked children, a leader that ignored SIGTERM,
        # or an interrupted tddgit) are killed before we return or propagate.
        _kill_group(pgid, signal.SIGKILL)
        # Before the leader is reaped, so its pgid cannot have been reused when the
        # watchdog signals it.
        stop_watchdog(watchdog)
        if proc.poll() is None:
            proc.wait()
        # Once the group is dead only a process that left it (setsid) can hold the pipe:
        # stop waiting for output then. Closing the stream under the still-blocked reader
        # would hang on its buffer lock, so the daemon reader keeps it until EOF.
        if reader is not None:
            reader.join(timeout=DRAIN_GRACE)
            if proc.stdout is not None and not reader.is_alive():
                proc.stdout.close()
    with lock:
        data = bytes(tail[-TAIL_BYTES:])
    return ProcResult(
        exit_code=proc.wait(),  # reaped above: its status, at once
        output_tail=data.decode("utf-8", "replace"),
        timed_out=timed_out.is_set(),
        duration=time.monotonic() - start,
    )
