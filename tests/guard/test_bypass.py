"""No way around the guard (issue 26): hook-skipping commands refused, the guard's and the
agent's configuration put back whatever wrote it, no refusal text teaching `--no-verify`;
and two sessions on one file (a revert takes out only the session's own change)."""

from __future__ import annotations

import os
import subprocess

import pytest

from tddgit.guard.protect import command_rule
from tests.conftest import GitRepo
from tests.guard.conftest import BIN, fire, reply
from tests.guard.test_tree_check import claude_bash, run_bash_tool
from tests.project import CALC_SUB


@pytest.mark.parametrize(
    "command",
    [
        "git commit --no-verify -m x",
        "git commit -n -m x",
        "git commit -nm x",
        "git add -A && git commit -am wip --no-verify",
        "git -c core.hooksPath=/dev/null commit -m x",
        "git config core.hooksPath .nohooks",
        "HUSKY=0 git commit -m x",
        "bash -c 'git commit --no-verify -m x'",
        "git push --no-verify",
    ],
)
def test_commands_that_skip_the_git_hooks_are_refused(at, command: str) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    out = reply(fire(repo, "claude-code", claude_bash(repo, "PreToolUse", command)))
    decision = out["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "tddgit [hook-bypass]" in decision["permissionDecisionReason"]
    assert "--no-verify" not in decision["permissionDecisionReason"].replace(command, "")


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m 'no -n here'",
        "git log -n 3",
        "cat .claude/settings.json",
        "pytest -q",
        "ls -la",
    ],
)
def test_ordinary_commands_are_not_refused(command: str) -> None:
    assert command_rule(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "echo '{}' > .claude/settings.json",
        "rm .git/hooks/pre-commit",
        "printf 'mode: advisory\\n' > .tddgit.yaml",
        "tddgit agent uninstall claude-code",
    ],
)
def test_commands_that_rewrite_the_guard_are_refused(at, command: str) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    out = reply(fire(repo, "claude-code", claude_bash(repo, "PreToolUse", command)))
    assert "[guard-config-protected]" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_the_tree_check_puts_back_the_agent_configuration_a_pattern_missed(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    settings = repo.root / ".claude/settings.json"
    before = settings.read_bytes()
    # spelled so that no command pattern sees the file's name: the Stop hook taken out
    command = (
        "python3 -c \"import json, os; p = os.path.join('.cl' + 'aude', 'settings.json'); "
        "d = json.load(open(p)); d['hooks'].pop('Stop'); json.dump(d, open(p, 'w'))\""
    )
    out = run_bash_tool(repo, command)
    assert "[guard-config-protected]" in out["reason"]
    assert settings.read_bytes() == before


def test_a_write_tool_cannot_touch_the_git_hooks(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    payload = {
        "session_id": "s",
        "transcript_path": "/tmp/t",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(repo.root / ".git/hooks/pre-commit"), "content": ""},
    }
    out = reply(fire(repo, "claude-code", payload))
    assert "[guard-config-protected]" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_no_refusal_of_the_git_hooks_teaches_no_verify(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    repo.tddgit("hooks", "install", check=True)
    repo.write(".tddgit.yaml", "mode: strict\n")
    repo.git("add", ".tddgit.yaml")
    repo.git("commit", "-q", "-m", "strict", "--no-verify")
    repo.write("calc.py", CALC_SUB + "\n\nX = 1\n", dedent=False)
    repo.git("add", "calc.py")
    proc = subprocess.run(
        ["git", "commit", "-m", "sneak it in"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": BIN + os.pathsep + os.environ["PATH"]},
        check=False,
    )
    assert proc.returncode != 0, proc.stdout
    assert "--no-verify" not in proc.stderr + proc.stdout


# --- two sessions on one file -----------------------------------------------------------------


def _write(repo: GitRepo, session: str, event: str, content: str = "") -> dict[str, object]:
    payload = {
        "session_id": session,
        "transcript_path": "/tmp/t",
        "cwd": str(repo.root),
        "hook_event_name": event,
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(repo.root / "calc.py"),
            "old_string": "",
            "new_string": content,
        },
    }
    return reply(fire(repo, "claude-code", payload))


def test_a_revert_never_removes_another_sessions_kept_change(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    path = repo.root / "calc.py"
    refactor = CALC_SUB.replace("return a - b", "return add(a, -b)")
    assert _write(repo, "A", "PreToolUse") == {}
    assert _write(repo, "B", "PreToolUse") == {}
    path.write_text(refactor)  # B's refactor: kept
    assert _write(repo, "B", "PostToolUse") == {}
    path.write_text(refactor + "\n\ndef mul(a, b):\n    return a * b\n")  # A: untested
    out = _write(repo, "A", "PostToolUse")
    assert "[untested-code]" in str(out["reason"])
    assert path.read_text() == refactor  # B's kept change is still there


def test_the_refusal_names_only_the_session_whose_change_broke_a_test(at) -> None:  # type: ignore[no-untyped-def]
    repo = at("green")
    path = repo.root / "calc.py"
    assert _write(repo, "A", "PreToolUse") == {}
    path.write_text(CALC_SUB.replace("return a - b", "return b - a"))  # A breaks test_sub
    assert _write(repo, "B", "PreToolUse") == {}
    # B adds a harmless comment while A's change is on disk and A's check has not run
    path.write_text(path.read_text().replace('"""A tiny calculator."""', '"""A calculator."""'))
    # B's check leaves A's change to A: B is not blamed for A's failing test
    b_out = _write(repo, "B", "PostToolUse")
    a_out = _write(repo, "A", "PostToolUse")
    assert "[write-breaks-tests]" in str(a_out.get("reason")), (a_out, b_out)
    assert "write-breaks-tests" not in str(b_out.get("reason", ""))
    text = path.read_text()
    assert "return a - b" in text  # the breaking code is gone from disk
    assert '"""A calculator."""' in text  # B's change stays
