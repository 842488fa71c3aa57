"""Gemini CLI: ``BeforeTool`` (matcher ``write_file|replace|run_shell_command``: the
pre-write rules and the command rules), ``AfterTool`` (matcher ``.*``: the tree check after
every tool, MCP tools included), ``AfterAgent`` (its stop) and ``SessionStart`` in
``.gemini/settings.json`` under ``hooks``.

stdin: ``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input.file_path``
(``tool_input.command`` for ``run_shell_command``);
``AfterAgent`` carries ``stop_hook_active``. Answers: ``{"decision": "deny", "reason"}``
refuses a tool call (``BeforeTool``), replaces the tool's result with the reason
(``AfterTool``: the file was put back) or sends the agent back to work (``AfterAgent``);
``hookSpecificOutput.additionalContext`` adds session context; allowing is silence, exit 0.
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

NAME = "gemini"
TOOLS = {"write_file": "write", "replace": "update"}
SHELL = frozenset({"run_shell_command"})
DENY_RULES: tuple[str, ...] = ()
KINDS = {
    "BeforeTool": m.PRE_WRITE,
    "AfterTool": m.POST_WRITE,
    "AfterAgent": m.STOP,
    "SessionStart": m.SESSION_START,
}
# event -> (its matcher, a regular expression; None when it takes none; timeout in ms)
EVENTS: dict[str, tuple[str | None, int]] = {
    "BeforeTool": ("write_file|replace|run_shell_command", 30_000),
    "AfterTool": (".*", 600_000),
    "AfterAgent": (None, 600_000),
    "SessionStart": (None, 30_000),
}
_NAMES = {
    "BeforeTool": "tddgit-before-tool",
    "AfterTool": "tddgit-after-tool",
    "AfterAgent": "tddgit-before-stop",
    "SessionStart": "tddgit-session-start",
}


def parse(payload: dict[str, Any]) -> m.Event:
    return event(NAME, payload, KINDS, file_path_writes(TOOLS, "file_path"), shell_tools=SHELL)


def render(ev: m.Event, decision: m.Decision) -> m.Reply:
    out: dict[str, Any] = {}
    if decision.verdict in (m.DENY, m.REVERT, m.BLOCK):
        out = {"decision": "deny", "reason": said(decision.rule, decision.reason)}
    elif decision.verdict == m.CONTEXT:
        out = session_context(ev.native, decision.reason)
    return json_reply(out, decision.warning, "systemMessage")


def config_path(scope: str, root: Path) -> Path:
    return config_file(scope, root, ".gemini", "settings.json")


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    names = {event: {"name": name} for event, name in _NAMES.items()}
    return grouped_hooks(command, EVENTS, **names)
