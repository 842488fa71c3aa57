"""Claude Code: ``PreToolUse``/``PostToolUse`` (matcher ``Write|Edit``), ``Stop`` and
``SessionStart`` command hooks in ``.claude/settings.json``.

stdin: ``session_id``, ``cwd``, ``hook_event_name``, and for tool events ``tool_name`` and
``tool_input.file_path``; ``Stop`` carries ``stop_hook_active``. Answers: a refused write
is ``hookSpecificOutput.permissionDecision = "deny"`` with the reason (shown to Claude);
an undone write and a refused stop are ``{"decision": "block", "reason": ...}``; session
context is ``hookSpecificOutput.additionalContext``; allowing is silence with exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tddgit.guard import model as m
from tddgit.guard.adapters import (
    config_file,
    event,
    file_path_writes,
    grouped_hooks,
    json_reply,
    said,
    session_context,
)

NAME = "claude-code"
TOOLS = {"Write": "write", "Edit": "update"}
KINDS = {
    "PreToolUse": m.PRE_WRITE,
    "PostToolUse": m.POST_WRITE,
    "Stop": m.STOP,
    "SessionStart": m.SESSION_START,
}
# Shell writes the guard cannot see as file writes (docs/agents/claude-code.md).
DENY_RULES = (
    "Bash(sed -i:*)",
    "Bash(perl -i:*)",
    "Bash(perl -pi:*)",
    "Bash(tee:*)",
    "Bash(dd:*)",
    "Bash(patch:*)",
    "Bash(git apply:*)",
    "Bash(cat >:*)",
    "Bash(echo >:*)",
    "Bash(printf >:*)",
)
# event -> (a tool event with a matcher?, timeout in seconds)
EVENTS = {
    "PreToolUse": (True, 30),
    "PostToolUse": (True, 600),
    "Stop": (False, 600),
    "SessionStart": (False, 30),
}


def parse(payload: dict[str, Any]) -> m.Event:
    return event(NAME, payload, KINDS, file_path_writes(TOOLS, "file_path"))


def render(ev: m.Event, decision: m.Decision) -> m.Reply:
    """Claude Code's answers (Codex reads the same ones)."""
    out: dict[str, Any] = {}
    if decision.verdict == m.DENY:
        out["hookSpecificOutput"] = {
            "hookEventName": ev.native,
            "permissionDecision": "deny",
            "permissionDecisionReason": said(decision.rule, decision.reason),
        }
    elif decision.verdict in (m.REVERT, m.BLOCK):
        out = {"decision": "block", "reason": said(decision.rule, decision.reason)}
    elif decision.verdict == m.CONTEXT:
        out = session_context(ev.native, decision.reason)
    return json_reply(out, decision.warning, "systemMessage")


def config_path(scope: str, root: Path) -> Path:
    return config_file(scope, root, ".claude", "settings.json")


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    return grouped_hooks(command, "|".join(TOOLS), EVENTS)
