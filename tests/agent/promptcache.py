"""The Messages API's prompt-caching accounting, as its prompt-caching page documents it,
for the fake server (``FakeMessagesAPI.cache``) and the replay bench (bench/llm_replay.py).

The rules it follows:

- the prompt is one sequence of blocks in the order tools, system, messages; a
  ``cache_control`` breakpoint caches the prefix that ends with its block, at most four
  breakpoints a request (more is a 400);
- a prefix shorter than the model's minimum (1024 tokens for the Sonnet 4.x family; 2048,
  4096 for others) is neither written nor read: it costs full input price;
- at each breakpoint the API looks for the longest prefix already cached, at that block's
  boundary and at most ``LOOKBACK`` (20) block boundaries before it; the hit is read
  (``cache_read_input_tokens``), what lies between the hit and the last breakpoint is
  written (``cache_creation_input_tokens``), the rest is ``input_tokens``;
- a prefix is the exact content: one different byte before a breakpoint is a miss. JSON key
  order is not content (the API renders the parsed body), so keys are sorted for the key.

Tokens are estimated at four characters per token on the JSON, the estimate tddgit's loop
uses; the 5-minute lifetime is not modelled (a replay runs in seconds).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

# The shortest prefix the API caches, per model family (its prompt-caching page).
MIN_CACHED = {
    "claude-opus-4-5": 4096,
    "claude-opus-4-6": 4096,
    "claude-haiku-4-5": 4096,
    "claude-3-5-haiku": 2048,
    "claude-3-haiku": 2048,
}
MIN_DEFAULT = 1024  # Sonnet 4.x, Opus 4.0/4.1, Sonnet 3.7
LOOKBACK = 20  # block boundaries checked before each breakpoint
MAX_BREAKPOINTS = 4


def min_cached(model: str) -> int:
    return next((n for m, n in MIN_CACHED.items() if model.startswith(m)), MIN_DEFAULT)


def tokens(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False)) // 4 + 1


def strip(value: Any) -> Any:
    """``value`` without its breakpoints: what the request costs with no caching."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def total_tokens(body: dict[str, Any]) -> int:
    """The request's input tokens, every one at full price (no breakpoint)."""
    system = body.get("system", "")
    return (
        tokens(strip(body["messages"]))
        + tokens(strip(body.get("tools", [])))
        + tokens(strip(system))
    )


def blocks(body: dict[str, Any]) -> list[tuple[Any, bool]]:
    """The body in cache order (tools, system, the messages' blocks), each block with
    whether a breakpoint ends it. A message sent as plain text is one block."""
    out: list[tuple[Any, bool]] = [(t, "cache_control" in t) for t in body.get("tools", [])]
    system = body.get("system") or []
    texts = system if isinstance(system, list) else [{"type": "text", "text": system}]
    out += [(b, "cache_control" in b) for b in texts]
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            out.append(({"role": message["role"], "text": content}, False))
            continue
        out += [(b, isinstance(b, dict) and "cache_control" in b) for b in content]
    return out


class TooManyBreakpoints(ValueError):
    pass


@dataclass
class PromptCache:
    """One account's cache: the prefixes written so far, by their digest."""

    minimum: int = MIN_DEFAULT
    written: set[str] = field(default_factory=set)

    def usage(self, body: dict[str, Any]) -> dict[str, int]:
        """The request's ``usage`` input fields, and the prefixes it writes kept."""
        pieces = blocks(body)
        marks = [i for i, (_, mark) in enumerate(pieces) if mark]
        if len(marks) > MAX_BREAKPOINTS:
            raise TooManyBreakpoints(
                f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
                f"Found {len(marks)}."
            )
        digest = hashlib.sha256()
        keys: list[str] = []
        sizes: list[int] = []
        size = 0
        for piece, _ in pieces:
            stripped = strip(piece)
            digest.update(json.dumps(stripped, sort_keys=True, ensure_ascii=False).encode())
            size += tokens(stripped)
            keys.append(digest.hexdigest())
            sizes.append(size)
        looked = {j for i in marks for j in range(max(0, i - LOOKBACK), i + 1)}
        hits = [j for j in looked if keys[j] in self.written]
        read = sizes[max(hits)] if hits else 0
        cacheable = [i for i in marks if sizes[i] >= self.minimum]
        end = sizes[cacheable[-1]] if cacheable else 0
        for i in cacheable:
            self.written.add(keys[i])
        write = max(0, end - read)
        total = total_tokens(body)
        return {
            "input_tokens": max(0, total - read - write),
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": write,
        }
