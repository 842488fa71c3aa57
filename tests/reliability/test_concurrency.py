"""Concurrent tddgit processes (PRODUCT.md §6, §10): gates at once in one repository and
in two linked worktrees, an audit while commits land, and many writers of the evidence cache
and of refs/notes/tddgit at the same time. Nothing is lost or mixed up, nothing crashes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import TDDGIT, GitRepo
from tests.project import stage_red, start_project, trailer
from tests.reliability.harness import assert_records_whole

WRITERS = 16

# One writer process: evidence for its own commit (argv: repo, commit, marker).
NOTE_WRITER = """\
import sys, time
from tddgit.git import find_repo
from tddgit.notes import write_note
from tests.test_evidence import make
repo = find_repo(sys.argv[1])
tree = repo.git("rev-parse", sys.argv[2] + "^{tree}").strip()
ev = make(tree=tree, started=float(sys.argv[3]))
time.sleep(max(0.0, float(sys.argv[4]) - time.time()))  # start together
write_note(repo, sys.argv[2], ev)
"""

# Many cache writers of the same tree and phase, each with a different `started`.
CACHE_WRITER = """\
import sys, time
from tddgit.git import find_repo
from tddgit.evidence import cache_put
from tests.test_evidence import make
repo = find_repo(sys.argv[1])
time.sleep(max(0.0, float(sys.argv[3]) - time.time()))
for i in range(40):
    cache_put(repo, make(tree=sys.argv[2], started=float(sys.argv[4]) * 1000 + i))
"""

# Reads until the writers are done (the test then creates the stop file), and once more:
# a reader bounded by a few seconds of wall time never overlapped the writers at a load of 20.
CACHE_READER = """\
import os, sys, time
from tddgit.git import find_repo
from tddgit.evidence import cache_get
repo = find_repo(sys.argv[1])
seen = 0
deadline = time.time() + 120
def read():
    global seen
    ev = cache_get(repo, sys.argv[2], "red")
    if ev is not None:
        assert ev.tree == sys.argv[2] and ev.targets, ev
        seen += 1
while not os.path.exists(sys.argv[3]) and time.time() < deadline:
    read()
read()
print(seen)
"""


def _py(code: str, *args: str, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(procs: list[subprocess.Popen[str]]) -> list[str]:
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "Traceback" not in err
        outs.append(out)
    return outs


def test_many_note_writers_at_once_lose_no_note(repo: GitRepo) -> None:
    commits = [repo.commit(f"c{i}", allow_empty=True) for i in range(WRITERS)]
    go = str(time.time() + 1.0)
    procs = [
        _py(NOTE_WRITER, str(repo.root), c, str(i), go, cwd=repo.root)
        for i, c in enumerate(commits)
    ]
    _finish(procs)
    listed = repo.git("notes", "--ref=refs/notes/tddgit", "list").split()
    assert sorted(listed[1::2]) == sorted(commits), "a note was lost"
    for i, c in enumerate(commits):
        shown = repo.git("notes", "--ref=refs/notes/tddgit", "show", c)
        assert json.loads(shown)["started"] == i, "a note was mixed up"
    assert_records_whole(repo)


def test_cache_writers_and_readers_at_once_see_only_whole_records(repo: GitRepo) -> None:
    start_project(repo)
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    go = str(time.time() + 1.0)
    writers = [_py(CACHE_WRITER, str(repo.root), tree, go, str(i), cwd=repo.root) for i in range(4)]
    stop = repo.root.parent / "writers-done"
    readers = [_py(CACHE_READER, str(repo.root), tree, str(stop), cwd=repo.root) for _ in range(2)]
    _finish(writers)
    stop.touch()
    seen = [int(o) for o in _finish(readers)]
    assert sum(seen) > 0, "the readers never saw the evidence: the test proves nothing"
    assert_records_whole(repo)
    leftovers = list((repo.root / ".git" / "tddgit" / "evidence").rglob(".tmp-*"))
    assert leftovers == []


def _tddgit(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*TDDGIT, *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_two_gates_at_once_in_one_repository_agree(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    procs = [_tddgit(repo.root, "red", "--no-commit", "--json") for _ in range(2)]
    verdicts = [json.loads(o) for o in _finish(procs)]
    assert all(v["holds"] for v in verdicts)
    assert verdicts[0]["tree"] == verdicts[1]["tree"]
    assert [t["id"] for t in verdicts[0]["evidence"]["targets"]] == ["tests/test_calc.py::test_sub"]
    proc = repo.tddgit("red", "-m", "sub", check=True)
    assert "Traceback" not in proc.stderr
    assert trailer(repo) == "red"


MUL_TEST = """\
import calc


def test_add():
    assert calc.add(2, 3) == 5


def test_mul():
    assert calc.mul(2, 3) == 6
"""


def test_gates_in_two_linked_worktrees_keep_their_own_evidence(repo: GitRepo) -> None:
    start_project(repo)
    other = repo.root.parent / "other"
    repo.git("worktree", "add", "-q", "-b", "mul", str(other))
    stage_red(repo)  # main: test_sub
    second = GitRepo(other)
    second.write("tests/test_calc.py", MUL_TEST, dedent=False)
    second.add("tests/test_calc.py")
    procs = [_tddgit(repo.root, "red", "-m", "sub"), _tddgit(other, "red", "-m", "mul")]
    _finish(procs)
    for r, wanted in ((repo, "test_sub"), (second, "test_mul")):
        assert trailer(r) == "red"
        note = json.loads(r.git("notes", "--ref=refs/notes/tddgit", "show", "HEAD"))
        assert [t["id"] for t in note["targets"]] == [f"tests/test_calc.py::{wanted}"]
        assert note["tree"] == r.git("rev-parse", "HEAD^{tree}").strip()
    assert_records_whole(repo)


def test_an_audit_while_commits_land_never_fails(repo: GitRepo) -> None:
    start_project(repo)
    stop = repo.root.parent / "stop"
    lander = subprocess.Popen(
        [
            "sh",
            "-c",
            'i=0; while [ ! -e "$1" ] && [ $i -lt 200 ]; do i=$((i+1)); '
            'echo $i > "f$i.txt"; git add "f$i.txt"; git commit -q -m "c$i" '
            '--trailer "GSD-Phase: refactor" >/dev/null 2>&1; done',
            "lander",
            str(stop),
        ],
        cwd=repo.root,
    )
    try:
        audits = 0
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline or audits < 3:
            proc = repo.tddgit("audit", "--format", "json")
            assert proc.returncode in (0, 1), proc.stderr
            assert "Traceback" not in proc.stderr
            json.loads(proc.stdout)
            audits += 1
    finally:
        stop.touch()
        lander.wait(timeout=60)
    assert int(repo.git("rev-list", "--count", "HEAD")) > 2, "no commit landed meanwhile"
