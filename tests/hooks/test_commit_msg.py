"""commit-msg, prepare-commit-msg and post-commit through real `git commit` with the
standalone hooks installed."""

from __future__ import annotations

import json
import subprocess

from tests.conftest import GitRepo
from tests.hooks.conftest import git_commit, write_config
from tests.project import CALC_SUB, stage_green, stage_red, trailer


def said(proc: subprocess.CompletedProcess[str]) -> str:
    """stderr with the refusal paragraph's line wrapping undone."""
    return " ".join(proc.stderr.split())


def notes(repo: GitRepo) -> dict[str, str]:
    out = repo.git("notes", "--ref=tddgit", "list", check=False)
    return {line.split()[1]: line.split()[0] for line in out.splitlines()}


def note_phase(repo: GitRepo, rev: str = "HEAD") -> str:
    return str(json.loads(repo.git("notes", "--ref=tddgit", "show", rev))["phase"])


def test_red_no_commit_then_plain_commit_gets_trailer_and_note(hooked: GitRepo) -> None:
    stage_red(hooked)
    hooked.tddgit("red", "--no-commit", check=True)
    proc = git_commit(hooked, "-m", "test sub")
    assert proc.returncode == 0, proc.stderr
    assert trailer(hooked) == "red"
    assert "added `GSD-Phase: red`" in said(proc)
    assert note_phase(hooked) == "red"


def test_green_with_typed_trailer_runs_gate_and_attaches_note(hooked: GitRepo) -> None:
    stage_red(hooked)
    hooked.tddgit("red", "-m", "test sub", check=True)
    stage_green(hooked)
    proc = git_commit(hooked, "-m", "implement sub", "--trailer", "GSD-Phase: Green")
    assert proc.returncode == 0, proc.stderr
    assert "running the green gate now" in said(proc)
    assert trailer(hooked) == "Green"
    assert note_phase(hooked) == "green"


def test_refactor_after_green_with_stored_evidence(hooked: GitRepo) -> None:
    stage_red(hooked)
    hooked.tddgit("red", "-m", "test sub", check=True)
    stage_green(hooked)
    hooked.tddgit("green", "-m", "implement sub", check=True)
    hooked.write("calc.py", CALC_SUB.replace("return a - b", "return a + -b"), dedent=False)
    hooked.add("calc.py")
    hooked.tddgit("refactor", "--no-commit", check=True)
    proc = git_commit(hooked, "-m", "subtract by adding", "--trailer", "GSD-Phase: refactor")
    assert proc.returncode == 0, proc.stderr
    assert "verified by stored evidence" in said(proc)
    assert note_phase(hooked) == "refactor"


def test_wrong_transition_is_refused(hooked: GitRepo) -> None:
    before = hooked.head()
    stage_green(hooked)
    proc = git_commit(hooked, "-m", "sub without a test", "--trailer", "GSD-Phase: green")
    assert proc.returncode != 0
    assert "commit refused" in said(proc) and "green-without-red" in said(proc)
    assert "Fix: commit a failing test first" in said(proc)
    assert hooked.head() == before


def test_unknown_phase_value_is_refused(hooked: GitRepo) -> None:
    stage_red(hooked)
    proc = git_commit(hooked, "-m", "x", "--trailer", "GSD-Phase: blue")
    assert proc.returncode != 0
    assert "`GSD-Phase: blue` is not a phase" in said(proc)


def test_missing_evidence_without_run_gate_is_refused(hooked: GitRepo) -> None:
    write_config(hooked, "hooks:\n  run_gate: false\n")
    before = hooked.head()
    stage_red(hooked)
    proc = git_commit(hooked, "-m", "test sub", "--trailer", "GSD-Phase: red")
    assert proc.returncode != 0
    assert "missing-evidence" in said(proc) and "tddgit red --no-commit" in said(proc)
    assert hooked.head() == before


def test_missing_evidence_with_run_gate_refuses_a_false_claim(hooked: GitRepo) -> None:
    # a new test that already passes is not red: the gate runs in the hook and refuses
    hooked.write(
        "tests/test_more.py",
        "import calc\n\ndef test_add_zero():\n    assert calc.add(0, 0) == 0\n",
    )
    hooked.add("tests/test_more.py")
    proc = git_commit(hooked, "-m", "more tests", "--trailer", "GSD-Phase: red")
    assert proc.returncode != 0
    assert "running the red gate now" in said(proc)
    assert "target-passes" in said(proc)
    assert trailer(hooked) == ""


