"""`tddgit plan SPEC`, `plan validate PLAN`, `plan status PLAN`: quantified TDD task plans,
tracked from the history (docs/plans.md)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import click

from tddgit import console
from tddgit.cli import app
from tddgit.console import shown_path as _shown
from tddgit.errors import UsageError
from tddgit.plans import IMPL_PLAN_FILE, PHASES, PLAN_FILE, TODO_FILE


class _PlanGroup(click.Group):
    """``tddgit plan SPEC`` makes a plan; ``validate`` and ``status`` are subcommands."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["new", *args]
        return super().parse_args(ctx, args)


@click.group(
    "plan", cls=_PlanGroup, invoke_without_command=False, subcommand_metavar="SPEC | COMMAND ..."
)
def plan() -> None:
    """Plan a spec as red -> green -> refactor tasks; validate a plan; track it.

    `tddgit plan SPEC` (the same as `tddgit plan new SPEC`) writes plan.json, IMPL_PLAN.md
    and TODO_LIST.md: one task per component of the YAML spec, in dependency order, each
    with its test cases counted (at most 18 tasks).

    \b
    Examples:
      tddgit plan specs/calc.yaml
      tddgit plan validate .tddgit/plans/calc/plan.json
      tddgit red --task IMPL-1 -m "lexer: numbers"
      tddgit cycle --plan .tddgit/plans/calc --next
      tddgit plan status .tddgit/plans/calc
    """


@plan.command("new")
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write into (default .tddgit/plans/<spec-id>/ at the repository root).",
)
@click.option(
    "--llm",
    is_flag=True,
    help="A model drafts the plan (free-form spec) or enriches it (YAML spec); docs/plans.md.",
)
@click.option("--model", help="With --llm: the model id (default: llm.model).")
@click.option("--json", "as_json", is_flag=True, help="Print plan.json on stdout too.")
@click.pass_context
def new(
    ctx: click.Context,
    spec: Path,
    out_dir: Path | None,
    llm: bool,
    model: str | None,
    as_json: bool,
) -> int:
    """Write the plan of SPEC (YAML; any text with --llm): plan.json, IMPL_PLAN.md, TODO_LIST.md.

    With --llm a model drafts the plan (a free-form spec needs it) or enriches the
    deterministic one (edge cases, finer tasks); the plan rules check its answer, and
    their problems go back to it, three tries in all (then exit 1, nothing written).

    \b
    Examples:
      tddgit plan specs/calc.yaml
      tddgit plan specs/calc.yaml -o docs/plan --json
      tddgit plan notes/calc.md --llm
    """
    from tddgit.plans.generate import plan_from_spec, spec_path_in
    from tddgit.plans.render import impl_plan, todo_list
    from tddgit.plans.validate import problems
    from tddgit.spec import load_spec

    a = app(ctx)
    root = a.repo.root
    where = spec if spec.is_absolute() else a.cwd / spec
    loaded = load_spec(where)
    if model and not llm:
        raise UsageError("--model needs --llm", "add --llm, or leave --model out")
    draft = None
    if loaded.structured or not llm:
        draft = plan_from_spec(loaded, spec_path_in(root, where))
        found = problems(draft.to_json(), root)
        if found:  # e.g. a component's file_path outside the repository
            for p in found:
                console.err(f"plan: {p}")
            raise UsageError(
                f"the plan made from {spec} breaks the plan rules ({found[0]})",
                "correct the spec where the lines above point; nothing was written",
            )
    asked = None
    if llm:
        from tddgit.plans.llm import plan_with_model

        console.err(f"plan --llm: {loaded.spec_id} ({loaded.title})")
        asked = plan_with_model(
            a.repo, a.config, loaded, spec_path_in(root, where), draft, model, console.err
        )
        made = asked.plan
    else:
        assert draft is not None
        made = draft
    target = out_dir if out_dir is None or out_dir.is_absolute() else a.cwd / out_dir
    if target is None:
        target = root / ".tddgit" / "plans" / _safe(made.spec_id)
    target.mkdir(parents=True, exist_ok=True)
    _write(target / PLAN_FILE, made.dumps())
    _write(target / IMPL_PLAN_FILE, impl_plan(made))
    _write(target / TODO_FILE, todo_list(made))
    if as_json:
        console.out(made.dumps().rstrip("\n"))
    else:
        console.out(
            f"plan {made.spec_id}: {len(made.tasks)} tasks, {made.test_count} test cases "
            f"-> {_shown(target, a.cwd)}/"
        )
        for t in made.tasks:
            deps = f" (after {', '.join(t.depends_on)})" if t.depends_on else ""
            cases = f"{len(t.tests)} test case{'s' if len(t.tests) != 1 else ''}"
            console.out(f"  {t.id}  {t.title}  — {cases}{deps}")
        for note in made.notes:
            console.out(f"  note: {note}")
        console.out(f"  next: tddgit red --task {made.tasks[0].id}")
    if asked is not None:  # the session's tokens and cost, on stderr with --json
        from tddgit.agent.transcript import session_summary

        write = console.err if as_json else console.out
        for line in session_summary(
            asked.session_id,
            asked.turns,
            asked.provider,
            asked.model,
            asked.usage,
            asked.transcript,
            a.cwd,
        ):
            write(line)
    return 0


