"""Evidence: validation of untrusted notes, the atomic tree-keyed cache, and notes."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

from tddgit.evidence import (
    MAX_BYTES,
    Evidence,
    EvidenceError,
    cache_get,
    cache_put,
    parse_evidence,
)
from tddgit.git import find_repo
from tddgit.model import Cause, Outcome, TestResult
from tddgit.notes import read_all_notes, read_note, write_note
from tests.conftest import GitRepo

TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def make(phase: str = "red", tree: str = TREE, started: float = 1.0) -> Evidence:
    return Evidence(
        phase=phase,
        tree=tree,
        parent=None,
        runner="pytest",
        command=("pytest",),
        started=started,
        duration=0.5,
        tddgit_version="0",
        scope="changed",
        targets=(TestResult("t.py::test_a", Outcome.FAILED, Cause.ASSERTION, "boom"),),
        suite={"passed": 1, "failed": 1},
        test_ids=("t.py::test_a", "t.py::test_b"),
        changes={"test": ("t.py",)},
    )


def test_round_trip() -> None:
    ev = make()
    back = parse_evidence(ev.dumps())
    assert back == ev


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"not json", "not valid JSON"),
        (b"[1]", "not a JSON object"),
        (b'{"schema": "other/1"}', "unknown evidence schema"),
        (
            json.dumps({"schema": "tddgit.evidence/1", "phase": "blue", "tree": TREE}),
            "unknown phase",
        ),
        (
            json.dumps({"schema": "tddgit.evidence/1", "phase": "red", "tree": "zz"}),
            "not an object id",
        ),
        (
            json.dumps(
                {
                    "schema": "tddgit.evidence/1",
                    "phase": "red",
                    "tree": TREE,
                    "targets": [{"id": "x", "outcome": "exploded"}],
                }
            ),
            "unknown outcome",
        ),
        (
            json.dumps(
                {"schema": "tddgit.evidence/1", "phase": "red", "tree": TREE, "suite": {"a": "b"}}
            ),
            "suite",
        ),
        (b"[" * 100000 + b"]" * 100000, "not valid JSON"),
        (b" " * (MAX_BYTES + 1), "larger than"),
    ],
)
def test_hostile_or_broken_evidence_is_rejected(data: bytes | str, why: str) -> None:
    with pytest.raises(EvidenceError, match=why):
        parse_evidence(data)


def test_cache_put_get_by_tree_and_phase(repo: GitRepo) -> None:
    r = find_repo(repo.root)
    cache_put(r, make("red", started=1.0))
    cache_put(r, make("green", started=2.0))
    got_red = cache_get(r, TREE, "red")
    assert got_red is not None and got_red.phase == "red"
    newest = cache_get(r, TREE)
    assert newest is not None and newest.phase == "green"
    assert cache_get(r, "0" * 40) is None


def test_half_written_cache_file_is_never_valid(repo: GitRepo) -> None:
    r = find_repo(repo.root)
    path = cache_put(r, make())
    path.write_text(path.read_text()[:50])
    assert cache_get(r, TREE, "red") is None


def _writer(root: str, n: int) -> None:
    r = find_repo(root)
    for i in range(n):
        cache_put(r, make(started=float(i)))


def test_concurrent_cache_writers_never_leave_a_torn_file(repo: GitRepo) -> None:
    procs = [multiprocessing.Process(target=_writer, args=(str(repo.root), 40)) for _ in range(4)]
    for p in procs:
        p.start()
    r = find_repo(repo.root)
    seen = 0
    while any(p.is_alive() for p in procs):
        got = cache_get(r, TREE, "red")
        seen += got is not None
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert cache_get(r, TREE, "red") is not None
    leftovers = [p for p in (r.tddgit_dir / "evidence").rglob(".tmp-*")]
    assert leftovers == []


def test_notes_write_read_and_bulk(repo: GitRepo) -> None:
    repo.write("a.txt", "a\n")
    c1 = repo.commit("one")
    repo.write("b.txt", "b\n")
    c2 = repo.commit("two")
    r = find_repo(repo.root)
    write_note(r, c1, make("red"))
    repo.git("notes", "--ref=tddgit", "add", "-m", "{garbage", c2)
    assert read_note(r, c1) == make("red")
    with pytest.raises(EvidenceError):
        read_note(r, c2)
    bulk = read_all_notes(r)
    assert bulk[c1] == make("red")
    assert isinstance(bulk[c2], EvidenceError)


def test_huge_note_is_skipped_not_loaded(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("a.txt", "a\n")
    c1 = repo.commit("one")
    big = tmp_path / "big"
    big.write_bytes(b"x" * (MAX_BYTES + 10))
    repo.git("notes", "--ref=tddgit", "add", "-F", str(big), c1)
    repo.write("b.txt", "b\n")
    c2 = repo.commit("two")
    r = find_repo(repo.root)
    write_note(r, c2, make("green"))
    bulk = read_all_notes(r)
    assert isinstance(bulk[c1], EvidenceError)
    assert bulk[c2] == make("green")  # the stream stays in step after the skipped blob


def test_the_evidence_module_loads_no_notes_code() -> None:
    """A hook that only reads the evidence cache must not load tddgit.notes."""
    probe = (
        "import sys, tddgit.evidence as ev\n"
        "assert 'tddgit.notes' not in sys.modules, 'loaded on import'\n"
        "assert not hasattr(ev, 'read_note') and not hasattr(ev, 'write_note')\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
