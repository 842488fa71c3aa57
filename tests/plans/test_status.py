"""`tddgit plan status` and `--task` on a real repository with real gated commits."""

from __future__ import annotations

import json

from tests.conftest import GitRepo


def test_task_trailer_on_gated_commits(tracked: GitRepo) -> None:
    tasks = tracked.git("log", "--format=%(trailers:key=GSD-Task,valueonly)%x00", "-7")
    assert [t.strip() for t in tasks.split("\0") if t.strip()] == [
        "IMPL-3", "IMPL-3", "IMPL-2", "IMPL-2", "IMPL-1", "IMPL-1", "IMPL-1",
    ]  # fmt: skip
    phases = tracked.git("log", "-1", "HEAD~1", "--format=%(trailers:key=GSD-Phase,valueonly)")
    assert phases.strip() == "red"


def test_status_json(tracked: GitRepo) -> None:
    proc = tracked.tddgit("plan", "status", ".tddgit/plans/calc", "--json", check=True)
    data = json.loads(proc.stdout)
    states = {t["id"]: t["state"] for t in data["tasks"]}
    assert states == {
        "IMPL-1": "complete",
        "IMPL-2": "complete",
        "IMPL-3": "in progress",
        "IMPL-4": "not started",
    }
    assert (data["complete"], data["total"]) == (2, 4)
    log = tracked.git("log", "--format=%H").split()  # newest first
    impl1 = data["tasks"][0]["phases"]
    assert impl1["red"]["commits"] == [log[6]]
    assert impl1["green"]["commits"] == [log[5]]
    assert impl1["refactor"]["commits"] == [log[4]]
    impl2 = data["tasks"][1]["phases"]
    assert impl2["refactor"] == {"done": False, "commits": [], "declared_no_evidence": []}
    impl3 = data["tasks"][2]["phases"]
    assert impl3["red"]["commits"] == [log[1]]
    assert impl3["green"]["done"] is False
    assert impl3["green"]["declared_no_evidence"] == [
        {"commit": log[0], "why": "no tddgit evidence note"}
    ]
    assert data["next"] == {
        "task": "IMPL-3",
        "phase": "green",
        "command": "tddgit green --task IMPL-3",
    }


def test_status_text_and_todo_list(tracked: GitRepo) -> None:
    proc = tracked.tddgit("plan", "status", ".tddgit/plans/calc/plan.json", check=True)
    out = proc.stdout
    head = tracked.head()
    assert "plan calc: 2 of 4 tasks complete" in out
    assert f"{head[:10]} declared, no evidence (no tddgit evidence note)" in out
    assert "next: IMPL-3 green — `tddgit green --task IMPL-3`" in out
    todo = (tracked.root / ".tddgit/plans/calc/TODO_LIST.md").read_text()
    lines = todo.splitlines()
    assert "- [x] IMPL-1: calc.sub" in lines
    assert "- [x] IMPL-2: calc.mul" in lines
    assert "- [ ] IMPL-3: calc.div" in lines
    red3 = tracked.git("rev-parse", "HEAD~1").strip()
    assert f"  - [x] red: 2 test cases — {red3[:10]}" in lines
    assert "  - [ ] green — `tddgit green --task IMPL-3`" in lines
    assert "  - [ ] refactor — `tddgit refactor --task IMPL-2`" in lines


def test_evidence_for_another_tree_does_not_count(tracked: GitRepo) -> None:
    """A note copied onto a commit it was not recorded for is evidence of nothing."""
    red3 = tracked.git("rev-parse", "HEAD~1").strip()
    tracked.git("notes", "--ref=tddgit", "copy", red3, "HEAD")
    data = json.loads(tracked.tddgit("plan", "status", ".tddgit/plans/calc", "--json").stdout)
    green = data["tasks"][2]["phases"]["green"]
    assert green["done"] is False
    assert "evidence says red but the commit is green" in green["declared_no_evidence"][0]["why"]


def test_reverted_step_does_not_count(tracked: GitRepo) -> None:
    tracked.git("revert", "--no-edit", "HEAD~1")  # IMPL-3's red
    data = json.loads(tracked.tddgit("plan", "status", ".tddgit/plans/calc", "--json").stdout)
    assert data["tasks"][2]["phases"]["red"]["commits"] == []


def test_unknown_task_is_noted(tracked: GitRepo) -> None:
    tracked.git(
        "commit", "-q", "--allow-empty", "-m", "x",
        "--trailer", "GSD-Phase: refactor", "--trailer", "GSD-Task: IMPL-9",
    )  # fmt: skip
    out = tracked.tddgit("plan", "status", ".tddgit/plans/calc", check=True).stdout
    assert f"note: {tracked.head()[:10]} names IMPL-9, which is not in this plan" in out


def test_task_option_refuses_bad_ids_and_no_commit(tracked: GitRepo) -> None:
    proc = tracked.tddgit("red", "--task", "IMPL 3")
    assert proc.returncode == 2 and "is not a task id" in proc.stderr
    proc = tracked.tddgit("red", "--task", "IMPL-4", "--no-commit")
    assert proc.returncode == 2
    assert "--trailer 'GSD-Task: IMPL-4'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_status_of_an_invalid_plan_is_bad_input(tracked: GitRepo) -> None:
    path = tracked.root / ".tddgit/plans/calc/plan.json"
    data = json.loads(path.read_text())
    data["tasks"][0]["red"]["count"] = 5
    path.write_text(json.dumps(data))
    proc = tracked.tddgit("plan", "status", str(path))
    assert proc.returncode == 2
    assert "$.tasks[0].red.count" in proc.stderr and "tddgit plan validate" in proc.stderr


def test_steps_rebased_onto_a_new_base_still_count(tracked: GitRepo) -> None:
    """A rebase carries each step's note to its new commit (notes.rewriteRef); on the new
    base the tree differs, but the change is the one judged, as the audit says
    (``evidence-rebased``): the step still counts."""
    root = tracked.git("rev-list", "--max-parents=0", "HEAD").strip()
    tracked.git("switch", "-q", "-c", "moved", root)
    tracked.write("README.md", "the project moved on\n")
    tracked.add("README.md")
    tracked.git("commit", "-q", "-m", "docs")
    tracked.git("switch", "-q", "-")
    tracked.git("config", "notes.rewriteRef", "refs/notes/tddgit")
    tracked.git("rebase", "-q", "--onto", "moved", root)
    data = json.loads(tracked.tddgit("plan", "status", ".tddgit/plans/calc", "--json").stdout)
    states = {t["id"]: t["state"] for t in data["tasks"]}
    assert states["IMPL-1"] == states["IMPL-2"] == "complete"
    assert data["next"]["task"] == "IMPL-3"
