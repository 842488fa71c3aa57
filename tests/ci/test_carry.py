"""`tddgit notes carry` after a rebase merge and a squash merge made as GitHub makes them."""

from __future__ import annotations

import json
from pathlib import Path

from tddgit.noterecords import split_records
from tests.audit.helpers import Steps
from tests.ci.prshape import make_pull_request
from tests.conftest import GitRepo

GITHUB_SQUASH = (
    "Add calc (#7)\n\n"
    "* test add\n\nGSD-Phase: red\n\n"
    "* add\n\nGSD-Phase: green\n\n"
    "* tidy\n\nGSD-Phase: refactor\n"
)


def rules(proc_stdout: str) -> list[str]:
    return [f["rule"] for f in json.loads(proc_stdout)["findings"]]


def test_rebase_merge_keeps_its_proof_and_verify_reproves_it(tmp_path: Path) -> None:
    make_pull_request(tmp_path, main_commits=2)
    dev = GitRepo(tmp_path / "dev")
    dev.git("checkout", "-q", "main")
    Steps(dev).commit("docs later", {"NOTES": "x\n"}, at=100)
    before = dev.head()
    dev.git("checkout", "-q", "-b", "merged", "pr")
    dev.git("rebase", "-q", "main")  # new ids, no notes (notes.rewriteRef is not set)
    dev.git("checkout", "-q", "main")
    dev.git("merge", "-q", "--ff-only", "merged")
    rng = f"{before}..main"
    assert rules(dev.tddgit("audit", rng, "--json", check=True).stdout) == ["missing-evidence"] * 3
    carried = dev.tddgit("notes", "carry", rng, "--json", check=True)
    assert [c["how"] for c in json.loads(carried.stdout)] == ["rebase"] * 3
    after = dev.tddgit("audit", rng, "--json", "--require-evidence", check=True)
    assert rules(after.stdout) == ["evidence-rebased"] * 3
    assert json.loads(after.stdout)["metrics"]["conformance"] == 100.0
    verified = dev.tddgit("audit", rng, "--json", "--verify")
    assert "2 hold, 0 contradicted" in verified.stderr, verified.stderr
    again = dev.tddgit("notes", "carry", rng, "--json", check=True)
    assert json.loads(again.stdout) == []  # idempotent


def test_squash_merge_gets_the_pull_requests_notes(tmp_path: Path) -> None:
    pr = make_pull_request(tmp_path, main_commits=2)
    dev = GitRepo(tmp_path / "dev")
    dev.git("checkout", "-q", "main")
    before = dev.head()
    dev.git("merge", "-q", "--squash", "pr")
    squash = Steps(dev).commit(GITHUB_SQUASH, at=200)
    rng = f"{before}..main"
    assert rules(dev.tddgit("audit", rng, "--json").stdout) == [
        "squashed-steps",
        "missing-evidence",
    ]
    carried = json.loads(dev.tddgit("notes", "carry", rng, "--json", check=True).stdout)
    assert carried == [{"commit": squash, "originals": list(pr.steps), "how": "squash"}]
    note = dev.git("notes", "--ref=tddgit", "show", squash)
    assert [json.loads(chunk)["phase"] for chunk in split_records(note)] == [
        "red",
        "green",
        "refactor",
    ]
    after = dev.tddgit("audit", rng, "--json", "--require-evidence", check=True)
    assert rules(after.stdout) == ["squashed-steps"]
