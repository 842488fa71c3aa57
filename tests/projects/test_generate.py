"""`tddgit generate` per project (docs/monorepo.md): in a backend (pytest) + frontend
(vitest) repository, started at the top, the step works in the project of its spec (or,
for a green, the one whose red is open): the model's first message names that project's
directory and runner, and the gate judges the step in that project with its own runner in
its own directory. The real SDK against the local fake Messages API of tests/agent/."""

from __future__ import annotations

import io
import sys

import pytest

from tests.agent.conftest import fake_api, generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, said, tool
from tests.conftest import GitRepo
from tests.cycle.helpers import cycle
from tests.projects.shop import CART_COUNT, CART_TEST_COUNT, NEG_TEST_TWICE, note, shop

__all__ = ["fake_api"]  # the fixture: the fake Messages API, the SDK pointed at it

NEG_SPEC = """\
spec_id: SPEC-TWICE
title: Twice
components:
  - name: neg
    type: module
    file_path: frontend/src/neg.ts
    interface:
      methods:
        - signature: "twice(x: number): number"
          description: two times x
test_cases:
  - id: TC-1
    component: neg
    description: twice 2 is 4
"""


def message_of(fake_api: FakeMessagesAPI) -> str:
    """What the model is told before its first turn: the system prompt (its first block
    holds the project's settings, shared by a cycle's phases) and the first message."""
    body = fake_api.requests[0].body
    system = body.get("system", "")
    blocks = system if isinstance(system, list) else [{"type": "text", "text": system}]
    return "\n\n".join([*(b["text"] for b in blocks), said(body["messages"][0])])


def test_a_green_from_the_top_works_in_the_project_whose_red_is_open(
    repo: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    shop(repo)
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    repo.add()
    repo.tddgit("red", "-m", "test count", check=True)
    fake_api.push(
        reply(tool("write_file", path="backend/src/shop/cart.py", content=CART_COUNT)),
        reply(tool("finish", summary="count implemented")),
    )
    code, out, err = generate(repo, "--commit", phase="green")
    assert code == 0, out + err
    message = message_of(fake_api)
    assert "project directory: backend" in message
    assert "runner: pytest" in message
    assert "backend/tests/test_cart.py::test_count: red" in message
    green = note(repo)
    assert green["phase"] == "green"
    assert [t["id"] for t in green["targets"]] == ["backend/tests/test_cart.py::test_count"]  # type: ignore[index]


def test_a_red_from_the_top_works_in_the_project_of_its_spec(
    repo: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    shop(repo)
    repo.write("specs/twice.yaml", NEG_SPEC, dedent=False)
    # The tests' node_modules is a link into a shared cache the jail does not show (a
    # project's own node_modules is inside it): the model's tests run unjailed here.
    repo.write(".tddgit.yaml", "llm:\n  sandbox: 'off'\n", dedent=False)
    repo.commit("spec")
    fake_api.push(
        reply(tool("write_file", path="frontend/test/neg.test.ts", content=NEG_TEST_TWICE)),
        reply(tool("finish", summary="a test of twice")),
    )
    code, out, err = generate(repo, "specs/twice.yaml", "--commit")
    assert code == 0, out + err
    message = message_of(fake_api)
    assert "project directory: frontend" in message
    assert "runner: pytest" not in message
    red = note(repo)
    assert red["phase"] == "red"
    assert [t["id"] for t in red["targets"]] == ["frontend/test/neg.test.ts::doubles"]  # type: ignore[index]


def test_several_projects_and_nothing_naming_one_is_a_usage_error(
    repo: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    shop(repo)
    repo.write("specs/any.md", "Make the shop better.\n", dedent=False)
    repo.commit("spec")
    code, out, err = generate(repo, "specs/any.md")
    assert code == 2, out + err
    assert "several projects (backend, frontend)" in err
    assert fake_api.requests == []


COUNT_SPEC = """\
spec_id: SPEC-COUNT
title: Count
components:
  - name: cart
    type: module
    file_path: backend/src/shop/cart.py
    interface:
      methods:
        - signature: "count(prices)"
          description: how many prices
test_cases:
  - id: TC-1
    component: cart
    description: two prices count 2
"""


def test_a_cycle_from_the_top_works_in_the_project_of_its_spec(
    repo: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tddgit.agent.phases import PHASES

    for name in ("green", "refactor"):  # the red step is enough to show where it works
        monkeypatch.delitem(PHASES, name, raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    shop(repo)
    repo.write("specs/count.yaml", COUNT_SPEC, dedent=False)
    repo.commit("spec")
    fake_api.push(
        reply(tool("write_file", path="backend/tests/test_cart.py", content=CART_TEST_COUNT)),
        reply(tool("finish", summary="a test of count")),
    )
    code, out, err = cycle(repo, "specs/count.yaml", "--yes")
    assert code == 0, out + err
    assert "project directory: backend" in message_of(fake_api)
    red = note(repo)
    assert red["phase"] == "red"
    assert [t["id"] for t in red["targets"]] == ["backend/tests/test_cart.py::test_count"]  # type: ignore[index]