@plan.command("validate")
@click.argument("plan_path", metavar="PLAN", type=click.Path(path_type=Path))
@click.pass_context
def validate(ctx: click.Context, plan_path: Path) -> int:
    """Check PLAN (plan.json, or its directory) against the plan rules.

    At most 18 tasks; unique task and test case ids; every task has red, green and
    refactor; every red lists test cases and its count matches; depends_on names earlier
    tasks, without cycles; every file inside the repository. One line per problem with its
    JSON path; exit 1 when any, 2 when PLAN is not a plan at all.

    \b
    Examples:
      tddgit plan validate .tddgit/plans/calc/plan.json
    """
    from tddgit.plans.validate import problems, read_plan_json

    a = app(ctx)
    where = plan_path if plan_path.is_absolute() else a.cwd / plan_path
    data = read_plan_json(where)
    root = _root_or_none(ctx)
    found = problems(data, root)
    shown = _shown(where / PLAN_FILE if where.is_dir() else where, a.cwd)
    for p in found:
        console.out(f"{shown}: {p}")
    if found:
        console.err(f"{len(found)} problem{'s' if len(found) > 1 else ''} in {shown}")
        return 1
    console.err(f"{shown}: valid ({len(data['tasks'])} tasks)")
    return 0


@plan.command("status")
@click.argument("plan_path", metavar="PLAN", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_context
def status(ctx: click.Context, plan_path: Path, as_json: bool) -> int:
    """Show each task's phases done (from GSD-Task trailers with gate evidence), what is
    next, and tick TODO_LIST.md beside the plan.

    \b
    Examples:
      tddgit plan status .tddgit/plans/calc
      tddgit plan status .tddgit/plans/calc/plan.json --json | jq .next
    """
    from tddgit.plans.render import todo_list
    from tddgit.plans.select import load_plan
    from tddgit.plans.status import plan_status

    a = app(ctx)
    where = plan_path if plan_path.is_absolute() else a.cwd / plan_path
    the_plan, file = load_plan(where, a.repo.root, a.cwd)
    result = plan_status(a.repo, the_plan)
    _write(file.parent / TODO_FILE, todo_list(the_plan, result.done_map()))
    if as_json:
        console.out(json.dumps(result.to_json(), indent=2))
        return 0
    payload = result.to_json()
    console.out(
        f"plan {the_plan.spec_id}: {payload['complete']} of {payload['total']} tasks complete"
    )
    for task in payload["tasks"]:
        console.out(f"{task['id']}  {task['title']}  [{task['state']}]")
        for phase in PHASES:
            info = task["phases"][phase]
            done = ", ".join(c[:10] for c in info["commits"])
            line = f"  {phase:<9}{console.paint('✓', 'green') + ' ' + done if done else '–'}"
            console.out(line)
            for d in info["declared_no_evidence"]:
                console.out(f"           {d['commit'][:10]} declared, no evidence ({d['why']})")
    for u in payload["unknown_tasks"]:
        console.out(f"note: {u['commit'][:10]} names {u['task']}, which is not in this plan")
    nxt = payload["next"]
    if nxt is None:
        console.out("next: every task is complete")
    else:
        console.out(f"next: {nxt['task']} {nxt['phase']} — `{nxt['command']}`")
    console.err(f"{_shown(file.parent / TODO_FILE, a.cwd)} updated")
    return 0


def _root_or_none(ctx: click.Context) -> Path | None:
    from tddgit.errors import NotARepoError

    try:
        return app(ctx).repo.root
    except NotARepoError:
        return None


def _safe(spec_id: str) -> str:
    name = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in spec_id).strip(".-")
    return name or "plan"


def _write(path: Path, text: str) -> None:
    """Write atomically: a reader never sees half a plan."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["plan"]
