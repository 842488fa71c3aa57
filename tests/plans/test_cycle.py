"""`tddgit cycle --plan PLAN --task ID|--next`, and `--task` on `generate` and `cycle SPEC`:
the real SDK against the fake Messages API, real gates, real worktrees, on the plan
repository where IMPL-1 (sub) is complete, IMPL-2 (mul) depends on it and IMPL-3 (div) on
IMPL-2."""

from __future__ import annotations

import io
import json
import sys

import pytest

from tests.agent.conftest import fake_api, generate, project
from tests.agent.fakeapi import FakeMessagesAPI, reply, tool
from tests.conftest import GitRepo
from tests.cycle.helpers import cycle, cycle_branches, red_step, worktrees
from tests.project import snapshot_state

__all__ = ["fake_api", "project"]  # the fixtures, used by name

PLAN = ".tddgit/plans/calc"
TEST_MUL = """\
import calc


def test_tc_2_1_mul():
    assert calc.mul(2, 3) == 6
"""
MUL = "\n\ndef mul(a, b):\n    return a * b\n"
MUL_TIDY = "\n\ndef mul(a, b):\n    product = a * b\n    return product\n"


@pytest.fixture
def no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def _mul_steps(calc: str, red: bool = True) -> list[dict[str, object]]:
    """The model's answers: (the test of TC-2.1,) mul, then a tidier mul."""
    steps = [
        reply(tool("write_file", path="tests/test_mul.py", content=TEST_MUL)),
        reply(tool("finish", summary="TC-2.1")),
    ]
    return [
        *(steps if red else []),
        reply(tool("write_file", path="calc.py", content=calc + MUL)),
        reply(tool("finish", summary="mul")),
        reply(tool("write_file", path="calc.py", content=calc + MUL_TIDY)),
        reply(tool("finish", summary="named the product")),
    ]


def _status(repo: GitRepo) -> dict[str, dict[str, object]]:
    data = json.loads(repo.tddgit("plan", "status", PLAN, "--json", check=True).stdout)
    return {t["id"]: t for t in data["tasks"]} | {"next": data["next"]}


def test_next_runs_the_next_task_with_its_slice_and_trailers(
    impl1: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None
) -> None:
    base = impl1.head()
    fake_api.push(*_mul_steps((impl1.root / "calc.py").read_text()))
    code, out, err = cycle(impl1, "--plan", PLAN, "--next", "--yes")
    assert code == 0, out + err
    assert "cycle: plan calc, task IMPL-2 (--next): calc.mul — 1 test case, after IMPL-1" in err
    assert "approved: main fast-forwarded to tddgit/calc-IMPL-2-1" in out
    # the model saw IMPL-2's slice of the spec (the system prompt's block after the shared
    # one, cached for the cycle's phases), and no other task's test cases
    first = fake_api.requests[0].body["system"][1]["text"]
    assert "This cycle is one task of the plan: IMPL-2 calc.mul" in first
    assert "Test cases (1, this task's red):" in first
    assert "- TC-2.1 [mul, unit] - mul case 1" in first
    assert "given: two numbers" in first and "when: mul" in first and "then: a result" in first
    assert "To implement (the green step):\n- def mul(a, b)" in first
    assert "To look at (the refactor step):\n- duplication in calc.py" in first
    for other in ("TC-1.1", "TC-3.1", "TC-3.2", "TC-4.1", "when: div", "when: sub"):
        assert other not in first
    # every commit of the cycle carries the task, and plan status counts it
    shas = impl1.git("rev-list", "--reverse", f"{base}..").split()
    assert len(shas) == 3
    for sha in shas:
        assert "GSD-Task: IMPL-2" in impl1.git("log", "-1", "--format=%(trailers)", sha)
    subject = impl1.git("log", "-1", "--format=%s", shas[0]).strip()
    assert subject == "calc: IMPL-2 calc.mul (tests)"
    status = _status(impl1)
    phases = status["IMPL-2"]["phases"]
    assert isinstance(phases, dict)
    assert [phases[p]["commits"] for p in ("red", "green", "refactor")] == [[s] for s in shas]
    assert status["IMPL-2"]["state"] == "complete"
    assert status["next"] == {
        "task": "IMPL-3",
        "phase": "red",
        "command": "tddgit red --task IMPL-3",
    }
    assert len(worktrees(impl1)) == 1 and cycle_branches(impl1) == []


