"""The Anthropic Messages API as Claude Code uses it: ``POST /v1/messages`` with
``stream: true`` answered with server-sent events (``message_start``, one content block
per part, ``input_json_delta`` for a tool's input, ``message_delta`` with the stop reason),
``tool_use`` blocks for the ``Write`` and ``Bash`` tools, and ``count_tokens``."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.agents_real.fakes import Action, Edit, FakeModel, Finish, Reply, Shell, Write, sse


@dataclass(frozen=True)
class Read:
    path: str


_ids = itertools.count(1)


class AnthropicFake(FakeModel):
    def __init__(self, script: list[Action], root: Path) -> None:
        # Claude Code's Write refuses a file it has not read in the session: each write
        # is preceded by a Read, as the model would (a missing file's Read just fails).
        steps: list[Action] = []
        for action in script:
            reads = isinstance(action, Write | Edit)
            steps.extend([Read(action.path), action] if reads else [action])
        super().__init__(steps, root)

    def answer(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        if path.startswith("/v1/messages/count_tokens"):
            return Reply(json_body={"input_tokens": 100})
        if not path.startswith("/v1/messages"):
            raise LookupError(f"no route {method} {path}")
        # A side request (a title, a summary) declares no tools: plain text, and the
        # script stays where it is.
        action = self.action(_results(body)) if body.get("tools") else Finish("ok")
        blocks = _blocks(action, str(self.root))
        model = str(body.get("model", "claude-fake"))
        if body.get("stream"):
            return Reply(events=sse(_stream(blocks, model)))
        return Reply(json_body=_message(blocks, model))

    def results_of(self, body: dict[str, Any]) -> int:
        return _results(body)

    def tail(self, body: dict[str, Any]) -> Any:
        messages = body.get("messages", [])
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
        return messages[last + 1 :]


def _results(body: dict[str, Any]) -> int:
    count = 0
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            count += sum(
                1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
            )
    return count


def _blocks(action: Action | Read, root: str) -> list[dict[str, Any]]:
    if isinstance(action, Write):
        tool = {"file_path": f"{root}/{action.path}", "content": action.content}
        return [_use("Write", tool)]
    if isinstance(action, Edit):
        tool = {
            "file_path": f"{root}/{action.path}",
            "old_string": action.old,
            "new_string": action.new,
        }
        return [_use("Edit", tool)]
    if isinstance(action, Read):
        return [_use("Read", {"file_path": f"{root}/{action.path}"})]
    if isinstance(action, Shell):
        return [_use("Bash", {"command": action.command, "description": "run a command"})]
    assert isinstance(action, Finish)
    return [{"type": "text", "text": action.text}]


def _use(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": name, "input": tool_input}


def _stop_reason(blocks: list[dict[str, Any]]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


def _message(blocks: list[dict[str, Any]], model: str) -> dict[str, Any]:
    return {
        "id": f"msg_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": _stop_reason(blocks),
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 20},
    }


def _stream(blocks: list[dict[str, Any]], model: str) -> Iterator[tuple[str | None, Any]]:
    start = _message([], model)
    start["stop_reason"] = None
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": opening,
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(blocks), "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
    )
    yield "message_stop", {"type": "message_stop"}
