"""The audit's cycles grouped per plan task (``GSD-Task`` trailers, docs/plans.md).

Made after the pass from the cycles it recorded (a cycle's task is its red's trailer, else
its green's), for every format: the JSON report's ``tasks`` array and the task tables of
text, Markdown and HTML. A history without ``GSD-Task`` trailers has no groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tddgit.audit.model import Cycle

TASK_HEADER = ("task", "cycles", "complete", "open", "broken", "red → green (+refactors)")


@dataclass(frozen=True)
class TaskGroup:
    """The cycles of one task (the ``GSD-Task`` their commits name)."""

    task: str
    cycles: tuple[Cycle, ...]

    def count(self, status: str) -> int:
        return sum(1 for c in self.cycles if c.status == status)

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "cycles": [c.id for c in self.cycles],
            "complete": self.count("complete"),
            "open": self.count("open"),
            "broken": self.count("broken"),
        }


def task_groups(cycles: Sequence[Cycle]) -> list[TaskGroup]:
    """One group per task, in the order of each task's first cycle."""
    groups: dict[str, list[Cycle]] = {}
    for c in cycles:
        if c.task is not None:
            groups.setdefault(c.task, []).append(c)
    return [TaskGroup(task, tuple(cs)) for task, cs in groups.items()]


def task_rows(cycles: Sequence[Cycle]) -> list[tuple[str, ...]]:
    """The rows of the task tables (text, Markdown, HTML)."""
    return [
        (
            g.task,
            str(len(g.cycles)),
            str(g.count("complete")),
            str(g.count("open")),
            str(g.count("broken")),
            _shown_steps(g.cycles),
        )
        for g in task_groups(cycles)
    ]


SHOWN_CYCLES = 5  # per task, in the tables; the JSON report lists them all


def _shown_steps(cycles: Sequence[Cycle]) -> str:
    shown = "; ".join(_steps(c) for c in cycles[:SHOWN_CYCLES])
    more = len(cycles) - SHOWN_CYCLES
    return f"{shown}; … {more} more" if more > 0 else shown


def _steps(c: Cycle) -> str:
    out = c.red[:10] + (f" → {c.green[:10]}" if c.green else " → …")
    if c.refactors:
        out += f" (+{len(c.refactors)})"
    return out
