"""A test command whose output goes to files, read back capped: the ``go`` and ``rust``
runners. Files, not pipes: their event streams can be long, and ``run_command`` keeps only
a pipe's tail. An event stream is untrusted input, so at most ``MAX_OUTPUT`` bytes of each
are read."""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from tddgit.early import capture_dir, capture_line, claim, release
from tddgit.errors import RunnerError
from tddgit.model import RunResult, TestResult
from tddgit.runners import RunRequest
from tddgit.runners.process import ProcResult, active_jail, run_command

MAX_OUTPUT = 64 * 1024 * 1024


class Captured:
    """A finished command and what it wrote. A plain class: a dataclass is code generated
    and compiled at import, CPU a gate spends beside its test command (issue 29)."""

    __slots__ = ("proc", "stderr", "stdout")

    def __init__(self, proc: ProcResult, stdout: str, stderr: str) -> None:
        self.proc = proc
        self.stdout = stdout
        self.stderr = stderr  # empty when stderr went to stdout (``merge``)


def run_captured(
    runner: str,
    argv: Sequence[str],
    cwd: Path,
    request: RunRequest,
    env: Mapping[str, str] | None,
    *,
    merge: bool,
    install: str,
) -> Captured:
    """Run ``argv`` in ``cwd`` (``merge``: stderr into stdout, in order), or wait for the
    gate's early start of exactly this run (``tddgit.early``); a command that is not
    installed is a RunnerError whose fix is ``install``."""
    early = claim(argv, cwd, env, merge=merge) if active_jail() is None else None  # never unjailed
    workdir = early.workdir if early is not None else capture_dir(runner)
    try:
        proc = run_command(
            capture_line(argv, workdir, merge=merge),
            cwd,
            timeout=request.timeout,
            env=env,
            on_start=request.on_start,
            started=early.group if early is not None else None,
        )
        stdout = _read(workdir / "stdout.txt")
        stderr = "" if merge else _read(workdir / "stderr.txt")
    finally:
        if early is not None:
            release(early)  # its files; its directory unless that is the scratch
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if proc.exit_code == 127 and not proc.timed_out:
        raise RunnerError(f"the {runner} runner could not start `{argv[0]}` (not found)", install)
    return Captured(proc, stdout, stderr)


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_OUTPUT).decode("utf-8", "replace")
    except OSError:
        return ""


def run_result(
    runner: str,
    argv: Sequence[str],
    captured: Captured,
    tests: Sequence[TestResult],
    notes: Sequence[str],
    timeout: float,
    *,
    silent_failure: str | None,
) -> RunResult:
    """The run's result; ``silent_failure``: the note for a failure that reported no test
    (not added after a timeout, which has its own)."""
    proc = captured.proc
    label = shlex.join(argv[:2])
    extra = [f"{label} timed out after {timeout:g}s; its process group was killed"]
    if not proc.timed_out:
        extra = [silent_failure] if silent_failure else []
    return RunResult(
        runner=runner,
        command=(shlex.join(argv),),
        exit_code=proc.exit_code,
        tests=tuple(tests),
        duration=proc.duration,
        timed_out=proc.timed_out,
        output_tail=(captured.stderr + captured.stdout)[-8192:],
        notes=(*notes, *extra),
    )
