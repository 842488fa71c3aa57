"""Prompt caching: breakpoints on the tools, the system prompt and the conversation's last
tool results (moving each turn); cache reads and writes counted in the transcript, the end
line and the cost; dollars in every progress line; a default cost limit per run."""

from __future__ import annotations

import json
from typing import Any

from tests.agent.conftest import SUB_RIGHT, generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, said, text, tool
from tests.agent.promptcache import PromptCache, blocks, strip, tokens
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
        # the shared block, then the spec (a cycle's phases share both), then the task
        assert len(body["system"]) == 3 and "TC-1" in body["system"][1]["text"]
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert body["system"][1]["cache_control"] == {"type": "ephemeral"}
        assert marks(body["system"][2:]) == 0
        # the tools, below every minimum alone, take the breakpoint left over, if any
        assert marks(body["tools"]) == (1 if n == 1 else 0)
        assert marks(body["tools"][:-1]) == 0
        # the first message (the phase's own start) is cached from the first request on,
        # so the second reads it; the moving breakpoint ends the conversation
        assert "cache_control" in body["messages"][0]["content"][-1]
        assert "cache_control" in body["messages"][-1]["content"][-1]
        assert marks(body["messages"]) == (1 if n == 1 else 2)
        assert marks(body) <= 4  # the API's limit
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


def test_the_cached_prefix_is_shared_by_the_phases_of_a_cycle(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """Tools and the system prompt's first block (the rules and what stays true of the
    project: runner, import rules, the style to follow) are the same bytes in red and in
    green, so a green started within the cache's lifetime reads what the red wrote; what
    differs (the phase's task, the map, the spec) comes after that breakpoint."""
    fake_api.push(
        reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)),
        reply(tool("finish", summary="two tests")),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--commit", "-m", "red: sub")
    assert code == 0, out + err
    fake_api.push(
        reply(tool("write_file", path="calc.py", content=SUB_RIGHT)),
        reply(tool("finish", summary="sub")),
    )
    code, out, err = generate(project, "--commit", "-m", "green: sub", phase="green")
    assert code == 0, out + err
    red, green = fake_api.requests[0].body, fake_api.requests[2].body
    assert red["tools"] == green["tools"]
    assert red["system"][0] == green["system"][0]
    assert "runner: pytest" in red["system"][0]["text"]
    assert "tests/test_calc.py" in red["system"][0]["text"]  # the style to follow
    assert "red step" in red["system"][-1]["text"] and "green step" in green["system"][-1]["text"]


