"""What a gate will run, and why: the runner, its exact command, and where each came from
(``tddgit config``). Asks the same functions the runners use, so it cannot drift."""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tddgit.errors import TddgitError

if TYPE_CHECKING:
    from tddgit.config import Config


@dataclass(frozen=True)
class GatePlan:
    runner: str
    runner_source: str
    command: str | None  # None: no command can be run (command_source says what to set)
    command_source: str

    def to_json(self) -> dict[str, str | None]:
        return asdict(self)


def gate_plan(config: Config, root: Path) -> GatePlan:
    from tddgit.runners.detect import command_default, detection

    runner, why = config.runner, f"runner in {config.sources['runner']}"
    if runner == "auto":
        runner, found = detection(root)
        why = f"detected: {found}"
    if runner == "pytest":
        return GatePlan(runner, why, *_pytest_command(config, root))
    if config.test_command and runner not in ("go", "rust"):  # those build their own
        command, source = config.test_command, f"test_command in {config.sources['test_command']}"
        return GatePlan(runner, why, command, source)
    guessed = command_default(root, runner)
    if guessed is None:
        return GatePlan(
            runner,
            why,
            None,
            f"none: runner `{runner}` cannot guess one here; set `test_command` "
            "(see docs/runners.md)",
        )
    return GatePlan(runner, why, guessed[0], f"the {runner} runner's default for {guessed[1]}")


def _pytest_command(config: Config, root: Path) -> tuple[str | None, str]:
    from tddgit.pytestcmd import pytest_argv
    from tddgit.runners.pytest import find_python

    try:
        python, why = find_python(config, root)
    except TddgitError as exc:
        return None, exc.one_line()
    if config.python != "auto":
        why = f"python in {config.sources['python']}"
    shown = shlex.join(pytest_argv(python)) + " -o cache_dir=<temporary> <the gate's test files>"
    return shown, f"python: {why}"
