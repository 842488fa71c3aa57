"""`tddgit plan validate`: each rule caught on a hand-broken plan, with its JSON path."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tddgit.plans.validate import problems
from tests.conftest import GitRepo
from tests.plans.conftest import SCHEMA

Breaker = Callable[[dict[str, Any]], None]


def _too_many(d: dict[str, Any]) -> None:
    base = d["tasks"][0]
    d["tasks"] = []
    for n in range(1, 20):
        t = json.loads(json.dumps(base))
        t["id"] = f"IMPL-{n}"
        t["red"]["test_cases"][0]["id"] = f"TC-{n}"
        d["tasks"].append(t)
    d["totals"] = {"tasks": 19, "test_cases": 19}


def _cycle(d: dict[str, Any]) -> None:
    d["tasks"][1]["depends_on"] = ["IMPL-1", "IMPL-3"]


CASES: list[tuple[str, Breaker, str, str]] = [
    ("too many tasks", _too_many, "$.tasks", "19 tasks; a plan holds at most 18 — split the spec"),
    (
        "duplicate id",
        lambda d: d["tasks"][3].update(id="IMPL-1"),
        "$.tasks[3].id",
        "'IMPL-1' is also the id of $.tasks[0]",
    ),
    (
        "missing phase",
        lambda d: d["tasks"][1].pop("refactor"),
        "$.tasks[1].refactor",
        "the refactor phase is missing",
    ),
    (
        "red without test cases",
        lambda d: (
            d["tasks"][0]["red"].update(test_cases=[], count=0),
            d["totals"].update(test_cases=4),
        ),
        "$.tasks[0].red.test_cases",
        "no test cases: a red lists at least one",
    ),
    (
        "count mismatch",
        lambda d: d["tasks"][2]["red"].update(count=3),
        "$.tasks[2].red.count",
        "is 3 but the red lists 2 test cases",
    ),
    (
        "unknown dependency",
        lambda d: d["tasks"][3].update(depends_on=["IMPL-7"]),
        "$.tasks[3].depends_on[0]",
        "'IMPL-7' names no task of this plan",
    ),
    (
        "dependency cycle",
        _cycle,
        "$.tasks[1].depends_on[1] $.tasks[1].depends_on",
        "dependency cycle: IMPL-2 → IMPL-3 → IMPL-2",
    ),
    (
        "dependency after",
        lambda d: (
            d["tasks"][0].update(depends_on=["IMPL-4"]),
            d["tasks"][3].update(depends_on=[]),
        ),
        "$.tasks[0].depends_on[0]",
        "IMPL-1 depends on IMPL-4, which comes after it",
    ),
    (
        "self dependency",
        lambda d: d["tasks"][0].update(depends_on=["IMPL-1"]),
        "$.tasks[0].depends_on[0]",
        "IMPL-1 depends on itself",
    ),
    (
        "file outside",
        lambda d: d["tasks"][1]["files"].append("../elsewhere.py"),
        "$.tasks[1].files[2]",
        "'../elsewhere.py' is outside the repository",
    ),
    (
        "absolute file",
        lambda d: d["tasks"][1]["green"].update(files=["/etc/passwd"]),
        "$.tasks[1].green.files[0]",
        "is absolute",
    ),
    (
        "file in .git",
        lambda d: d["tasks"][0]["red"].update(files=[".git/hooks/pre-commit"]),
        "$.tasks[0].red.files[0]",
        "is inside .git/",
    ),
    (
        "duplicate test case",
        lambda d: d["tasks"][1]["red"]["test_cases"][0].update(id="TC-1.1"),
        "$.tasks[1].red.test_cases[0].id",
        "test case 'TC-1.1' is also listed at $.tasks[0].red.test_cases[0]",
    ),
    (
        "missing then",
        lambda d: d["tasks"][0]["red"]["test_cases"][0].pop("then"),
        "$.tasks[0].red.test_cases[0].then",
        "missing or not a string",
    ),
    (
        "totals",
        lambda d: d["totals"].update(test_cases=4),
        "$.totals.test_cases",
        "is 4 but the plan has 5",
    ),
]


def test_sample_is_valid(plan_json: dict[str, Any]) -> None:
    assert problems(plan_json) == []
    assert list(Draft202012Validator(SCHEMA).iter_errors(plan_json)) == []


@pytest.mark.parametrize(("name", "breaker", "path", "message"), CASES, ids=[c[0] for c in CASES])
def test_each_rule(
    plan_json: dict[str, Any], name: str, breaker: Breaker, path: str, message: str
) -> None:
    breaker(plan_json)
    found = problems(plan_json)
    assert [p.path for p in found] == path.split(), found
    assert message in found[-1].message


def test_symlink_out_of_the_repository(plan_json: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)
    plan_json["tasks"][0]["files"] = ["out/x.py"]
    assert [str(p) for p in problems(plan_json, root)] == [
        "$.tasks[0].files[0]: 'out/x.py' is outside the repository (through a symbolic link)"
    ]


def test_cli_lines_and_exit_codes(repo: GitRepo, plan_json: dict[str, Any]) -> None:
    path = repo.root / "plan.json"
    path.write_text(json.dumps(plan_json))
    ok = repo.tddgit("plan", "validate", "plan.json")
    assert ok.returncode == 0 and ok.stdout == "" and "valid (4 tasks)" in ok.stderr

    plan_json["tasks"][2]["red"]["count"] = 3
    plan_json["tasks"][3]["depends_on"] = ["IMPL-7"]
    path.write_text(json.dumps(plan_json))
    bad = repo.tddgit("plan", "validate", "plan.json")
    assert bad.returncode == 1
    assert bad.stdout.splitlines() == [
        "plan.json: $.tasks[2].red.count: is 3 but the red lists 2 test cases",
        "plan.json: $.tasks[3].depends_on[0]: 'IMPL-7' names no task of this plan",
    ]
    assert "2 problems in plan.json" in bad.stderr


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{not json", "is not JSON (line 1"),
        ("[1, 2]", "the document is not a JSON object"),
        ('{"schema": "tddgit.audit/1"}', '$.schema is "tddgit.audit/1", not "tddgit.plan/1"'),
    ],
)
def test_not_a_plan_is_bad_input(repo: GitRepo, content: str, said: str) -> None:
    (repo.root / "plan.json").write_text(content)
    proc = repo.tddgit("plan", "validate", "plan.json")
    assert proc.returncode == 2 and said in proc.stderr and "Traceback" not in proc.stderr
    missing = repo.tddgit("plan", "validate", "nowhere/plan.json")
    assert missing.returncode == 2 and "no plan at" in missing.stderr
