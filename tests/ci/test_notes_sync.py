"""`tddgit notes sync` with a real bare remote and three people's clones."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tddgit.evidence import Evidence
from tddgit.git import find_repo
from tddgit.model import Cause, Outcome, TestResult
from tddgit.noterecords import combine, parse_note, parse_records
from tddgit.notes import read_all_notes, read_note, write_note
from tests.conftest import GitRepo

PEOPLE = ("ann", "bob", "cat")


def evidence(tree: str, started: float, who: str = "") -> Evidence:
    return Evidence(
        phase="red",
        tree=tree,
        parent=None,
        runner="pytest",
        command=("pytest", who),
        started=started,
        duration=0.1,
        tddgit_version="0",
        scope="changed",
        targets=(TestResult("t.py::test_a", Outcome.FAILED, Cause.ASSERTION, "boom"),),
        suite={"failed": 1},
    )


def team(tmp_path: Path) -> tuple[Path, dict[str, GitRepo]]:
    remote = tmp_path / "remote.git"
    GitRepo(tmp_path).git("init", "-q", "--bare", str(remote))
    seed = GitRepo(tmp_path / "seed")
    seed.root.mkdir()
    seed.git("init", "-q")
    seed.write("t.py", "def test_a():\n    assert False\n")
    seed.commit("seed")
    seed.git("push", "-q", str(remote), "HEAD:main")
    clones = {}
    for who in PEOPLE:
        GitRepo(tmp_path).git("clone", "-q", str(remote), who)
        clones[who] = GitRepo(tmp_path / who)
    return remote, clones


def annotate(person: GitRepo, started: float, who: str, commit: str | None = None) -> str:
    """A new commit (or ``commit``) of ``person`` with an evidence note; returns its sha."""
    if commit is None:
        commit = person.commit(f"{who} {started}", allow_empty=True)
    tree = person.git("rev-parse", f"{commit}^{{tree}}").strip()
    write_note(find_repo(person.root), commit, evidence(tree, started, who))
    return commit


def stderr_of(person: GitRepo, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=person.root, capture_output=True, text=True)
    assert proc.returncode != 0
    return proc.stderr


def records(person: GitRepo) -> set[tuple[str, float]]:
    repo = find_repo(person.root)
    out = set()
    for line in person.git("notes", "--ref=tddgit", "list").splitlines():
        _, commit = line.split()
        data = repo.run("notes", "--ref=tddgit", "show", commit).stdout
        out |= {(commit, ev.started) for ev in parse_records(data)}
    return out


def test_the_documented_plain_refspecs_fail_for_a_team(tmp_path: Path) -> None:
    """Why `notes sync` exists: with two people's notes the plain fetch and push are
    refused, and the forced fetch drops the local notes not pushed yet."""
    _, c = team(tmp_path)
    annotate(c["ann"], 1.0, "ann")
    c["ann"].git("push", "-q", "origin", "refs/notes/tddgit")
    mine = annotate(c["bob"], 2.0, "bob")
    push = stderr_of(c["bob"], "push", "origin", "refs/notes/tddgit")
    assert "rejected" in push
    fetch = stderr_of(c["bob"], "fetch", "origin", "refs/notes/tddgit:refs/notes/tddgit")
    assert "rejected" in fetch
    c["bob"].git("fetch", "-q", "origin", "+refs/notes/tddgit:refs/notes/tddgit")
    assert mine not in c["bob"].git("notes", "--ref=tddgit", "list")  # bob's note lost


def test_twenty_interleaved_syncs_by_three_people_lose_no_note(tmp_path: Path) -> None:
    remote, c = team(tmp_path)
    seed = c["ann"].head()
    expected: set[tuple[str, float]] = set()
    # all three judge the shared seed commit: its note must end up holding three records
    for i, who in enumerate(PEOPLE):
        annotate(c[who], 0.5 + i, who, commit=seed)
        expected.add((seed, 0.5 + i))
    started = 10.0
    runs = 0
    with ThreadPoolExecutor(max_workers=3) as pool:
        while runs < 21:
            for who in PEOPLE:  # each adds work between syncs
                started += 1
                expected.add((annotate(c[who], started, who), started))
            procs = list(pool.map(lambda w: c[w].tddgit("notes", "sync", "--json"), PEOPLE))
            for proc in procs:
                assert proc.returncode == 0, proc.stderr
                assert json.loads(proc.stdout)["remote"] == "origin"
            runs += len(procs)
    for who in PEOPLE:  # one more round so everyone has what the last pushes brought
        c[who].tddgit("notes", "sync", check=True)
    for who in PEOPLE:
        assert records(c[who]) == expected, who
    on_remote = GitRepo(remote).git("notes", "--ref=tddgit", "list")
    assert len(on_remote.splitlines()) == len({commit for commit, _ in expected})
    merged = read_note(find_repo(c["cat"].root), seed)
    assert merged is not None and merged.started == 0.5  # the earliest record is the evidence


def test_sync_twice_changes_nothing_and_a_remote_without_notes_is_fine(tmp_path: Path) -> None:
    remote, c = team(tmp_path)
    first = c["ann"].tddgit("notes", "sync", "--json", check=True)  # nobody has notes yet
    assert json.loads(first.stdout)["pushed"] is False
    annotate(c["ann"], 1.0, "ann")
    assert json.loads(c["ann"].tddgit("notes", "sync", "--json", check=True).stdout)["pushed"]
    tip = GitRepo(remote).git("rev-parse", "refs/notes/tddgit")
    again = json.loads(c["ann"].tddgit("notes", "sync", "--json", check=True).stdout)
    assert again["pushed"] is False and again["combined"] == 0
    assert GitRepo(remote).git("rev-parse", "refs/notes/tddgit") == tip


def test_an_unknown_remote_is_one_line_and_exit_2(tmp_path: Path) -> None:
    _, c = team(tmp_path)
    proc = c["ann"].tddgit("notes", "sync", "nowhere")
    assert proc.returncode == 2
    assert "no git remote named 'nowhere'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_note_of_several_records_reads_as_its_earliest() -> None:
    late, early = evidence("ab" * 20, 9.0, "x"), evidence("ab" * 20, 3.0, "y")
    both = combine(late.dumps(), early.dumps())
    assert combine(early.dumps(), late.dumps()) == both  # order-independent bytes
    assert combine(both, late.dumps()) == both  # idempotent
    assert parse_note(both) == early
    assert [ev.started for ev in parse_records(both)] == [3.0, 9.0]


def test_the_audit_reads_a_merged_note(tmp_path: Path) -> None:
    _, c = team(tmp_path)
    seed = c["ann"].head()
    annotate(c["ann"], 2.0, "ann", commit=seed)
    c["ann"].tddgit("notes", "sync", check=True)
    annotate(c["bob"], 1.0, "bob", commit=seed)
    c["bob"].tddgit("notes", "sync", check=True)
    notes = read_all_notes(find_repo(c["bob"].root))
    ev = notes[seed]
    assert isinstance(ev, Evidence) and ev.started == 1.0


@pytest.mark.parametrize("hook_first", [False])
def test_share_notes_hook_syncs_on_push(tmp_path: Path, hook_first: bool) -> None:
    remote, c = team(tmp_path)
    c["ann"].tddgit("hooks", "install", "--share-notes", check=True)
    assert (c["ann"].root / ".git/hooks/pre-push").exists()
    sha = annotate(c["ann"], 1.0, "ann")
    c["ann"].git("push", "-q", "origin", "HEAD:main")
    assert sha in GitRepo(remote).git("notes", "--ref=tddgit", "list")
