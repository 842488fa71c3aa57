"""Stuck detection that sees progress, the best state's ties, and replies without a tool:
a model trying different implementations that fail differently is not stuck; a tie keeps
the latest best state; a model that only talks is told nobody will answer, then stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.conftest import SUB_RIGHT, at, generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, text, tool
from tests.agent.test_generate_green import CALC, events, finish, stuck_after_two, write
from tests.conftest import GitRepo
from tests.project import snapshot_state

PLUS = CALC + "\n\ndef sub(a, b):\n    return a + b\n"
TIMES = CALC + "\n\ndef sub(a, b):\n    return a * b\n"
PLUS_ONE = CALC + "\n\ndef sub(a, b):\n    return a + b + 1\n"


@pytest.fixture
def red(cycle: dict[str, Path], tmp_path: Path) -> GitRepo:
    return at(cycle, "red", tmp_path)


def test_different_implementations_failing_differently_are_not_stuck(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    stuck_after_two(red)
    fake_api.push(
        write(PLUS), finish(), write(TIMES), finish(), write(PLUS_ONE), finish(),
        write(SUB_RIGHT), finish(),
    )  # fmt: skip
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    assert "stuck" not in err
    assert [e for e in events(red) if e["event"] == "stuck"] == []


def test_a_tie_for_the_best_state_keeps_the_latest(red: GitRepo, fake_api: FakeMessagesAPI) -> None:
    stuck_after_two(red)
    fake_api.push(
        write(PLUS), finish(), write(TIMES), finish(), finish(),  # stuck: same files, same refusal
        reply(tool("read_file", path="calc.py")),
        write(SUB_RIGHT), finish(),
    )  # fmt: skip
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    assert "stuck (" in err
    shown = fake_api.tool_results(7)[0]["content"]
    assert "return a * b" in shown, shown  # TIMES, the latest of two equally bad states


def test_replies_without_a_tool_are_told_nobody_answers_then_stopped(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    before = snapshot_state(project)
    fake_api.push(
        reply(text("Should sub() accept floats too?")),
        reply(text("Please confirm whether floats matter before I start.")),
        reply(text("I am still waiting for your answer.")),
        reply(text("Hello?")),
    )
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 1
    assert len(fake_api.requests) == 3
    told = fake_api.requests[1].body["messages"][-1]["content"]
    assert "nobody will answer" in str(told).lower()
    assert "choose the most reasonable reading and go on" in str(told)
    assert "replied 3 times in a row without using a tool" in err
    assert snapshot_state(project) == before
