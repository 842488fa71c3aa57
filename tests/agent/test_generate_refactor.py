"""`tddgit generate refactor` end to end, after a committed red and green of `calc.sub`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.conftest import at, generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, said, text, tool
from tests.agent.test_generate_green import RIGHT
from tests.conftest import GitRepo
from tests.project import snapshot_state

EXTRACTED = RIGHT.replace("    return a - b\n", "    difference = a - b\n    return difference\n")


@pytest.fixture
def green(cycle: dict[str, Path], tmp_path: Path) -> GitRepo:
    return at(cycle, "green", tmp_path)


def test_a_production_refactor_that_holds_is_committed(
    green: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        reply(tool("read_file", path="calc.py")),
        reply(
            tool(
                "edit_file",
                path="calc.py",
                old_text="    return a - b\n",
                new_text=("    difference = a - b\n    return difference\n"),
            )
        ),
        reply(tool("finish", summary="named the difference")),
    )
    code, out, err = generate(green, "--commit", phase="refactor")
    assert code == 0, out + err
    assert "✓ refactor holds" in out
    first = fake_api.requests[0].body
    assert "Refactor the production side only" in said(first["messages"][0])
    trailers = green.git("log", "-1", "--format=%(trailers)")
    assert "GSD-Phase: refactor" in trailers and "GSD-Agent: claude-sonnet-4-6" in trailers
    assert (green.root / "calc.py").read_text() == EXTRACTED
    note = json.loads(green.git("notes", "--ref=tddgit", "show", "HEAD"))
    assert note["phase"] == "refactor" and note["agent"]["turns"] == 3


def test_a_refactor_touching_a_test_is_refused_and_no_change_is_nothing_to_refactor(
    green: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    before = snapshot_state(green)
    fake_api.push(
        reply(tool("edit_file", path="tests/test_sub.py", old_text="== -2", new_text="== -2  ")),
        reply(text("The code is already simple: nothing to improve.")),
    )
    code, out, err = generate(green, phase="refactor")
    assert code == 0, out + err
    refused = fake_api.tool_results(2)[0]
    assert refused["is_error"] is True
    assert "a refactor changes one side only" in refused["content"]
    assert "the tests are read-only" in refused["content"]
    assert "nothing to refactor: the model ended without a change" in out
    assert snapshot_state(green) == before


def test_a_test_side_refactor_may_not_touch_production(
    green: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        reply(tool("write_file", path="calc.py", content=RIGHT + "\n")),
        reply(tool("finish", summary="nothing")),
    )
    code, out, err = generate(green, "--side", "tests", phase="refactor")
    assert code == 0, out + err
    refused = fake_api.tool_results(2)[0]
    assert refused["is_error"] is True and "the production code is read-only" in refused["content"]
    assert "nothing to refactor" in out


def test_refactor_on_an_open_red_exits_1_before_any_request(
    cycle: dict[str, Path], tmp_path: Path, fake_api: FakeMessagesAPI
) -> None:
    code, _, err = generate(at(cycle, "red", tmp_path), phase="refactor")
    assert code == 1 and "refactor-while-red" in err
    assert fake_api.requests == []


def test_the_first_message_does_not_repeat_the_task(
    green: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """The refactor's task (system prompt) says every test must keep passing and what to do
    when nothing is worth improving; the first message adds only the step's own facts."""
    fake_api.push(reply(tool("finish", summary="nothing to improve")))
    generate(green, phase="refactor")
    body = fake_api.requests[0].body
    first, task = said(body["messages"][0]), body["system"][-1]["text"]
    assert "If there is nothing worth improving" in task and "keep passing" in task
    assert "worth improving" not in first and "keep passing" not in first, first
    assert "(it changed calc.py). Refactor the production side only." in first
