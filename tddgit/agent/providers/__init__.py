"""Who answers the model's turn: a small interface, the SDK behind it imported lazily.

A provider takes a :class:`Request` (the Messages API body) and returns a :class:`Reply`
(the response as JSON plus its usage). Errors are tddgit's own: a missing or rejected key is
a usage error (exit 2); a provider that stays overloaded after the SDK's retries is a
refusal (exit 1), and the caller restores the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tddgit.agent.settings import Settings


@dataclass(frozen=True)
class Usage:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def to_json(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
        }

    @classmethod
    def from_api(cls, raw: Any) -> Usage:
        """The Messages API's ``usage`` object (missing or null fields count as 0)."""
        if not isinstance(raw, Mapping):
            return cls()

        def n(key: str) -> int:
            value = raw.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        return cls(
            n("input_tokens"),
            n("output_tokens"),
            n("cache_read_input_tokens"),
            n("cache_creation_input_tokens"),
        )


EPHEMERAL = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4  # the API refuses a request with more


def _marked(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """A copy of ``message`` whose last block carries a breakpoint (plain text becomes one
    text block); the conversation itself is never changed."""
    content = message.get("content")
    if isinstance(content, str):
        blocks: list[Any] = [{"type": "text", "text": content}]
    elif isinstance(content, list) and content:
        blocks = list(content)
    else:
        return message
    if isinstance(blocks[-1], Mapping):
        blocks[-1] = {**blocks[-1], "cache_control": dict(EPHEMERAL)}
    return {**message, "content": blocks}


def _breakpoints(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The conversation with two breakpoints: the first message (the spec and the
    project, the same for the whole run: written by the first request, read by every
    later one) and the last (moving with every turn: each request reads the conversation
    the one before it wrote and writes only what is new)."""
    out = list(messages)
    if out:
        out[0] = _marked(out[0])
    if len(out) > 1:
        out[-1] = _marked(out[-1])
    return out


@dataclass(frozen=True)
class Request:
    model: str
    # one text, or blocks: the first block is what several runs share (the phases of a
    # cycle), the rest what is this run's own
    system: str | Sequence[str]
    messages: Sequence[Mapping[str, Any]]
    tools: Sequence[Mapping[str, Any]]
    max_tokens: int
    tool_choice: Mapping[str, Any] | None = None  # e.g. {"type": "tool", "name": ...}

    def body(self) -> dict[str, Any]:
        """The request body exactly as it is sent (and recorded in the transcript), with
        the API's four prompt-caching breakpoints (``cache_control``) where they pay:

        - the system prompt's blocks but the last (the rules and what stays true of the
          project; the spec, when the run has one: the phases of a cycle share them, a
          green reads what its red wrote); the last block is the phase's own task;
        - the first message (the phase's own start: the whole run's, so the second
          request already reads it — a run of two requests saves on both);
        - the conversation's last block, moving with every turn;
        - the last tool, when a breakpoint is left (the tools alone, about 740 tokens,
          are below every model's minimum: never cached by themselves).

        The API caches a prefix only from a minimum length (1024 tokens for most models,
        more for some): a shorter one costs what it did without a breakpoint."""
        texts = [self.system] if isinstance(self.system, str) else list(self.system)
        system: list[dict[str, Any]] = [{"type": "text", "text": t} for t in texts if t]
        # every block but the phase's own task (the last) is shared by several runs
        for block in system[: max(1, len(system) - 1)]:
            block["cache_control"] = dict(EPHEMERAL)
        messages = _breakpoints(self.messages)
        used = min(len(system), max(1, len(system) - 1)) + min(len(messages), 2)
        tools = [dict(t) for t in self.tools]
        if tools and used < MAX_BREAKPOINTS:  # the tools alone are below every minimum
            tools[-1]["cache_control"] = dict(EPHEMERAL)
        body = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": system,
            "tools": tools,
            "messages": messages,
        }
        if self.tool_choice is not None:
            body["tool_choice"] = dict(self.tool_choice)
        return body


@dataclass(frozen=True)
class Reply:
    message: Mapping[str, Any]  # the response body: id, content, stop_reason, usage...
    usage: Usage = field(default_factory=Usage)

    @property
    def content(self) -> list[Mapping[str, Any]]:
        blocks = self.message.get("content")
        return [b for b in blocks if isinstance(b, Mapping)] if isinstance(blocks, list) else []

    @property
    def stop_reason(self) -> str:
        return str(self.message.get("stop_reason") or "")


class Provider(Protocol):
    name: str

    def model_name(self, configured: str) -> str:
        """The model the evidence and the `GSD-Agent` trailer name."""
        ...

    def complete(self, request: Request) -> Reply: ...


def make_provider(settings: Settings, on_wait: Callable[[str], None] | None = None) -> Provider:
    """The configured provider (``llm.provider``), its module imported only now."""
    if settings.provider == "replay":
        from tddgit.agent.providers.replay import ReplayProvider

        return ReplayProvider(settings)
    from tddgit.agent.providers.anthropic import AnthropicProvider

    return AnthropicProvider(settings, on_wait)


__all__ = ["Provider", "Reply", "Request", "Usage", "make_provider"]
