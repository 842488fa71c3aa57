"""Fuzzing (hypothesis): the evidence reader against arbitrary bytes and damaged records,
and the history reader against `git log` on generated repositories. (The trailer parser is
fuzzed against `git interpret-trailers --parse` in tests/test_trailers.py.)"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tddgit.evidence import Evidence, EvidenceError, parse_evidence
from tddgit.git import find_repo
from tddgit.history import read_history
from tests.conftest import GitRepo
from tests.test_evidence import make

FUZZ = settings(max_examples=300, deadline=None)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids),
    max_leaves=20,
)


def _parse_or_reject(data: bytes | str) -> Evidence | None:
    try:
        return parse_evidence(data)
    except EvidenceError:
        return None


@FUZZ
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_are_evidence_or_evidence_error(data: bytes) -> None:
    _parse_or_reject(data)


@FUZZ
@given(st.dictionaries(st.sampled_from(sorted(make().to_json())), json_values))
def test_any_field_of_any_type_is_evidence_or_evidence_error(fields: dict[str, object]) -> None:
    _parse_or_reject(json.dumps({**make().to_json(), **fields}))


@FUZZ
@given(st.data())
def test_a_damaged_record_never_reads_as_a_different_valid_one(data: st.DataObject) -> None:
    good = make().dumps().encode()
    cut = data.draw(st.integers(0, len(good) - 2))
    assert _parse_or_reject(good[:cut]) is None  # a half-written file is never valid
    pos = data.draw(st.integers(0, len(good) - 1))
    flipped = good[:pos] + bytes([good[pos] ^ data.draw(st.integers(1, 255))]) + good[pos + 1 :]
    _parse_or_reject(flipped)


@FUZZ
@given(
    st.lists(
        st.text(min_size=1, max_size=12)
        | st.binary(min_size=1, max_size=12).map(lambda b: b.decode("utf-8", "surrogateescape")),
        max_size=4,
    )
)
def test_any_path_round_trips(paths: list[str]) -> None:
    """Including names that are not UTF-8 (surrogate-escaped): they once crashed the cache."""
    ev = replace(make(), changes={"test": tuple(paths)})
    assert parse_evidence(ev.dumps().encode("utf-8")) == ev


# --- the history reader against git log ---------------------------------------------------

names = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\0/"),
    min_size=1,
    max_size=10,
).filter(lambda s: s not in (".", "..", ".git") and s.strip() == s)
# No lone surrogates: a command-line argument cannot carry them (git gets bytes).
messages = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=60
)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("write"), names, messages),
        st.tuples(st.just("empty"), messages),
        st.tuples(st.just("rename"), names, messages),
        st.tuples(st.just("merge"), names, messages),
    ),
    min_size=1,
    max_size=6,
)


def _build(repo: GitRepo, plan: list[tuple[str, ...]]) -> None:
    repo.write("seed.txt", "seed\n")
    repo.commit("seed")
    files = ["seed.txt"]
    for i, op in enumerate(plan):
        msg = op[-1] or f"op {i}"
        if op[0] == "write":
            repo.write(f"d/{op[1]}", f"{i}\n")
            files.append(f"d/{op[1]}")
            repo.git("add", "-A")
            repo.git("commit", "-q", "--allow-empty", "--allow-empty-message", "-m", msg)
        elif op[0] == "empty":
            repo.git("commit", "-q", "--allow-empty", "--allow-empty-message", "-m", msg)
        elif op[0] == "rename":
            src, dst = files[-1], f"r{i}/{op[1]}"
            (repo.root / dst).parent.mkdir(parents=True, exist_ok=True)
            repo.git("mv", "-f", src, dst)
            files[-1] = dst
            repo.git("commit", "-q", "--allow-empty", "--allow-empty-message", "-m", msg)
        else:
            repo.git("checkout", "-q", "-b", f"b{i}")
            repo.write(f"m{i}/{op[1]}", "side\n")
            repo.git("add", "-A")
            repo.git("commit", "-q", "-m", "side")
            repo.git("checkout", "-q", "-")
            # `git merge` has no --allow-empty-message: a blank message is refused
            merged = msg if msg.strip() else f"merge {i}"
            repo.git("merge", "-q", "--no-ff", "-m", merged, f"b{i}")


def _git_log(root: Path) -> list[tuple[str, tuple[str, ...], str, str]]:
    out = subprocess.run(
        ["git", "log", "--topo-order", "-z", "--format=%H%x01%P%x01%T%x01%B"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "surrogateescape")
    rows = []
    for rec in out.split("\0"):
        if not rec:
            continue
        sha, parents, tree, body = rec.lstrip("\n").split("\x01", 3)
        rows.append((sha, tuple(parents.split()), tree, body))
    return rows


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=ops)
def test_history_reader_agrees_with_git_log(
    tmp_path_factory: pytest.TempPathFactory, plan: list[tuple[str, ...]]
) -> None:
    root = tmp_path_factory.mktemp("fuzz-history")
    repo = GitRepo(root)
    repo.git("init", "-q")
    _build(repo, plan)
    ours = list(read_history(find_repo(root)))
    theirs = _git_log(root)
    assert [c.sha for c in ours] == [t[0] for t in theirs]
    for c, (sha, parents, tree, body) in zip(ours, theirs, strict=True):
        assert c.parents == parents and c.tree == tree, sha
        assert c.message.rstrip("\n") == body.rstrip("\n"), sha
        if not c.is_merge:
            names = subprocess.run(
                ["git", "diff-tree", "--root", "-r", "-z", "--name-only", "--no-commit-id", sha],
                cwd=root,
                capture_output=True,
                check=True,
            ).stdout.decode("utf-8", "surrogateescape")
            touched = {p for p in names.split("\0") if p}
            assert {f.path for f in c.files} <= touched | {f.old_path for f in c.files}
