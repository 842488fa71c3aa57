"""Codex (apply_patch), Gemini CLI and Cursor: the same rules through each agent's own
payloads and answers, fired through the installed configuration in real repositories."""

from __future__ import annotations

from typing import Any

from tddgit.guard.adapters.codex import patch_writes
from tddgit.guard.model import Write
from tests.conftest import GitRepo
from tests.guard.conftest import fire, reply
from tests.project import CALC_SUB

UNTESTED = CALC_SUB + "\n\ndef mul(a, b):\n    return a * b\n"


# --- Codex ---------------------------------------------------------------------------------


def codex(repo: GitRepo, event: str, patch: str) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": "019a-codex-session",
        "transcript_path": None,
        "cwd": str(repo.root),
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "turn_id": "turn-1",
        "tool_name": "apply_patch",
        "tool_use_id": "call_1",
        "tool_input": {"command": patch},
    }
    if event == "PostToolUse":
        payload["tool_response"] = "Success. Updated the following files:\nM calc.py\n"
    return payload


def test_apply_patch_headers_give_every_file_it_touches() -> None:
    patch = (
        "*** Begin Patch\n"
        "*** Add File: tests/test_mul.py\n+def test_mul():\n+    pass\n"
        "*** Update File: calc.py\n*** Move to: arith.py\n@@\n-x\n+y\n"
        "*** Delete File: old.py\n"
        "*** End Patch\n"
    )
    assert patch_writes(patch) == (
        Write("tests/test_mul.py", "add"),
        Write("calc.py", "update"),
        Write("arith.py", "add"),
        Write("old.py", "delete"),
    )


def test_codex_patch_of_production_code_with_no_red_is_denied(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "codex")
    patch = "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a + b\n+    return b + a\n*** End Patch\n"
    out = reply(fire(repo, "codex", codex(repo, "PreToolUse", patch)))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "[write-needs-red]" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_codex_patch_adding_a_test_is_allowed_with_silence(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "codex")
    patch = "*** Begin Patch\n*** Add File: tests/test_mul.py\n+def test_mul():\n+    assert False\n*** End Patch\n"
    proc = fire(repo, "codex", codex(repo, "PreToolUse", patch))
    assert (proc.returncode, proc.stdout) == (0, "")


