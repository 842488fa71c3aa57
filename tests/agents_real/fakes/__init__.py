"""Scripted model servers for the real coding agents: each fake speaks one model API
(Anthropic Messages, Gemini streamGenerateContent, OpenAI Responses) with the streaming
the agent uses, on 127.0.0.1, and plays a script of turns.

A script is what the "model" does, in order: write a file with the agent's file tool,
run a shell command with its shell tool, then finish with a text. The turn served for a
request is the number of tool results the request carries (the agent sends the whole
conversation each time), so the model answers a turn only after it has seen the previous
tool's result, and side requests (titles, token counts, next-speaker checks) never move
the script on. Every request is recorded, so a test can read what the agent told the
model (a refusal's rule id, a revert's reason).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Write:
    """Write ``content`` to ``path`` (relative to the project) with the agent's file tool."""

    path: str
    content: str


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` (whole lines, once) by ``new`` in ``path`` with the agent's edit tool."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Shell:
    """Run ``command`` with the agent's shell tool, in the project."""

    command: str


@dataclass(frozen=True)
class Finish:
    """End the turn with a text and no tool call."""

    text: str = "Done."


Action = Write | Edit | Shell | Finish


@dataclass
class Recorded:
    method: str
    path: str
    body: dict[str, Any]


class Reply:
    """What a handler answers: a JSON body, or server-sent events."""

    def __init__(self, *, json_body: Any = None, events: list[bytes] | None = None) -> None:
        self.json_body = json_body
        self.events = events


class FakeModel:
    """One scripted model server; subclasses speak an API (``answer``)."""

    def __init__(self, script: list[Any], root: Path) -> None:
        self.script = script
        self.root = root  # the project, for writes that depend on a file's current text
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # --- what a flavour implements -------------------------------------------------
    def answer(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        raise NotImplementedError

    # --- the script ---------------------------------------------------------------
    def action(self, results: int) -> Any:
        """The action for a request that carries ``results`` tool results."""
        if results < len(self.script):
            return self.script[results]
        return Finish()

    def results_of(self, body: dict[str, Any]) -> int:
        """How many tool results a request carries (a flavour counts its own)."""
        raise NotImplementedError

    def tail(self, body: dict[str, Any]) -> Any:
        """What a request carries after the model's last turn: the tool's result and
        whatever the agent (its hooks) added to it."""
        raise NotImplementedError

    def after_tools(self) -> list[str]:
        """For each tool step of the script, in order, what the model was told after it
        (the tool's output and any hook's reason), as JSON text."""
        out: dict[int, str] = {}
        for r in self.requests:
            if r.path.endswith(("count_tokens", ":countTokens")):
                continue
            k = self.results_of(r.body)
            if k and k not in out:
                out[k] = json.dumps(self.tail(r.body))
        return [out[k] for k in sorted(out)]

    def seen(self, text: str) -> bool:
        """Whether the agent sent ``text`` to the model in any request (a tool result,
        a hook's reason)."""
        return any(text in json.dumps(r.body) for r in self.requests)

    def transcript(self) -> str:
        """Every request body, for an assertion's message."""
        return "\n".join(f"{r.method} {r.path} {json.dumps(r.body)[:4000]}" for r in self.requests)

    # --- the server ---------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeModel:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, method: str, path: str, raw: bytes) -> Reply:
        try:
            body = json.loads(raw) if raw.strip() else {}
        except ValueError:
            body = {"raw": raw.decode("utf-8", "replace")}
        with self._lock:
            self.requests.append(Recorded(method, path, body))
        return self.answer(method, path, body)


def sse(events: Iterator[tuple[str | None, Any]]) -> list[bytes]:
    """Server-sent events: ``event:`` lines when named, one JSON ``data:`` each."""
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n".encode())
    return out


def _handler(fake: FakeModel) -> Callable[..., BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet: the recording is the log
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if (
                self.headers.get("Content-Encoding") == "zstd"
                or self.headers.get("Content-Encoding") == "gzip"
            ):
                raw = _decode(raw, self.headers.get("Content-Encoding", ""))
            try:
                reply = fake._handle(self.command, self.path, raw)
            except Exception as exc:  # an unknown request: a 404 the agent reports
                data = json.dumps({"error": {"message": f"fake: {exc}"}}).encode()
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            if reply.events is not None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in reply.events:
                    self.wfile.write(chunk)
                self.wfile.flush()
                self.close_connection = True
                return
            data = json.dumps(reply.json_body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = _serve
        do_GET = _serve

    return Handler


def _decode(raw: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        import gzip

        return gzip.decompress(raw)
    return raw
