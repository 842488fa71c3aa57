"""The CLI shell: version, -C, exit codes, and one-line errors without tracebacks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tddgit import __version__
from tests.conftest import TDDGIT, GitRepo


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TDDGIT, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def test_version(tmp_path: Path) -> None:
    proc = run("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert __version__ in proc.stdout


def test_help_lists_commands_with_examples(tmp_path: Path) -> None:
    proc = run("--help", cwd=tmp_path)
    assert proc.returncode == 0
    for name in ("red", "green", "refactor", "status", "run", "config", "demo"):
        assert name in proc.stdout
    assert "Examples" in proc.stdout
    assert "Examples" in run("red", "--help", cwd=tmp_path).stdout


def test_not_a_repo_is_one_line_exit_2(tmp_path: Path) -> None:
    proc = run("status", cwd=tmp_path, env={"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)})
    assert proc.returncode == 2
    assert proc.stderr.startswith("tddgit: error: not a git repository")
    assert "git init" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_dash_c_runs_elsewhere(repo: GitRepo, tmp_path: Path) -> None:
    repo.write(".tddgit.yaml", "timeout: 7\n")
    proc = run("-C", str(repo.root), "config", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"value": 7' in proc.stdout


def test_dash_c_missing_dir(tmp_path: Path) -> None:
    proc = run("-C", str(tmp_path / "nope"), "status", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_bare_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "b.git")], check=True)
    proc = run("status", cwd=tmp_path / "b.git")
    assert proc.returncode == 2
    assert "bare repository" in proc.stderr


def test_debug_shows_traceback(tmp_path: Path) -> None:
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}
    quiet = run("status", cwd=tmp_path, env=env)
    loud = run("--debug", "status", cwd=tmp_path, env=env)
    assert "Traceback" not in quiet.stderr
    assert "Traceback" in loud.stderr
    assert loud.returncode == 2


def test_unknown_command_is_usage_error(tmp_path: Path) -> None:
    proc = run("frobnicate", cwd=tmp_path)
    assert proc.returncode == 2
    assert "No such command" in proc.stderr


def test_status_in_an_empty_repo(repo: GitRepo) -> None:
    proc = repo.tddgit("status")
    assert proc.returncode == 0, proc.stderr
    assert "no commits yet" in proc.stdout
    assert "tddgit red" in proc.stdout


def test_no_colour_when_not_a_tty(repo: GitRepo) -> None:
    proc = repo.tddgit("status", env={"NO_COLOR": "", "FORCE_COLOR": ""})
    assert "\x1b[" not in proc.stdout


def test_a_phase_command_in_a_bare_repository(tmp_path: Path) -> None:
    """The phase commands find the repository and HEAD in one git call: a bare one is
    still the usage error it was (HEAD's lines never pass for the work tree's)."""
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "b.git")], check=True)
    proc = run("red", "--no-commit", cwd=tmp_path / "b.git")
    assert proc.returncode == 2, proc.stderr
    assert "bare repository" in proc.stderr


def test_find_repo_at_head_on_an_unborn_and_a_born_branch(repo: GitRepo) -> None:
    from tddgit.git import EMPTY_TREE, find_repo, find_repo_at_head

    found, head = find_repo_at_head(repo.root)
    assert found == find_repo(repo.root)
    assert head == (None, EMPTY_TREE)  # an unborn branch: nothing is HEAD yet
    repo.write("a.txt", "a\n")
    repo.commit("first")
    found, head = find_repo_at_head(repo.root / "")
    assert found == find_repo(repo.root)
    assert head == (repo.head(), repo.git("rev-parse", "HEAD^{tree}").strip())
