"""Temporary worktrees made and removed by several tddgit processes at once in one
repository: two `tddgit cycle` runs, or a cycle and an `audit --verify`, started together.
Each process below is a real Python process using tddgit's own worktree helpers in a loop;
a failure of any add, copy or remove is reported on stderr and in the exit code."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import GitRepo
from tests.cycle.helpers import cycle_branches, worktrees

ROUNDS = 12

# `cycle` keeps each branch (as an approved cycle's would be); `verify` makes detached ones.
WORKER = """\
import sys, time
from pathlib import Path
from tddgit.git import find_repo

kind, root, go, rounds = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
repo = find_repo(root)
head = repo.head()
while not go.exists():
    time.sleep(0.005)
errors = []
for i in range(rounds):
    try:
        if kind == "cycle":
            from tddgit.cycle.worktree import cycle_worktree

            with cycle_worktree(repo, "SPEC", ()) as wt:
                assert (wt.repo.root / "calc.py").is_file(), "no checkout"
        else:
            from tddgit.audit.verify import worktree

            with worktree(repo, head) as at:
                assert (at / "calc.py").is_file(), "no checkout"
    except BaseException as exc:  # every failure counts, whatever its type
        errors.append(f"{kind} round {i}: {type(exc).__name__}: {exc}")
print("\\n".join(errors), file=sys.stderr)
sys.exit(1 if errors else 0)
"""


def _race(project: GitRepo, tmp_path: Path, kinds: tuple[str, ...], rounds: int) -> list[str]:
    """Start one worker per kind at the same moment; their reported failures."""
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    go = tmp_path / "go"
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), kind, str(project.root), str(go), str(rounds)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kind in kinds
    ]
    time.sleep(0.5)  # let every worker import and reach the start line
    go.touch()
    failures: list[str] = []
    for p in procs:
        _out, err = p.communicate(timeout=300)
        if p.returncode != 0:
            failures.append(err.strip() or f"exit code {p.returncode}")
    assert list(tmpdir.iterdir()) == []  # every temporary directory removed
    return failures


def test_two_cycles_at_once_get_their_own_branches_and_worktrees(
    project: GitRepo, tmp_path: Path
) -> None:
    """Both pick `tddgit/SPEC-<n>` as the first free name: the second `worktree add -b`
    failed with "a branch named 'tddgit/SPEC-1' already exists"."""
    failures = _race(project, tmp_path, ("cycle", "cycle"), ROUNDS)
    assert failures == []
    assert len(worktrees(project)) == 1
    assert sorted(cycle_branches(project)) == sorted(
        f"tddgit/SPEC-{n}" for n in range(1, 2 * ROUNDS + 1)
    )


def test_a_cycle_and_a_verify_at_once_never_fail(project: GitRepo, tmp_path: Path) -> None:
    """Removing the last worktree deletes git's empty `.git/worktrees` while the other
    process's add creates its directory in it, and an add reads the admin directory another
    add has only begun ("failed to read .git/worktrees/<name>/commondir"): verify's thread
    lock cannot see another process. Six processes, so that the race shows on one run."""
    failures = _race(project, tmp_path, ("cycle", *["verify"] * 5), 40)
    assert failures == []
    assert len(worktrees(project)) == 1


HOLDER = """\
import sys, time
from pathlib import Path
from tddgit.git import find_repo
from tddgit.worktrees import admin_lock

with admin_lock(find_repo(sys.argv[1])):
    Path(sys.argv[2]).write_text("held")
    time.sleep(600)
"""


def test_a_sigkilled_holder_of_the_worktree_lock_blocks_nobody(
    project: GitRepo, tmp_path: Path
) -> None:
    """A tddgit SIGKILLed while adding or removing a worktree holds the lock no more: the
    next `tddgit cycle --clean` and the next worktree go ahead."""
    held = tmp_path / "held"
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    holder = subprocess.Popen([sys.executable, str(script), str(project.root), str(held)])
    try:
        deadline = time.monotonic() + 60
        while not held.exists():
            assert time.monotonic() < deadline, "the holder never took the lock"
            assert holder.poll() is None
            time.sleep(0.02)
    finally:
        holder.kill()
        holder.wait()
    done = project.tddgit("cycle", "--clean")
    assert done.returncode == 0, done.stderr
    assert _race(project, tmp_path, ("cycle",), 1) == []
    assert cycle_branches(project) == ["tddgit/SPEC-1"]
