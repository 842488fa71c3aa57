"""A project venv without pytest gets advice that works there: without pip, how to get pip
(or to use the project's own tool), never a `pip install` that cannot run."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import GitRepo
from tests.project import stage_red, start_project


def venv_without_pip(repo: GitRepo) -> str:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(repo.root / ".venv")], check=True
    )
    return str(repo.root / ".venv" / "bin" / "python")


def test_a_venv_without_pip_is_told_how_to_get_pytest(repo: GitRepo) -> None:
    start_project(repo)
    python = venv_without_pip(repo)
    stage_red(repo)
    proc = repo.tddgit("red", "--no-commit")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"pytest is not installed for {python}" in proc.stderr
    assert f"{python} -m ensurepip" in proc.stderr
    assert f"`{python} -m pip install pytest`" not in proc.stderr.split("ensurepip")[0]


def test_a_uv_project_is_told_to_use_uv(repo: GitRepo) -> None:
    start_project(repo)
    venv_without_pip(repo)
    repo.write("uv.lock", "version = 1\n")
    stage_red(repo)
    proc = repo.tddgit("red", "--no-commit")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "uv add --dev pytest" in proc.stderr
