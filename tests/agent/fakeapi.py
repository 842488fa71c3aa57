"""A local fake of the Anthropic Messages API: loopback only, scripted, every request kept.

The real ``anthropic`` SDK talks to it over HTTP through ``ANTHROPIC_BASE_URL``. Each POST
to ``/v1/messages`` takes the next scripted answer: a message (HTTP 200) or a
:class:`Status` (an error status with the API's error body and ``retry-after: 0`` unless
the script says otherwise, so retries do not sleep). A request after the script ran out gets a 500 that says so
(with ``x-should-retry: false``), which fails the test loudly.

With a :class:`PromptCache` set (``api.cache``), each message's ``usage`` is the API's
prompt-caching accounting of the request (tests/agent/promptcache.py): input tokens, cache
reads and writes as the real API would count them, output tokens estimated from the
scripted content; more than four breakpoints is the API's 400.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.agent.promptcache import PromptCache, TooManyBreakpoints
from tests.agent.promptcache import tokens as estimate

_ids = itertools.count(1)


@dataclass(frozen=True)
class Status:
    code: int
    kind: str = "overloaded_error"
    message: str = "scripted error"
    retry_after: str | None = "0"  # None: no retry-after header (the client's own backoff)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    raw: bytes
    usage: dict[str, int] | None = None  # what the answer's usage said (with api.cache)

    @property
    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.raw)
        return data


@dataclass
class FakeMessagesAPI:
    script: list[dict[str, Any] | Status] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    url: str = ""
    cache: PromptCache | None = None  # set: usage follows the API's caching rules
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, *answers: dict[str, Any] | Status) -> None:
        with self._lock:
            self.script.extend(answers)

    def next_answer(self) -> dict[str, Any] | Status | None:
        with self._lock:
            return self.script.pop(0) if self.script else None

    def tool_results(self, n: int) -> list[dict[str, Any]]:
        """The tool_result blocks the n-th request (1-based) sent back."""
        last = self.requests[n - 1].body["messages"][-1]
        return [
            b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
        ]


def said(message: dict[str, Any]) -> str:
    """A request message's text: its content, or its text blocks joined (the first message
    is sent as a block to carry a cache breakpoint)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n\n".join(b["text"] for b in content if b.get("type") == "text")


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool(name: str, input: Any = None, **fields: Any) -> dict[str, Any]:
    """A tool_use block; ``input`` given positionally may be anything (malformed input)."""
    return {
        "type": "tool_use",
        "id": f"toolu_{next(_ids):04d}",
        "name": name,
        "input": fields if input is None else input,
    }


def reply(
    *blocks: dict[str, Any], stop: str | None = None, tokens: tuple[int, int] = (100, 20)
) -> dict[str, Any]:
    """A Messages API response with these content blocks."""
    uses = any(b["type"] == "tool_use" for b in blocks)
    return {
        "id": f"msg_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": list(blocks),
        "stop_reason": stop or ("tool_use" if uses else "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]},
    }


def _handler(api: FakeMessagesAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            record = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
            api.requests.append(record)
            answer = api.next_answer() if self.path.split("?")[0] == "/v1/messages" else None
            if answer is None:
                exhausted = _error("api_error", "fake server: no scripted answer left")
                self._send(500, exhausted, {"x-should-retry": "false"})
            elif isinstance(answer, Status):
                headers = {} if answer.retry_after is None else {"retry-after": answer.retry_after}
                self._send(answer.code, _error(answer.kind, answer.message), headers)
            elif api.cache is not None:
                try:
                    usage = api.cache.usage(json.loads(raw))
                except TooManyBreakpoints as exc:
                    self._send(400, _error("invalid_request_error", str(exc)), {})
                    return
                usage["output_tokens"] = estimate(answer["content"])
                record.usage = usage
                self._send(200, {**answer, "usage": usage}, {})
            else:
                self._send(200, answer, {})

        def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def serve() -> Iterator[FakeMessagesAPI]:
    api = FakeMessagesAPI()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    server.daemon_threads = True
    host, port = server.server_address[:2]
    api.url = f"http://{host}:{port}"
    # serve_forever polls for shutdown every 0.5 s by default: half a second per test
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
