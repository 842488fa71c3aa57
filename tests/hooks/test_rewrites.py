"""Evidence survives history rewrites: notes follow rebase, commit --amend and cherry-pick
(`tddgit hooks install` sets git up for it), the tree cache stands in for a missing note,
and an amended step is judged against the commit before it."""

from __future__ import annotations

import json
import shutil

from tests.conftest import GitRepo
from tests.hooks.conftest import git_commit
from tests.project import TEST_SUB, stage_green, stage_red, start_project, trailer


def notes(repo: GitRepo) -> dict[str, dict[str, object]]:
    """commit sha -> its evidence note (parsed)."""
    out = repo.git("notes", "--ref=tddgit", "list", check=False)
    found = {}
    for line in out.splitlines():
        blob, commit = line.split()
        found[commit] = json.loads(repo.git("cat-file", "-p", blob))
    return found


def forget_cache(repo: GitRepo) -> None:
    """As on a machine that fetched the notes: no tree cache of this work tree's runs."""
    shutil.rmtree(repo.root / ".git" / "tddgit" / "evidence", ignore_errors=True)


def red_then_green(repo: GitRepo) -> tuple[str, str]:
    stage_red(repo)
    repo.tddgit("red", "-m", "test sub", check=True)
    red = repo.head()
    stage_green(repo)
    repo.tddgit("green", "-m", "implement sub", check=True)
    return red, repo.head()


LATER = {"GIT_COMMITTER_DATE": "2030-01-01T12:00:00"}  # a rewrite makes new commit ids


def test_install_makes_notes_follow_rewrites(hooked: GitRepo) -> None:
    assert hooked.git("config", "--get-all", "notes.rewriteRef").split() == ["refs/notes/tddgit"]
    assert hooked.git("config", "notes.rewriteMode").strip() == "ignore"
    hooked.tddgit("hooks", "install", check=True)  # twice: still one value
    assert hooked.git("config", "--get-all", "notes.rewriteRef").split() == ["refs/notes/tddgit"]
    hooked.tddgit("hooks", "uninstall", check=True)
    assert hooked.git("config", "--get-all", "notes.rewriteRef", check=False).strip() == ""


def test_force_rebase_keeps_the_notes(hooked: GitRepo) -> None:
    red, green = red_then_green(hooked)
    forget_cache(hooked)
    hooked.git("rebase", "-q", "--force-rebase", "HEAD~2", env=LATER)
    new_red, new_green = hooked.git("rev-list", "--reverse", "HEAD~2..HEAD").split()
    assert {new_red, new_green}.isdisjoint({red, green})
    found = notes(hooked)
    assert found[new_red]["phase"] == "red" and found[new_green]["phase"] == "green"
    report = json.loads(hooked.tddgit("audit", "--format", "json", check=True).stdout)
    assert not [f for f in report["findings"] if f["rule"] == "missing-evidence"]


def test_amend_of_the_message_keeps_the_note(hooked: GitRepo) -> None:
    _, green = red_then_green(hooked)
    forget_cache(hooked)
    proc = git_commit(hooked, "--amend", "-m", "implement sub, reworded\n\nGSD-Phase: green")
    assert proc.returncode == 0, proc.stderr
    assert hooked.head() != green
    assert notes(hooked)[hooked.head()]["phase"] == "green"


def test_cherry_pick_copies_the_note(hooked: GitRepo) -> None:
    red, _ = red_then_green(hooked)
    forget_cache(hooked)
    hooked.git("checkout", "-q", "-b", "again", f"{red}~1")
    hooked.git("cherry-pick", red, env=LATER)
    assert hooked.head() != red and trailer(hooked) == "red"
    note = notes(hooked)[hooked.head()]
    assert note["phase"] == "red"
    assert note["tree"] == hooked.git("rev-parse", "HEAD^{tree}").strip()


def test_audit_finds_evidence_by_tree_when_the_note_is_missing(repo: GitRepo) -> None:
    hooked = repo  # no hooks: nothing attaches the note
    start_project(repo)
    stage_red(hooked)
    hooked.tddgit("red", "--no-commit", check=True)
    hooked.git("commit", "-q", "-m", "test sub", "--trailer", "GSD-Phase: red")
    assert hooked.head() not in notes(hooked)
    report = json.loads(hooked.tddgit("audit", "--format", "json", check=True).stdout)
    assert not [f for f in report["findings"] if f["rule"] == "missing-evidence"]
    head = next(c for c in report["commits"] if c["sha"] == hooked.head())
    assert head["evidence"] is not None


def test_amended_red_that_fixes_its_test_is_judged_against_its_parent(hooked: GitRepo) -> None:
    start = hooked.head()
    # a red whose test asserts the wrong thing about a function that does not exist yet
    hooked.write("tests/test_calc.py", TEST_SUB.replace("== 2", "== 3"), dedent=False)
    hooked.add("tests/test_calc.py")
    hooked.tddgit("red", "-m", "test sub", check=True)
    # fix the test's expectation and amend the red
    hooked.write("tests/test_calc.py", TEST_SUB, dedent=False)
    hooked.add("tests/test_calc.py")
    proc = git_commit(hooked, "--amend", "--no-edit")
    assert proc.returncode == 0, proc.stderr
    assert hooked.git("rev-parse", "HEAD~1").strip() == start
    note = notes(hooked)[hooked.head()]
    assert note["phase"] == "red"
    assert note["tree"] == hooked.git("rev-parse", "HEAD^{tree}").strip()
    assert note["parent"] == start


def test_hook_paths_import_nothing_heavy() -> None:
    """The hook modules this file exercises, the project lookup every hook makes, and the
    editor wrapper load none of click, rich, GitPython, PyYAML or anthropic."""
    import subprocess
    import sys

    code = (
        "import sys, tddgit.hooks.dispatch, tddgit.project, tddgit.hooks.commit_msg, "
        "tddgit.hooks.post_commit, tddgit.hooks.pre_commit, tddgit.editmsg; "
        "print(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('click', 'rich', 'git', 'yaml', 'anthropic')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
