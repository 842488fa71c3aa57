"""The fast path's free paths (guard/quick.py, aftertool.free_paths): a path the full check
keeps every change of, whatever the content, is answered without a look; anything whose
verdict could differ still goes to the full check. Real repositories and the installed
hooks, as in test_quick.py."""

from __future__ import annotations

from pathlib import Path

from tddgit.guard import quick
from tests.conftest import GitRepo
from tests.guard.conftest import fire, reply
from tests.guard.test_quick import fast, full_check, installed, post, settled


def _append(repo: GitRepo, name: str, text: str) -> None:
    with (repo.root / name).open("a") as fh:
        fh.write(text)


def test_a_note_changed_again_is_answered_fast_and_kept(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    repo = installed(templates, "green", tmp_path)
    _append(repo, "notes.md", "more\n")
    assert fast(repo)
    assert reply(fire(repo, "claude-code", post(repo))) == {}
    # the full check, which never saw this change, keeps it too (the same verdict)
    assert full_check(repo) == {}
    assert (repo.root / "notes.md").read_text() == "notes\nmore\n"


def test_a_test_file_with_no_red_open_is_free(templates: dict[str, Path], tmp_path: Path) -> None:
    repo = installed(templates, "green", tmp_path)
    _append(repo, "tests/test_calc.py", "\n# one\n")
    assert not fast(repo), "a path clean at HEAD is not listed: its first change is judged"
    settled(repo)
    _append(repo, "tests/test_calc.py", "# two\n")
    assert fast(repo)


def test_production_code_after_green_is_never_free(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    """A kept refactor is listed, but each next change of it is a refactor candidate."""
    repo = installed(templates, "green", tmp_path)
    calc = repo.root / "calc.py"
    calc.write_text(calc.read_text().replace("return a + b", "return b + a"))
    settled(repo)
    calc.write_text(calc.read_text().replace("return b + a", "return a + a"))
    assert not fast(repo)
    out = reply(fire(repo, "claude-code", post(repo, "sed -i ... calc.py")))
    assert out.get("decision") == "block", out
    assert "return b + a" in calc.read_text()


def test_production_code_while_a_red_is_open_is_free(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    repo = installed(templates, "red", tmp_path)
    _append(repo, "calc.py", "\n\ndef sub(a, b):\n    return a - b\n")
    assert not fast(repo)
    settled(repo)
    _append(repo, "calc.py", "# still implementing\n")
    assert fast(repo)
    assert full_check(repo) == {}
    assert "# still implementing" in (repo.root / "calc.py").read_text()


def test_a_test_file_while_a_red_is_open_is_never_free(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    """With a red open, whether a test change is kept depends on the red's targets (its
    note): judged each time."""
    repo = installed(templates, "red", tmp_path)
    (repo.root / "tests" / "test_more.py").write_text("def test_more():\n    assert True\n")
    assert not fast(repo)
    settled(repo)
    _append(repo, "tests/test_more.py", "# again\n")
    assert not fast(repo)


def test_a_configuration_git_does_not_see_goes_to_the_full_check(
    templates: dict[str, Path], tmp_path: Path
) -> None:
    """The classification comes from the configuration: an ignored .tddgit.yml (no change in
    git status) still rules the fast path out."""
    repo = installed(templates, "green", tmp_path)
    with (repo.root / ".git" / "info" / "exclude").open("a") as fh:
        fh.write(".tddgit.yml\n")
    (repo.root / ".tddgit.yml").write_text("test_globs: ['notes.md']\n")
    assert ".tddgit.yml" not in repo.git("status", "--porcelain")
    assert not fast(repo)


def test_past_the_limit_no_path_is_free(templates: dict[str, Path], tmp_path: Path) -> None:
    from tddgit.guard.aftertool import FREE_LIMIT

    repo = installed(templates, "green", tmp_path)
    (repo.root / "many").mkdir()
    for i in range(FREE_LIMIT + 1):
        (repo.root / "many" / f"n{i}.md").write_text("x\n")
    settled(repo)
    _append(repo, "notes.md", "more\n")
    assert not fast(repo)


def test_the_record_names_the_free_paths(templates: dict[str, Path], tmp_path: Path) -> None:
    repo = installed(templates, "green", tmp_path)
    guard = str(repo.root / ".git" / "tddgit" / "guard")
    record = quick.read_record(quick.record_path(guard, str(repo.root)))
    assert record is not None
    _, free, _, status_out, _, _ = record
    listed = quick.listed(status_out)
    assert {listed[i] for i in free} == {b"notes.md"}  # not .claude/settings.json
