"""One module per agent: how it calls a hook (stdin), how it reads the answer (stdout, exit
code), and the configuration that installs the guard. The rules are shared (guard.rules).

Every adapter module defines ``NAME``, ``parse(payload) -> Event``, ``render(event,
decision) -> Reply``, ``config_path(scope, root) -> Path``, ``hooks(command) -> dict`` (the
agent's ``hooks`` entries to merge in) and ``DENY_RULES`` (permission rules, if the agent
has them).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from tddgit.errors import UsageError
from tddgit.guard.model import OTHER, POST_WRITE, PRE_WRITE, Event, Reply, Write

AGENTS = {
    "claude-code": "tddgit.guard.adapters.claude_code",
    "codex": "tddgit.guard.adapters.codex",
    "gemini": "tddgit.guard.adapters.gemini",
    "cursor": "tddgit.guard.adapters.cursor",
}


def adapter(agent: str) -> ModuleType:
    if agent not in AGENTS:
        raise UsageError(f"unknown agent {agent!r}", f"use one of: {', '.join(AGENTS)}")
    return importlib.import_module(AGENTS[agent])


def text(payload: dict[str, Any], key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def mapping(payload: dict[str, Any], key: str) -> dict[str, Any]:
    value = payload.get(key)
    return value if isinstance(value, dict) else {}


WritesOf = Callable[[str, dict[str, Any]], tuple[Write, ...]]


def event(
    agent: str,
    payload: dict[str, Any],
    kinds: Mapping[str, str],
    writes_of: WritesOf,
    *,
    session: str = "",
    cwd: str | None = None,
    stop_hook_active: bool | None = None,
    shell_tools: frozenset[str] = frozenset(),
) -> Event:
    """The neutral event of a payload. A pre-tool event that names no file and runs no
    shell command is ``OTHER``; every post-tool event is a ``POST_WRITE`` (the tree check
    judges whatever the tool changed, file tool or not)."""
    native = text(payload, "hook_event_name")
    kind = kinds.get(native, OTHER)
    tool = text(payload, "tool_name")
    writes: tuple[Write, ...] = ()
    command = ""
    if kind in (PRE_WRITE, POST_WRITE):
        writes = writes_of(tool, payload)
        if tool in shell_tools:
            command = text(mapping(payload, "tool_input"), "command") or text(payload, "command")
        if kind == PRE_WRITE and not writes and not command:
            kind = OTHER
    if stop_hook_active is None:
        stop_hook_active = payload.get("stop_hook_active") is True
    return Event(
        agent=agent,
        kind=kind,
        native=native,
        session=session or text(payload, "session_id"),
        cwd=text(payload, "cwd") or cwd,
        tool=tool,
        writes=writes,
        stop_hook_active=stop_hook_active,
        command=command,
    )


def file_path_writes(actions: Mapping[str, str], *keys: str) -> WritesOf:
    """For tools that name one file in ``tool_input`` (the first of ``keys`` present):
    ``actions`` maps each guarded tool to what it does to the file."""

    def writes_of(tool: str, payload: dict[str, Any]) -> tuple[Write, ...]:
        tool_input = mapping(payload, "tool_input")
        path = next((text(tool_input, k) for k in keys if text(tool_input, k)), "")
        return (Write(path, actions[tool]),) if tool in actions and path else ()

    return writes_of


def config_file(scope: str, root: Path, *parts: str) -> Path:
    """``parts`` under the project (``--project``) or the home directory (``--user``)."""
    return (Path.home() if scope == "user" else root).joinpath(*parts)


def grouped_hooks(
    command: str, events: Mapping[str, tuple[str | None, int]], **extra: Any
) -> dict[str, list[dict[str, Any]]]:
    """Claude Code's shape (Codex and Gemini CLI share it): per event, one group with its
    ``matcher`` (a tool event; None: the event takes none), holding our one command hook."""
    out = {}
    for name, (matcher, timeout) in events.items():
        hook = {**extra.get(name, {}), "type": "command", "command": command, "timeout": timeout}
        group: dict[str, Any] = {"matcher": matcher} if matcher is not None else {}
        out[name] = [{**group, "hooks": [hook]}]
    return out


def session_context(native: str, context: str) -> dict[str, Any]:
    """``hookSpecificOutput.additionalContext``: how Claude Code, Codex and Gemini CLI take
    text for the model at session start."""
    return {"hookSpecificOutput": {"hookEventName": native, "additionalContext": context}}


def said(rule: str, reason: str) -> str:
    return f"tddgit [{rule}]: {reason}"


def json_reply(out: dict[str, Any], warning: str, warn_key: str | None) -> Reply:
    """``out`` as the stdout JSON (nothing when empty); a warning goes to stderr and, where
    the agent shows one, to its user-facing message ``warn_key``."""
    import json

    if warning and warn_key:
        out.setdefault(warn_key, f"tddgit: {warning}")
    stdout = json.dumps(out) + "\n" if out else ""
    return Reply(stdout=stdout, stderr=f"tddgit: warning: {warning}\n" if warning else "")
