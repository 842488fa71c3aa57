"""The commits array encoded during the pass (``tddgit.audit.spool``): the same report."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from tddgit.audit import AuditOptions, run_audit, spool
from tddgit.audit.model import CommitRecord
from tddgit.audit.report import commit_line, write_json
from tddgit.audit.spool import Spool
from tddgit.config import load_config
from tddgit.git import find_repo
from tests.audit.helpers import Steps, note, when
from tests.conftest import GitRepo


def _history(repo: GitRepo) -> None:
    """Eleven commits: trailers, an evidence note, odd names, a merge, and a revert of the
    second commit at the end (its record changes after many others were made)."""
    s = Steps(repo)
    s.commit("readme", {"README.md": "x\n"})
    s.commit("red: wrong test", {"tests/test_a.py": "def test_a():\n    assert 2 == 3\n"})
    wrong = repo.head()
    red = s.commit(
        "first test", {"tests/test_b.py": "def test_b():\n    assert b() == 1\n"}, phase="red"
    )
    note(repo, red, "red")
    s.commit("green: b", {"b.py": "def b():\n    return 1\n", "ünï “q”.py": "x = 1\n"})
    repo.git("checkout", "-q", "-b", "side")
    s.commit("side work", {"c.py": "C = 1\n"})
    repo.git("checkout", "-q", "main")
    s.commit("refactor: b", {"b.py": "def b():\n    return 2 - 1\n"})
    env = {"GIT_AUTHOR_DATE": when(100), "GIT_COMMITTER_DATE": when(100)}
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side", env=env)
    for i in range(3):
        s.commit(f"docs {i}", {"docs/a.md": f"{i}\n"})
    s.minute += 10
    env = {"GIT_AUTHOR_DATE": when(s.minute), "GIT_COMMITTER_DATE": when(s.minute)}
    repo.git("revert", "--no-edit", wrong, env=env)


def _report_text(repo: GitRepo, *, use_spool: bool | str | None, to_file: Path | None) -> str:
    r = find_repo(repo.root)
    options = AuditOptions(prerender_json=("utf-8", "strict"), spool=use_spool)
    report = run_audit(r, load_config(r.root), options)
    if to_file is None:
        buf = io.StringIO()  # no file descriptor: the spool's bytes are decoded and written
        write_json(report, buf)
        return buf.getvalue()
    with open(to_file, "w", encoding="utf-8", errors="strict") as out:
        write_json(report, out)
    return to_file.read_text(encoding="utf-8")


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool, "BATCH", 3)  # the revert lands in an already written batch


@pytest.mark.usefixtures("small_batches")
def test_the_spooled_report_is_the_plain_one(repo: GitRepo, tmp_path: Path) -> None:
    _history(repo)
    plain = _report_text(repo, use_spool=False, to_file=tmp_path / "plain.json")
    doc = json.loads(plain)
    assert len(doc["commits"]) == 11
    assert doc["commits"][1]["attempt"] == "undone"  # the reverted commit's record changed
    assert _report_text(repo, use_spool=True, to_file=tmp_path / "spooled.json") == plain
    assert _report_text(repo, use_spool=True, to_file=None) == plain


@pytest.mark.usefixtures("small_batches")
def test_the_idly_spooled_report_is_the_plain_one(repo: GitRepo, tmp_path: Path) -> None:
    _history(repo)
    plain = _report_text(repo, use_spool=False, to_file=tmp_path / "plain.json")
    assert _report_text(repo, use_spool="idle", to_file=tmp_path / "idle.json") == plain
    assert _report_text(repo, use_spool="idle", to_file=None) == plain


def test_the_cli_gives_the_same_report_either_way(repo: GitRepo) -> None:
    _history(repo)
    runs = {
        mode: repo.tddgit("audit", "--format", "json", env={"TDDGIT_AUDIT_SPOOL": mode})
        for mode in ("0", "1", "idle")
    }
    assert runs["0"].returncode == runs["1"].returncode == 0, runs["1"].stderr
    assert runs["1"].stdout == runs["0"].stdout == runs["idle"].stdout
    assert json.loads(runs["1"].stdout)["commits"][1]["attempt"] == "undone"


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("changed", [0, 4, 10])  # in an idly written batch, or in the tail
@pytest.mark.parametrize("fork", [True, False])
def test_idly_written_batches_a_replaced_record_and_the_tail(
    repo: GitRepo, changed: int, fork: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tddgit.audit import parallel

    monkeypatch.setattr(parallel, "can_fork", lambda: fork)
    _history(repo)
    records = _records(repo)
    line = commit_line()
    sp = Spool.open(line, "utf-8", "strict")
    assert sp is not None
    made: list[CommitRecord] = []
    sp.encode_idly(made)
    assert sp.encode_some() is False  # nothing made yet
    for r in records:
        made.append(r)
        sp.add(r)
        if len(made) == 8:
            assert sp.encode_some() is True  # two whole batches of 3, not the 8th record
    assert sp.offsets[2] > 0 and len(sp.offsets) == 3
    made[changed] = replace(records[changed], subject="changed “é”")
    sp.replace(changed, made[changed])
    sp.close(made)
    assert (sp.tail is not None) == fork  # the rest, in a child (or here without fork)
    path = tmp_path / "items.json"
    with open(path, "w", encoding="utf-8") as out:
        assert spool.ready_for(made, out) is sp
        sp.write_items(out)
    assert path.read_text(encoding="utf-8") == "\n  " + ",\n  ".join(line(r) for r in made)
    sp.discard()


def _records(repo: GitRepo) -> list[CommitRecord]:
    r = find_repo(repo.root)
    return list(run_audit(r, load_config(r.root), AuditOptions()).commits)


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("changed", [0, 4, 8, 9, 10])  # written batches, then pending lines
def test_a_replaced_record_is_encoded_from_its_final_version(
    repo: GitRepo, changed: int, tmp_path: Path
) -> None:
    _history(repo)
    records = _records(repo)
    line = commit_line()
    sp = Spool.open(line, "utf-8", "strict")
    assert sp is not None
    for r in records:
        sp.add(r)  # batches of 3: records 0-8 written, 9 and 10 still pending
    final = list(records)
    final[changed] = replace(records[changed], subject="changed “é”")
    sp.replace(changed, final[changed])
    sp.close(final)
    path = tmp_path / "items.json"
    with open(path, "w", encoding="utf-8") as out:
        assert spool.ready_for(final, out) is sp
        sp.write_items(out)
    expected = "\n  " + ",\n  ".join(line(r) for r in final)
    assert path.read_text(encoding="utf-8") == expected
    assert "changed “é”" in expected
    sp.discard()
    assert spool.ready_for(final, io.StringIO()) is None


def test_a_stream_of_another_encoding_is_not_served(repo: GitRepo) -> None:
    _history(repo)
    records = _records(repo)
    sp = Spool.open(commit_line(), "utf-8", "strict")
    assert sp is not None
    for r in records:
        sp.add(r)
    sp.close(records)
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1", errors="replace")
    assert not sp.serves(records, latin)
    assert not sp.serves(list(records), io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    sp.discard()