def test_codex_patch_touching_a_test_and_production_is_denied_for_the_production_file(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "codex")
    patch = (
        "*** Begin Patch\n*** Add File: tests/test_mul.py\n+def test_mul():\n+    pass\n"
        "*** Update File: calc.py\n@@\n-x\n+y\n*** End Patch\n"
    )
    out = reply(fire(repo, "codex", codex(repo, "PreToolUse", patch)))
    assert "calc.py is production code" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_codex_green_patch_adding_untested_code_is_undone(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green", "codex")
    before = (repo.root / "calc.py").read_bytes()
    patch = "*** Begin Patch\n*** Update File: calc.py\n@@\n+def mul(a, b):\n+    return a * b\n*** End Patch\n"
    assert reply(fire(repo, "codex", codex(repo, "PreToolUse", patch))) == {}
    (repo.root / "calc.py").write_text(UNTESTED)  # what apply_patch did
    out = reply(fire(repo, "codex", codex(repo, "PostToolUse", patch)))
    assert out["decision"] == "block" and "[untested-code]" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


def test_codex_stop_with_a_failing_test_is_blocked(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green", "codex")
    repo.write("tests/test_more.py", "def test_more():\n    assert 1 == 2\n")
    payload = {
        "session_id": "019a-codex-session",
        "cwd": str(repo.root),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "done",
    }
    out = reply(fire(repo, "codex", payload))
    assert out["decision"] == "block" and "tests/test_more.py::test_more" in out["reason"]


# --- Gemini CLI ----------------------------------------------------------------------------


def gemini(repo: GitRepo, event: str, tool: str, path: str) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": "gemini-session-1",
        "transcript_path": str(repo.root / ".gemini-transcript.json"),
        "cwd": str(repo.root),
        "hook_event_name": event,
        "timestamp": "2026-11-24T20:00:00Z",
        "tool_name": tool,
        "tool_input": {"file_path": str(repo.root / path), "content": "x"},
    }
    if event == "AfterTool":
        payload["tool_response"] = {"llmContent": "Successfully wrote the file"}
    return payload


def test_gemini_write_file_of_production_code_with_no_red_is_denied(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "gemini")
    out = reply(fire(repo, "gemini", gemini(repo, "BeforeTool", "write_file", "calc.py")))
    assert out["decision"] == "deny" and "[write-needs-red]" in out["reason"]
    proc = fire(repo, "gemini", gemini(repo, "BeforeTool", "replace", "tests/test_calc.py"))
    assert (proc.returncode, proc.stdout) == (0, "")


def test_gemini_after_tool_undoes_an_untested_green_write(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green", "gemini")
    before = (repo.root / "calc.py").read_bytes()
    assert reply(fire(repo, "gemini", gemini(repo, "BeforeTool", "replace", "calc.py"))) == {}
    (repo.root / "calc.py").write_text(UNTESTED)
    out = reply(fire(repo, "gemini", gemini(repo, "AfterTool", "replace", "calc.py")))
    assert out["decision"] == "deny" and "[untested-code]" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


def test_gemini_after_agent_stays_blocked_with_stop_hook_active(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green", "gemini")
    repo.write("tests/test_more.py", "def test_more():\n    assert 1 == 2\n")
    payload = {
        "session_id": "gemini-session-1",
        "cwd": str(repo.root),
        "hook_event_name": "AfterAgent",
        "prompt": "add mul",
        "prompt_response": "done",
        "stop_hook_active": False,
    }
    assert reply(fire(repo, "gemini", payload))["decision"] == "deny"
    # the failing test is not from before the session (HEAD has no such test): still denied
    again = reply(fire(repo, "gemini", dict(payload, stop_hook_active=True)))
    assert again["decision"] == "deny" and "blocked stop 2 of 4" in again["reason"]


# --- Cursor --------------------------------------------------------------------------------


def cursor(repo: GitRepo, event: str, **fields: Any) -> dict[str, Any]:
    return {
        "conversation_id": "cursor-conv-1",
        "generation_id": "gen-1",
        "hook_event_name": event,
        "workspace_roots": [str(repo.root)],
        "cursor_version": "2.0.77",
        **fields,
    }


def test_cursor_pre_tool_use_denies_production_code_with_no_red(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "cursor")
    payload = cursor(
        repo, "preToolUse", tool_name="Write", tool_input={"file_path": str(repo.root / "calc.py")}
    )
    out = reply(fire(repo, "cursor", payload))
    assert out["permission"] == "deny" and "[write-needs-red]" in out["agent_message"]


def test_cursor_stop_keeps_sending_follow_ups_up_to_the_bound(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green", "cursor")
    repo.write("tests/test_more.py", "def test_more():\n    assert 1 == 2\n")
    out = reply(fire(repo, "cursor", cursor(repo, "stop", status="completed", loop_count=0)))
    assert "[stop-with-failing-tests]" in out["followup_message"]
    for n in (1, 2, 3):
        out = reply(fire(repo, "cursor", cursor(repo, "stop", status="completed", loop_count=n)))
        assert f"blocked stop {n + 1} of 4" in out["followup_message"]
    last = fire(repo, "cursor", cursor(repo, "stop", status="completed", loop_count=4))
    assert last.stdout == "" and "blocked stops" in last.stderr  # the person's message


def test_codex_crash_inside_the_hook_allows_with_silence_and_a_warning(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "codex")
    patch = "*** Begin Patch\n*** Update File: calc.py\n@@\n-x\n+y\n*** End Patch\n"
    proc = fire(
        repo, "codex", codex(repo, "PreToolUse", patch), env={"TDDGIT_HOOK_TEST_CRASH": "agent"}
    )
    assert (proc.returncode, proc.stdout) == (0, "")
    assert "UNVERIFIED" in proc.stderr
