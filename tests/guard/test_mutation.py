"""The guard's behaviour check of refactor candidates (issue 31 item 3, issue 26 item 5):
Claude Code's payloads through the installed hooks, a real repository, real pytest runs of
the changed lines' mutants."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import GitRepo
from tests.guard.test_claude_code import write_through_hooks
from tests.project import CALC_SUB

# `add` keeps passing test_add (add(2, 3) == 5) with the new branch: it ran, no test pins it
SEVEN = CALC_SUB.replace("return a + b", "return a + b if b != 7 else 0")


def test_a_behaviour_changing_refactor_is_told_to_the_agent(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    out = write_through_hooks(repo, "calc.py", SEVEN)
    told = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert told.startswith("tddgit [refactor-unpinned]: your write to calc.py changes behaviour")
    assert (
        "calc.py:5: no test fails when `return a + b if b != 7 else 0` becomes "
        "`return a + b if True else 0` (skip-branch)"
    ) in told
    assert "write a failing test first" in told
    assert "decision" not in out  # warn (the default): kept, not undone
    assert (repo.root / "calc.py").read_text() == SEVEN


def test_a_true_refactor_stays_silent(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    with_local = CALC_SUB.replace("return a - b", "difference = a - b\n    return difference")
    assert write_through_hooks(repo, "calc.py", with_local) == {}
    # silent because the mutants were killed, not because none ran (each result is cached)
    first = len(mutant_results(repo))
    assert first >= 2  # at least `pass` for the assignment and `return None`
    renamed = with_local.replace("difference", "diff")
    assert write_through_hooks(repo, "calc.py", renamed) == {}
    assert (repo.root / "calc.py").read_text() == renamed
    assert len(mutant_results(repo)) > first


def mutant_results(repo: GitRepo) -> list[Path]:
    return [p for p in (repo.root / ".git" / "tddgit" / "mutation").rglob("*") if p.is_file()]


def test_refuse_puts_the_file_back_exactly(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    # before the session's first hook: the person's configuration, not the agent's change
    (repo.root / ".tddgit.yaml").write_text("guard:\n  mutation: refuse\n")
    before = (repo.root / "calc.py").read_bytes()
    out = write_through_hooks(repo, "calc.py", SEVEN)
    assert out["decision"] == "block"
    assert out["reason"].startswith("tddgit [refactor-unpinned]: your write to calc.py")
    assert "It was undone" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


def test_off_keeps_the_change_silently(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    (repo.root / ".tddgit.yaml").write_text('guard:\n  mutation: "off"\n')
    assert write_through_hooks(repo, "calc.py", SEVEN) == {}