def test_trailer_inside_prose_is_not_a_trailer(hooked: GitRepo) -> None:
    stage_green(hooked)  # would be refused as green-without-red if it were a trailer
    message = "Add sub\n\nThe ticket says\nGSD-Phase: green\nbut this is prose, not a trailer.\n"
    proc = git_commit(hooked, "-m", message)
    assert proc.returncode == 0, proc.stderr
    assert trailer(hooked) == ""


def test_comment_lines_and_scissors_are_cleaned_like_git(hooked: GitRepo) -> None:
    stage_green(hooked)
    msg = hooked.root / "msg.txt"
    msg.write_text("Add sub\n\n# GSD-Phase: green\n")
    proc = git_commit(hooked, "-F", str(msg), "--cleanup=strip")
    assert proc.returncode == 0, proc.stderr


def test_commit_all_judges_the_index_lock_tree(hooked: GitRepo) -> None:
    stage_red(hooked)
    hooked.tddgit("red", "-m", "test sub", check=True)
    hooked.write("calc.py", CALC_SUB, dedent=False)  # not staged: only -a brings it in
    proc = git_commit(hooked, "-a", "-m", "implement sub", "--trailer", "GSD-Phase: green")
    assert proc.returncode == 0, proc.stderr
    assert note_phase(hooked) == "green"
    assert hooked.git("status", "--porcelain").strip() == ""


def test_amend_is_judged_from_the_first_parent_of_head(hooked: GitRepo) -> None:
    stage_red(hooked)
    hooked.tddgit("red", "-m", "test sub", check=True)
    stage_green(hooked)
    hooked.tddgit("green", "-m", "implement sub", check=True)
    # HEAD is green: a new green would be green-without-red, an amend of it is fine
    proc = git_commit(hooked, "--amend", "-m", "implement sub, reworded\n\nGSD-Phase: green")
    assert proc.returncode == 0, proc.stderr
    assert trailer(hooked) == "green"
    assert note_phase(hooked) == "green"
    # an amend that changes the tree is judged against HEAD~1 by running the gate
    red = hooked.git("rev-parse", "HEAD~1").strip()
    hooked.write("calc.py", CALC_SUB + "\n# note\n", dedent=False)
    hooked.add("calc.py")
    proc = git_commit(hooked, "--amend", "--no-edit")
    assert proc.returncode == 0, proc.stderr
    assert "running the green gate now" in said(proc)
    assert json.loads(hooked.git("notes", "--ref=tddgit", "show", "HEAD"))["parent"] == red
    # ... unless hooks.run_gate is false: then it is refused, with the way out
    hooked.write(".tddgit.yaml", "hooks:\n  run_gate: false\n")
    hooked.write("calc.py", CALC_SUB + "\n# another note\n", dedent=False)
    hooked.add("calc.py", ".tddgit.yaml")
    proc = git_commit(hooked, "--amend", "--no-edit")
    assert proc.returncode != 0
    assert "amend" in said(proc) and "git reset --soft HEAD~1" in said(proc)


def test_merge_commit_gets_no_trailer_and_merges_are_allowed(hooked: GitRepo) -> None:
    write_config(hooked, "mode: strict\n")
    hooked.git("checkout", "-q", "-b", "side")
    hooked.write("side.py", "def side():\n    return 1\n")
    hooked.git("add", "side.py")
    assert git_commit(hooked, "--no-verify", "-m", "side work").returncode == 0
    hooked.git("checkout", "-q", "main")
    hooked.write("README.md", "# calc\n")
    hooked.commit("readme", "README.md")
    proc = hooked.git("merge", "--no-ff", "-m", "Merge side", "side", check=False)
    assert hooked.git("rev-list", "--parents", "-1", "HEAD").count(" ") == 2, proc
    assert trailer(hooked) == ""


def test_merge_declaring_a_phase_is_refused(hooked: GitRepo) -> None:
    hooked.git("checkout", "-q", "-b", "side")
    hooked.write("README.md", "# side\n")
    hooked.commit("side readme", "README.md")
    hooked.git("checkout", "-q", "main")
    hooked.write("NOTES.md", "notes\n")
    hooked.commit("notes", "NOTES.md")
    hooked.git("merge", "--no-ff", "--no-commit", "side")
    proc = git_commit(hooked, "-m", "Merge side\n\nGSD-Phase: red")
    assert proc.returncode != 0
    assert "merge" in said(proc)


def test_phase_command_commit_passes_through_the_hooks(hooked: GitRepo) -> None:
    stage_red(hooked)
    proc = hooked.tddgit("red", "-m", "test sub")
    assert proc.returncode == 0, proc.stderr
    assert trailer(hooked) == "red"
    assert note_phase(hooked) == "red"
    assert "added `GSD-Phase" not in said(proc)  # prepare-commit-msg stays out of it
