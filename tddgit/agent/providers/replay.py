"""Answers from a recorded transcript (or a hand-written script in the same format).

Every line of the file is a JSON object; the lines with ``"event": "response"`` are the
model's replies, given back in order, one per request. A hand-written script may keep
only what matters in each ``message`` (``content`` and ``stop_reason``); the rest is
filled in. Nothing is sent anywhere, so no key is needed: the demo and tests use it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tddgit.agent.providers import Reply, Request, Usage
from tddgit.errors import Refused, UsageError

if TYPE_CHECKING:
    from tddgit.agent.settings import Settings


SCRIPTED = "scripted"


class ReplayProvider:
    name = "replay"

    def __init__(self, settings: Settings) -> None:
        if settings.replay is None:
            raise UsageError(
                'llm.provider is "replay" but no script is set',
                "set llm.replay to a transcript or script path (see docs/llm.md)",
            )
        self.path = settings.replay
        self._replies = load_script(settings.replay)
        self._next = 0

    def model_name(self, configured: str) -> str:
        return SCRIPTED  # whatever model recorded the script, this run's model is a script

    def complete(self, request: Request) -> Reply:
        if self._next >= len(self._replies):
            raise Refused(
                f"the replay script {self.path.name} has no reply left for request "
                f"{self._next + 1}",
                "record or write more responses, or lower llm.max_turns",
            )
        message = dict(self._replies[self._next])
        self._next += 1
        message.setdefault("id", f"msg_replay_{self._next}")
        message.setdefault("type", "message")
        message.setdefault("role", "assistant")
        message.setdefault("model", request.model)
        message.setdefault("stop_reason", _default_stop(message))
        message.setdefault("usage", {"input_tokens": 0, "output_tokens": 0})
        return Reply(message=message, usage=Usage.from_api(message["usage"]))


def load_script(path: Path) -> list[Mapping[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the replay script {path}: {exc}", "fix llm.replay") from None
    replies: list[Mapping[str, Any]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            raise UsageError(
                f"{path}:{n}: not a JSON line", "each line of a replay script is one JSON object"
            ) from None
        if not isinstance(entry, dict) or entry.get("event") != "response":
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            raise UsageError(
                f"{path}:{n}: a response needs a message with a content list",
                'write {"event": "response", "message": {"content": [...]}}',
            )
        replies.append(message)
    if not replies:
        raise UsageError(f"{path}: no response lines", 'add {"event": "response", ...} lines')
    return replies


def _default_stop(message: Mapping[str, Any]) -> str:
    content = message.get("content") or []
    uses = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
    return "tool_use" if uses else "end_turn"
