"""The command runner: one coarse verdict from the exit code, and it says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tddgit.config import load_config
from tddgit.errors import ConfigError, RunnerError
from tddgit.model import Cause, Light, Outcome
from tddgit.runners import RunRequest, get_runner
from tddgit.runners.command import COARSE_NOTE, CommandRunner


def runner_for(root: Path, **config: object) -> CommandRunner:
    root.mkdir(parents=True, exist_ok=True)
    if config:
        (root / ".tddgit.yaml").write_text(json.dumps({"runner": "command", **config}))
    runner = get_runner(load_config(root), root)
    assert isinstance(runner, CommandRunner)
    return runner


def test_exit_zero_is_one_passing_pseudo_test(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    result = runner_for(root, test_command="echo all good").run(RunRequest(root=root))
    assert result.coarse
    assert result.runner == "command"
    assert result.command == ("echo all good",)
    assert result.exit_code == 0
    assert [(t.id, t.outcome, t.cause) for t in result.tests] == [
        ("echo all good", Outcome.PASSED, None)
    ]
    assert result.tests[0].light is Light.GREEN
    assert result.notes == (COARSE_NOTE,)
    assert "all good" in result.output_tail


def test_a_nonzero_exit_is_a_failure_that_is_never_red(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    result = runner_for(root, test_command="echo FAIL >&2; exit 3").run(RunRequest(root=root))
    (test,) = result.tests
    assert test.outcome is Outcome.FAILED
    assert test.cause is Cause.OTHER
    assert test.light is Light.AMBER  # an exit code cannot say "fails for the right reason"
    assert "exit code 3" in test.message
    assert "coarse" in test.message
    assert result.exit_code == 3
    assert "exit code" in result.notes[0]


def test_a_timeout_is_an_error_with_cause_timeout(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = runner_for(root, test_command="sleep 30")
    result = runner.run(RunRequest(root=root, timeout=0.5))
    (test,) = result.tests
    assert (test.outcome, test.cause) == (Outcome.ERROR, Cause.TIMEOUT)
    assert result.timed_out
    assert any("timed out after 0.5s" in n for n in result.notes)
    assert result.duration < 5


def test_the_default_command_comes_from_the_repo(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "Makefile").write_text("test:\n\t@echo ran make test; exit 4\n")
    runner = get_runner(load_config(root), root)  # detected: a Makefile with `test`
    assert isinstance(runner, CommandRunner)
    result = runner.run(RunRequest(root=root, timeout=30))
    assert result.command == ("make test",)
    assert result.exit_code == 2  # make's own code for a failed recipe
    assert result.tests[0].outcome is Outcome.FAILED
    assert "ran make test" in result.output_tail


def test_a_missing_tool_is_a_runner_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = runner_for(root, test_command="tddgit-no-such-tool ./...")
    with pytest.raises(RunnerError, match="could not run"):
        runner.run(RunRequest(root=root, timeout=30))


def test_nothing_to_run_is_a_config_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".tddgit.yaml").write_text("runner: command\n")
    runner = get_runner(load_config(root), root)
    with pytest.raises(ConfigError, match="test command"):
        runner.run(RunRequest(root=root, timeout=30))


def test_the_environment_is_passed_to_the_command(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = runner_for(root, test_command='test "$TDDGIT_PROBE" = yes')
    assert runner.run(RunRequest(root=root, env={"TDDGIT_PROBE": "yes"})).exit_code == 0
    assert runner.run(RunRequest(root=root, env={"TDDGIT_PROBE": "no"})).exit_code == 1
