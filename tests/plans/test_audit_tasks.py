"""`tddgit audit` groups cycles per `GSD-Task` in every format."""

from __future__ import annotations

import json

from tests.conftest import GitRepo
from tests.test_schemas import validate


def test_cycles_grouped_per_task_in_each_format(tracked: GitRepo) -> None:
    log = tracked.git("log", "--format=%H").split()  # newest first
    proc = tracked.tddgit("audit", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    validate("audit.schema.json", doc)
    by_red = {c["red"]: c for c in doc["cycles"]}
    assert by_red[log[6]]["task"] == "IMPL-1" and by_red[log[6]]["refactors"] == [log[4]]
    assert by_red[log[1]]["task"] == "IMPL-3"
    first = [c for c in doc["cycles"] if c["task"] is None]  # start_project's commit: none
    assert all(c["red"] not in log[:7] for c in first)
    assert doc["tasks"] == [
        {"task": "IMPL-1", "cycles": [by_red[log[6]]["id"]], "complete": 1, "open": 0, "broken": 0},
        {"task": "IMPL-2", "cycles": [by_red[log[3]]["id"]], "complete": 1, "open": 0, "broken": 0},
        {"task": "IMPL-3", "cycles": [by_red[log[1]]["id"]], "complete": 1, "open": 0, "broken": 0},
    ]

    text = tracked.tddgit("audit").stdout
    assert "Cycles per task (GSD-Task)" in text
    assert f"{log[6][:10]} → {log[5][:10]} (+1)" in text

    markdown = tracked.tddgit("audit", "--format", "markdown").stdout
    assert "## Cycles per task" in markdown
    assert f"| IMPL-2 | 1 | 1 | 0 | 0 | {log[3][:10]} → {log[2][:10]} |" in markdown

    html = tracked.tddgit("audit", "--format", "html").stdout
    assert '<section id="tasks"' in html and "<td>IMPL-3</td>" in html


def test_no_task_section_without_trailers(repo: GitRepo) -> None:
    from tests.project import stage_red, start_project

    start_project(repo)
    stage_red(repo)
    repo.commit("sub: a test first")  # a red by its files: a cycle, no task
    doc = json.loads(repo.tddgit("audit", "--format", "json").stdout)
    assert doc["cycles"] and all(c["task"] is None for c in doc["cycles"])
    assert doc["tasks"] == []
    assert "Cycles per task" not in repo.tddgit("audit", "--format", "markdown").stdout
    assert 'id="tasks"' not in repo.tddgit("audit", "--format", "html").stdout


def test_task_rows_show_five_cycles_and_count_the_rest() -> None:
    from tddgit.audit.model import Cycle
    from tddgit.audit.tasks import task_rows

    def cycle(i: int, task: str | None) -> Cycle:
        green = f"{i:040x}" if i % 2 else None
        status = "complete" if green else "open"
        return Cycle(i, status, f"{i + 100:040x}", green, (), "a", "a@x", i, None, None, task)

    cycles = [cycle(i, "IMPL-1" if i < 7 else None) for i in range(9)] + [cycle(9, "IMPL-2")]
    rows = task_rows(cycles)
    assert [r[:5] for r in rows] == [("IMPL-1", "7", "3", "4", "0"), ("IMPL-2", "1", "1", "0", "0")]
    assert rows[0][5].count(" → ") == 5 and rows[0][5].endswith("; … 2 more")
