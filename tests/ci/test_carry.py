"""`tddgit notes carry` after a rebase merge and a squash merge made as GitHub makes them."""

from __future__ import annotations

import json
from pathlib import Path

from tddgit.noterecords import split_records
from tests.audit.helpers import Steps, note
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


def test_verify_reproves_each_step_of_a_carried_squash(tmp_path: Path) -> None:
    """A CI clone of the shared remote: main moved on after the pull request branched, the
    pull request is squashed as GitHub squashes it, `notes carry` gives the squash its
    steps' records; `--verify` re-runs each step's targets on main as it was (the squash's
    parent) with the pull request's change up to that step: the red fails, the green
    passes."""
    pr = make_pull_request(tmp_path, main_commits=2)
    dev = GitRepo(tmp_path / "dev")
    dev.git("checkout", "-q", "main")
    Steps(dev).commit("docs later", {"NOTES": "x\n"}, at=100)
    dev.git("push", "-q", str(pr.remote), "main")
    ci = GitRepo(tmp_path / "ci")
    GitRepo(tmp_path).git("clone", "-q", str(pr.remote), str(ci.root))
    ci.git("fetch", "-q", "origin", "refs/notes/*:refs/notes/*", "pr:refs/remotes/origin/pr")
    before = ci.head()
    ci.git("merge", "-q", "--squash", "origin/pr")
    squash = Steps(ci).commit(GITHUB_SQUASH, at=200)
    rng = f"{before}..main"
    plain = ci.tddgit("audit", rng, "--json", "--verify")
    assert "0 hold" in plain.stderr, plain.stderr  # no note yet: nothing to re-prove
    ci.tddgit("notes", "carry", rng, check=True)
    verified = ci.tddgit("audit", rng, "--json", "--verify")
    assert "2 hold, 0 contradicted, 0 inconclusive" in verified.stderr, verified.stderr
    assert "squash" in verified.stderr and squash[:10] in verified.stderr
    assert "evidence-contradiction" not in rules(verified.stdout)
    assert ci.git("worktree", "list").count("\n") == 1  # the throwaway worktrees are gone
    assert ci.git("status", "--porcelain") == ""


def test_verify_contradicts_a_carried_step_that_does_not_hold(tmp_path: Path) -> None:
    """The same squash, but the pull request's "green" did not make its test pass: the
    carried green step is re-run and contradicted."""
    make_pull_request(tmp_path, main_commits=2)
    dev = GitRepo(tmp_path / "dev")
    dev.git("checkout", "-q", "pr")
    broken = Steps(dev).commit("tidy more", {"calc.py": "def add(a, b):\n    return a - b\n"})
    note(dev, broken, "green", [{"id": "tests/test_calc.py::test_add", "outcome": "passed"}])
    dev.git("checkout", "-q", "main")
    before = dev.head()
    dev.git("merge", "-q", "--squash", "pr")
    Steps(dev).commit(GITHUB_SQUASH + "\n* tidy more\n\nGSD-Phase: green\n", at=200)
    rng = f"{before}..main"
    dev.tddgit("notes", "carry", rng, check=True)
    verified = dev.tddgit("audit", rng, "--json", "--verify")
    assert "2 hold, 1 contradicted" in verified.stderr, verified.stderr
    assert rules(verified.stdout).count("evidence-contradiction") == 1


def test_verify_of_a_carried_squash_without_the_pull_requests_commits_says_what_to_fetch(
    tmp_path: Path,
) -> None:
    """A clone of main alone (the pull request's commits never fetched) cannot rebuild the
    steps: inconclusive, naming the fetch to add, never "holds"."""
    pr = make_pull_request(tmp_path, main_commits=2)
    dev = GitRepo(tmp_path / "dev")
    dev.git("checkout", "-q", "main")
    before = dev.head()
    dev.git("merge", "-q", "--squash", "pr")
    Steps(dev).commit(GITHUB_SQUASH, at=200)
    dev.tddgit("notes", "carry", f"{before}..main", check=True)
    dev.git("push", "-q", str(pr.remote), "main", "refs/notes/tddgit")
    dev.git("push", "-q", str(pr.remote), "--delete", "pr")
    ci = GitRepo(tmp_path / "ci")
    url = pr.remote.as_uri()  # through the transport: only what main reaches is sent
    GitRepo(tmp_path).git("clone", "-q", "--single-branch", "-b", "main", url, str(ci.root))
    ci.git("fetch", "-q", "origin", "refs/notes/*:refs/notes/*")
    verified = ci.tddgit("audit", f"{before}..main", "--json", "--verify")
    assert "0 hold, 0 contradicted, 2 inconclusive" in verified.stderr, verified.stderr
    assert "fetch the pull request's commits" in verified.stderr


def test_verify_contradicts_carried_steps_that_are_not_the_squashs_history(
    tmp_path: Path,
) -> None:
    """A squash-shaped commit given another squash's note: the pull request's change does
    not even apply to its parent (it already holds the test), so every step is
    contradicted, nothing run."""
    make_pull_request(tmp_path, main_commits=2)
    dev = GitRepo(tmp_path / "dev")
    dev.git("checkout", "-q", "main")
    before = dev.head()
    dev.git("merge", "-q", "--squash", "pr")
    squash = Steps(dev).commit(GITHUB_SQUASH, at=200)
    dev.tddgit("notes", "carry", f"{before}..main", check=True)
    other = Steps(dev).commit(GITHUB_SQUASH, {"calc.py": "def add(a, b):\n    return 0\n"}, at=300)
    blob = dev.git("notes", "--ref=tddgit", "list", squash).strip()
    dev.git("notes", "--ref=tddgit", "add", "-C", blob, other)
    verified = dev.tddgit("audit", f"{squash}..main", "--json", "--verify")
    assert "0 hold, 2 contradicted" in verified.stderr, verified.stderr
    assert "the pull request's change does not apply to the squash's parent" in verified.stderr


def test_verify_contradicts_carried_steps_that_do_not_add_up_to_the_squash(
    tmp_path: Path,
) -> None:
    """The note applies to the commit's parent but ends elsewhere (the squash was edited
    after the pull request: `add` returns 0): every step contradicted, nothing run."""
    make_pull_request(tmp_path, main_commits=2)
    dev = GitRepo(tmp_path / "dev")
    dev.git("checkout", "-q", "main")
    before = dev.head()
    dev.git("merge", "-q", "--squash", "pr")
    squash = Steps(dev).commit(GITHUB_SQUASH, at=200)
    dev.tddgit("notes", "carry", f"{before}..main", check=True)
    dev.git("checkout", "-q", "-b", "edited", before)
    dev.git("merge", "-q", "--squash", "pr")
    other = Steps(dev).commit(GITHUB_SQUASH, {"calc.py": "def add(a, b):\n    return 0\n"}, at=300)
    blob = dev.git("notes", "--ref=tddgit", "list", squash).strip()
    dev.git("notes", "--ref=tddgit", "add", "-C", blob, other)
    verified = dev.tddgit("audit", f"{before}..edited", "--json", "--verify")
    assert "0 hold, 2 contradicted" in verified.stderr, verified.stderr
    assert "the carried steps do not add up to this squash" in verified.stderr
