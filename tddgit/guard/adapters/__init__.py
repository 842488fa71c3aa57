"""One module per agent: how it calls a hook (stdin), how it reads the answer (stdout, exit
code), and the configuration that installs the guard. The rules are shared (guard.rules).

Every adapter module defines ``NAME``, ``parse(payload) -> Event``, ``render(event,
decision) -> Reply``, ``config_path(scope, root) -> Path``, ``hooks(command) -> dict`` (the
agent's ``hooks`` entries to merge in) and ``DENY_RULES`` (permission rules, if the agent
has them).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from tddgit.errors import UsageError

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
