"""What the model reads: no absolute path anywhere (the spec by its repo-relative path,
also in a cycle's worktree); run_tests with the failing tests only, short tracebacks in
the project's code, totals and no nulls; read_file with line numbers, ranges and
"unchanged" for a re-read."""

from __future__ import annotations

import io
import json
import sys

import pytest

from tests.agent.conftest import generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, said, text, tool
from tests.agent.test_generate_red import TEST_SUB
from tests.conftest import GitRepo
from tests.cycle.helpers import cycle

FAILING = """\
import calc


def test_tc_1_five_minus_three():
    assert calc.add(5, 3) == 8


def test_tc_2_negative():
    assert helper(3, 5) == -2


def helper(a, b):
    return calc.sub(a, b)
"""


def test_no_absolute_path_reaches_the_model(project: GitRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.push(reply(text("I will not."), stop="refusal"))
    code, _, _ = generate(project, str(project.root / "specs" / "sub.yaml"))
    assert code == 1
    raw = fake_api.requests[0].raw.decode()
    assert str(project.root) not in raw and "/tmp/" not in raw
    assert "(specs/sub.yaml)" in raw


def test_a_cycle_names_the_spec_by_its_repo_relative_path(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    fake_api.push(reply(text("I will not."), stop="refusal"))
    cycle(project, str(project.root / "specs" / "sub.yaml"))
    raw = fake_api.requests[0].raw.decode()
    assert str(project.root) not in raw and "/tmp/" not in raw
    assert "(specs/sub.yaml)" in raw


def test_run_tests_shows_failing_tests_with_a_short_traceback_totals_and_no_nulls(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        reply(tool("write_file", path="tests/test_sub.py", content=FAILING)),
        reply(tool("run_tests", tests=["tests/test_sub.py", "tests/test_calc.py"])),
        reply(text("I will not."), stop="refusal"),
    )
    generate(project, "specs/sub.yaml")
    result = fake_api.tool_results(3)[0]["content"]
    data = json.loads(result)
    assert "null" not in result
    ids = [t["id"] for t in data["failing"]]
    assert ids == ["tests/test_sub.py::test_tc_2_negative"]  # passing tests are not listed
    assert data["totals"]["passed"] >= 2 and data["totals"]["failed"] == 1
    where = data["failing"][0]["where"]
    assert "tests/test_sub.py:9" in where and "tests/test_sub.py:13" in where
    assert all(not w.startswith("/") for w in where)


def test_read_file_numbers_lines_takes_a_range_and_says_unchanged(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        reply(tool("read_file", path="calc.py")),
        reply(tool("read_file", path="calc.py")),
        reply(tool("read_file", path="calc.py", offset="2", limit="1")),
        reply(tool("write_file", path="tests/test_sub.py", content=TEST_SUB)),
        reply(text("I will not."), stop="refusal"),
    )
    generate(project, "specs/sub.yaml")
    first = fake_api.tool_results(2)[0]["content"]
    assert first.splitlines()[0].startswith("1\t")
    again = fake_api.tool_results(3)[0]["content"]
    assert "unchanged since you read it" in again
    ranged = fake_api.tool_results(4)[0]["content"]
    assert ranged.startswith("2\t") and len(ranged.splitlines()) <= 2


def test_the_first_message_carries_the_project_up_front(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    project.write(".env", "API_TOKEN=abcdefghijklmnopqrstu\n")
    for n in range(400):
        project.write(f"data/d{n:03}.txt", "x\n")
    project.commit("data", "data")
    fake_api.push(reply(tool("list_files")), reply(text("I will not."), stop="refusal"))
    generate(project, "specs/sub.yaml")
    body = fake_api.requests[0].body
    first = said(body["messages"][0])
    shared = body["system"][0]["text"]  # what stays true all cycle long: cached once
    assert "Project (paths relative to the repository root):" in shared
    assert "calc.py" in shared and ".env" not in shared + first
    assert "runner: pytest" in shared
    assert "Imports: the repository root is on the import path" in shared
    assert "the style to follow (tests/test_calc.py)" in shared
    assert "more files: data/ (" in shared  # bounded: the rest summarised
    listing = fake_api.tool_results(2)[0]["content"]
    assert len(listing.splitlines()) < 310 and "list a subdirectory" in listing
