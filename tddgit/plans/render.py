"""A plan for people: ``IMPL_PLAN.md`` (the whole plan) and ``TODO_LIST.md`` (one checkbox
per phase of each task, ticked by ``tddgit plan status`` from the history)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tddgit.plans import PHASES
from tddgit.plans.model import Plan, Task

# task id -> phase -> the commits that did it with gate evidence
Done = Mapping[str, Mapping[str, Sequence[str]]]


def _code(text: str) -> str:
    return f"`{text}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def impl_plan(plan: Plan) -> str:
    lines = [
        f"# Implementation plan: {plan.title} ({plan.spec_id})",
        "",
        f"Made by `tddgit plan` from {_code(plan.spec)}: {len(plan.tasks)} tasks, "
        f"{plan.test_count} test cases. Each task is one red → green → refactor cycle; commit "
        "each phase with `tddgit red|green|refactor --task IMPL-N`, and "
        "`tddgit plan status` tells from the history what is done.",
        "",
        "| task | title | depends on | test cases |",
        "|---|---|---|---|",
    ]
    for t in plan.tasks:
        deps = ", ".join(t.depends_on) or "—"
        lines.append(f"| {t.id} | {_cell(t.title)} | {deps} | {len(t.tests)} |")
    for t in plan.tasks:
        lines += ["", *_task_section(t)]
    if plan.acceptance_criteria:
        lines += ["", "## Acceptance criteria", ""]
        lines += [f"- {c}" for c in plan.acceptance_criteria]
    if plan.notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"


def _task_section(t: Task) -> list[str]:
    where = f" (in {', '.join(map(_code, t.test_files))})" if t.test_files else ""
    lines = [
        f"## {t.id}: {t.title}",
        "",
        f"- components: {', '.join(t.components)}",
        f"- files: {', '.join(map(_code, t.files)) or '—'}",
        f"- depends on: {', '.join(t.depends_on) or '—'}",
        "",
        f"### Red — {len(t.tests)} test case{'s' if len(t.tests) != 1 else ''}{where}",
        "",
    ]
    for n, case in enumerate(t.tests, 1):
        about = f" {case.description}" if case.description else ""
        lines.append(f"{n}. **{case.id}** ({case.type}){about}")
        for key in ("given", "when", "then"):
            value = getattr(case, key)
            if value:
                lines.append(f"   - {key} {value}")
    lines += ["", "### Green", ""]
    lines += [f"- {item}" for item in t.implement]
    lines += ["", "### Refactor", ""]
    lines += [f"- {item}" for item in t.look_at]
    return lines


def todo_list(plan: Plan, done: Done | None = None) -> str:
    """One checkbox per task and per phase; with ``done`` (from the history) the phases
    that happened are ticked, with their commits."""
    lines = [
        f"# TODO: {plan.title} ({plan.spec_id})",
        "",
        "Ticked from the history by `tddgit plan status` (a phase counts when its commit "
        "carries `GSD-Task` and the gate's evidence).",
        "",
    ]
    for t in plan.tasks:
        phases = (done or {}).get(t.id, {})
        complete = bool(phases.get("red")) and bool(phases.get("green"))
        lines.append(f"- [{'x' if complete else ' '}] {t.id}: {t.title}")
        for phase in PHASES:
            commits = phases.get(phase, ())
            box = "x" if commits else " "
            what = f"{len(t.tests)} test cases" if phase == "red" else ""
            how = (
                ", ".join(c[:10] for c in commits) if commits else f"`tddgit {phase} --task {t.id}`"
            )
            label = f"{phase}: {what} — {how}" if what else f"{phase} — {how}"
            lines.append(f"  - [{box}] {label}")
    return "\n".join(lines) + "\n"
