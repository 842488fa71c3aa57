"""Claude Code: ``PreToolUse``/``PostToolUse`` (matcher ``Write|Edit``), ``Stop`` and
``SessionStart`` command hooks in ``.claude/settings.json``.

stdin: ``session_id``, ``cwd``, ``hook_event_name``, and for tool events ``tool_name`` and
``tool_input.file_path``; ``Stop`` carries ``stop_hook_active``. Answers: a refused write
is ``hookSpecificOutput.permissionDecision = "deny"`` with the reason (shown to Claude);
an undone write and a refused stop are ``{"decision": "block", "reason": ...}``; session
context is ``hookSpecificOutput.additionalContext``; allowing is silence with exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tddgit.guard.adapters import mapping, text
from tddgit.guard.model import (
    BLOCK,
    CONTEXT,
    DENY,
    OTHER,
    POST_WRITE,
    PRE_WRITE,
    REVERT,
    SESSION_START,
    STOP,
    Decision,
    Event,
    Reply,
    Write,
)

NAME = "claude-code"
TOOLS = ("Write", "Edit")
_KINDS = {
    "PreToolUse": PRE_WRITE,
    "PostToolUse": POST_WRITE,
    "Stop": STOP,
    "SessionStart": SESSION_START,
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


def parse(payload: dict[str, Any]) -> Event:
    native = text(payload, "hook_event_name")
    kind = _KINDS.get(native, OTHER)
    tool = text(payload, "tool_name")
    writes: tuple[Write, ...] = ()
    if kind in (PRE_WRITE, POST_WRITE):
        path = text(mapping(payload, "tool_input"), "file_path")
        if tool not in TOOLS or not path:
            kind = OTHER
        else:
            writes = (Write(path, "write" if tool == "Write" else "update"),)
    return Event(
        agent=NAME,
        kind=kind,
        native=native,
        session=text(payload, "session_id"),
        cwd=text(payload, "cwd") or None,
        tool=tool,
        writes=writes,
        stop_hook_active=payload.get("stop_hook_active") is True,
    )


def render(event: Event, decision: Decision) -> Reply:
    out: dict[str, Any] = {}
    if decision.verdict == DENY:
        out["hookSpecificOutput"] = {
            "hookEventName": event.native,
            "permissionDecision": "deny",
            "permissionDecisionReason": f"tddgit [{decision.rule}]: {decision.reason}",
        }
    elif decision.verdict in (REVERT, BLOCK):
        out = {"decision": "block", "reason": f"tddgit [{decision.rule}]: {decision.reason}"}
    elif decision.verdict == CONTEXT:
        out["hookSpecificOutput"] = {
            "hookEventName": event.native,
            "additionalContext": decision.reason,
        }
    if decision.warning:
        out["systemMessage"] = f"tddgit: {decision.warning}"
    stdout = json.dumps(out) + "\n" if out else ""
    return Reply(stdout=stdout, stderr=_stderr(decision))


def _stderr(decision: Decision) -> str:
    return f"tddgit: warning: {decision.warning}\n" if decision.warning else ""


def config_path(scope: str, root: Path) -> Path:
    base = Path.home() if scope == "user" else root
    return base / ".claude" / "settings.json"


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    entry = {"type": "command", "command": command}
    matcher = "|".join(TOOLS)
    return {
        "PreToolUse": [{"matcher": matcher, "hooks": [dict(entry, timeout=30)]}],
        "PostToolUse": [{"matcher": matcher, "hooks": [dict(entry, timeout=600)]}],
        "Stop": [{"hooks": [dict(entry, timeout=600)]}],
        "SessionStart": [{"hooks": [dict(entry, timeout=30)]}],
    }