def test_the_style_example_stays_the_same_when_the_red_adds_a_test_file_sorting_first(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """The style to follow is part of the cross-phase prefix: a red whose new test file
    sorts before the existing one must not make it the green's and refactor's example
    (the prefix would differ in every phase, and the green would be shown its own target
    as "the style to follow")."""
    fake_api.cache = PromptCache(minimum=256)
    fake_api.push(
        reply(tool("write_file", path="tests/test_basic_sub.py", content=TEST_SUB)),
        reply(tool("finish", summary="two tests")),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--commit", "-m", "red: sub")
    assert code == 0, out + err
    fake_api.push(
        reply(tool("write_file", path="calc.py", content=SUB_RIGHT)),
        reply(tool("finish", summary="sub")),
    )
    code, out, err = generate(project, "--commit", "-m", "green: sub", phase="green")
    assert code == 0, out + err
    fake_api.push(reply(tool("finish", summary="nothing to improve")))
    code, out, err = generate(project, "--commit", "-m", "refactor", phase="refactor")
    red, green, refactor = (fake_api.requests[n] for n in (0, 2, 4))
    assert "(tests/test_calc.py)" in red.body["system"][0]["text"]
    # the map is the cycle's too; the green is told what the red added
    assert "tests/test_basic_sub.py" not in red.body["system"][0]["text"]
    assert "Added since the cycle started:\ntests/test_basic_sub.py" in said(
        green.body["messages"][0]
    )
    assert green.body["system"][0] == red.body["system"][0]
    assert refactor.body["system"][0] == red.body["system"][0]
    # so the green's first request reads the tools and the shared block the red wrote
    shared = blocks(red.body)[: len(red.body["tools"]) + 1]
    assert green.usage is not None
    assert green.usage["cache_read_input_tokens"] >= sum(tokens(strip(b)) for b, _ in shared)


def test_a_cycle_s_phases_share_the_spec_in_the_cached_prefix(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """A cycle gives the spec to every phase: it sits after the shared block with a
    breakpoint of its own, so the green's first request reads the tools, the shared block
    and the spec the red wrote; the phase's task comes after."""
    fake_api.cache = PromptCache(minimum=256)
    fake_api.push(
        reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)),
        reply(tool("finish", summary="two tests")),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--commit", "-m", "red: sub")
    assert code == 0, out + err
    fake_api.push(
        reply(tool("write_file", path="calc.py", content=SUB_RIGHT)),
        reply(tool("finish", summary="sub")),
    )
    code, out, err = generate(
        project, "specs/sub.yaml", "--commit", "-m", "green: sub", phase="green"
    )
    assert code == 0, out + err
    red, green = fake_api.requests[0], fake_api.requests[2]
    assert [b["text"] for b in green.body["system"][:2]] == [
        b["text"] for b in red.body["system"][:2]
    ]
    assert "Specification SPEC-SUB" in green.body["system"][1]["text"]
    shared = blocks(red.body)[: len(red.body["tools"]) + 2]
    assert green.usage is not None
    assert green.usage["cache_read_input_tokens"] >= sum(tokens(strip(b)) for b, _ in shared)


def test_generate_green_and_refactor_without_a_spec_take_the_reds_and_share_it(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """`generate red SPEC`, then `generate green`, `generate refactor` (separate processes):
    the red's evidence names its spec, so the later phases are given it as a cycle's are,
    byte for byte, and read the tools, the shared block and the spec the red wrote."""
    fake_api.cache = PromptCache(minimum=256)
    fake_api.push(
        reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)),
        reply(tool("finish", summary="two tests")),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--commit", "-m", "red: sub")
    assert code == 0, out + err
    note = json.loads(project.git("notes", "--ref=tddgit", "show", "HEAD"))
    assert note["agent"]["spec"] == "specs/sub.yaml"
    fake_api.push(
        reply(tool("write_file", path="calc.py", content=SUB_RIGHT)),
        reply(tool("finish", summary="sub")),
    )
    code, out, err = generate(project, "--commit", "-m", "green: sub", phase="green")
    assert code == 0, out + err
    assert "spec: specs/sub.yaml (the red's)" in err
    fake_api.push(reply(tool("finish", summary="nothing to improve")))
    code, out, err = generate(project, phase="refactor")
    assert code == 0, out + err
    red, green, refactor = (fake_api.requests[n].body for n in (0, 2, 4))
    for later in (green, refactor):
        assert [b["text"] for b in later["system"][:2]] == [b["text"] for b in red["system"][:2]]
    shared = blocks(red)[: len(red["tools"]) + 2]
    for n in (2, 4):
        usage = fake_api.requests[n].usage
        assert usage is not None
        assert usage["cache_read_input_tokens"] >= sum(tokens(strip(b)) for b, _ in shared)


def test_a_spec_gone_since_the_red_is_not_sent(project: GitRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.push(
        reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)),
        reply(tool("finish", summary="two tests")),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--commit", "-m", "red: sub")
    assert code == 0, out + err
    project.git("rm", "-q", "specs/sub.yaml")
    project.git("commit", "-q", "-m", "no spec")
    fake_api.push(reply(text("I will not."), stop="refusal"))
    generate(project, phase="green")
    green = fake_api.requests[2].body
    assert len(green["system"]) == 2 and "SPEC-SUB" not in json.dumps(green)
