"""`tddgit generate green` end to end: the real SDK, the local fake Messages API, real gates
on a real repository whose red (tests for `calc.sub`) is committed with its evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.conftest import SUB_RIGHT, SUB_TESTS, at, generate
from tests.agent.fakeapi import FakeMessagesAPI, reply, said, text, tool
from tests.conftest import GitRepo
from tests.project import CALC, snapshot_state

TEST_SUB = SUB_TESTS
RIGHT = SUB_RIGHT
WRONG = CALC + "\n\ndef sub(a, b):\n    return a + b\n"
HALF = CALC + "\n\ndef sub(a, b):\n    return abs(a - b)\n"  # TC-1 passes, TC-2 fails
BREAKS_ADD = RIGHT.replace("return a + b", "return a * b")
UNNEEDED = CALC + (
    "\n\ndef sub(a, b):\n"
    "    if isinstance(a, str) or isinstance(b, str):\n"
    '        raise TypeError("numbers only")\n'
    "    return a - b\n"
)


@pytest.fixture
def red(cycle: dict[str, Path], tmp_path: Path) -> GitRepo:
    """The calc project with a committed red: two failing tests of `calc.sub`."""
    return at(cycle, "red", tmp_path)


def write(content: str, path: str = "calc.py") -> dict[str, object]:
    return reply(tool("write_file", path=path, content=content))


def finish() -> dict[str, object]:
    return reply(tool("finish", summary="sub implemented"))


def events(repo: GitRepo) -> list[dict[str, object]]:
    sessions = sorted((repo.root / ".git" / "tddgit" / "sessions").glob("*.jsonl"))
    return [json.loads(line) for line in sessions[-1].read_text().splitlines()]


def test_a_green_reached_in_three_rounds_runs_the_gate_twice_and_commits(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(
        write(WRONG),
        reply(tool("run_tests")),
        write(HALF),
        finish(),
        write(RIGHT),
        finish(),
    )
    code, out, err = generate(red, "--commit", phase="green")
    assert code == 0, out + err
    first = fake_api.requests[0].body
    message = said(first["messages"][0])
    assert "tests/test_sub.py::test_tc_1_five_minus_three, " in message and ": red (" in message
    assert "Test file tests/test_sub.py (read-only" in message
    assert "green step" in first["system"][1]["text"]
    lights = json.loads(fake_api.tool_results(3)[0]["content"])
    shown = {t["id"]: t["light"] for t in lights["failing"]}
    assert shown == {
        "tests/test_sub.py::test_tc_1_five_minus_three": "red",
        "tests/test_sub.py::test_tc_2_negative": "red",
    }  # the failing targets only: the passing test_add is in the totals
    assert lights["totals"]["total"] == 3 and lights["totals"]["passed"] == 1
    refusal = fake_api.tool_results(5)[0]
    assert refusal["is_error"] is True
    assert "target-fails [tests/test_sub.py::test_tc_2_negative]" in refusal["content"]
    assert "fix:" in refusal["content"]
    assert "test_tc_1" not in refusal["content"].split("Targets:")[0]
    seen = events(red)
    assert [e["holds"] for e in seen if e["event"] == "gate"] == [False, True]
    assert len(fake_api.requests) == 6
    assert red.git("log", "-1", "--format=%(trailers:key=GSD-Phase,valueonly)").strip() == "green"
    assert "GSD-Agent: claude-sonnet-4-6" in red.git("log", "-1", "--format=%(trailers)")
    assert (red.root / "calc.py").read_text() == RIGHT
    note = json.loads(red.git("notes", "--ref=tddgit", "show", "HEAD"))
    assert note["phase"] == "green" and note["agent"]["turns"] == 6
    assert "committed" in out and "transcript:" in out


def test_the_reds_tests_are_never_writable_in_green(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    emptied = TEST_SUB.replace("    assert calc.sub(3, 5) == -2\n", "    pass\n")
    fake_api.push(
        reply(
            tool(
                "edit_file",
                path="tests/test_sub.py",
                old_text="== -2",
                new_text="== 2",
            ),
            tool("write_file", path="tests/test_sub.py", content=emptied),
        ),
        write(RIGHT),
        finish(),
    )
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    edit, overwrite = fake_api.tool_results(2)
    for result in (edit, overwrite):
        assert result["is_error"] is True
        assert "tests are the specification in a green step" in result["content"]
    assert (red.root / "tests" / "test_sub.py").read_text() == TEST_SUB
    assert red.git("diff", "--cached", "--name-only").split() == ["calc.py"]


def test_a_regression_is_sent_back_and_fixed(red: GitRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.push(write(BREAKS_ADD), finish(), write(RIGHT), finish())
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    refusal = fake_api.tool_results(3)[0]
    assert refusal["is_error"] is True
    assert "test-failing [tests/test_calc.py::test_add]" in refusal["content"]
    assert "fix:" in refusal["content"]


def stuck_after_two(repo: GitRepo) -> None:
    repo.write(".tddgit.yaml", "llm:\n  stuck_after: 2\n", dedent=False)
    repo.commit("config", ".tddgit.yaml")


def test_stuck_twice_restores_the_tree_byte_for_byte_and_exits_1(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    stuck_after_two(red)
    red.write("calc.py", CALC + "# the user's unsaved thought\n", dedent=False)
    red.write("notes.txt", "the user's own untracked file\n")
    before = snapshot_state(red)
    diff = red.git("diff")
    fake_api.push(write(WRONG), finish(), finish(), finish(), finish())
    code, _, err = generate(red, phase="green")
    assert code == 1
    assert "stuck again: the green gate refused the same way 2 times in a row" in err
    assert "target-fails" in err and "the tree is as it was" in err
    assert "transcript: " in err
    assert len(fake_api.requests) == 5
    told = fake_api.requests[3].body["messages"][-1]["content"]
    assert told[-1]["type"] == "text" and "You are stuck" in told[-1]["text"]
    assert "fundamentally different approach" in told[-1]["text"]
    assert snapshot_state(red) == before
    assert red.git("diff") == diff
    assert red.git("status", "--porcelain") == before["status"]


def test_stuck_once_then_a_different_approach_holds(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    stuck_after_two(red)
    fake_api.push(write(HALF), finish(), write(WRONG), finish(), finish(), write(RIGHT), finish())
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    assert "stuck (" in err
    # HALF (one target passing) was the best state: the recovery put it back
    told = fake_api.requests[5].body["messages"][-1]["content"]
    assert "1 target(s) passing" in told[-1]["text"]
    stuck = [e for e in events(red) if e["event"] == "stuck"]
    assert len(stuck) == 1 and stuck[0]["recovered"] is True


def test_keep_best_keeps_the_best_state_unstaged(red: GitRepo, fake_api: FakeMessagesAPI) -> None:
    stuck_after_two(red)
    fake_api.push(write(HALF), finish(), write(WRONG), finish(), finish(), finish(), finish())
    code, _, err = generate(red, "--keep-best", phase="green")
    assert code == 1
    assert "the best state seen is kept, unstaged" in err
    assert (red.root / "calc.py").read_text() == HALF
    assert red.git("diff", "--cached", "--name-only") == ""


def test_yagni_feedback_removes_an_unneeded_branch(red: GitRepo, fake_api: FakeMessagesAPI) -> None:
    fake_api.push(write(UNNEEDED), finish(), write(RIGHT), finish())
    code, out, err = generate(red, "--json", phase="green")
    assert code == 0, out + err
    feedback = fake_api.tool_results(3)[0]
    assert "is_error" not in feedback
    assert "The green gate holds." in feedback["content"]
    assert "not needed by any test: remove them" in feedback["content"]
    assert "calc.py:" in feedback["content"]
    data = json.loads(out)
    assert data["verdict"]["evidence"]["findings"] == []
    assert red.git("show", ":calc.py") == RIGHT
    assert [e["holds"] for e in events(red) if e["event"] == "gate"] == [True, True]


def test_a_minimised_attempt_that_breaks_the_step_keeps_the_first_green(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(write(UNNEEDED), finish(), write(WRONG), finish())
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    assert red.git("show", ":calc.py") == UNNEEDED
    assert (red.root / "calc.py").read_text() == UNNEEDED


def test_green_without_a_red_exits_1_before_any_request(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    code, _, err = generate(project, phase="green")
    assert code == 1
    assert "green-without-red" in err
    assert fake_api.requests == []


def test_max_cost_stops_the_run_with_the_figures(red: GitRepo, fake_api: FakeMessagesAPI) -> None:
    before = snapshot_state(red)
    fake_api.push(write(WRONG), reply(text("thinking")), write(RIGHT), finish())
    code, _, err = generate(red, "--max-cost", "0.001", phase="green")
    assert code == 1
    # two replies of 100 in / 20 out at $3 / $15 per million: $0.0012
    assert "cost budget: ~$0.0012 spent in 2 turns (tokens 200 in / 40 out)" in err
    assert "llm.max_cost is $0.0010" in err
    assert len(fake_api.requests) == 2
    assert snapshot_state(red) == before


def test_a_model_that_keeps_the_lines_keeps_the_holding_green(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.push(write(UNNEEDED), finish(), reply(text("A test needs that check.")))
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    assert len(fake_api.requests) == 3
    assert red.git("show", ":calc.py") == UNNEEDED
    kept = [e for e in events(red) if e["event"] == "kept"]
    assert len(kept) == 1 and kept[0]["yagni_lines"] == 1
    assert "1 line(s) no test needs sent back" in err


def test_a_refusal_says_each_failure_message_once(red: GitRepo, fake_api: FakeMessagesAPI) -> None:
    """A refusal names each reason with its message; the Targets list after it gives each
    target's light, not the same message again (issue 30: every message printed twice)."""
    fake_api.push(write(HALF), finish(), write(RIGHT), finish())
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    refusal = fake_api.tool_results(3)[0]["content"]
    assert "target-fails [tests/test_sub.py::test_tc_2_negative]" in refusal
    assert "Targets:" in refusal
    failure = "assert 2 == -2"
    assert refusal.count(failure) == 1, refusal
    targets = refusal.split("Targets:")[1]
    assert "tests/test_sub.py::test_tc_2_negative: red (failed" in targets
    assert "tests/test_sub.py::test_tc_1_five_minus_three: green (passed" in targets