def test_a_task_whose_dependency_is_not_complete_is_refused_touching_nothing(
    impl1: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    before = snapshot_state(impl1)
    head = impl1.head()
    code, out, err = cycle(impl1, "--plan", f"{PLAN}/plan.json", "--task", "IMPL-3")
    assert code == 2, out + err
    assert "IMPL-3 depends on IMPL-2, not complete yet" in err
    assert f"tddgit cycle --plan {PLAN} --task IMPL-2" in err
    assert len(err.strip().splitlines()) == 1
    assert snapshot_state(impl1) == before and impl1.head() == head
    assert fake_api.requests == [] and len(worktrees(impl1)) == 1


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--plan", PLAN), "--plan needs --task ID or --next"),
        (("--plan", PLAN, "--task", "IMPL-2", "--next"), "--task and --next cannot be combined"),
        (("specs/x.yaml", "--plan", PLAN, "--next"), "SPEC and --plan cannot be combined"),
        (("--next",), "--next needs --plan"),
        (("--plan", PLAN, "--task", "IMPL-9"), "IMPL-9 is not a task of the plan calc"),
        (("--plan", PLAN, "--task", "IMPL-1"), "IMPL-1 is already complete (red "),
        (("--plan", PLAN, "--task", "IMPL 2"), "--task 'IMPL 2' is not a task id"),
        (("--plan", "nowhere", "--next"), "no plan at"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    impl1: GitRepo, fake_api: FakeMessagesAPI, args: tuple[str, ...], says: str
) -> None:
    before = snapshot_state(impl1)
    code, out, err = cycle(impl1, *args)
    assert code == 2, out + err
    assert says in err and len(err.strip().splitlines()) == 1, err
    assert snapshot_state(impl1) == before and fake_api.requests == []


def test_next_on_a_complete_plan_says_so(tracked: GitRepo, fake_api: FakeMessagesAPI) -> None:
    path = tracked.root / PLAN / "plan.json"
    data = json.loads(path.read_text())
    data["tasks"] = data["tasks"][:2]  # IMPL-1 and IMPL-2: both complete in this history
    data["totals"] = {"tasks": 2, "test_cases": 2, "files": 2}
    path.write_text(json.dumps(data))
    code, out, err = cycle(tracked, "--plan", PLAN, "--next")
    assert code == 0, out + err
    assert out.strip() == "plan calc: every task is complete; nothing to run"
    assert fake_api.requests == [] and cycle_branches(tracked) == []


def test_a_task_with_its_red_done_starts_at_green(
    impl1: GitRepo, fake_api: FakeMessagesAPI, no_terminal: None
) -> None:
    impl1.write("tests/test_mul.py", TEST_MUL, dedent=False)
    impl1.add("tests/test_mul.py")
    impl1.tddgit("red", "--task", "IMPL-2", "-m", "mul: test", check=True)
    red = impl1.head()
    fake_api.push(*_mul_steps((impl1.root / "calc.py").read_text(), red=False)[:2])
    code, out, err = cycle(impl1, "--plan", PLAN, "--next", "--no-refactor", "--yes")
    assert code == 0, out + err
    assert f"IMPL-2's red is committed with evidence ({red[:10]}): the cycle starts at green" in err
    (green,) = impl1.git("rev-list", f"{red}..").split()
    trailers = impl1.git("log", "-1", "--format=%(trailers)", green)
    assert "GSD-Phase: green" in trailers and "GSD-Task: IMPL-2" in trailers
    assert _status(impl1)["IMPL-2"]["state"] == "complete"


def test_cycle_spec_with_task_adds_the_trailer(
    project: GitRepo,
    fake_api: FakeMessagesAPI,
    no_terminal: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tddgit.agent.phases import PHASES

    monkeypatch.delitem(PHASES, "green")  # a red-only cycle is enough for the trailer
    fake_api.push(*red_step())
    code, out, err = cycle(project, "specs/sub.yaml", "--task", "IMPL-1", "--yes")
    assert code == 0, out + err
    assert "GSD-Task: IMPL-1" in project.git("log", "-1", "--format=%(trailers)")


def test_generate_red_with_task_adds_the_trailer(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    code, _, err = generate(project, "specs/sub.yaml", "--task", "IMPL-1")
    assert code == 2 and "--task needs --commit" in err and fake_api.requests == []
    fake_api.push(*red_step())
    code, out, err = generate(project, "specs/sub.yaml", "--task", "IMPL-1", "--commit")
    assert code == 0, out + err
    assert ", GSD-Task: IMPL-1" in out
    trailers = project.git("log", "-1", "--format=%(trailers)")
    assert "GSD-Phase: red" in trailers and "GSD-Task: IMPL-1" in trailers
