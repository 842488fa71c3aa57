"""A plan's records (``tddgit.plan/1``): frozen dataclasses, and their JSON both ways.

``to_json`` gives exactly the shape docs/plans.md documents and ``plan.schema.json``
describes; ``plan_from_json`` reads a document ``tddgit.plans.validate`` has accepted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tddgit.plans import SCHEMA


@dataclass(frozen=True)
class PlannedTest:
    """One test case a task's red writes."""

    id: str
    type: str = "unit"
    description: str = ""
    given: str = ""
    when: str = ""
    then: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "description": self.description,
            "given": self.given,
            "when": self.when,
            "then": self.then,
        }


@dataclass(frozen=True)
class Task:
    """One feature and one whole cycle: red (its tests), green, refactor."""

    id: str
    title: str
    components: tuple[str, ...]
    files: tuple[str, ...]  # every file the task creates or changes
    depends_on: tuple[str, ...]
    tests: tuple[PlannedTest, ...]
    test_files: tuple[str, ...]
    implement: tuple[str, ...]
    production_files: tuple[str, ...]
    look_at: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "components": list(self.components),
            "files": list(self.files),
            "depends_on": list(self.depends_on),
            "red": {
                "test_cases": [t.to_json() for t in self.tests],
                "count": len(self.tests),
                "files": list(self.test_files),
            },
            "green": {"implement": list(self.implement), "files": list(self.production_files)},
            "refactor": {"look_at": list(self.look_at)},
        }


@dataclass(frozen=True)
class Plan:
    spec_id: str
    title: str
    spec: str  # the spec's path, relative to the repository root when inside it
    source: str  # "spec": made from the YAML spec alone
    tasks: tuple[Task, ...]
    acceptance_criteria: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def test_count(self) -> int:
        return sum(len(t.tests) for t in self.tasks)

    def task(self, task_id: str) -> Task | None:
        return next((t for t in self.tasks if t.id == task_id), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "spec_id": self.spec_id,
            "title": self.title,
            "spec": self.spec,
            "source": self.source,
            "tasks": [t.to_json() for t in self.tasks],
            "totals": {
                "tasks": len(self.tasks),
                "test_cases": self.test_count,
                "files": len({f for t in self.tasks for f in t.files}),
            },
            "acceptance_criteria": list(self.acceptance_criteria),
            "notes": list(self.notes),
        }

    def dumps(self) -> str:
        """The ``plan.json`` text: stable key order and indentation, so a second run on the
        same spec writes the same bytes."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"


def plan_from_json(data: dict[str, Any]) -> Plan:
    """The plan of a document that passed ``tddgit.plans.validate.problems``."""
    tasks = []
    for t in data["tasks"]:
        red, green = t["red"], t["green"]
        tests = tuple(
            PlannedTest(
                id=c["id"],
                type=c.get("type", "unit"),
                description=c.get("description", ""),
                given=c["given"],
                when=c["when"],
                then=c["then"],
            )
            for c in red["test_cases"]
        )
        tasks.append(
            Task(
                id=t["id"],
                title=t["title"],
                components=tuple(t["components"]),
                files=tuple(t["files"]),
                depends_on=tuple(t["depends_on"]),
                tests=tests,
                test_files=tuple(red.get("files", ())),
                implement=tuple(green["implement"]),
                production_files=tuple(green.get("files", ())),
                look_at=tuple(t["refactor"]["look_at"]),
            )
        )
    return Plan(
        spec_id=data["spec_id"],
        title=data["title"],
        spec=data.get("spec", ""),
        source=data.get("source", "spec"),
        tasks=tuple(tasks),
        acceptance_criteria=tuple(data.get("acceptance_criteria", ())),
        notes=tuple(data.get("notes", ())),
    )
