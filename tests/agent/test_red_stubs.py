"""`generate red` may write production stubs (only stubs, as the stub detector judges
them), so each new test fails on its own assertion: its own target."""

from __future__ import annotations

import json

from tests.agent.conftest import SUB_TESTS, generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, tool
from tests.conftest import GitRepo
from tests.project import CALC

STUB = CALC + '\n\ndef sub(a, b):\n    """a minus b"""\n    raise NotImplementedError\n'
REAL = CALC + "\n\ndef sub(a, b):\n    return a - b\n"


def test_red_writes_a_stub_and_each_test_is_its_own_red_target(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        reply(tool("write_file", path="calc.py", content=REAL)),
        reply(tool("write_file", path="calc.py", content=STUB)),
        reply(tool("write_file", path="tests/test_sub.py", content=SUB_TESTS)),
        reply(tool("finish", summary="tests and a stub")),
    )
    code, out, err = generate(project, "specs/sub.yaml", "--json")
    assert code == 0, out + err
    refused = fake_api.tool_results(2)[0]
    assert refused["is_error"] is True
    assert "a red step adds production stubs only" in refused["content"]
    assert "sub" in refused["content"]
    assert fake_api.tool_results(3)[0].get("is_error") is None
    data = json.loads(out)
    assert sorted(data["files"]) == ["calc.py", "tests/test_sub.py"]
    targets = data["verdict"]["evidence"]["targets"]
    assert [t["light"] for t in targets] == ["red", "red"]
    assert project.git("show", ":calc.py") == STUB


def test_a_file_the_stub_detector_cannot_judge_stays_read_only(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    project.write("src/schema.sql", "create table t (id int);\n")
    project.write(".tddgit.yaml", "source_globs: ['**/*.py', '**/*.sql']\n")
    project.commit("schema", "src/schema.sql", ".tddgit.yaml")
    fake_api.push(
        reply(tool("write_file", path="src/schema.sql", content="drop table t;\n")),
        reply(tool("write_file", path="tests/test_sub.py", content=SUB_TESTS)),
        reply(tool("finish", summary="tests")),
    )
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    refused = fake_api.tool_results(2)[0]["content"]
    assert "production code is read-only in a red step, but for stubs" in refused
    assert (project.root / "src" / "schema.sql").read_text() == "create table t (id int);\n"
