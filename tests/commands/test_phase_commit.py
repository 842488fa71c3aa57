"""How `tddgit red|green|refactor` commits: the editor when no message is given, and a
stdout closed early (`| head -1`). Whatever goes wrong, nothing is lost."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

from tests.conftest import TDDGIT, GitRepo
from tests.project import stage_red, start_project, trailer


def _editor(repo: GitRepo, script: str) -> str:
    """A GIT_EDITOR command: a small Python script run on the message file."""
    path = repo.root.parent / "editor.py"
    path.write_text(script)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def test_no_message_and_an_unchanged_editor_message_aborts(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    before = repo.head()
    # the editor leaves the message as git prepared it: only the trailer and comments
    editor = _editor(repo, "import sys\nopen(sys.argv[1]).read()\n")
    proc = repo.tddgit("red", env={"GIT_EDITOR": editor})
    assert proc.returncode == 1, proc.stderr
    assert repo.head() == before  # nothing committed, never the trailer as the subject
    assert "empty commit message" in proc.stderr
    # the gate's evidence is kept: a plain `git commit` can still use it
    assert repo.git("diff", "--cached", "--name-only").strip() == "tests/test_calc.py"


def test_no_message_with_an_empty_editor_aborts(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    before = repo.head()
    proc = repo.tddgit("red", env={"GIT_EDITOR": ":"})
    assert proc.returncode == 1, proc.stderr
    assert repo.head() == before


def test_no_message_opens_the_editor_and_commits_what_was_written(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    editor = _editor(
        repo,
        "import sys\np = sys.argv[1]\ntext = open(p).read()\n"
        "open(p, 'w').write('test sub\\n' + text)\n",
    )
    proc = repo.tddgit("red", env={"GIT_EDITOR": editor})
    assert proc.returncode == 0, proc.stderr
    assert repo.git("log", "-1", "--format=%s").strip() == "test sub"
    assert trailer(repo) == "red"
    assert json.loads(repo.git("notes", "--ref=tddgit", "show", "HEAD"))["phase"] == "red"


def test_stdout_closed_early_still_commits_with_note_and_exit_0(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    before = repo.head()
    read_end, write_end = os.pipe()
    os.close(read_end)  # as `| head -1` after its line: every write gets EPIPE
    try:
        proc = subprocess.run(
            [*TDDGIT, "red", "-m", "test sub"],
            cwd=repo.root,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(write_end)
    assert repo.head() != before, proc.stderr
    assert trailer(repo) == "red"
    assert json.loads(repo.git("notes", "--ref=tddgit", "show", "HEAD"))["phase"] == "red"
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "did not create a commit" not in proc.stderr


def test_piped_into_head_keeps_the_commit(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    before = repo.head()
    cmd = " ".join(shlex.quote(a) for a in TDDGIT) + " red -m 'test sub' | head -1"
    proc = subprocess.run(
        ["bash", "-o", "pipefail", "-c", cmd],
        cwd=repo.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert repo.head() != before
    assert json.loads(repo.git("notes", "--ref=tddgit", "show", "HEAD"))["phase"] == "red"
