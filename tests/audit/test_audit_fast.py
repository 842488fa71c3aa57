"""``tddgit audit`` of the current branch with a format and an output file only runs
without click (``tddgit.commands.audit_fast``): the same report, exit code and errors
as the click command, and anything else still goes to click."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import TDDGIT, GitRepo
from tests.hookprobe import loaded_modules
from tests.project import stage_red, start_project


@pytest.fixture
def history(repo: GitRepo) -> GitRepo:
    start_project(repo)
    stage_red(repo)
    repo.git("commit", "-q", "-m", "add a test for sub")
    return repo


@pytest.mark.parametrize("args", [["--json"], [], ["--format", "text", "-o", "report.txt"]])
def test_a_plain_audit_loads_no_click(history: GitRepo, args: list[str]) -> None:
    loaded = loaded_modules(history.root, ["audit", *args])
    assert loaded.code == 0, loaded.stderr
    assert "tddgit.audit.engine" in loaded.modules
    assert loaded.under(["click", "tddgit.cli"]) == []


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--json"],
        ["--format", "json"],
        ["--format=text"],
        ["--json", "--format", "json"],
        ["--format", "json", "--output", "out.json"],
        ["-o", "out.txt"],
        ["--output=out.txt", "--format", "text"],
    ],
)
def test_the_fast_path_says_what_the_click_command_says(history: GitRepo, args: list[str]) -> None:
    """``--debug`` before the command goes to click: the two runs must be alike."""
    fast = history.tddgit("audit", *args)
    fast_file = _output(history, args)
    slow = history.tddgit("--debug", "audit", *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (0, slow.stdout, slow.stderr)
    assert slow.returncode == 0
    assert fast_file == _output(history, args)


def _output(repo: GitRepo, args: list[str]) -> str | None:
    """The report file the arguments name (read, then removed), if any."""
    for i, arg in enumerate(args):
        name = args[i + 1] if arg in ("-o", "--output") else arg.partition("=")[2]
        if arg in ("-o", "--output") or arg.startswith("--output="):
            path = repo.root / name
            text = path.read_text(encoding="utf-8")
            path.unlink()
            return text
    return None


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--format", "markdown"], None),  # another format: click, and it works
        (["--format", "text", "--json"], None),  # --json wins, as click has it
        (["--bogus"], "No such option: --bogus"),
        (["-o", "adir"], "is a directory"),
        (["--format", "xml"], "'xml' is not one of"),
        (["HEAD~1..HEAD"], None),
    ],
)
def test_anything_else_goes_to_click(history: GitRepo, args: list[str], says: str | None) -> None:
    (history.root / "adir").mkdir()
    loaded = loaded_modules(history.root, ["audit", *args])
    assert "click" in loaded.modules
    done = history.tddgit("audit", *args)
    if says is None:
        assert done.returncode == 0, done.stderr
        assert done.stdout
    else:
        assert done.returncode == 2
        assert says in done.stderr


def test_outside_a_repository_the_error_is_click_s_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    runs = [
        subprocess.run(
            [*TDDGIT, *pre, "audit", "--json"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        for pre in ([], ["--debug"])
    ]
    assert runs[0].returncode == runs[1].returncode == 2
    assert runs[0].stderr.count("\n") == 1  # one line, no traceback
    assert runs[1].stderr.endswith(runs[0].stderr)  # click's, after --debug's traceback


def test_dash_c_takes_the_fast_path_too(history: GitRepo, tmp_path: Path) -> None:
    loaded = loaded_modules(tmp_path, ["-C", str(history.root), "audit", "--json"])
    assert loaded.code == 0, loaded.stderr
    assert "click" not in loaded.modules
    out = subprocess.run(
        [*TDDGIT, "-C", str(history.root), "audit", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == history.tddgit("--debug", "audit", "--json", check=True).stdout


def test_dash_c_naming_a_file_is_click_s_usage_error(tmp_path: Path) -> None:
    """``-C`` must name a directory: click says so (exit 2); the fast path took it and
    failed with an internal error (exit 3)."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x\n")
    done = subprocess.run(
        [*TDDGIT, "-C", str(a_file), "audit", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert "is a file" in done.stderr
    assert "internal error" not in done.stderr
