"""Cursor: ``preToolUse`` (matcher on its file-writing tools) and ``beforeShellExecution``
(the command rules); ``postToolUse`` (every tool), ``afterShellExecution`` and
``afterFileEdit`` (the tree check); ``stop`` and ``sessionStart`` in ``.cursor/hooks.json``
(``{"version": 1, "hooks": {event: [{command, matcher}]}}``; a flat list per event).

stdin: ``conversation_id`` (the session), ``workspace_roots``, ``hook_event_name``,
``tool_name``, ``tool_input.file_path``; ``stop`` carries ``loop_count`` (how many
follow-ups already ran: the guard blocks a stop only when it is 0, like Claude Code's
``stop_hook_active``). Answers: ``{"permission": "deny", "agent_message", "user_message"}``
refuses; ``{"additional_context"}`` tells the agent a write was put back or gives session
context; ``{"followup_message"}`` sends it back to work; allowing is silence, exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tddgit.guard import model as m
from tddgit.guard.adapters import config_file, event, file_path_writes, json_reply, said, text

NAME = "cursor"
TOOLS = {"Write": "write", "Edit": "update", "StrReplace": "update", "Delete": "delete"}
DENY_RULES: tuple[str, ...] = ()
KINDS = {
    "preToolUse": m.PRE_WRITE,
    "beforeShellExecution": m.PRE_WRITE,
    "postToolUse": m.POST_WRITE,
    "afterShellExecution": m.POST_WRITE,
    "afterFileEdit": m.POST_WRITE,
    "stop": m.STOP,
    "sessionStart": m.SESSION_START,
}


def parse(payload: dict[str, Any]) -> m.Event:
    roots = payload.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    loops = payload.get("loop_count")
    native = text(payload, "hook_event_name")
    if native in ("beforeShellExecution", "afterShellExecution"):
        payload = {**payload, "tool_name": "Shell"}  # the command is at the top level
    elif native == "afterFileEdit":
        payload = {
            **payload,
            "tool_name": "Edit",
            "tool_input": {"file_path": payload.get("file_path")},
        }
    return event(
        NAME,
        payload,
        KINDS,
        file_path_writes(TOOLS, "file_path", "path"),
        session=text(payload, "conversation_id"),
        cwd=text(payload, "cwd") or root,
        stop_hook_active=isinstance(loops, int) and loops > 0,
        shell_tools=frozenset({"Shell"}),
    )


def render(ev: m.Event, decision: m.Decision) -> m.Reply:
    out: dict[str, Any] = {}
    message = said(decision.rule, decision.reason)
    if decision.verdict == m.DENY:
        out = {"permission": "deny", "agent_message": message, "user_message": message}
    elif decision.verdict == m.REVERT:
        out = {"additional_context": message}
    elif decision.verdict == m.BLOCK:
        out = {"followup_message": message}
    elif decision.verdict == m.CONTEXT:
        out = {"additional_context": decision.reason}
    # allowing is silence on stdout: a fail-open warning goes to stderr only
    return json_reply(out, decision.warning, "user_message" if out else None)


def config_path(scope: str, root: Path) -> Path:
    return config_file(scope, root, ".cursor", "hooks.json")


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    matcher = "|".join(TOOLS)
    return {
        "preToolUse": [{"command": command, "matcher": matcher}],
        "beforeShellExecution": [{"command": command}],
        "postToolUse": [{"command": command}],
        "afterShellExecution": [{"command": command}],
        "afterFileEdit": [{"command": command}],
        "stop": [{"command": command}],
        "sessionStart": [{"command": command}],
    }
