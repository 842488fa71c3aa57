"""Cursor: ``preToolUse``/``postToolUse`` (matcher on its file-writing tools), ``stop`` and
``sessionStart`` in ``.cursor/hooks.json`` (``{"version": 1, "hooks": {event: [{command,
matcher}]}}``; a flat list per event, no groups).

stdin: ``conversation_id`` (the session), ``workspace_roots``, ``hook_event_name``,
``tool_name``, ``tool_input.file_path``; ``stop`` carries ``loop_count`` (how many
follow-ups already ran: the guard blocks a stop only when it is 0, like Claude Code's
``stop_hook_active``). Answers: ``{"permission": "deny", "agent_message", "user_message"}``
refuses; ``{"additional_context"}`` tells the agent a write was put back or gives session
context; ``{"followup_message"}`` sends it back to work; allowing is silence, exit 0.
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

NAME = "cursor"
TOOLS = ("Write", "Edit", "StrReplace", "Delete")
DENY_RULES: tuple[str, ...] = ()
_KINDS = {
    "preToolUse": PRE_WRITE,
    "postToolUse": POST_WRITE,
    "stop": STOP,
    "sessionStart": SESSION_START,
}


def parse(payload: dict[str, Any]) -> Event:
    native = text(payload, "hook_event_name")
    kind = _KINDS.get(native, OTHER)
    tool = text(payload, "tool_name")
    writes: tuple[Write, ...] = ()
    if kind in (PRE_WRITE, POST_WRITE):
        tool_input = mapping(payload, "tool_input")
        path = text(tool_input, "file_path") or text(tool_input, "path")
        if tool not in TOOLS or not path:
            kind = OTHER
        else:
            writes = (Write(path, "delete" if tool == "Delete" else "update"),)
    roots = payload.get("workspace_roots")
    cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    loops = payload.get("loop_count")
    return Event(
        agent=NAME,
        kind=kind,
        native=native,
        session=text(payload, "conversation_id") or text(payload, "session_id"),
        cwd=text(payload, "cwd") or cwd,
        tool=tool,
        writes=writes,
        stop_hook_active=isinstance(loops, int) and loops > 0,
    )


def render(event: Event, decision: Decision) -> Reply:
    out: dict[str, Any] = {}
    said = f"tddgit [{decision.rule}]: {decision.reason}"
    if decision.verdict == DENY:
        out = {"permission": "deny", "agent_message": said, "user_message": said}
    elif decision.verdict == REVERT:
        out = {"additional_context": said}
    elif decision.verdict == BLOCK:
        out = {"followup_message": said}
    elif decision.verdict == CONTEXT:
        out = {"additional_context": decision.reason}
    if decision.warning and decision.verdict != DENY:
        out.setdefault("user_message", f"tddgit: {decision.warning}")
    stdout = json.dumps(out) + "\n" if out else ""
    stderr = f"tddgit: warning: {decision.warning}\n" if decision.warning else ""
    return Reply(stdout=stdout, stderr=stderr)


def config_path(scope: str, root: Path) -> Path:
    base = Path.home() if scope == "user" else root
    return base / ".cursor" / "hooks.json"


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    matcher = "|".join(TOOLS)
    return {
        "preToolUse": [{"command": command, "matcher": matcher}],
        "postToolUse": [{"command": command, "matcher": matcher}],
        "stop": [{"command": command}],
        "sessionStart": [{"command": command}],
    }
