"""The ``command`` runner: any test command, judged only by its exit code (PRODUCT.md §4).

It cannot tell which test failed or why, so its result is one pseudo-test named after the
command, marked ``coarse``, and its verdicts say so. A failure is never red here: without
structured outcomes there is no telling an assertion from a broken build (cause ``other``).
"""

from __future__ import annotations

from tddgit.config import Config
from tddgit.errors import ConfigError, RunnerError
from tddgit.model import Cause, Outcome, RunResult, TestResult
from tddgit.runners import RunRequest
from tddgit.runners.detect import default_command
from tddgit.runners.process import run_command

COARSE_NOTE = (
    "runner `command` knows only the exit code: the verdict covers the whole command, "
    "not single tests (use `junit` or `pytest` for per-test outcomes)"
)


class CommandRunner:
    """Runs ``test_command``; exit 0 is a pass, anything else a failure."""

    name = "command"
    selects_tests = False

    def __init__(self, config: Config) -> None:
        self.config = config

    def command(self, request: RunRequest) -> str:
        command = self.config.test_command or default_command(request.root, self.name)
        if command is None:
            raise ConfigError(
                "runner `command` needs a test command and none can be guessed for this repo",
                "set `test_command` in the configuration (see docs/runners.md)",
            )
        return command

    def run(self, request: RunRequest) -> RunResult:
        request = request.in_project()
        command = self.command(request)
        proc = run_command(
            command,
            request.root,
            timeout=request.timeout,
            env=request.env,
            on_start=request.on_start,
        )
        if proc.exit_code in (126, 127) and not proc.timed_out:
            # The shell's own codes for "not executable" / "not found": nothing ran.
            raise RunnerError(
                f"the test command could not run (the shell exited {proc.exit_code}): {command}",
                "install the tool it calls or fix `test_command`",
            )
        test = _verdict(command, proc.exit_code, proc.timed_out, request.timeout)
        notes = [COARSE_NOTE]
        if proc.timed_out:
            notes.append(
                f"the test command timed out after {request.timeout:g}s; "
                "its process group was killed"
            )
        return RunResult(
            runner=self.name,
            command=(command,),
            exit_code=proc.exit_code,
            tests=(test,),
            duration=proc.duration,
            coarse=True,
            timed_out=proc.timed_out,
            output_tail=proc.output_tail,
            notes=tuple(notes),
        )


def _verdict(command: str, exit_code: int, timed_out: bool, timeout: float) -> TestResult:
    if timed_out:
        return TestResult(
            id=command,
            outcome=Outcome.ERROR,
            cause=Cause.TIMEOUT,
            message=f"timed out after {timeout:g}s (coarse verdict: the whole command)",
        )
    if exit_code == 0:
        return TestResult(id=command, outcome=Outcome.PASSED, message="exit code 0")
    return TestResult(
        id=command,
        outcome=Outcome.FAILED,
        cause=Cause.OTHER,
        message=f"exit code {exit_code} (coarse verdict: exit code only, cause unknown)",
    )
