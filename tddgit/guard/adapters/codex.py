"""Codex CLI: ``PreToolUse`` (matcher ``^(apply_patch|Bash)$``: the pre-write rules and
the command rules), ``PostToolUse`` (matcher ``.*``: the tree check after every tool),
``Stop`` and ``SessionStart`` in ``.codex/hooks.json`` (Claude Code's shape).

Codex names its shell tool (``exec_command``) ``Bash`` in hook payloads, the command line
in ``tool_input.command``; a failed tool call fires no ``PostToolUse``, so the next tool's
check (or the stop's) judges what it left.

File writes arrive as ``apply_patch`` with the patch in ``tool_input.command``; each file
it touches has a ``*** Add File: P`` / ``*** Update File: P`` / ``*** Delete File: P``
header (an update may move the file: ``*** Move to: Q``). The answers are Claude Code's:
``permissionDecision = "deny"`` refuses, ``{"decision": "block"}`` undoes/blocks,
``additionalContext`` informs; allowing is silence with exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tddgit.guard import model as m
from tddgit.guard.adapters import claude_code, config_file, event, grouped_hooks, mapping, text

NAME = "codex"
TOOL = "apply_patch"
DENY_RULES: tuple[str, ...] = ()
SHELL = frozenset({"Bash", "exec_command", "shell", "local_shell"})
KINDS = {k: v for k, v in claude_code.KINDS.items() if k != "PostToolUseFailure"}
EVENTS: dict[str, tuple[str | None, int]] = {
    "PreToolUse": (f"^({TOOL}|Bash)$", 30),
    "PostToolUse": (".*", 600),
    "Stop": (None, 600),
    "SessionStart": (None, 30),
}
_HEADERS = {
    "*** Add File: ": "add",
    "*** Update File: ": "update",
    "*** Delete File: ": "delete",
    "*** Move to: ": "add",
}


def patch_writes(patch: str) -> tuple[m.Write, ...]:
    """The files an ``apply_patch`` body touches, in order."""
    out: list[m.Write] = []
    for line in patch.splitlines():
        for header, action in _HEADERS.items():
            if line.startswith(header) and line[len(header) :].strip():
                out.append(m.Write(line[len(header) :].strip(), action))
    return tuple(out)


def _writes(tool: str, payload: dict[str, Any]) -> tuple[m.Write, ...]:
    if tool != TOOL:
        return ()
    tool_input = payload.get("tool_input")
    patch = (
        tool_input
        if isinstance(tool_input, str)
        else text(mapping(payload, "tool_input"), "command")
    )
    return patch_writes(patch)


def parse(payload: dict[str, Any]) -> m.Event:
    return event(NAME, payload, KINDS, _writes, shell_tools=SHELL)


def render(ev: m.Event, decision: m.Decision) -> m.Reply:
    """Claude Code's answers, except that allowing is always silence on stdout (a
    fail-open warning goes to stderr only): Codex reads nothing else as "allow"."""
    reply = claude_code.render(ev, decision)
    return m.Reply(stderr=reply.stderr) if decision.verdict == m.ALLOW else reply


def config_path(scope: str, root: Path) -> Path:
    return config_file(scope, root, ".codex", "hooks.json")


def hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    return grouped_hooks(command, EVENTS)
