"""The gate's early start: its test command spawned before the gate's own work.

The red gate's target (PRODUCT.md §11) is <= 1.3x the plain test command, and a Rust red
that does not compile yet fails ``cargo test`` in a tenth of a second: less than the
gate's own start (its modules, reading the index, the plan). So for a project whose run
is predictable from a few files (``tddgit.early.rust``; ``tddgit.early.go``, whose red
also asks git for the staged test files), the phase command spawns the runner's exact
command line first, and the gate's work happens while it runs.

It is a guess, never a shortcut: the runner ``claim``s the early run only when the
command line, directory and environment it would spawn are exactly the early run's (the
gate ran in place, on the staged tree, with the runner the configuration picks);
otherwise the early run is killed (``discard``) before anything else is spawned, and
the gate runs as it always did. A gate that refuses before its run discards it too. The
early run is a process group with a watchdog like any test run (``tddgit.procgroup``):
nothing outlives tddgit.

Light on purpose: ``os`` and ``tddgit.procgroup`` at import, and a Rust crate's run
starts before anything else (``start_files``: ``os.posix_spawn``, no ``subprocess``,
``pathlib``, ``re`` or ``threading``; each import before the spawn delays the test
command). An early run that is not claimed leaves the work tree as it found it: the Rust
guess needs ``Cargo.lock`` and ``target/`` already there, and a ``Cargo.lock`` the early
cargo rewrote gets its bytes back (``Early.keep``).
"""

from __future__ import annotations

import _thread
import os

from tddgit.procgroup import Group, spawn, spawn_files, stop_watchdog

TYPE_CHECKING = False  # `typing` itself is not imported before the spawn

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    Key = tuple[tuple[str, ...], str, tuple[tuple[str, str], ...], bool]


class Early:
    """A started run whose output goes to files in ``workdir`` (``capture_line``), or to
    its group's pipe (``start_plain``). A plain class: no ``dataclasses`` before the
    spawn (see ``procgroup.Group``)."""

    __slots__ = ("group", "keep", "key", "runner", "scratch", "workdir")

    def __init__(
        self,
        key: Key,
        workdir: Path,
        group: Group,
        runner: str = "",
        keep: tuple[str, bytes] | None = None,
        scratch: bool = False,
    ) -> None:
        self.key = key
        self.workdir = workdir
        self.group = group
        self.runner = runner
        self.keep = keep  # (file, bytes) to put back if the run, not claimed, changed them
        # ``workdir`` is the process's scratch directory to be (``take_scratch``), not a
        # directory of the run's own: its files go with the run, the directory with the
        # scratch (one directory less to remove after the test command, where each
        # ``rmdir`` may wait on the file system's journal: 0.2-4 ms on ext4)
        self.scratch = scratch


_lock = _thread.allocate_lock()  # threading's Lock, without importing threading
_pending: Early | None = None
_scratch: str | None = None  # made by ``start_files`` for this process, not taken yet


def capture_line(argv: Sequence[str], workdir: Path, *, merge: bool) -> str:
    """The shell line running ``argv`` with its stdout in ``workdir/stdout.txt`` and its
    stderr there too (``merge``, in order) or in ``workdir/stderr.txt``."""
    import shlex

    out, err = workdir / "stdout.txt", workdir / "stderr.txt"
    errors = "2>&1" if merge else f"2>{shlex.quote(str(err))}"
    return f"{shlex.join(argv)} >{shlex.quote(str(out))} {errors}"


def capture_dir(runner: str) -> Path:
    """A new private directory ``tddgit-RUNNER-*`` in the temporary directory."""
    from pathlib import Path

    return Path(_capture_dir(runner))


def _capture_dir(runner: str) -> str:
    import sys

    if "tempfile" not in sys.modules:  # the early start: not worth tempfile's import first
        path = _new_dir(runner)
        if path is not None:
            return path
    import tempfile

    return tempfile.mkdtemp(prefix=f"tddgit-{runner}-")


def _new_dir(infix: str) -> str | None:
    """A new private directory ``tddgit-INFIX-*`` in the environment's temporary directory,
    without ``tempfile``; None when it cannot be made there (tempfile's rules, its
    fallbacks and retries, then decide)."""
    for name in ("TMPDIR", "TEMP", "TMP"):
        base = os.environ.get(name)
        if base:
            break
    else:
        base = "/tmp"
    path = os.path.join(os.path.abspath(base), f"tddgit-{infix}-{os.urandom(6).hex()}")
    try:
        os.mkdir(path, 0o700)  # fails if it exists: never someone else's directory
        return path
    except OSError:
        return None


def take_scratch(base: str) -> str | None:
    """The scratch directory (``tddgit-<pid>-*``) the early start made in ``base`` for this
    process, now the caller's to remove (``tddgit.snapshot.use_scratch_dir``); None when
    there is none (one made elsewhere stays its run's own directory)."""
    global _scratch
    with _lock:
        found, _scratch = _scratch, None
        if found is None or os.path.dirname(found) == base:
            return found
        if _pending is not None and str(_pending.workdir) == found:
            _pending.scratch = False  # its run's own directory after all: removed with it
            return None
    _remove(found)  # its run is over
    return None


def _key(argv: Sequence[str], cwd: Path | str, env: Mapping[str, str] | None, merge: bool) -> Key:
    environ = os.environ if env is None else env  # None: the child inherits ours
    return (tuple(argv), os.path.realpath(cwd), tuple(sorted(environ.items())), merge)


