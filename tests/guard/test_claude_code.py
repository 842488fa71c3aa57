"""The Claude Code hooks, installed and fired with Claude Code's payloads in real repos."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import GitRepo
from tests.guard.conftest import fire, reply
from tests.project import CALC_SUB

SESSION = "5d6a4f3e-claude-session"


def tool(repo: GitRepo, event: str, name: str, path: str, **tool_input: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": SESSION,
        "transcript_path": str(repo.root / ".transcript.jsonl"),
        "cwd": str(repo.root),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": name,
        "tool_input": {"file_path": str(repo.root / path), **tool_input},
        "tool_use_id": "toolu_01ABC",
    }
    if event == "PostToolUse":
        payload["tool_response"] = {"filePath": str(repo.root / path), "success": True}
    return payload


def stop(repo: GitRepo, active: bool = False) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "transcript_path": str(repo.root / ".transcript.jsonl"),
        "cwd": str(repo.root),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }


def write_through_hooks(repo: GitRepo, path: str, content: str) -> dict[str, Any]:
    """What Claude Code does for a Write: PreToolUse, the write, PostToolUse."""
    pre = reply(fire(repo, "claude-code", tool(repo, "PreToolUse", "Write", path, content=content)))
    assert pre == {}, pre
    (repo.root / path).write_text(content)
    return reply(
        fire(repo, "claude-code", tool(repo, "PostToolUse", "Write", path, content=content))
    )


def test_production_write_with_no_red_is_denied_with_the_next_step(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    out = reply(
        fire(
            repo,
            "claude-code",
            tool(repo, "PreToolUse", "Edit", "calc.py", old_string="a", new_string="b"),
        )
    )
    decision = out["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse"
    assert decision["permissionDecision"] == "deny"
    assert "[write-needs-red]" in decision["permissionDecisionReason"]
    assert "write a failing test first" in decision["permissionDecisionReason"]


def test_test_write_is_allowed_silently(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    proc = fire(
        repo, "claude-code", tool(repo, "PreToolUse", "Write", "tests/test_more.py", content="x")
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_production_write_during_an_open_red_is_allowed(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("red")
    out = write_through_hooks(repo, "calc.py", CALC_SUB)
    assert out == {}
    assert (repo.root / "calc.py").read_text() == CALC_SUB


def test_red_target_file_cannot_change_while_the_red_is_open(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("red")
    out = reply(
        fire(
            repo, "claude-code", tool(repo, "PreToolUse", "Write", "tests/test_calc.py", content="")
        )
    )
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "[test-edited-in-green]" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_green_write_adding_an_untested_function_is_undone_with_the_reason(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    before = (repo.root / "calc.py").read_bytes()
    out = write_through_hooks(repo, "calc.py", CALC_SUB + "\n\ndef mul(a, b):\n    return a * b\n")
    assert out["decision"] == "block"
    assert "[untested-code]" in out["reason"]
    assert "line 13 " in out["reason"] and "failing test first" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before
    assert not list((repo.root / ".git" / "tddgit" / "guard").glob("*/*.blob"))


def test_green_write_that_breaks_a_test_is_undone(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    before = (repo.root / "calc.py").read_bytes()
    out = write_through_hooks(repo, "calc.py", CALC_SUB.replace("a - b", "b - a"))
    assert "[write-breaks-tests]" in out["reason"]
    assert "tests/test_calc.py::test_sub" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


def test_refactor_keeping_every_test_green_is_kept(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    refactored = CALC_SUB.replace("return a - b", "return add(a, -b)")
    out = write_through_hooks(repo, "calc.py", refactored)
    assert out == {}
    assert (repo.root / "calc.py").read_text() == refactored


def test_a_new_production_file_that_is_untested_is_removed_again(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    out = write_through_hooks(repo, "util.py", "def helper():\n    return 1\n")
    assert "[untested-code]" in out["reason"]
    assert not (repo.root / "util.py").exists()


def test_stop_with_a_failing_test_the_session_brought_in_stays_blocked_up_to_a_bound(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    start = {
        "session_id": SESSION,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    reply(fire(repo, "claude-code", start))
    repo.write(
        "tests/test_more.py", "import calc\n\ndef test_mul():\n    assert calc.add(2, 2) == 5\n"
    )
    out = reply(fire(repo, "claude-code", stop(repo)))
    assert out["decision"] == "block"
    assert "[stop-with-failing-tests]" in out["reason"]
    assert "tests/test_more.py::test_mul (failed, assertion)" in out["reason"]
    # the loop guard no longer lets it through: the failing test is the session's doing
    for n in range(2, 5):
        out = reply(fire(repo, "claude-code", stop(repo, active=True)))
        assert out["decision"] == "block", out
        assert f"blocked stop {n} of 4" in out["reason"]
    last = reply(fire(repo, "claude-code", stop(repo, active=True)))
    assert "decision" not in last
    assert "blocked stops" in last["systemMessage"] and "test_mul" in last["systemMessage"]


def test_a_second_stop_is_allowed_when_the_same_tests_failed_at_session_start(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    repo.write(
        "tests/test_more.py", "import calc\n\ndef test_mul():\n    assert calc.add(2, 2) == 5\n"
    )
    start = {
        "session_id": SESSION,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    reply(fire(repo, "claude-code", start))
    assert reply(fire(repo, "claude-code", stop(repo)))["decision"] == "block"
    again = reply(fire(repo, "claude-code", stop(repo, active=True)))
    assert "decision" not in again
    assert "already failed when it started" in again["systemMessage"]


def test_stop_during_an_open_red_ignores_its_failing_targets(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("red")
    proc = fire(repo, "claude-code", stop(repo))
    assert (proc.returncode, proc.stdout) == (0, "")


def test_stop_with_a_red_judged_but_not_committed_is_blocked(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    repo.write(
        "tests/test_mul.py", "import calc\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
    )
    repo.add("tests/test_mul.py")
    repo.tddgit("red", "--no-commit", check=True)
    # the new failing test is the red's target but the red is not committed: not a stop
    out = reply(fire(repo, "claude-code", stop(repo)))
    assert "[red-not-committed]" in out["reason"]
    assert "tests/test_mul.py::test_mul (failed, not-implemented)" in out["reason"]
    assert "`tddgit red`" in out["reason"]
    repo.tddgit("red", "-m", "multiply", check=True)
    assert fire(repo, "claude-code", stop(repo)).stdout == ""


def test_session_start_tells_the_state_and_the_rules(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("red")
    payload = {
        "session_id": SESSION,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    out = reply(fire(repo, "claude-code", payload))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "last step red" in context and "1 red(s) open" in context
    assert "`tddgit green`" in context


def test_a_tddgit_crash_inside_the_hook_allows_with_a_loud_warning_and_a_record(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    proc = fire(
        repo,
        "claude-code",
        tool(repo, "PreToolUse", "Write", "calc.py", content="x"),
        env={"TDDGIT_HOOK_TEST_CRASH": "agent"},
    )
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert "hookSpecificOutput" not in out  # not a refusal
    assert "UNVERIFIED" in out["systemMessage"]
    assert "warning" in proc.stderr and "simulated internal error" in proc.stderr
    log = (repo.root / ".git" / "tddgit" / "hook-errors.log").read_text().splitlines()
    record = json.loads(log[-1])
    assert record["hook"] == "agent:claude-code:PreToolUse"
    assert record["policy"] == "allow"


def test_a_broken_configuration_allows_with_a_warning_not_a_refusal(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    repo.write(".tddgit.yaml", "mode: nonsense\n")
    proc = fire(repo, "claude-code", tool(repo, "PreToolUse", "Write", "calc.py", content="x"))
    assert proc.returncode == 0
    assert "permissionDecision" not in proc.stdout
    assert "mode" in proc.stderr and "UNVERIFIED" in proc.stderr


def test_parallel_sessions_keep_their_own_snapshots(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    original = (repo.root / "calc.py").read_text()
    first = tool(repo, "PreToolUse", "Write", "calc.py", content="x")
    second = dict(first, session_id="another-session")
    reply(fire(repo, "claude-code", first))
    (repo.root / "calc.py").write_text(original + "\n# first session's edit\n")
    reply(fire(repo, "claude-code", second))
    dirs = sorted(p.name for p in (repo.root / ".git" / "tddgit" / "guard").iterdir() if p.is_dir())
    assert len(dirs) == 2
    # the second session's write adds an untested line: undone to what *it* saw before
    (repo.root / "calc.py").write_text(
        original + "\n# first session's edit\ndef f():\n    return 2\n"
    )
    out = reply(fire(repo, "claude-code", dict(second, hook_event_name="PostToolUse")))
    assert "[untested-code]" in out["reason"]
    assert (repo.root / "calc.py").read_text() == original + "\n# first session's edit\n"


def test_check_prints_the_decision_and_changes_nothing(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    (repo.root / "calc.py").write_text(CALC_SUB + "\n\ndef mul(a, b):\n    return a * b\n")
    payload = tool(repo, "PostToolUse", "Write", "calc.py", content="")
    proc = repo.tddgit(
        "agent", "check", "claude-code", "--json", input=json.dumps(payload), check=True
    )
    out = json.loads(proc.stdout)
    assert out["kind"] == "post-write"
    # a dry run: judged against the staged version, and nothing is put back
    assert (out["verdict"], out["rule"]) == ("revert", "untested-code")
    assert "mul" in (repo.root / "calc.py").read_text()
    pre = tool(repo, "PreToolUse", "Write", "calc.py", content="")
    out = json.loads(
        repo.tddgit("agent", "check", "claude-code", "--json", input=json.dumps(pre)).stdout
    )
    assert (out["verdict"], out["rule"]) == ("allow", "refactor-candidate")
    assert not [p for p in (repo.root / ".git" / "tddgit" / "guard").iterdir() if p.is_dir()]
