"""``tddgit audit`` of the current branch starts its history's git before the command line
is parsed (``tddgit.earlywalk.start_early``), and the audit takes that walk only when it is
the one it would have started: same repository, same range, same commit-graph."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tddgit import earlywalk, history, reffiles
from tddgit.git import find_repo
from tests.audit.test_commitgraph import grow, wait_for_graph
from tests.conftest import TDDGIT, GitRepo
from tests.hookprobe import loaded_modules
from tests.project import stage_red, start_project


@pytest.fixture
def logged_git(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A ``git`` first on PATH that logs each command's first two words, then runs git."""
    real = shutil.which("git")
    assert real
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "git.log"
    shim = bin_dir / "git"
    shim.write_text(f'#!/bin/sh\necho "$1 $2" >> "{log}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, log


def _calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_the_branch_s_history_is_read_before_the_repository_is_looked_up(
    repo: GitRepo, logged_git: tuple[dict[str, str], Path]
) -> None:
    grow(repo, 400)
    env, log = logged_git
    plain = repo.tddgit("audit", "--format", "json", env={"TDDGIT_AUDIT_EARLY": "0"}, check=True)
    wait_for_graph(repo.root, 400)  # the first audit wrote one: the walk's env has it
    log.unlink(missing_ok=True)
    early = repo.tddgit("audit", "--format", "json", env=env, check=True)
    calls = _calls(log)
    walks = [c for c in calls if c.startswith("rev-list --topo-order")]
    assert len(walks) == 1, calls  # taken by the audit, not started a second time
    assert calls.index(walks[0]) < calls.index("rev-parse --path-format=absolute"), calls
    assert [c for c in calls if c.startswith("diff-tree")] == ["diff-tree --stdin"], calls
    assert early.stdout == plain.stdout


def test_an_audit_of_a_range_starts_nothing_early(
    repo: GitRepo, logged_git: tuple[dict[str, str], Path]
) -> None:
    grow(repo, 20)
    env, log = logged_git
    repo.tddgit("audit", "HEAD~5..HEAD", "--json", env=env, check=True)
    calls = _calls(log)
    assert calls.index("rev-parse --path-format=absolute") < min(
        i for i, c in enumerate(calls) if c.startswith(("rev-list", "log"))
    ), calls


def test_an_early_walk_of_another_repository_is_stopped_not_read(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started in one repository, asked for another's history: the early walk is
    stopped and reaped, and the other history is read by a walk of its own."""
    grow(repo, 20)
    other = GitRepo(tmp_path / "other")
    other.root.mkdir()
    other.git("init", "-q")
    grow(other, 3)
    monkeypatch.chdir(repo.root)
    earlywalk.start_early(["--json"])
    [early] = earlywalk._EARLY
    shas = [c.sha for c in history.read_history(find_repo(other.root), reverse=True)]
    assert shas == other.git("rev-list", "--reverse", "HEAD").split()
    assert earlywalk._EARLY == []
    assert early.proc.poll() is not None  # stopped and reaped
    assert early.shown.proc is None or early.shown.proc.poll() is not None


@pytest.mark.parametrize("variable", ["GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"])
def test_git_s_discovery_moved_by_the_environment_starts_nothing_early(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """Another common directory, or a ceiling on git's search for the repository: the
    nearest `.git` need not be what git finds, so no walk is guessed from it."""
    grow(repo, 3)
    monkeypatch.chdir(repo.root)
    monkeypatch.setenv(variable, str(repo.root / ".git"))
    earlywalk.start_early(["--json"])
    assert earlywalk._EARLY == []


def test_an_empty_repository_still_says_it_has_no_commits(repo: GitRepo) -> None:
    """The early walk of an unborn branch fails; nobody takes it and the audit says what
    it always said."""
    out = repo.tddgit("audit", env={"TDDGIT_AUDIT_EARLY": "0"})
    early = repo.tddgit("audit")
    assert (early.returncode, early.stdout) == (out.returncode, out.stdout)
    assert "Traceback" not in early.stderr


def test_dash_c_starts_the_walk_early_too(
    repo: GitRepo, tmp_path: Path, logged_git: tuple[dict[str, str], Path]
) -> None:
    grow(repo, 20)
    env, log = logged_git
    out = subprocess.run(
        [*TDDGIT, "-C", str(repo.root), "audit", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )
    calls = _calls(log)
    assert calls[0].startswith("rev-list --topo-order"), calls
    assert out.stdout == repo.tddgit("audit", "--json", check=True).stdout


# What only a first (cold) audit needs: the answers of a later one come from the cache.
COLD_ONLY = (
    "tddgit.audit.changes",
    "tddgit.audit.pytestchecks",
    "tddgit.audit.detector_rules",
    "tddgit.detectors.stubs",
    "statistics",
    "hashlib",
)


def test_a_warm_audit_loads_none_of_the_cold_only_analysis(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    repo.git("commit", "-q", "-m", "add a test for sub")  # a test-only commit: judged
    repo.tddgit("audit", "--json", check=True)  # cold: leaves the answers
    loaded = loaded_modules(repo.root, ["audit", "--json"])
    assert loaded.code == 0, loaded.stderr
    assert "tddgit.audit.engine" in loaded.modules
    assert loaded.under(COLD_ONLY) == []


def test_notes_in_packed_refs_are_read_and_none_means_no_git_notes_call(
    repo: GitRepo, logged_git: tuple[dict[str, str], Path]
) -> None:
    """Without a notes ref the audit asks git nothing about notes; a ref git packed
    (``git pack-refs``, ``git gc``) is found all the same."""
    start_project(repo)
    env, log = logged_git
    repo.tddgit("audit", "--json", env=env, check=True)
    assert not [c for c in _calls(log) if c.startswith("notes")]
    stage_red(repo)
    repo.tddgit("red", "-m", "red: sub", check=True)  # the gate attaches a note
    repo.git("pack-refs", "--all")
    assert not (repo.root / ".git" / "refs" / "notes" / "tddgit").exists()
    doc = json.loads(repo.tddgit("audit", "--json", env=env, check=True).stdout)
    [red] = [c for c in doc["commits"] if c["phase"] == "red"]
    assert red["evidence"] is not None


@pytest.mark.parametrize("how", ["loose", "packed", "detached", "unborn"])
def test_head_s_commit_from_the_ref_files_agrees_with_git(repo: GitRepo, how: str) -> None:
    if how != "unborn":
        grow(repo, 3)
    if how == "packed":
        repo.git("pack-refs", "--all")
    if how == "detached":
        repo.git("checkout", "-q", "--detach")
    r = find_repo(repo.root)
    assert reffiles.head_has_commit(r) is (r.head() is not None)
