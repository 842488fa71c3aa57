"""The tree check after every tool (issue 26): production code written through the shell
tool of each agent — every route the issue lists — is put back, in real repositories, the
installed hooks fired with each agent's payload around the real shell command."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from tests.conftest import GitRepo
from tests.guard.conftest import fire, reply
from tests.project import CALC, CALC_SUB

SESSION = "7f3e-shell-session"
WRONG = CALC.replace("return a + b", "return a + b + 1")


def claude_bash(repo: GitRepo, event: str, command: str, session: str = SESSION) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": str(repo.root / ".transcript.jsonl"),
        "cwd": str(repo.root),
        "permission_mode": "acceptEdits",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run it"},
        "tool_use_id": "toolu_01SHELL",
    }
    if event == "PostToolUse":
        payload["tool_response"] = {
            "stdout": "",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        }
    return payload


def shell(repo: GitRepo, command: str) -> None:
    proc = subprocess.run(
        ["bash", "-c", command], cwd=repo.root, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr


def run_bash_tool(repo: GitRepo, command: str) -> dict[str, Any]:
    """What Claude Code does for a Bash tool call: PreToolUse, the command, PostToolUse."""
    assert reply(fire(repo, "claude-code", claude_bash(repo, "PreToolUse", command))) == {}
    shell(repo, command)
    return reply(fire(repo, "claude-code", claude_bash(repo, "PostToolUse", command)))


ROUTES = {
    "python -c": "python3 -c \"open('calc.py','w').write(open('wrong.txt').read())\"",
    "cp": "cp wrong.txt calc.py",
    "echo >>": "echo 'def mul(a, b):  return a * b' >> calc.py",
    "cat > heredoc": "cat > calc.py <<'EOF'\ndef add(a, b):\n    return a + b + 1\nEOF",
    "python - heredoc": "python3 - <<'EOF'\nopen('calc.py', 'a').write('X = 1\\n')\nEOF",
    "sed -i.bak": "sed -i.bak 's/a + b/a + b + 1/' calc.py",
    "sed --in-place": "sed --in-place 's/a + b/a + b + 1/' calc.py",
    "bash -c sed -i": "bash -c \"sed -i 's/a + b/a + b + 1/' calc.py\"",
    "git checkout other -- f": "git checkout other -- calc.py",
    "git stash pop": "git stash pop",
}


def _prepare(repo: GitRepo, route: str) -> None:
    """What the route needs that is not the agent's doing (made before the session)."""
    (repo.root / "wrong.txt").write_text(WRONG)  # not code: a text file
    if route == "git checkout other -- f":
        repo.git("checkout", "-q", "-b", "other")
        repo.write("calc.py", WRONG, dedent=False)
        repo.git("commit", "-q", "-am", "other calc", "--no-verify")
        repo.git("checkout", "-q", "-")
    if route == "git stash pop":
        repo.write("calc.py", WRONG, dedent=False)
        repo.git("stash", "-q")


@pytest.mark.parametrize("route", list(ROUTES))
def test_production_written_through_the_shell_with_no_red_is_put_back(at, route: str) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    _prepare(repo, route)
    before = (repo.root / "calc.py").read_bytes()
    index_before = repo.git("ls-files", "-s", "calc.py")
    out = run_bash_tool(repo, ROUTES[route])
    assert out.get("decision") == "block", out
    assert "tddgit [write-needs-red]" in out["reason"]
    assert "calc.py" in out["reason"] and "write a failing test first" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before
    # a route that staged the change has its index entry put back too: a commit cannot
    # take it
    assert repo.git("ls-files", "-s", "calc.py") == index_before
    # and the next tool sees nothing left to judge
    assert run_bash_tool(repo, "ls") == {}


