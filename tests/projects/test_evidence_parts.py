"""Evidence of a repository of projects: schema 2 records each project's part and reads
back whole; a schema-1 note (written before projects) is still read, and cut down to the
ids and paths one project owns."""

from __future__ import annotations

import json

from tddgit.evidence import parse_evidence
from tddgit.projects import Scope

TREE = "a" * 40


def old_note() -> dict[str, object]:
    return {
        "schema": "tddgit.evidence/1",
        "phase": "green",
        "tree": TREE,
        "parent": None,
        "runner": "pytest",
        "targets": [{"id": "backend/tests/test_a.py::test_a", "outcome": "passed"}],
        "others": [{"id": "frontend/test/a.test.ts::a", "outcome": "passed"}],
        "test_ids": ["backend/tests/test_a.py::test_a", "frontend/test/a.test.ts::a"],
        "changes": {"production": ["backend/src/a.py", "frontend/src/a.ts"]},
    }


def test_a_schema_1_note_is_read_and_cut_to_one_project() -> None:
    evidence = parse_evidence(json.dumps(old_note()))
    backend = evidence.of_project(Scope("backend"))
    assert backend is not None
    assert backend.test_ids == ("backend/tests/test_a.py::test_a",)
    assert backend.others == ()
    assert backend.changes == {"production": ("backend/src/a.py",)}
    assert evidence.of_project(None) is evidence


def test_schema_2_keeps_each_project_part() -> None:
    backend = parse_evidence(json.dumps(old_note())).of_project(Scope("backend"))
    frontend = parse_evidence(json.dumps(old_note())).of_project(Scope("frontend"))
    assert backend is not None and frontend is not None
    from dataclasses import replace

    step = replace(backend, projects={"backend": backend, "frontend": frontend})
    again = parse_evidence(step.dumps())
    assert json.loads(step.dumps())["schema"] == "tddgit.evidence/2"
    assert sorted(again.projects) == ["backend", "frontend"]
    assert again.of_project(Scope("frontend")) == frontend
    assert again.of_project(Scope("tools")) is None  # the step did not touch it
    nested = json.loads(step.dumps())
    nested["projects"]["backend"]["projects"] = {"x": {}}
    try:
        parse_evidence(json.dumps(nested))
    except ValueError as exc:
        assert "holds no `projects`" in str(exc)
    else:
        raise AssertionError("a project's record holding `projects` was accepted")
