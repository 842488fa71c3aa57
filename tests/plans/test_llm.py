"""`tddgit plan SPEC --llm`: the real SDK over HTTP to the local fake Messages API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.agent.conftest import fake_api, in_process
from tests.agent.fakeapi import FakeMessagesAPI, Status, reply, said, text, tool
from tests.conftest import GitRepo
from tests.plans.conftest import SCHEMA

__all__ = ["fake_api"]  # the fixture, used by name


SPEC = """\
spec_id: calc
title: Calculator
components:
  - name: Lexer
    type: class
    file_path: calc/lexer.py
    interface:
      methods:
        - signature: "tokenize(self, text: str) -> list[str]"
  - name: Parser
    type: class
    file_path: calc/parser.py
    interface:
      methods:
        - signature: "parse(self, tokens: list[str]) -> Node"
test_cases:
  - {id: TC-1, component: Lexer, given: "1 + 2", when: tokenize, then: three tokens}
  - {id: TC-2, component: Parser, given: "1 + 2 * 3", when: parse, then: "* binds tighter"}
implementation_order: [Lexer, Parser]
"""

OUT = ".tddgit/plans/calc"


def case(case_id: str, then: str = "a result") -> dict[str, Any]:
    return {"id": case_id, "type": "unit", "given": "an input", "when": "called", "then": then}


def task(n: int, component: str, cases: list[dict[str, Any]], **over: Any) -> dict[str, Any]:
    data = {
        "id": f"IMPL-{n}",
        "title": f"{component}: its behaviour",
        "components": [component],
        "files": [f"calc/{component.lower()}.py", f"tests/test_{component.lower()}.py"],
        "depends_on": [f"IMPL-{n - 1}"] if n > 1 else [],
        "red": {"test_cases": cases, "count": len(cases)},
        "green": {"implement": [f"{component} as the spec says"]},
        "refactor": {"look_at": ["names and duplication"]},
    }
    return {**data, **over}


GOOD = {
    "tasks": [
        task(1, "Lexer", [case("TC-1"), case("TC-1a", "an error names the column")]),
        task(2, "Parser", [case("TC-2"), case("TC-2a", "an error says ')' is missing")]),
    ],
    "notes": ["TC-1a and TC-2a are edge cases the spec did not list"],
}


def submit(plan: dict[str, Any]) -> dict[str, Any]:
    return reply(tool("submit_plan", plan), tokens=(1200, 300))


@pytest.fixture
def calc(repo: GitRepo) -> GitRepo:
    repo.write("specs/calc.yaml", SPEC, dedent=False)
    return repo


def test_a_valid_plan_on_the_first_try(calc: GitRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.push(submit(GOOD))
    code, out, err = in_process(calc, "plan", "specs/calc.yaml", "--llm")
    assert code == 0, err
    written = json.loads((calc.root / OUT / "plan.json").read_text())
    Draft202012Validator(SCHEMA).validate(written)
    assert written["source"] == "llm" and written["spec"] == "specs/calc.yaml"
    assert [len(t["red"]["test_cases"]) for t in written["tasks"]] == [2, 2]
    assert written["totals"] == {"tasks": 2, "test_cases": 4, "files": 4}
    assert written["notes"][0].startswith("TC-1a and TC-2a")
    assert "planned by claude-sonnet-4-6" in written["notes"][1]
    assert "IMPL-2" in (calc.root / OUT / "TODO_LIST.md").read_text()
    assert "TC-2a" in (calc.root / OUT / "IMPL_PLAN.md").read_text()
    assert calc.tddgit("plan", "validate", OUT).returncode == 0
    # One request: the spec and the deterministic draft, the tool forced.
    (request,) = fake_api.requests
    body = request.body
    assert body["tool_choice"] == {"type": "tool", "name": "submit_plan"}
    assert [t["name"] for t in body["tools"]] == ["submit_plan"]
    first = said(body["messages"][0])
    assert "Specification calc: Calculator" in first and '"IMPL-2"' in first
    # Tokens and cost at the end; the transcript where the other runs keep theirs.
    assert "plan calc: 2 tasks, 4 test cases" in out
    assert "tokens 1200 in / 300 out, ~$0.0081" in out
    sessions = list((calc.root / ".git" / "tddgit" / "sessions").glob("*.jsonl"))
    assert len(sessions) == 1 and f"transcript: .git/tddgit/sessions/{sessions[0].name}" in out
    events = [json.loads(line)["event"] for line in sessions[0].read_text().splitlines()]
    assert events == ["start", "request", "response", "plan", "end"]


def test_an_invalid_plan_is_corrected_on_the_second_try(
    calc: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    bad = {
        "tasks": [
            task(1, "Lexer", [case("TC-1")], depends_on=["IMPL-2"]),
            task(2, "Parser", [case("TC-3")], red={"test_cases": [case("TC-3")], "count": 2}),
        ]
    }
    fake_api.push(submit(bad), submit(GOOD))
    code, out, err = in_process(calc, "plan", "specs/calc.yaml", "--llm", "--json")
    assert code == 0, err
    assert json.loads(out)["tasks"][1]["red"]["count"] == 2
    assert "try 1: 4 problems" in err and "try 2: valid" in err
    assert "plan: $.tasks[1].red.count: is 2 but the red lists 1 test cases" in err
    assert "session " in err  # with --json, stdout is plan.json alone
    _, second = fake_api.requests
    (result,) = fake_api.tool_results(2)
    assert result["is_error"] is True
    call = second.body["messages"][1]["content"][0]  # the model's own call, echoed
    assert (call["name"], result["tool_use_id"]) == ("submit_plan", call["id"])
    lines = result["content"].splitlines()[1:]
    assert lines == [
        "$.tasks[1].red.count: is 2 but the red lists 1 test cases",
        "$.tasks[0].depends_on[0]: IMPL-1 depends on IMPL-2, which comes after it: order the "
        "tasks so every dependency comes first",
        "$.tasks[0].depends_on: dependency cycle: IMPL-1 → IMPL-2 → IMPL-1",
        "$.tasks: the spec's test case TC-2 (Parser) is in no task's red",
    ]


def test_three_invalid_plans_exit_1_and_write_nothing(
    calc: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    no_red = task(1, "Lexer", [case("TC-1")])
    del no_red["red"]
    fake_api.push(
        submit({"tasks": [no_red]}),
        reply(text("Here is the plan: ..."), stop="end_turn"),
        submit({"tasks": []}),
    )
    code, _, err = in_process(calc, "plan", "specs/calc.yaml", "--llm")
    assert code == 1
    assert "after 3 tries" in err and "nothing written" in err
    assert "plan: $.tasks: no tasks: a plan needs at least one" in err
    assert not (calc.root / ".tddgit").exists()
    assert len(fake_api.requests) == 3
    second = fake_api.requests[1].body["messages"][-1]["content"][0]
    assert "$.tasks[0].red: the red phase is missing" in second["content"]
    third = dict(fake_api.requests[2].body["messages"][-1]["content"][0])
    assert third.pop("cache_control") == {"type": "ephemeral"}  # the moving breakpoint
    assert third == {
        "type": "text",
        "text": "the reply has no submit_plan call with an object as its input. "
        "Call submit_plan with the plan.",
    }


def test_a_free_form_spec_is_planned_with_llm(repo: GitRepo, fake_api: FakeMessagesAPI) -> None:
    repo.write("notes/idea.md", "# A tiny calculator\n\nIt lexes and parses '1 + 2'.\n")
    fake_api.push(submit({"tasks": [task(1, "Lexer", [case("TC-1")])]}))
    code, _, err = in_process(repo, "plan", "notes/idea.md", "--llm", "-o", "plan")
    assert code == 0, err
    written = json.loads((repo.root / "plan" / "plan.json").read_text())
    Draft202012Validator(SCHEMA).validate(written)
    assert (written["spec_id"], written["title"]) == ("idea", "A tiny calculator")
    first = said(fake_api.requests[0].body["messages"][0])
    assert "It lexes and parses '1 + 2'." in first and "deterministic plan" not in first


def test_no_key_exits_2_before_anything(
    calc: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    code, _, err = in_process(calc, "plan", "specs/calc.yaml", "--llm")
    assert code == 2 and "ANTHROPIC_API_KEY is not set" in err
    assert not fake_api.requests and not (calc.root / ".tddgit").exists()


@pytest.mark.parametrize(
    ("answers", "code", "says"),
    [
        ([Status(401, "authentication_error")], 2, "the API key was rejected (HTTP 401)"),
        ([Status(529)] * 7, 1, "unavailable (HTTP 529, overloaded_error) after 6 retries"),
    ],
)
def test_provider_errors_as_in_generate(
    calc: GitRepo, fake_api: FakeMessagesAPI, answers: list[Status], code: int, says: str
) -> None:
    fake_api.push(*answers)
    got, _, err = in_process(calc, "plan", "specs/calc.yaml", "--llm")
    assert (got, says in err) == (code, True), err
    assert not (calc.root / ".tddgit").exists()


def test_a_spec_holding_a_secret_is_never_sent(calc: GitRepo, fake_api: FakeMessagesAPI) -> None:
    calc.write("notes/idea.md", "Use ANTHROPIC_KEY = 'sk-ant-abcdefghijklmnopqrstuv' here\n")
    code, _, err = in_process(calc, "plan", "notes/idea.md", "--llm")
    assert code == 2 and "holds an Anthropic API key, so it is never sent" in err
    assert not fake_api.requests


def test_a_model_that_rejects_forced_tool_use_is_asked_without_it(
    calc: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    # Newer models answer a forced tool_choice with HTTP 400 ("Forced tool use returns an
    # error"): the plan asks again, the tool offered but not forced, and keeps it so.
    rejected = Status(
        400, "invalid_request_error", "tool_choice forcing a tool is not supported by this model"
    )
    fake_api.push(rejected, submit(GOOD))
    code, _, err = in_process(calc, "plan", "specs/calc.yaml", "--llm")
    assert code == 0, err
    forced, offered = (r.body for r in fake_api.requests)
    assert forced["tool_choice"] == {"type": "tool", "name": "submit_plan"}
    assert "tool_choice" not in offered and offered["messages"] == forced["messages"]
    assert "the model does not take a forced tool_choice: asking without it" in err
    assert (calc.root / OUT / "plan.json").exists()
