"""`tddgit generate red` end to end: the real SDK, the local fake Messages API, real gates."""

from __future__ import annotations

import json

import pytest

from tests.agent.conftest import generate
from tests.agent.fakeapi import FakeMessagesAPI, Status, reply, said, text, tool
from tests.conftest import GitRepo
from tests.project import snapshot_state
from tests.test_schemas import validate

TEST_SUB = '''\
import calc


def test_tc_1_five_minus_three():
    assert calc.sub(5, 3) == 2


def test_tc_2_negative():
    """TC-2: a negative result."""
    assert calc.sub(3, 5) == -2
'''

SYNTAX_BROKEN = "import calc\n\ndef test_tc_1(:\n    assert calc.sub(5, 3) == 2\n"
PASSES_ALREADY = "import calc\n\n\ndef test_tc_1():\n    assert calc.add(2, 0) == 2\n"


def write_tests(content: str = TEST_SUB) -> dict[str, object]:
    return reply(
        text("Writing the tests."), tool("write_file", path="tests/test_sub.py", content=content)
    )


def finish() -> dict[str, object]:
    return reply(tool("finish", summary="tests for sub"))


def test_a_red_that_holds_at_the_first_finish_is_staged_with_its_evidence(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(reply(tool("list_files")), write_tests(), finish())
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    assert "✓ red holds" in out
    assert "spec coverage: 2/2" in out
    assert project.git("diff", "--cached", "--name-only").split() == ["tests/test_sub.py"]
    # the real SDK, over HTTP, with the key as a header and the seven tools offered
    assert len(fake_api.requests) == 3
    first = fake_api.requests[0]
    assert first.path == "/v1/messages"
    assert "test-key-not-secret" in first.headers.get("x-api-key", "") + first.headers.get(
        "authorization", ""
    )
    names = [t["name"] for t in first.body["tools"]]
    assert names == [
        "list_files",
        "read_file",
        "search",
        "write_file",
        "edit_file",
        "run_tests",
        "finish",
    ]
    # the spec is in the system prompt, after the block every phase shares (a cycle gives
    # it to every phase); the first message starts the step
    assert "TC-1" in first.body["system"][1]["text"]
    assert said(first.body["messages"][0]) == "Begin the red step described above."
    listing = fake_api.tool_results(2)[0]["content"]
    assert "calc.py" in listing and "specs/sub.yaml" in listing
    assert "turn 3: finish" in err
    # the stored evidence carries the agent block; a plain commit gets both trailers
    project.tddgit("hooks", "install", check=True)
    project.git("commit", "-q", "-m", "tests for sub")
    trailers = project.git("log", "-1", "--format=%(trailers)")
    assert "GSD-Phase: red" in trailers and "GSD-Agent: claude-sonnet-4-6" in trailers
    note = json.loads(project.git("notes", "--ref=tddgit", "show", "HEAD"))
    assert note["agent"]["model"] == "claude-sonnet-4-6"
    assert note["agent"]["turns"] == 3
    assert note["agent"]["tokens"]["input"] == 300
    assert note["agent"]["spec_coverage"] == {"covered": ["TC-1", "TC-2"], "missing": []}
    sessions = list((project.root / ".git" / "tddgit" / "sessions").glob("*.jsonl"))
    events = [json.loads(line)["event"] for line in sessions[0].read_text().splitlines()]
    assert events[0] == "start" and events[-1] == "end"
    assert events.count("request") == 3 and events.count("response") == 3
    assert events.count("tool") == 3 and events.count("gate") == 1


def test_commit_with_json_and_a_missing_test_case(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    only_tc1 = TEST_SUB.split("\n\n\ndef test_tc_2")[0] + "\n"
    fake_api.push(reply(write_tests(only_tc1)["content"][1], tool("finish", summary="one")))
    code, out, err = generate(
        project, "specs/sub.yaml", "--commit", "--json", "--model", "claude-haiku-4-5"
    )
    assert code == 0, out + err
    data = json.loads(out)
    assert data["holds"] and data["commit"] == project.head()
    assert data["agent"]["spec_coverage"] == {"covered": ["TC-1"], "missing": ["TC-2"]}
    assert data["agent"]["cost_usd"] == round((100 * 1.0 + 20 * 5.0) / 1_000_000, 6)
    assert data["verdict"]["evidence"]["agent"]["session"] == data["agent"]["session"]
    validate("evidence.schema.json", data["verdict"]["evidence"])
    trailers = project.git("log", "-1", "--format=%(trailers)")
    assert "GSD-Phase: red" in trailers and "GSD-Agent: claude-haiku-4-5" in trailers
    assert fake_api.requests[0].body["model"] == "claude-haiku-4-5"


def test_a_syntax_error_goes_back_to_the_model_and_is_fixed(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(write_tests(SYNTAX_BROKEN), finish(), write_tests(), finish())
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    refusal = fake_api.tool_results(3)[0]
    assert refusal["is_error"] is True
    assert "target-amber" in refusal["content"] or "amber" in refusal["content"]
    assert "fix:" in refusal["content"]


def test_a_test_that_already_passes_goes_back_and_is_fixed(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(write_tests(PASSES_ALREADY), finish(), write_tests(), finish())
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    refusal = fake_api.tool_results(3)[0]
    assert refusal["is_error"] is True and "target-passes" in refusal["content"]


def test_stuck_after_three_identical_refusals_restores_the_tree(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    project.write("notes.txt", "the user's own untracked file\n")
    before = snapshot_state(project)
    edit = tool(
        "edit_file",
        path="tests/test_calc.py",
        old_text="    assert calc.add(2, 3) == 5\n",
        new_text="    assert calc.add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert calc.add(0, 0) == 0\n",
    )
    written = write_tests(PASSES_ALREADY)["content"][1]
    fake_api.push(reply(written, edit), finish(), finish(), finish())
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 1
    assert "stuck: the red gate refused the same way 3 times in a row: target-passes" in err
    assert "the tree is as it was" in err
    assert fake_api.tool_results(2)[1]["content"] == "edited tests/test_calc.py"
    assert snapshot_state(project) == before  # the edited file's bytes, the new one gone
    assert len(fake_api.requests) == 4


def test_max_turns_ends_the_run_and_restores_the_tree(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    before = snapshot_state(project)
    fake_api.push(write_tests(PASSES_ALREADY), reply(tool("list_files")))
    code, _, err = generate(project, "specs/sub.yaml", "--max-turns", "2")
    assert code == 1
    assert "max turns: 2 requests without a holding red gate" in err
    assert snapshot_state(project) == before


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("import time\n\n\ndef test_tc_1():\n    time.sleep(60)\n", "timeout"),
        ("import os\n\n\ndef test_tc_1():\n    os.abort()\n", "crash"),
    ],
)
def test_a_hanging_or_crashing_suite_stops_the_run(
    project: GitRepo, fake_api: FakeMessagesAPI, body: str, said: str
) -> None:
    project.write(".tddgit.yaml", "timeout: 3\n")
    project.commit("a short timeout", ".tddgit.yaml")
    before = snapshot_state(project)
    fake_api.push(write_tests(body), finish(), write_tests(), finish())
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 1
    assert "the gate cannot be satisfied by editing files" in err and said in err
    assert len(fake_api.requests) == 2  # not sent back to the model
    assert snapshot_state(project) == before


def test_a_context_file_breaking_a_rule_is_exit_2_before_any_request(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    project.write(".env", "X=1\n")
    project.write("build/notes.txt", "ignored but wanted\n")
    project.write(".gitignore", "build/\n")
    code, _, err = generate(project, "specs/sub.yaml", "--context", ".env")
    assert code == 2
    assert "--context: .env: files named like secrets are never read" in err
    assert fake_api.requests == []
    fake_api.push(reply(tool("read_file", path="build/notes.txt")), write_tests(), finish())
    code, out, err = generate(project, "specs/sub.yaml", "--context", "build/notes.txt")
    assert code == 0, out + err
    first = said(fake_api.requests[0].body["messages"][0])
    assert "Context file build/notes.txt" in first and "ignored but wanted" in first
    assert fake_api.tool_results(2)[0]["content"] == "1\tignored but wanted"


def test_overloaded_twice_then_answered(project: GitRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.push(Status(529), Status(529), write_tests(), finish())
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    assert len(fake_api.requests) == 4  # the first request retried twice


def test_overloaded_until_retries_run_out_exits_1_with_the_tree_as_it_was(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    project.write(".tddgit.yaml", "llm:\n  max_retries: 2\n")
    project.commit("two retries", ".tddgit.yaml")
    before = snapshot_state(project)
    fake_api.push(write_tests(), Status(529), Status(529), Status(529))
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 1
    assert "the model provider is unavailable (HTTP 529, overloaded_error) after 2 retries" in err
    assert snapshot_state(project) == before


def test_a_rejected_key_is_exit_2(project: GitRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.push(Status(401, "authentication_error", "invalid x-api-key"))
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 2
    assert "the API key was rejected (HTTP 401)" in err
    assert len(fake_api.requests) == 1


def test_no_key_is_exit_2_before_any_request(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 2
    assert "ANTHROPIC_API_KEY is not set" in err
    assert fake_api.requests == []


def test_something_staged_refuses_to_start(project: GitRepo, fake_api: FakeMessagesAPI) -> None:
    project.write("tests/test_other.py", "def test_x():\n    assert True\n")
    project.add("tests/test_other.py")
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 2
    assert "something is already staged (tests/test_other.py)" in err
    assert fake_api.requests == []


def test_the_replay_provider_runs_a_recorded_transcript_without_a_key(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_api.push(write_tests(), finish())
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    recorded = next((project.root / ".git" / "tddgit" / "sessions").glob("*.jsonl"))
    project.git("restore", "--staged", "tests/test_sub.py")
    (project.root / "tests" / "test_sub.py").unlink()
    script = project.root.parent / "script.jsonl"
    script.write_text(recorded.read_text())
    project.write(".tddgit.yaml", f"llm:\n  provider: replay\n  replay: {script}\n")
    project.commit("replay config", ".tddgit.yaml")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    assert "replay scripted" in out
    assert len(fake_api.requests) == 2  # the replay asked nobody
