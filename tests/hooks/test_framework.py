"""The real pre-commit framework installing this repository's hooks (.pre-commit-hooks.yaml).

pre-commit pip-installs tddgit from a clone of this repository at its HEAD commit (so
what is tested is the committed state) into its own virtualenv, once per test session:
every test shares one PRE_COMMIT_HOME, built under a file lock (xdist workers share it).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, GitRepo
from tests.hooks.conftest import git_commit
from tests.project import stage_green, stage_red, start_project, trailer

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
STAGES = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")
HOOK_IDS = (
    "tddgit-commit-msg",
    "tddgit-prepare-commit-msg",
    "tddgit-post-commit",
    "tddgit-pre-commit",
)


def _shared_dir(factory: pytest.TempPathFactory) -> Path:
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="module")
def framework(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Path]]:
    """(clone of this repo, its commit, PRE_COMMIT_HOME with the hook env installed)."""
    shared = _shared_dir(tmp_path_factory) / "tddgit-pre-commit"
    shared.mkdir(exist_ok=True)
    clone, home = shared / "tddgit-clone", shared / "home"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "ready").exists():
            subprocess.run(
                ["git", "clone", "-q", "--no-hardlinks", str(REPO_ROOT), str(clone)], check=True
            )
            sha = _git_out(clone, "rev-parse", "HEAD")
            probe = shared / "probe"
            probe.mkdir()
            _git_out(probe, "init", "-q")
            (probe / ".pre-commit-config.yaml").write_text(_published_config(clone, sha))
            proc = _pre_commit(probe, home, "install-hooks")
            assert proc.returncode == 0, proc.stdout + proc.stderr
            (shared / "ready").write_text(sha)
        sha = (shared / "ready").read_text()
    yield clone, sha, home


def _git_out(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _pre_commit(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(
        [str(BIN / "pre-commit"), *args], cwd=cwd, capture_output=True, text=True, env=env
    )


def _published_config(clone: Path, sha: str) -> str:
    hooks = "".join(f"      - id: {h}\n" for h in HOOK_IDS)
    return f"repos:\n  - repo: {clone}\n    rev: {sha}\n    hooks:\n{hooks}"


def _local_config() -> str:
    """The `repo: local` variant: tddgit from the environment the developer works in."""
    out = ["repos:", "  - repo: local", "    hooks:"]
    for stage in STAGES:
        pass_files = "true" if stage.endswith("msg") else "false"
        out += [
            f"      - id: tddgit-{stage}",
            f"        name: tddgit {stage}",
            f"        entry: {BIN / 'tddgit'} hook {stage}",
            "        language: system",
            f"        stages: [{stage}]",
            f"        pass_filenames: {pass_files}",
            "        always_run: true",
        ]
    return "\n".join(out) + "\n"


def _setup(repo: GitRepo, home: Path, config: str) -> None:
    start_project(repo)
    # pre-commit's venv does not hold the project: name the project's interpreter
    with (repo.root / "pyproject.toml").open("a") as fh:
        fh.write(f'\n[tool.tddgit]\npython = "{sys.executable}"\n')
    repo.write(".pre-commit-config.yaml", config)
    repo.commit("configure hooks", "pyproject.toml", ".pre-commit-config.yaml")
    args = ["install"] + [a for s in STAGES for a in ("--hook-type", s)]
    proc = _pre_commit(repo.root, home, *args)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def published(
    repo: GitRepo, framework: tuple[Path, str, Path], monkeypatch: pytest.MonkeyPatch
) -> GitRepo:
    clone, sha, home = framework
    _setup(repo, home, _published_config(clone, sha))
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    return repo


def test_framework_red_runs_gate_with_project_python_and_attaches_note(published: GitRepo) -> None:
    stage_red(published)
    proc = git_commit(published, "-m", "test sub", "--trailer", "GSD-Phase: red")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trailer(published) == "red"
    note = published.git("notes", "--ref=tddgit", "show", "HEAD")
    assert '"phase": "red"' in note


def test_framework_refuses_wrong_transition(published: GitRepo) -> None:
    before = published.head()
    stage_green(published)
    proc = git_commit(published, "-m", "sub", "--trailer", "GSD-Phase: green")
    assert proc.returncode != 0
    assert "green-without-red" in proc.stdout + proc.stderr
    assert published.head() == before


def test_framework_prepare_commit_msg_adds_the_proven_trailer(published: GitRepo) -> None:
    stage_red(published)
    published.tddgit("red", "-m", "test sub", check=True)
    stage_green(published)
    published.tddgit("green", "--no-commit", check=True)
    proc = git_commit(published, "-m", "implement sub")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trailer(published) == "green"
    assert '"phase": "green"' in published.git("notes", "--ref=tddgit", "show", "HEAD")


def test_local_repo_variant(repo: GitRepo, framework: tuple[Path, str, Path]) -> None:
    _, _, home = framework
    _setup(repo, home, _local_config())
    env = {"PRE_COMMIT_HOME": str(home)}
    stage_green(repo)
    proc = git_commit(repo, "-m", "sub", "--trailer", "GSD-Phase: green", env=env)
    assert proc.returncode != 0 and "green-without-red" in proc.stdout + proc.stderr
    repo.git("reset", "-q", "calc.py")
    repo.git("checkout", "-q", "--", "calc.py")
    stage_red(repo)
    proc = git_commit(repo, "-m", "test sub", "--trailer", "GSD-Phase: red", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trailer(repo) == "red"
