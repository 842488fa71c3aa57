"""The fake server's prompt-caching accounting follows the API's documented rules, so the
replay bench neither flatters nor wrongs the breakpoints tddgit sets."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent.promptcache import LOOKBACK, PromptCache, TooManyBreakpoints, min_cached

MARK = {"type": "ephemeral"}


def block(n: int, mark: bool = False) -> dict[str, Any]:
    """A text block of about ``n`` tokens (four characters each)."""
    out: dict[str, Any] = {"type": "text", "text": "x" * (4 * n - 30)}
    if mark:
        out["cache_control"] = MARK
    return out


def body(*blocks: dict[str, Any], system: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "system": system or [],
        "tools": [],
        "messages": [{"role": "user", "content": list(blocks)}],
    }


def test_a_prefix_under_the_minimum_is_neither_written_nor_read() -> None:
    cache = PromptCache(minimum=1024)
    request = body(block(900, mark=True))
    for _ in range(2):
        usage = cache.usage(request)
        assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0
        assert usage["input_tokens"] >= 900


def test_the_second_request_reads_what_the_first_wrote_and_writes_only_what_is_new() -> None:
    cache = PromptCache(minimum=1024)
    first = cache.usage(body(block(1500, mark=True)))
    assert first["cache_creation_input_tokens"] >= 1500 and first["cache_read_input_tokens"] == 0
    second = cache.usage(body(block(1500), block(300, mark=True)))
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert 250 < second["cache_creation_input_tokens"] < 350


def test_one_different_block_before_the_breakpoint_is_a_miss() -> None:
    cache = PromptCache(minimum=1024)
    cache.usage(body(block(1500), block(10, mark=True)))
    changed = body(block(1501), block(10, mark=True))
    assert cache.usage(changed)["cache_read_input_tokens"] == 0


def test_a_hit_further_back_than_the_lookback_window_is_not_found() -> None:
    cache = PromptCache(minimum=1024)
    cache.usage(body(block(1500, mark=True)))
    near = body(block(1500), *(block(5) for _ in range(LOOKBACK - 1)), block(5, mark=True))
    assert cache.usage(near)["cache_read_input_tokens"] > 0
    cache = PromptCache(minimum=1024)
    cache.usage(body(block(1500, mark=True)))
    far = body(block(1500), *(block(5) for _ in range(LOOKBACK + 1)), block(5, mark=True))
    assert cache.usage(far)["cache_read_input_tokens"] == 0


def test_more_than_four_breakpoints_is_refused() -> None:
    with pytest.raises(TooManyBreakpoints, match="maximum of 4"):
        PromptCache().usage(body(*(block(10, mark=True) for _ in range(5))))


def test_the_minimum_is_the_model_family_s() -> None:
    assert min_cached("claude-sonnet-4-6") == 1024
    assert min_cached("claude-opus-4-6") == 4096
    assert min_cached("claude-haiku-4-5-20251001") == 4096
