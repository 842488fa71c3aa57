"""Gemini CLI: ``BeforeTool``/``AfterTool`` (matcher ``write_file|replace``), ``AfterAgent``
(its stop) and ``SessionStart`` in ``.gemini/settings.json`` under ``hooks``.

stdin: ``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input.file_path``;
``AfterAgent`` carries ``stop_hook_active``. Answers: ``{"decision": "deny", "reason"}``
refuses a tool call (``BeforeTool``), replaces the tool's result with the reason
(``AfterTool``: the file was put back) or sends the agent back to work (``AfterAgent``);
``hookSpecificOutput.additionalContext`` adds session context; allowing is silence, exit 0.
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

NAME = "gemini"
TOOLS = ("write_file", "replace")
DENY_RULES: tuple[str, ...] = ()
_KINDS = {
    "BeforeTool": PRE_WRITE,
    "AfterTool": POST_WRITE,
    "AfterAgent": STOP,
    "SessionStart": SESSION_START,
}


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
            writes = (Write(path, "write" if tool == "write_file" else "update"),)
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
    if decision.verdict in (DENY, REVERT, BLOCK):
        out = {"decision": "deny", "reason": f"tddgit [{decision.rule}]: {decision.reason}"}
    elif decision.verdict == CONTEXT:
        out["hookSpecificOutput"] = {
            "hookEventName": event.native,
            "additionalContext": decision.reason,
        }
    if decision.warning:
        out["systemMessage"] = f"tddgit: {decision.warning}"
    stdout = json.dumps(out) + "\n" if out else ""
    stderr = f"tddgit: warning: {decision.warning}\n" if decision.warning else ""
    return Reply(stdout=stdout, stderr=stderr)


def config_path(scope: str, root: Path) -> Path:
    base = Path.home() if scope == "user" else root
    return base / ".gemini" / "settings.json"


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    def entry(name: str, timeout_ms: int) -> dict[str, Any]:
        return {"name": name, "type": "command", "command": command, "timeout": timeout_ms}

    matcher = "|".join(TOOLS)
    return {
        "BeforeTool": [{"matcher": matcher, "hooks": [entry("tddgit-before-write", 30000)]}],
        "AfterTool": [{"matcher": matcher, "hooks": [entry("tddgit-after-write", 600000)]}],
        "AfterAgent": [{"hooks": [entry("tddgit-before-stop", 600000)]}],
        "SessionStart": [{"hooks": [entry("tddgit-session-start", 30000)]}],
    }
