"""The Gemini API as Gemini CLI uses it: ``POST /v1beta/models/M:streamGenerateContent
?alt=sse`` answered with server-sent ``data:`` chunks of ``candidates`` whose parts are a
``functionCall`` (``write_file``, ``run_shell_command``) or text; ``generateContent``
(its side requests: next-speaker checks, summaries) and ``countTokens`` answered plainly.
A tool's result comes back as a ``functionResponse`` part."""

from __future__ import annotations

from typing import Any

from tests.agents_real.fakes import Edit, FakeModel, Finish, Reply, Shell, Write, sse


class GeminiFake(FakeModel):
    def answer(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        route = path.split("?", 1)[0]
        if route.endswith(":countTokens"):
            return Reply(json_body={"totalTokens": 100})
        if not (route.endswith(":streamGenerateContent") or route.endswith(":generateContent")):
            raise LookupError(f"no route {method} {path}")
        if body.get("tools"):
            action = self.action(_results(body))
        else:
            action = Finish('{"reasoning": "the model is done", "next_speaker": "user"}')
        parts = _parts(action, str(self.root))
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 100,
                "candidatesTokenCount": 20,
                "totalTokenCount": 120,
            },
            "modelVersion": "gemini-2.5-pro",
        }
        if route.endswith(":streamGenerateContent"):
            return Reply(events=sse(iter([(None, chunk)])))
        return Reply(json_body=chunk)

    def results_of(self, body: dict[str, Any]) -> int:
        return _results(body)

    def tail(self, body: dict[str, Any]) -> Any:
        contents = body.get("contents", [])
        last = max((i for i, c in enumerate(contents) if c.get("role") == "model"), default=-1)
        return contents[last + 1 :]


def _results(body: dict[str, Any]) -> int:
    count = 0
    for content in body.get("contents", []):
        for part in content.get("parts", []) or []:
            if isinstance(part, dict) and "functionResponse" in part:
                count += 1
    return count


def _parts(action: Any, root: str) -> list[dict[str, Any]]:
    if isinstance(action, Write):
        args = {"file_path": f"{root}/{action.path}", "content": action.content}
        return [{"functionCall": {"name": "write_file", "args": args}}]
    if isinstance(action, Edit):
        args = {
            "file_path": f"{root}/{action.path}",
            "old_string": action.old,
            "new_string": action.new,
            "instruction": "edit",
        }
        return [{"functionCall": {"name": "replace", "args": args}}]
    if isinstance(action, Shell):
        args = {"command": action.command, "description": "run a command"}
        return [{"functionCall": {"name": "run_shell_command", "args": args}}]
    assert isinstance(action, Finish)
    return [{"text": action.text}]
