"""Prompt caching: breakpoints on the tools, the system prompt and the conversation's last
tool results (moving each turn); cache reads and writes counted in the transcript, the end
line and the cost; dollars in every progress line; a default cost limit per run."""

from __future__ import annotations

import json
from typing import Any

from tests.agent.conftest import generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, tool
from tests.agent.test_generate_red import TEST_SUB
from tests.conftest import GitRepo


def cached(answer: dict[str, Any], read: int, written: int) -> dict[str, Any]:
    answer["usage"].update(cache_read_input_tokens=read, cache_creation_input_tokens=written)
    return answer


def marks(value: Any) -> int:
    """How many cache_control breakpoints ``value`` holds."""
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(marks(v) for v in value.values())
    if isinstance(value, list):
        return sum(marks(v) for v in value)
    return 0


def test_requests_carry_a_moving_breakpoint_and_usage_counts_the_cache(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        cached(reply(tool("list_files")), 0, 3000),
        cached(reply(tool("read_file", path="calc.py")), 3000, 400),
        cached(reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)), 3400, 300),
        cached(reply(tool("finish", summary="two tests")), 3700, 500),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--json")
    assert code == 0, out + err
    for n, request in enumerate(fake_api.requests, 1):
        body = request.body
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert marks(body["tools"][:-1]) == 0
        if n == 1:
            assert marks(body["messages"]) == 0  # the first message: nothing before it
        else:  # one breakpoint in the conversation, on its last block
            assert marks(body["messages"]) == 1
            assert "cache_control" in body["messages"][-1]["content"][-1]
    tokens = json.loads(out)["agent"]["tokens"]
    assert tokens["cache_read"] == 3000 + 3400 + 3700
    assert tokens["cache_write"] == 3000 + 400 + 300 + 500
    progress = [line for line in err.splitlines() if line.startswith("turn ")]
    assert len(progress) == 4 and all("$" in line for line in progress), progress
    assert "of $2" in progress[0]  # the default limit per run


def test_the_default_cost_limit_does_not_stop_a_model_with_no_price(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)),
        reply(tool("finish", summary="two tests")),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--model", "acme-7")
    assert code == 0, out + err
    assert "no price is known for acme-7: the default llm.max_cost does not apply" in err
