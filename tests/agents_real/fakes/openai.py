"""The OpenAI Responses API as Codex CLI uses it (a ``model_providers`` entry with
``wire_api = "responses"``): ``POST /v1/responses`` with ``stream: true`` answered with
server-sent events (``response.created``, one ``response.output_item.done`` per item,
``response.completed``). Shell commands are ``function_call`` items for ``exec_command``;
file writes are ``apply_patch`` calls (a ``custom_tool_call`` with the patch as its input
when the request declares apply_patch as a custom tool, else a ``function_call``). A
tool's result comes back as a ``function_call_output``/``custom_tool_call_output`` item."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.agents_real.fakes import Edit, FakeModel, Finish, Reply, Shell, Write, sse

_ids = itertools.count(1)
_OUTPUTS = {"function_call_output", "custom_tool_call_output"}


class ResponsesFake(FakeModel):
    def answer(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        route = path.split("?", 1)[0]
        if route.endswith("/models"):
            return Reply(json_body={"object": "list", "data": [], "models": []})
        if not route.endswith("/responses"):
            raise LookupError(f"no route {method} {path}")
        tools = body.get("tools") or []
        running = _still_running(body)
        if tools and running is not None:
            # The command outlived exec_command's yield (Codex caps it at 30 s): wait for
            # it with write_stdin, as a model does, before the script moves on.
            args = {"session_id": running, "chars": "", "yield_time_ms": 30000}
            items = [_call("write_stdin", f"call_{next(_ids):04d}", json.dumps(args))]
            return Reply(events=sse(_stream(items)))
        action = self.action(_results(body)) if tools else Finish("ok")
        items = [_item(action, self.root, tools)]
        return Reply(events=sse(_stream(items)))

    def results_of(self, body: dict[str, Any]) -> int:
        return _results(body)

    def tail(self, body: dict[str, Any]) -> Any:
        items = body.get("input") or []
        calls = {"function_call", "custom_tool_call"}
        last = max((i for i, it in enumerate(items) if it.get("type") in calls), default=-1)
        return items[last + 1 :]


def _results(body: dict[str, Any]) -> int:
    """Tool results of the script's steps (a write_stdin poll is not a step)."""
    items = [i for i in body.get("input") or [] if isinstance(i, dict)]
    polls = {i.get("call_id") for i in items if i.get("name") == "write_stdin"}
    return sum(1 for i in items if i.get("type") in _OUTPUTS and i.get("call_id") not in polls)


def _still_running(body: dict[str, Any]) -> int | None:
    """The session id when the last tool result says its command is still running."""
    items = [i for i in body.get("input") or [] if isinstance(i, dict)]
    if not items or items[-1].get("type") not in _OUTPUTS:
        return None
    found = re.search(r"Process running with session ID (\d+)", str(items[-1].get("output")))
    return int(found.group(1)) if found else None


def _item(action: Any, root: Path, tools: list[dict[str, Any]]) -> dict[str, Any]:
    call_id = f"call_{next(_ids):04d}"
    if isinstance(action, Shell):
        # Wait for the command (up to Codex's own cap) rather than get a running session
        # back to poll: a gate under load takes longer than the default yield.
        args = {"cmd": action.command, "workdir": str(root), "yield_time_ms": 300000}
        return _call("exec_command", call_id, json.dumps(args))
    if isinstance(action, Write | Edit):
        if isinstance(action, Edit):
            minus = "".join(f"-{line}\n" for line in action.old.splitlines())
            plus = "".join(f"+{line}\n" for line in action.new.splitlines())
            patch = (
                f"*** Begin Patch\n*** Update File: {action.path}\n@@\n{minus}{plus}*** End Patch"
            )
        else:
            patch = patch_for(root / action.path, action.path, action.content)
        custom = any(t.get("type") == "custom" and t.get("name") == "apply_patch" for t in tools)
        if custom:
            return {
                "type": "custom_tool_call",
                "id": f"ctc_{call_id}",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
                "status": "completed",
            }
        return _call("apply_patch", call_id, json.dumps({"input": patch}))
    assert isinstance(action, Finish)
    return {
        "type": "message",
        "id": f"msg_{call_id}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": action.text, "annotations": []}],
    }


def _call(name: str, call_id: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def patch_for(path: Path, name: str, content: str) -> str:
    """An apply_patch body that makes ``name`` hold ``content``: an added file, or an
    update replacing every line of the file as it is now."""
    new = content.splitlines()
    if not path.exists():
        body = "".join(f"+{line}\n" for line in new)
        return f"*** Begin Patch\n*** Add File: {name}\n{body}*** End Patch"
    old = path.read_text().splitlines()
    body = "".join(f"-{line}\n" for line in old) + "".join(f"+{line}\n" for line in new)
    return f"*** Begin Patch\n*** Update File: {name}\n@@\n{body}*** End Patch"


def _stream(items: list[dict[str, Any]]) -> Iterator[tuple[str | None, Any]]:
    rid = f"resp_{next(_ids):04d}"
    yield "response.created", {"type": "response.created", "response": {"id": rid}}
    for index, item in enumerate(items):
        yield (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": item,
            },
        )
        yield (
            "response.output_item.done",
            {
                "type": "response.output_item.done",
                "output_index": index,
                "item": item,
            },
        )
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 120,
    }
    yield (
        "response.completed",
        {
            "type": "response.completed",
            "response": {"id": rid, "status": "completed", "output": items, "usage": usage},
        },
    )
