"""The cycle's worktree: where it lives, its lock, what it copies, and that it goes away
on every way out, SIGTERM and (by the next run) SIGKILL included."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tddgit.cycle.worktree import LOCK_PREFIX, cycle_worktree, stale_worktrees
from tddgit.git import find_repo
from tests.agent.fakeapi import FakeMessagesAPI
from tests.conftest import TDDGIT, GitRepo
from tests.cycle.helpers import cycle_branches, red_step, worktrees
from tests.procs import alive
from tests.project import snapshot_state

HANGING = """\
import os
import time

import calc


def test_tc_1_five_minus_three():
    with open(os.environ["PIDFILE"], "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(6)
    assert calc.sub(5, 3) == 2
"""


def test_a_locked_branch_and_worktree_outside_the_repository_removed_on_error(
    project: GitRepo,
) -> None:
    repo = find_repo(project.root)
    project.write(".gitignore", "build/\n.env\n")
    project.commit("ignore", ".gitignore")
    project.write("build/fixture.json", "{}\n")
    project.write("build/other.txt", "not wanted\n")
    project.write(".env", "SECRET=1\n")
    with pytest.raises(RuntimeError), cycle_worktree(repo, "SPEC/ä b", ("build/*.json",)) as wt:
        root = wt.repo.root
        assert wt.branch == "tddgit/SPEC-b-1"
        assert wt.base == project.head()
        assert project.root not in root.parents and root.name == project.root.name
        listing = project.git("worktree", "list", "--porcelain")
        assert f"locked {LOCK_PREFIX}{os.getpid()}" in listing
        assert wt.copied == ("build/fixture.json",)
        assert (root / "build" / "fixture.json").is_file()
        assert not (root / ".env").exists() and not (root / "build" / "other.txt").exists()
        assert stale_worktrees(repo) == []  # our own, alive
        raise RuntimeError("boom")
    assert not root.exists() and not root.parent.exists()
    assert len(worktrees(project)) == 1
    assert cycle_branches(project) == []  # no commit made: no branch left


# Fails fast at the red (no `calc.sub` yet), then hangs once the green has written it.
HANGING_IN_GREEN = """\
import os
import time

import calc


def test_tc_1_five_minus_three():
    if hasattr(calc, "sub"):
        with open(os.environ["PIDFILE"], "w") as fh:
            fh.write(str(os.getpid()))
        time.sleep(6)
    assert calc.sub(5, 3) == 2
"""


def unjailed(project: GitRepo) -> None:
    """The test reports its pid through a file outside the repository, which the jail
    would hide (and its pid namespace would make the pid meaningless here): these tests
    are about signals, so the model's tests run unjailed."""
    project.write(".tddgit.yaml", "llm:\n  sandbox: 'off'\n")
    project.commit("no sandbox: the test reports its pid", ".tddgit.yaml")


def _start(
    project: GitRepo,
    tmp_path: Path,
    fake_api: FakeMessagesAPI,
    others: int = 0,
    script: list[dict[str, Any]] | None = None,
) -> tuple[subprocess.Popen[str], int, Path]:
    """`tddgit cycle` in a subprocess, until a gate runs the model's hanging test."""
    pidfile = tmp_path / "pid"
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    fake_api.push(*(script if script is not None else red_step(HANGING)))
    proc = subprocess.Popen(
        [*TDDGIT, "cycle", "specs/sub.yaml"],
        cwd=project.root,
        env={**os.environ, "PIDFILE": str(pidfile), "TMPDIR": str(tmpdir)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() < deadline, "the step's test never started"
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    assert len(worktrees(project)) == 2 + others
    assert list(tmpdir.glob("tddgit-cycle-*"))
    return proc, int(pidfile.read_text()), tmpdir


def test_sigterm_during_a_step_removes_the_worktree(
    project: GitRepo, fake_api: FakeMessagesAPI, tmp_path: Path
) -> None:
    unjailed(project)
    project.write("notes.txt", "the user's\n")
    before = snapshot_state(project)
    proc, test_pid, tmpdir = _start(project, tmp_path, fake_api)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    assert not alive(test_pid)
    assert len(worktrees(project)) == 1
    assert list(tmpdir.glob("tddgit-cycle-*")) == []
    assert snapshot_state(project) == before  # no branch left either: no commit was made


def test_sigterm_during_the_green_loop_removes_the_worktree(
    project: GitRepo, fake_api: FakeMessagesAPI, tmp_path: Path
) -> None:
    from tests.agent.fakeapi import reply, tool
    from tests.project import CALC_SUB

    unjailed(project)
    project.write("notes.txt", "the user's\n")
    head = project.head()
    status = project.git("status", "--porcelain=v1", "--untracked-files=all")
    files = {p: (project.root / p).read_bytes() for p in ("calc.py", "notes.txt")}
    script = [
        *red_step(HANGING_IN_GREEN),
        reply(tool("write_file", path="calc.py", content=CALC_SUB)),
        reply(tool("finish", summary="sub")),
    ]
    proc, test_pid, tmpdir = _start(project, tmp_path, fake_api, script=script)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    assert "cycle: green step" in err  # the red was committed in the worktree first
    # the branch keeps that commit, and says so with what to do with it
    assert project.git("rev-list", "--count", f"{head}..tddgit/SPEC-SUB-1").strip() == "1"
    assert "cycle: stopped; the branch tddgit/SPEC-SUB-1 keeps 1 commit (red)" in err
    assert "git branch -D tddgit/SPEC-SUB-1" in err
    assert not alive(test_pid)
    assert len(worktrees(project)) == 1
    assert list(tmpdir.glob("tddgit-cycle-*")) == []
    assert project.head() == head
    assert project.git("status", "--porcelain=v1", "--untracked-files=all") == status
    assert {p: (project.root / p).read_bytes() for p in files} == files


@pytest.mark.parametrize("then", [("cycle", "--clean"), ("cycle", "specs/sub.yaml")])
def test_a_sigkilled_cycles_worktree_is_removed_by_the_next_run_and_nothing_else(
    project: GitRepo,
    fake_api: FakeMessagesAPI,
    tmp_path: Path,
    then: tuple[str, ...],
) -> None:
    unjailed(project)
    mine = tmp_path / "mine"
    project.git("worktree", "add", "-q", "--detach", str(mine))
    alive_lock = tmp_path / "alive"
    project.git("worktree", "add", "-q", "--detach", str(alive_lock))
    project.git("worktree", "lock", "--reason", f"{LOCK_PREFIX}{os.getpid()}", str(alive_lock))
    proc, test_pid, tmpdir = _start(project, tmp_path, fake_api, others=2)
    proc.kill()
    proc.communicate(timeout=30)
    os.kill(test_pid, signal.SIGKILL)  # the orphaned test run
    assert len(worktrees(project)) == 4  # the SIGKILLed cycle's is still there
    leftover = next(tmpdir.glob("tddgit-cycle-*"))
    env = {"ANTHROPIC_API_KEY": "", "TMPDIR": str(tmpdir)}  # a run stops after the sweep
    done = project.tddgit(*then, env=env)
    assert done.returncode == (0 if "--clean" in then else 2), done.stderr
    assert "removed the stale worktree" in done.stderr
    assert "its branch tddgit/SPEC-SUB-1 is kept" in done.stderr
    assert sorted(worktrees(project)) == sorted([str(project.root), str(mine), str(alive_lock)])
    assert not leftover.exists()
    project.git("worktree", "unlock", str(alive_lock))