def test_the_first_message_carries_the_modules_the_targets_import(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """The red's tests `import calc`: green's first message shows calc.py (repository-
    relative, with its text), so the model need not read it first; third-party and standard
    library imports are not files of the project and are left out."""
    fake_api.push(reply(text("I will not."), stop="refusal"))
    generate(red, phase="green")
    first = said(fake_api.requests[0].body["messages"][0])
    assert "Module calc.py (imported by the target tests):" in first
    assert "def add(a, b):" in first
    assert str(red.root) not in json.dumps(fake_api.requests[0].body)


def test_imported_modules_resolve_a_src_layout_and_stay_bounded(tmp_path: Path) -> None:
    from tddgit.agent.imports import imported_modules
    from tddgit.agent.sandbox import Sandbox
    from tddgit.config import load_config
    from tddgit.git import find_repo
    from tddgit.paths import Classifier

    repo = GitRepo(tmp_path / "shop")
    repo.root.mkdir()
    repo.git("init", "-q")
    repo.write("src/shop/__init__.py", "")
    repo.write("src/shop/cart.py", "def total(items):\n    return sum(items)\n")
    repo.write("src/shop/big.py", "X = 1\n" * 20000)
    repo.write("src/shop/secrets.py", "KEY = 'x'\n")
    repo.write("tests/helpers.py", "def make():\n    return []\n")
    test = (
        "import os\nimport pytest\nfrom shop.cart import total\nfrom shop import big\n"
        "import shop.secrets\nfrom helpers import make\n"
    )
    repo.write("tests/test_cart.py", test)
    repo.commit("start", ".")
    config = load_config(repo.root)
    sandbox = Sandbox(
        root=repo.root,
        classifier=Classifier.from_config(config),
        writable=frozenset(),
        read_only_reason="",
        secret_globs=("*secret*",),
        max_file_bytes=1_000_000,
    )
    text = imported_modules(find_repo(repo.root), config, sandbox, [("tests/test_cart.py", test)])
    assert "Module src/shop/cart.py (imported by the target tests):" in text
    assert "def total(items):" in text
    assert "Module tests/helpers.py" in text  # pytest puts the test's directory on the path
    assert "src/shop/big.py" in text and "X = 1\nX = 1" not in text  # named, not shown
    assert "secrets.py" not in text and "KEY =" not in text
    assert "pytest" not in text and "Module os" not in text
    assert str(tmp_path) not in text


def test_edit_file_without_old_text_adds_a_function_at_the_end(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """Adding a function is the commonest green: the model writes only the new code, not an
    anchor it must repeat (old_text, then again in new_text) nor the whole module."""
    added = "\n\ndef sub(a, b):\n    return a - b\n"
    fake_api.push(reply(tool("edit_file", path="calc.py", new_text=added)), finish())
    code, out, err = generate(red, phase="green")
    assert code == 0, out + err
    assert fake_api.tool_results(2)[0]["content"] == "added 34 bytes at the end of calc.py"
    assert (red.root / "calc.py").read_text() == RIGHT
    spec = next(t for t in fake_api.requests[0].body["tools"] if t["name"] == "edit_file")
    assert spec["input_schema"]["required"] == ["path", "new_text"]


def test_targets_failing_the_same_way_are_told_once(
    red: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    """A red's targets usually fail alike (the function does not exist yet): the first
    message names them together and gives the light and the message once, not per test."""
    fake_api.push(reply(text("I will not."), stop="refusal"))
    generate(red, phase="green")
    first = said(fake_api.requests[0].body["messages"][0])
    assert first.count("AttributeError: module 'calc' has no attribute 'sub'") == 1, first
    assert (
        "- tests/test_sub.py::test_tc_1_five_minus_three, tests/test_sub.py::test_tc_2_negative:"
        " red (failed, cause: not-implemented) AttributeError" in first
    )