def start(
    runner: str, argv: Sequence[str], cwd: Path, env: Mapping[str, str], *, merge: bool = True
) -> None:
    """Spawn ``argv`` in ``cwd`` as ``run_captured`` would (``merge``: stderr into stdout),
    to be claimed."""
    global _pending
    discard()
    workdir = capture_dir(runner)
    try:
        group = spawn(capture_line(argv, workdir, merge=merge), cwd, env)
    except OSError:
        _remove(workdir)
        return  # the runner's own start will say why
    with _lock:
        _pending = Early(_key(argv, cwd, env, merge), workdir, group)


def start_files(
    runner: str,
    argv: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    keep: tuple[str, bytes] | None = None,
    *,
    merge: bool = True,
) -> None:
    """``start`` without ``subprocess`` or a shell (``procgroup.spawn_files``), for the
    first thing a gate does: only while this process has one thread. ``keep``: a file
    and its bytes to put back if the run is not claimed."""
    global _pending, _scratch
    discard()
    # The files go in the process's scratch directory to be (``take_scratch``), when
    # nothing made one yet: it is made here, not after the test command's exit.
    scratch = _new_dir(str(os.getpid())) if _scratch is None else None
    workdir = scratch or _capture_dir(runner)
    out, err = os.path.join(workdir, "stdout.txt"), os.path.join(workdir, "stderr.txt")
    try:
        group = spawn_files(argv, cwd, env, out, None if merge else err)
    except OSError:
        _remove(workdir)
        return  # the runner's own start will say why
    from pathlib import Path  # the test command runs: now the imports

    early = Early(
        _key(argv, cwd, env, merge), Path(workdir), group, keep=keep, scratch=scratch is not None
    )
    with _lock:
        _pending = early
        if scratch is not None:
            _scratch = scratch


def start_plain(
    runner: str, argv: Sequence[str], cwd: Path, env: Mapping[str, str], workdir: Path
) -> None:
    """Spawn ``argv`` in ``cwd`` as ``run_command`` would (its output in the group's pipe),
    to be claimed with ``merge=True``; ``workdir`` (its files) is removed with it."""
    global _pending
    discard()
    try:
        group = spawn(argv, cwd, env)
    except OSError:
        _remove(workdir)
        return  # the runner's own start will say why
    with _lock:
        _pending = Early(_key(argv, cwd, env, True), workdir, group, runner)


def pending(runner: str) -> Path | None:
    """The files directory of ``runner``'s early run (its command line names files there:
    the runner builds its own in it to compare), or None when there is none."""
    with _lock:
        found = _pending
    return found.workdir if found is not None and found.runner == runner else None


def claim(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None, *, merge: bool
) -> Early | None:
    """The early run if it is exactly this one (the caller then owns it); else None, the
    early run (if any) killed and removed."""
    global _pending
    with _lock:
        found, _pending = _pending, None
    if found is None:
        return None
    if found.key == _key(argv, cwd, env, merge):
        return found
    _end(found)
    return None


def waiting() -> bool:
    """Whether an early run is started and not yet claimed or discarded."""
    return _pending is not None


def discard() -> None:
    """Kill and remove the early run nobody claimed (a no-op when there is none)."""
    global _pending
    with _lock:
        found, _pending = _pending, None
    if found is not None:
        _end(found)


def _end(early: Early) -> None:
    import signal

    proc = early.group.proc
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its zombie keeps the pgid ours until reaped
    except (ProcessLookupError, PermissionError):
        pass
    stop_watchdog(early.group.watchdog)
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
    if early.keep is not None:
        _put_back(*early.keep)
    release(early)


def release(early: Early) -> None:
    """Remove the files of an early run that is over: its directory, or its files alone
    when that directory is the process's scratch (removed with it), or is to be (when
    nobody took it, it goes now)."""
    global _scratch
    if not early.scratch:
        _remove(early.workdir)
        return
    with _lock:
        untaken = _scratch == str(early.workdir)
        if untaken:
            _scratch = None
    if untaken:
        _remove(early.workdir)
        return
    for name in ("stdout.txt", "stderr.txt"):
        try:
            os.unlink(os.path.join(early.workdir, name))
        except OSError:
            pass  # not written (stderr merged), or gone with the scratch already


def _put_back(path: str, data: bytes) -> None:
    """``path`` with ``data`` again, if the early run (dead now) changed it."""
    try:
        with open(path, "rb") as fh:
            if fh.read() == data:
                return
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError:
        pass  # gone or unreadable: nothing of the user's to restore there


def _remove(workdir: Path | str) -> None:
    import shutil

    shutil.rmtree(workdir, ignore_errors=True)


def begin(cwd: str, phase: str = "") -> None:
    """Start ``phase``'s test command early where it is predictable (a Rust crate's
    ``cargo test``, a Go module's ``go test -json``, a Python project's whole suite under
    pytest); nothing otherwise. Never fails: a wrong guess costs only the early run. The
    first thing a gate does (one thread)."""
    if os.environ.get("TDDGIT_FAULT") or os.environ.get("TDDGIT_NO_EARLY"):
        return  # fault injection names the points of the usual start
    try:
        from tddgit.early.rust import guess

        found = guess(cwd)
        if found is not None:
            start_files("rust", *found)
            return
        from pathlib import Path

        from tddgit.early.go import guess as go_guess

        found_go = go_guess(Path(cwd), phase)
        if found_go is not None:
            start("go", *found_go, merge=False)  # the go runner reads stderr apart
            return
        from tddgit.early.pytest import guess as guess_pytest

        plain = guess_pytest(Path(cwd), phase)
        if plain is not None:
            start_plain("pytest", *plain)
    except (OSError, ValueError):
        discard()