def test_a_shell_write_to_a_test_file_is_kept(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    test = "import calc\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
    out = run_bash_tool(repo, f"cat > tests/test_mul.py <<'EOF'\n{test}EOF")
    assert out == {}
    assert (repo.root / "tests/test_mul.py").read_text() == test


def test_the_persons_own_work_from_before_the_session_is_left_alone(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    (repo.root / "calc.py").write_text(WRONG)  # uncommitted work of the person's
    start = {
        "session_id": SESSION,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    reply(fire(repo, "claude-code", start))
    assert run_bash_tool(repo, "echo hello > notes.txt") == {}
    assert (repo.root / "calc.py").read_text() == WRONG


def test_shell_writes_during_an_open_red_are_kept(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("red")
    out = run_bash_tool(repo, f"cat > calc.py <<'EOF'\n{CALC_SUB}EOF")
    assert out == {}
    assert (repo.root / "calc.py").read_text() == CALC_SUB


def test_after_green_an_untested_shell_addition_is_undone_and_a_refactor_kept(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    before = (repo.root / "calc.py").read_bytes()
    out = run_bash_tool(repo, "printf '\\n\\ndef mul(a, b):\\n    return a * b\\n' >> calc.py")
    assert "tddgit [untested-code]" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before
    out = run_bash_tool(repo, "sed -i 's/return a - b/return add(a, -b)/' calc.py")
    assert out == {}
    assert "add(a, -b)" in (repo.root / "calc.py").read_text()


def test_a_failed_tool_leaves_nothing_behind(at) -> None:  # type: ignore[no-untyped-def]
    """Claude Code fires PostToolUseFailure, not PostToolUse, when the command fails."""
    repo = at("fresh")
    command = "sed -i 's/a + b/a + b + 1/' calc.py && false"
    before = (repo.root / "calc.py").read_bytes()
    reply(fire(repo, "claude-code", claude_bash(repo, "PreToolUse", command)))
    subprocess.run(["bash", "-c", command], cwd=repo.root, check=False)
    payload = claude_bash(repo, "PostToolUseFailure", command)
    payload.pop("tool_response", None)
    payload["error"] = "Command failed with exit code 1"
    out = reply(fire(repo, "claude-code", payload))
    assert "[write-needs-red]" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


def test_an_mcp_tool_writing_production_code_is_caught(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh")
    before = (repo.root / "calc.py").read_bytes()
    reply(fire(repo, "claude-code", claude_bash(repo, "PreToolUse", "true")))
    (repo.root / "calc.py").write_text(WRONG)  # as a filesystem MCP server would
    payload = {
        "session_id": SESSION,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo.root),
        "hook_event_name": "PostToolUse",
        "tool_name": "mcp__filesystem__write_file",
        "tool_input": {"path": "calc.py", "content": WRONG},
        "tool_response": [{"type": "text", "text": "ok"}],
    }
    out = reply(fire(repo, "claude-code", payload))
    assert "[write-needs-red]" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


# --- the other agents' shell tools -----------------------------------------------------------


def test_gemini_run_shell_command_writing_production_is_put_back(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "gemini")
    before = (repo.root / "calc.py").read_bytes()
    command = "sed -i 's/a + b/a + b + 1/' calc.py"
    base = {
        "session_id": "gemini-session",
        "transcript_path": "/tmp/g.json",
        "cwd": str(repo.root),
        "timestamp": "2026-11-26T03:00:00.000Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "edit"},
    }
    assert reply(fire(repo, "gemini", {**base, "hook_event_name": "BeforeTool"})) == {}
    shell(repo, command)
    after = {
        **base,
        "hook_event_name": "AfterTool",
        "tool_response": {"llmContent": "", "returnDisplay": ""},
    }
    out = reply(fire(repo, "gemini", after))
    assert out["decision"] == "deny" and "[write-needs-red]" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


def test_codex_bash_writing_production_is_put_back(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "codex")
    before = (repo.root / "calc.py").read_bytes()
    command = "python3 -c \"open('calc.py','a').write('X = 1\\n')\""
    base = {
        "session_id": "019a-codex-session",
        "transcript_path": None,
        "cwd": str(repo.root),
        "model": "gpt-5-codex",
        "turn_id": "turn-1",
        "tool_name": "Bash",
        "tool_use_id": "call_9",
        "tool_input": {"command": command},
    }
    assert fire(repo, "codex", {**base, "hook_event_name": "PreToolUse"}).stdout == ""
    shell(repo, command)
    out = reply(
        fire(repo, "codex", {**base, "hook_event_name": "PostToolUse", "tool_response": ""})
    )
    assert out["decision"] == "block" and "[write-needs-red]" in out["reason"]
    assert (repo.root / "calc.py").read_bytes() == before


def test_cursor_after_shell_execution_puts_production_back(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("fresh", "cursor")
    before = (repo.root / "calc.py").read_bytes()
    command = "echo 'X = 1' >> calc.py"
    base = {
        "conversation_id": "cursor-conv",
        "generation_id": "gen-1",
        "workspace_roots": [str(repo.root)],
        "command": command,
        "cwd": str(repo.root),
    }
    assert fire(repo, "cursor", {**base, "hook_event_name": "beforeShellExecution"}).stdout == ""
    shell(repo, command)
    after = {**base, "hook_event_name": "afterShellExecution", "output": "", "duration": 12}
    out = reply(fire(repo, "cursor", after))
    assert "[write-needs-red]" in out["additional_context"]
    assert (repo.root / "calc.py").read_bytes() == before
