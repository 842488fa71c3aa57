"""Which task of a plan a cycle works on (``tddgit cycle --plan PLAN --task ID|--next``),
chosen from ``plan status``'s reading of the history, and that task's slice of the spec:
the model's input instead of the whole spec.

A task can be worked on when every task it depends on is complete (red and green with
the gates' evidence) and it is not complete itself. A task whose red already counts
resumes at its green.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tddgit.console import shown_path
from tddgit.errors import UsageError
from tddgit.git import Repo
from tddgit.plans import PLAN_FILE
from tddgit.plans.model import Plan, Task
from tddgit.plans.status import PlanStatus, plan_status
from tddgit.spec import Spec, TaskScope, TestCase


@dataclass(frozen=True)
class Chosen:
    task: Task
    red: tuple[str, ...]  # the red commits that count

    @property
    def start(self) -> str:
        """The phase the cycle starts at: green when the task's red already counts."""
        return "green" if self.red else "red"


def load_plan(path: Path, root: Path, cwd: Path) -> tuple[Plan, Path]:
    """The plan at ``path`` (plan.json or its directory), and its file; a plan that breaks
    the plan rules is bad input."""
    from tddgit.plans.model import plan_from_json
    from tddgit.plans.validate import problems, read_plan_json

    file = path / PLAN_FILE if path.is_dir() else path
    data = read_plan_json(file)
    found = problems(data, root)
    if found:
        shown = shown_path(file, cwd)
        raise UsageError(
            f"{shown} is not a valid plan ({found[0]})",
            f"run `tddgit plan validate {shown}` and fix what it lists",
        )
    return plan_from_json(data), file


def choose(repo: Repo, plan: Plan, task_id: str | None, shown: str) -> Chosen | None:
    """The task ``task_id``, or the next one when it is None (None: every task is
    complete). ``shown`` is how the user named the plan, for the fixes."""
    status = plan_status(repo, plan)
    if task_id is None:
        nxt = status.next()
        return None if nxt is None else _chosen(status, nxt[0])
    task = plan.task(task_id)
    if task is None:
        ids = [t.id for t in plan.tasks]
        listed = ", ".join(ids[:6]) + (" …" if len(ids) > 6 else "")
        raise UsageError(
            f"{task_id} is not a task of the plan {plan.spec_id} ({listed})",
            f"pass one of its task ids, or --next (`tddgit plan status {shown}` lists them)",
        )
    if status.progress[task_id].complete:
        done = status.progress[task_id]
        raise UsageError(
            f"{task_id} is already complete (red {done.done('red')[0][:10]}, "
            f"green {done.done('green')[0][:10]})",
            f"pick a task that is not: `tddgit cycle --plan {shown} --next`",
        )
    waiting = [d for d in task.depends_on if not status.progress[d].complete]
    if waiting:
        raise UsageError(
            f"{task_id} depends on {', '.join(waiting)}, not complete yet (a red and a "
            f"green with the gates' evidence, per `tddgit plan status`)",
            f"finish the dependenc{'ies' if len(waiting) > 1 else 'y'} first: "
            f"`tddgit cycle --plan {shown} --task {waiting[0]}`, or --next",
        )
    return _chosen(status, task_id)


def _chosen(status: PlanStatus, task_id: str) -> Chosen:
    task = status.plan.task(task_id)
    assert task is not None
    red = tuple(status.progress[task_id].done("red"))
    return Chosen(task, red)


def task_spec(plan: Plan, task: Task, source: str) -> Spec:
    """The task's slice of the spec, as the model is shown a spec (``agent.prompt``):
    its own test cases, the spec's title and acceptance criteria, and the task's
    components, files, what to implement and what to look at."""
    component = ", ".join(task.components) or task.id
    return Spec(
        spec_id=plan.spec_id,
        title=plan.title,
        components=(),
        test_cases=tuple(
            TestCase(t.id, component, t.type, t.description, t.given, t.when, t.then)
            for t in task.tests
        ),
        acceptance_criteria=plan.acceptance_criteria,
        implementation_order=(),
        path=f"{source}#{task.id}",
        text="",
        structured=True,
        task=TaskScope(
            id=task.id,
            title=task.title,
            components=task.components,
            files=task.files,
            depends_on=task.depends_on,
            implement=task.implement,
            look_at=task.look_at,
        ),
    )
