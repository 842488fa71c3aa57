"""Codex CLI: ``PreToolUse``/``PostToolUse`` (matcher ``^apply_patch$``), ``Stop`` and
``SessionStart`` in ``.codex/hooks.json`` (the same shape as Claude Code's ``hooks``).

File writes arrive as ``apply_patch`` with the patch in ``tool_input.command``; each file
it touches has a ``*** Add File: P`` / ``*** Update File: P`` / ``*** Delete File: P``
header (an update may move the file: ``*** Move to: Q``). The answers are Claude Code's:
``permissionDecision = "deny"`` refuses, ``{"decision": "block"}`` undoes/blocks,
``additionalContext`` informs; allowing is silence with exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tddgit.guard.adapters import claude_code, mapping, text
from tddgit.guard.model import (
    OTHER,
    POST_WRITE,
    PRE_WRITE,
    SESSION_START,
    STOP,
    Decision,
    Event,
    Reply,
    Write,
)

NAME = "codex"
TOOL = "apply_patch"
DENY_RULES: tuple[str, ...] = ()
_KINDS = {
    "PreToolUse": PRE_WRITE,
    "PostToolUse": POST_WRITE,
    "Stop": STOP,
    "SessionStart": SESSION_START,
}
_HEADERS = {
    "*** Add File: ": "add",
    "*** Update File: ": "update",
    "*** Delete File: ": "delete",
    "*** Move to: ": "add",
}


def patch_writes(patch: str) -> tuple[Write, ...]:
    """The files an ``apply_patch`` body touches, in order."""
    out: list[Write] = []
    for line in patch.splitlines():
        for header, action in _HEADERS.items():
            if line.startswith(header) and line[len(header) :].strip():
                out.append(Write(line[len(header) :].strip(), action))
    return tuple(out)


def parse(payload: dict[str, Any]) -> Event:
    native = text(payload, "hook_event_name")
    kind = _KINDS.get(native, OTHER)
    tool = text(payload, "tool_name")
    writes: tuple[Write, ...] = ()
    if kind in (PRE_WRITE, POST_WRITE):
        tool_input = payload.get("tool_input")
        patch = (
            tool_input
            if isinstance(tool_input, str)
            else text(mapping(payload, "tool_input"), "command")
        )
        writes = patch_writes(patch) if tool == TOOL else ()
        if not writes:
            kind = OTHER
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
    return claude_code.render(event, decision)


def config_path(scope: str, root: Path) -> Path:
    base = Path.home() if scope == "user" else root
    return base / ".codex" / "hooks.json"


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    entry = {"type": "command", "command": command}
    matcher = f"^{TOOL}$"
    return {
        "PreToolUse": [{"matcher": matcher, "hooks": [dict(entry, timeout=30)]}],
        "PostToolUse": [{"matcher": matcher, "hooks": [dict(entry, timeout=600)]}],
        "Stop": [{"hooks": [dict(entry, timeout=600)]}],
        "SessionStart": [{"hooks": [dict(entry, timeout=30)]}],
    }
