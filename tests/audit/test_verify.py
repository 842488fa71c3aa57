"""`tddgit audit --verify`: real pytest runs at real declared commits, in throwaway worktrees.

The repositories are made with plain `git commit --trailer "GSD-Phase: ..."` and no hooks,
so a declared phase can lie; the re-run has to catch it, and leave the user's tree alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tddgit.audit.verify import Verifier, claims_of, worktree
from tddgit.config import load_config
from tddgit.git import find_repo
from tests.audit.helpers import audit, note
from tests.conftest import GitRepo

CALC_STUB = "def add(a, b):\n    raise NotImplementedError\n"
CALC_ADD = "def add(a, b):\n    return a + b\n"
TEST_ADD = "import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n"
TEST_NEG = "\n\ndef test_add_neg():\n    assert calc.add(-1, -2) == -3\n"
TEST_MUL = "\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
# Writes a marker when it runs: proof of whether the repository's code was executed.
TEST_MARK = (
    "import os\n\n\ndef test_marked():\n"
    "    open(os.environ['VERIFY_MARK'], 'w').close()\n"
    "    assert False\n"
)
TEST_HANG = "import time\n\n\ndef test_hang():\n    time.sleep(120)\n    assert False\n"


def declare(repo: GitRepo, message: str, phase: str, files: dict[str, str]) -> str:
    for path, content in files.items():
        repo.write(path, content, dedent=False)
        repo.add(path)
    repo.git("commit", "-q", "-m", message, "--trailer", f"GSD-Phase: {phase}")
    return repo.head()


def base(repo: GitRepo, timeout: int = 30) -> None:
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    repo.write(".tddgit.yaml", f"timeout: {timeout}\n")
    repo.write("calc.py", CALC_STUB, dedent=False)
    repo.commit("project skeleton")


@pytest.fixture
def honest_and_lying(repo: GitRepo) -> dict[str, str]:
    """An honest red/green, a red whose new test passes, a green whose test still fails,
    and a red whose test hangs (timeout 45 s: honest runs must not hit it on a busy machine;
    10 s was hit at a load of 15 on 2 cores)."""
    base(repo, timeout=45)
    shas = {
        "red": declare(repo, "red: add", "red", {"tests/test_calc.py": TEST_ADD}),
        "green": declare(repo, "green: add", "green", {"calc.py": CALC_ADD}),
        "lying-red": declare(
            repo, "red: negatives", "red", {"tests/test_calc.py": TEST_ADD + TEST_NEG}
        ),
        "red-mul": declare(
            repo, "red: mul", "red", {"tests/test_calc.py": TEST_ADD + TEST_NEG + TEST_MUL}
        ),
        "lying-green": declare(
            repo,
            "green: mul",
            "green",
            {"calc.py": CALC_ADD + "\n\ndef mul(a, b):\n    return 5\n"},
        ),
        "hanging-red": declare(repo, "red: slow", "red", {"tests/test_hang.py": TEST_HANG}),
    }
    return shas


def user_state(repo: GitRepo) -> dict[str, str]:
    """Everything --verify must leave as it was."""
    return {
        "status": repo.git("status", "--porcelain=v1", "-z", "--untracked-files=all"),
        "index": repo.git("ls-files", "-s", "--debug"),
        "staged": repo.git("diff", "--cached"),
        "unstaged": repo.git("diff"),
        "worktrees": repo.git("worktree", "list", "--porcelain"),
        "refs": repo.git("for-each-ref"),
        "head": repo.git("symbolic-ref", "HEAD"),
        "files": "\n".join(
            f"{p.relative_to(repo.root)}:{p.read_bytes()!r}"
            for p in sorted(repo.root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(repo.root).parts
        ),
    }


def dirty(repo: GitRepo) -> None:
    """A user mid-work: a staged change, an unstaged change and an untracked file."""
    repo.write("notes.txt", "untracked\n")
    repo.write("calc.py", CALC_ADD + "# staged\n", dedent=False)
    repo.add("calc.py")
    repo.write("calc.py", CALC_ADD + "# staged\n# unstaged\n", dedent=False)


def test_verify_catches_lying_phases_and_a_hang_without_touching_the_user(
    repo, honest_and_lying, tmp_path
):
    dirty(repo)
    before = user_state(repo)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = repo.tddgit(
        "audit", "--verify", "--jobs", "2", "--format", "json", env={"TMPDIR": str(tmp)}
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    verified = {
        f["commit"]: f
        for f in doc["findings"]
        if f["rule"] == "evidence-contradiction" and "verify" in f.get("data", {})
    }
    s = honest_and_lying
    assert set(verified) == {s["lying-red"], s["lying-green"], s["hanging-red"]}

    lie = verified[s["lying-red"]]
    assert lie["severity"] == "error"
    assert lie["data"]["verify"]["verdict"] == "contradiction"
    assert "tests/test_calc.py::test_add_neg: passed" in lie["message"]
    assert "claimed: its targets fail for the right reason" in lie["message"]
    observed = {o["id"]: o["outcome"] for o in lie["data"]["verify"]["observed"]}
    assert observed == {"tests/test_calc.py::test_add_neg": "passed"}

    green = verified[s["lying-green"]]
    assert green["severity"] == "error"
    assert green["related"] == [s["red-mul"]]
    assert "tests/test_calc.py::test_mul: still failed (assertion)" in green["message"]

    hang = verified[s["hanging-red"]]
    assert hang["severity"] == "warning"
    assert hang["data"]["verify"]["verdict"] == "inconclusive"
    assert "killed after 45 s (amber: timeout)" in hang["message"]

    assert "executes this repository's code" in proc.stderr.splitlines()[0]
    assert sum(line.startswith("verify ") for line in proc.stderr.splitlines()) == 6
    assert "3 hold, 2 contradicted, 1 inconclusive" in proc.stderr
    assert user_state(repo) == before
    assert list(tmp.iterdir()) == []  # every worktree directory was removed


def test_the_audit_runs_no_code_without_verify_and_does_with_it(repo, tmp_path):
    base(repo)
    declare(repo, "red: marked", "red", {"tests/test_mark.py": TEST_MARK})
    mark = tmp_path / "ran"
    env = {"VERIFY_MARK": str(mark)}

    plain = repo.tddgit("audit", "--format", "json", env=env, check=True)
    assert not mark.exists()
    assert "executes" not in plain.stderr
    assert not [f for f in json.loads(plain.stdout)["findings"] if "verify" in f.get("data", {})]

    repo.tddgit("audit", "--verify", "--format", "json", env=env, check=True)
    assert mark.exists()


def test_evidence_targets_are_the_claim(repo):
    """With an evidence note, exactly its targets are re-run; a passing neighbour added in
    the same red commit is not part of the claim."""
    base(repo)
    red = declare(
        repo,
        "red: add",
        "red",
        {"tests/test_calc.py": TEST_ADD + "\n\ndef test_true():\n    assert True\n"},
    )
    note(
        repo,
        red,
        "red",
        [{"id": "tests/test_calc.py::test_add", "outcome": "failed", "cause": "not-implemented"}],
    )
    r = find_repo(repo.root)
    config = load_config(r.root)
    report = audit(repo)
    [claim] = claims_of(r, config, report)
    assert (claim.targets, claim.source) == (("tests/test_calc.py::test_add",), "the evidence note")

    verifier = Verifier(r, config, jobs=1)
    assert verifier(report) == []
    assert [v.status for v in verifier.verdicts] == ["holds"]


def test_without_evidence_the_red_commits_changed_tests_are_the_targets(repo):
    base(repo)
    repo.write("tests/test_calc.py", TEST_ADD, dedent=False)
    repo.commit("an old test")
    red = declare(repo, "red: neg", "red", {"tests/test_calc.py": TEST_ADD + TEST_NEG})
    r = find_repo(repo.root)
    [claim] = claims_of(r, load_config(r.root), audit(repo))
    assert claim.commit == red
    assert claim.targets == ("tests/test_calc.py::test_add_neg",)


def test_a_green_without_a_red_must_pass_the_whole_suite(repo):
    base(repo)
    repo.write("tests/test_calc.py", TEST_ADD, dedent=False)
    repo.commit("a test")
    declare(repo, "green: nothing", "green", {"README.md": "no code\n"})
    r = find_repo(repo.root)
    config = load_config(r.root)
    report = audit(repo)
    verifier = Verifier(r, config, jobs=1)
    [found] = verifier(report)
    assert found.severity == "error"
    assert "tests/test_calc.py::test_add: still failed (not-implemented)" in found.message
    assert verifier.verdicts[0].claim.source.endswith("the whole suite")


def test_worktree_is_removed_even_when_the_run_fails(repo, tmp_path, monkeypatch):
    base(repo)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    r = find_repo(repo.root)
    before = repo.git("worktree", "list")
    seen: list[Path] = []
    with pytest.raises(RuntimeError), worktree(r, repo.head()) as root:
        seen.append(root)
        assert (root / "calc.py").read_text() == CALC_STUB
        assert len(repo.git("worktree", "list").splitlines()) == 2
        raise RuntimeError("the run broke")
    assert not seen[0].exists()
    assert [p for p in tmp_path.iterdir() if p.name.startswith("tddgit-verify-")] == []
    assert repo.git("worktree", "list") == before


def test_worktrees_made_and_removed_at_once_never_fail(repo):
    """`--verify` runs two commits at a time. Removing the last worktree deletes git's
    empty `.git/worktrees`; an add racing with it failed ("could not create directory of
    '.git/worktrees/…': No such file or directory": seen in CI as an inconclusive
    verdict). Adds and removes take turns."""
    import threading

    base(repo)
    r = find_repo(repo.root)
    head = repo.head()
    errors: list[str] = []

    def work() -> None:
        for _ in range(15):
            try:
                with worktree(r, head) as root:
                    assert (root / "calc.py").exists()
            except Exception as exc:  # every failure counts, whatever its type
                errors.append(str(exc))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(repo.git("worktree", "list").splitlines()) == 1


def test_jobs_must_be_positive(repo):
    base(repo)
    proc = repo.tddgit("audit", "--verify", "--jobs", "0")
    assert proc.returncode == 2
    assert "--jobs" in proc.stderr


def test_no_declared_commits_means_nothing_to_run(repo):
    base(repo)
    proc = repo.tddgit("audit", "--verify", check=True)
    assert "re-ran 0 declared commits" in proc.stderr
    assert len(repo.git("worktree", "list").splitlines()) == 1
