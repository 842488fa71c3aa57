"""Claude Code: ``PreToolUse`` (matcher ``Write|Edit|NotebookEdit|Bash``: the pre-write
rules and the command rules), ``PostToolUse`` and ``PostToolUseFailure`` (matcher ``*``:
the tree check after every tool, MCP tools included), ``Stop`` and ``SessionStart``
command hooks in ``.claude/settings.json``.

stdin: ``session_id``, ``cwd``, ``hook_event_name``, and for tool events ``tool_name`` and
``tool_input`` (``file_path``; ``notebook_path``; ``command`` for ``Bash``); ``Stop``
carries ``stop_hook_active``. Answers: a refused write
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
TOOLS = {"Write": "write", "Edit": "update", "NotebookEdit": "update"}
SHELL = frozenset({"Bash"})
KINDS = {
    "PreToolUse": m.PRE_WRITE,
    "PostToolUse": m.POST_WRITE,
    "PostToolUseFailure": m.POST_WRITE,
    "Stop": m.STOP,
    "SessionStart": m.SESSION_START,
}
# A cheap first line against shell writes, refused before they run; the tree check after
# every tool is what holds (docs/agents/claude-code.md). Only prefixes Claude Code really
# matches: it takes redirections out of a command before matching, so `Bash(cat >:*)`,
# `Bash(echo >:*)` and `Bash(printf >:*)` never matched anything and are gone.
DENY_RULES = (
    "Bash(sed -i:*)",
    "Bash(perl -i:*)",
    "Bash(perl -pi:*)",
    "Bash(tee:*)",
    "Bash(dd:*)",
    "Bash(patch:*)",
    "Bash(git apply:*)",
)
DROPPED_RULES = ("Bash(cat >:*)", "Bash(echo >:*)", "Bash(printf >:*)")
# event -> (its matcher, None when it takes none; timeout in seconds)
EVENTS: dict[str, tuple[str | None, int]] = {
    "PreToolUse": ("Write|Edit|NotebookEdit|Bash", 30),
    "PostToolUse": ("*", 600),
    "PostToolUseFailure": ("*", 600),
    "Stop": (None, 600),
    "SessionStart": (None, 30),
}


def parse(payload: dict[str, Any]) -> m.Event:
    return event(
        NAME,
        payload,
        KINDS,
        file_path_writes(TOOLS, "file_path", "notebook_path"),
        shell_tools=SHELL,
    )


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
    return grouped_hooks(command, EVENTS)
