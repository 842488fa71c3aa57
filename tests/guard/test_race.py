"""Two sessions in one work tree, their hooks interleaved exactly (issue 26 item 2): a change
made while another session's tool call is running is left to that session's check when
that call began first, so the session whose later call ended first is not blamed for it. The same scenario as the real-agent
test (tests/agents_real/test_parallel.py), with every event's order fixed."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GitRepo
from tests.guard.conftest import fire, project_at, reply
from tests.project import CALC_SUB

KEPT = CALC_SUB.replace("return a + b", "return b + a")
BREAK_SUB = "sed -i 's/a - b/a + b/' calc.py"


def event(repo: GitRepo, session: str, name: str, tool: str, **tool_input: str) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session,
        "cwd": str(repo.root),
        "hook_event_name": name,
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if name == "PostToolUse":
        payload["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    return payload


def hook(repo: GitRepo, payload: dict[str, Any]) -> dict[str, Any]:
    return reply(fire(repo, "claude-code", payload))


def told(out: dict[str, Any]) -> bool:
    return out.get("decision") == "block" and "tddgit [" in out.get("reason", "")


@pytest.fixture
def repo(templates: dict[str, Path], tmp_path: Path) -> GitRepo:
    repo = project_at(templates, "green", tmp_path)
    repo.tddgit("agent", "install", "claude-code", check=True)
    for session in ("a", "b"):
        hook(
            repo, {"session_id": session, "cwd": str(repo.root), "hook_event_name": "SessionStart"}
        )
    return repo


def a_edits(repo: GitRepo) -> None:
    """Session A's kept refactor through its Edit tool."""
    path = str(repo.root / "calc.py")
    assert hook(repo, event(repo, "a", "PreToolUse", "Edit", file_path=path)) == {}
    (repo.root / "calc.py").write_text(KEPT)
    assert hook(repo, event(repo, "a", "PostToolUse", "Edit", file_path=path)) == {}


def test_a_change_made_during_another_sessions_call_is_not_blamed_on_it(repo: GitRepo) -> None:
    b_call = event(repo, "b", "PreToolUse", "Bash", command=BREAK_SUB)
    assert hook(repo, b_call) == {}  # B's shell call begins (it waits, then breaks sub)
    a_edits(repo)
    a_wait = event(repo, "a", "PreToolUse", "Bash", command="sleep 1")
    assert hook(repo, a_wait) == {}  # A's call begins
    subprocess.run(["bash", "-c", BREAK_SUB], cwd=repo.root, check=True)  # B's command
    # A's call ends first: the change may be B's (B's call was running), so A is not told
    out_a = hook(repo, event(repo, "a", "PostToolUse", "Bash", command="sleep 1"))
    assert not told(out_a), out_a
    assert "a + b" in (repo.root / "calc.py").read_text().split("def sub")[1]
    assert hook(repo, event(repo, "a", "PreToolUse", "Bash", command="sleep 2")) == {}
    # B's call ends while A's next call runs; that call began after the change: B's check
    # judges it, takes out B's hunk alone and tells B
    out_b = hook(repo, event(repo, "b", "PostToolUse", "Bash", command=BREAK_SUB))
    assert told(out_b), out_b
    assert "test_sub" in out_b["reason"]
    assert (repo.root / "calc.py").read_text() == KEPT
    assert hook(repo, event(repo, "a", "PostToolUse", "Bash", command="sleep 2")) == {}


def test_a_change_spanned_by_both_sessions_calls_goes_to_the_call_that_began_first(
    repo: GitRepo,
) -> None:
    """B's call began first and is still the one that ends first: B's check judges the
    change although A's later call is still running (A waits on B), and tells B alone."""
    assert hook(repo, event(repo, "b", "PreToolUse", "Bash", command=BREAK_SUB)) == {}
    a_edits(repo)
    assert hook(repo, event(repo, "a", "PreToolUse", "Bash", command="sleep 1")) == {}
    subprocess.run(["bash", "-c", BREAK_SUB], cwd=repo.root, check=True)
    out_b = hook(repo, event(repo, "b", "PostToolUse", "Bash", command=BREAK_SUB))
    assert told(out_b), out_b
    assert (repo.root / "calc.py").read_text() == KEPT
    assert hook(repo, event(repo, "a", "PostToolUse", "Bash", command="sleep 1")) == {}


def test_a_change_with_no_other_call_running_is_judged_at_once(repo: GitRepo) -> None:
    """B's call ended (its check ran): nothing claims A's change, A's check judges it."""
    assert hook(repo, event(repo, "b", "PreToolUse", "Bash", command="ls")) == {}
    assert hook(repo, event(repo, "b", "PostToolUse", "Bash", command="ls")) == {}
    assert hook(repo, event(repo, "a", "PreToolUse", "Bash", command=BREAK_SUB)) == {}
    subprocess.run(["bash", "-c", BREAK_SUB], cwd=repo.root, check=True)
    out_a = hook(repo, event(repo, "a", "PostToolUse", "Bash", command=BREAK_SUB))
    assert told(out_a), out_a
    assert "a - b" in (repo.root / "calc.py").read_text()


def test_a_change_from_before_the_other_call_began_is_not_claimed(repo: GitRepo) -> None:
    """A's change landed, then B's call began: B's running call cannot have made it."""
    assert hook(repo, event(repo, "a", "PreToolUse", "Bash", command=BREAK_SUB)) == {}
    subprocess.run(["bash", "-c", BREAK_SUB], cwd=repo.root, check=True)
    assert hook(repo, event(repo, "b", "PreToolUse", "Bash", command="sleep 1")) == {}
    out_a = hook(repo, event(repo, "a", "PostToolUse", "Bash", command=BREAK_SUB))
    assert told(out_a), out_a
    assert "a - b" in (repo.root / "calc.py").read_text()
    assert hook(repo, event(repo, "b", "PostToolUse", "Bash", command="sleep 1")) == {}


def test_a_refused_call_claims_nothing(repo: GitRepo) -> None:
    """B's pre-tool hook refused its command (the tool never ran): B has no call running."""
    refused = event(repo, "b", "PreToolUse", "Bash", command="git commit --no-verify -m x")
    assert hook(repo, refused).get("hookSpecificOutput", {}).get("permissionDecision") == "deny"
    assert hook(repo, event(repo, "a", "PreToolUse", "Bash", command=BREAK_SUB)) == {}
    subprocess.run(["bash", "-c", BREAK_SUB], cwd=repo.root, check=True)
    assert told(hook(repo, event(repo, "a", "PostToolUse", "Bash", command=BREAK_SUB)))
