"""`tddgit cycle SPEC`: red → green → refactor by a model in a throwaway worktree, then a
person's approve (fast-forward) or abort (discard). See docs/llm.md."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tddgit import console
from tddgit.appcontext import AppContext
from tddgit.cli import app
from tddgit.errors import UsageError

if TYPE_CHECKING:
    from tddgit.spec import Spec

PROMPT = "Type approve to merge, abort to discard"


@dataclass(frozen=True)
class Target:
    """What the cycle works on: a spec (or a plan task's slice of one), where it starts."""

    spec: Spec
    task: str | None = None  # the GSD-Task trailer of every commit
    start: str = "red"


@click.command("cycle")
@click.argument(
    "spec_path",
    metavar="[SPEC]",
    required=False,
    type=click.Path(dir_okay=False, path_type=Path),
)
@click.option(
    "--refactor/--no-refactor", default=True, show_default=True, help="Run the refactor step."
)
@click.option("--yes", is_flag=True, help="Approve without asking when every gate held.")
@click.option("--keep-branch", is_flag=True, help="On abort, keep the cycle's branch.")
@click.option("--model", help="The model id (default: llm.model).")
@click.option("--max-turns", type=click.IntRange(min=1), help="Requests per step at most.")
@click.option(
    "--max-cost",
    type=click.FloatRange(min=0),
    help="Stop the cycle when its estimated cost (USD, all steps) reaches this.",
)
@click.option(
    "--plan",
    "plan_path",
    metavar="PLAN",
    type=click.Path(path_type=Path),
    help="A plan made by `tddgit plan` (plan.json or its directory): the cycle of one of "
    "its tasks (--task or --next), with the task's slice of the spec as the model's input.",
)
@click.option(
    "--task",
    metavar="ID",
    help="With --plan: the task to run. With SPEC: the plan task the commits belong to. "
    "Either way every commit gets a `GSD-Task: ID` trailer (plan status).",
)
@click.option(
    "--next",
    "next_task",
    is_flag=True,
    help="With --plan: the task `plan status` names next (the first not complete whose "
    "dependencies are complete).",
)
@click.option("--clean", is_flag=True, help="Only remove stale cycle worktrees, then exit.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def cycle(
    ctx: click.Context,
    spec_path: Path | None,
    refactor: bool,
    yes: bool,
    keep_branch: bool,
    model: str | None,
    max_turns: int | None,
    max_cost: float | None,
    plan_path: Path | None,
    task: str | None,
    next_task: bool,
    clean: bool,
    as_json: bool,
) -> int:
    """Run a whole TDD cycle for SPEC (or a plan's task) in a git worktree; approve or abort.

    A branch tddgit/<spec-id>-<n> is made at HEAD and checked out in a locked worktree
    outside the repository; `generate red`, `generate green` and `generate refactor` run
    there, each committed through its gate. The review shows the commits, their lights,
    the diff stat, findings, tokens and cost. `approve` fast-forwards your branch (only if
    it has not moved and your uncommitted changes touch none of the cycle's files);
    `abort` deletes the branch. The worktree is removed either way. Without a terminal
    and without --yes the branch is kept and the merge command printed.

    With --plan, the cycle is one task's: --task IMPL-N, or --next for the task `tddgit
    plan status` names next. The model is given that task's test cases, files, what to
    implement and what to look at, not the whole spec; a task whose dependencies are not
    complete (red and green with evidence) is refused, a task whose red is already done
    starts at green, and every commit carries `GSD-Task: IMPL-N`. When every task of the
    plan is complete, --next says so and exits 0.

    \b
    Examples:
      tddgit cycle specs/cart.yaml
      tddgit cycle specs/cart.yaml --no-refactor --yes
      tddgit cycle --plan .tddgit/plans/cart --next
      tddgit cycle --plan .tddgit/plans/cart/plan.json --task IMPL-2
      tddgit cycle --clean
    """
    from tddgit.commands.phase import task_trailer
    from tddgit.cycle.worktree import sweep_stale

    if not clean:
        _check_arguments(spec_path, plan_path, task, next_task)
        task_trailer(task)  # a bad id is refused before anything happens
        _prefetch_sdk()
    a = app(ctx)
    repo = a.repo
    for s in sweep_stale(repo):
        console.err(
            f"cycle: removed the stale worktree {s.path} (pid {s.pid} is gone)"
            + (f"; its branch {s.branch} is kept" if s.branch else "")
        )
    if clean:
        return 0
    user_branch = _user_branch(a)  # a detached HEAD: refused before the plan is read
    target = _target(a, spec_path, plan_path, task, as_json)
    if target is None:
        return 0
    from tddgit.agent.prompt import check_sendable

    check_sendable(target.spec, a.config.globs("llm.secret_globs"))  # before any worktree
    options = {"model": model, "max_turns": max_turns, "max_cost": max_cost, "task": target.task}
    return _run(a, target, user_branch, refactor, yes, keep_branch, options, as_json)


def _check_arguments(
    spec_path: Path | None, plan_path: Path | None, task: str | None, next_task: bool
) -> None:
    if spec_path is not None and plan_path is not None:
        raise UsageError(
            "SPEC and --plan cannot be combined: a plan task brings its slice of the spec",
            "pass either SPEC or --plan PLAN with --task ID or --next",
        )
    if next_task and plan_path is None:
        raise UsageError("--next needs --plan", "add --plan PLAN (plan.json or its directory)")
    if task and next_task:
        raise UsageError(
            "--task and --next cannot be combined", "pass --task ID, or --next for the next task"
        )
    if plan_path is not None and not (task or next_task):
        raise UsageError(
            "--plan needs --task ID or --next",
            "name the task (--task IMPL-2) or let the plan choose (--next)",
        )
    if spec_path is None and plan_path is None:
        raise UsageError(
            "no SPEC given",
            "pass the spec file (tddgit cycle specs/x.yaml) or a plan (--plan PLAN --next)",
        )


def _user_branch(a: AppContext) -> str:
    proc = a.repo.run("symbolic-ref", "-q", "--short", "HEAD", check=False)
    branch = proc.stdout.decode().strip()
    if not branch:
        raise UsageError(
            "HEAD is detached: the cycle merges into the branch you start from",
            "check out a branch first",
        )
    return branch


def _target(
    a: AppContext, spec_path: Path | None, plan_path: Path | None, task: str | None, as_json: bool
) -> Target | None:
    """The spec, or the plan task's slice of it (None: --next on a plan with every task
    complete, which is said here)."""
    from tddgit.console import shown_path
    from tddgit.plans.select import choose, load_plan, task_spec
    from tddgit.spec import load_spec

    if plan_path is None:
        assert spec_path is not None
        return Target(load_spec(spec_path if spec_path.is_absolute() else a.cwd / spec_path), task)
    where = plan_path if plan_path.is_absolute() else a.cwd / plan_path
    plan, file = load_plan(where, a.repo.root, a.cwd)
    shown = shown_path(file.parent, a.cwd)
    chosen = choose(a.repo, plan, task, shown)
    if chosen is None:
        done = f"plan {plan.spec_id}: every task is complete; nothing to run"
        console.out(json.dumps({"task": None, "message": done}) if as_json else done)
        return None
    t = chosen.task
    how = "--next" if task is None else "--task"
    after = f", after {', '.join(t.depends_on)} (complete)" if t.depends_on else ""
    cases = f"{len(t.tests)} test case{'s' if len(t.tests) != 1 else ''}"
    console.err(f"cycle: plan {plan.spec_id}, task {t.id} ({how}): {t.title} — {cases}{after}")
    if chosen.start != "red":
        console.err(
            f"cycle: {t.id}'s red is committed with evidence ({chosen.red[0][:10]}): "
            f"the cycle starts at {chosen.start}"
        )
    return Target(task_spec(plan, t, shown_path(file, a.repo.root)), t.id, chosen.start)


def _project_config(a: AppContext, wt_repo: Any, target: Target) -> Any:
    """The worktree's configuration: in a repository of several projects, the one of the
    project the cycle is for (the spec's, else the one it started in: docs/monorepo.md)."""
    from tddgit.commands.generate import step_config
    from tddgit.project import load_project_config

    try:
        here = a.cwd.resolve().relative_to(a.repo.root.resolve())
    except ValueError:
        here = Path()
    cwd = wt_repo.root / here
    config = load_project_config(wt_repo, cwd if cwd.is_dir() else wt_repo.root)
    return step_config(wt_repo, config, target.start, cwd, target.spec)


def _run(
    a: AppContext,
    target: Target,
    user_branch: str,
    refactor: bool,
    yes: bool,
    keep_branch: bool,
    options: dict[str, Any],
    as_json: bool,
) -> int:
    from tddgit.cycle.engine import cycle_steps, run_steps, worktree_config
    from tddgit.cycle.review import (
        approve,
        delete_branch,
        discard,
        merge_command,
        notes_ref,
        review_lines,
    )
    from tddgit.cycle.worktree import cycle_worktree

    repo, config, spec = a.repo, a.config, target.spec
    console.err(f"cycle: {spec.spec_id} ({spec.title})")
    include = config.globs("cycle.include")
    notes_before = notes_ref(repo)
    name = f"{spec.spec_id}-{target.task}" if target.task else spec.spec_id
    steps = cycle_steps(refactor, target.start)
    with cycle_worktree(repo, name, include) as wt:
        console.err(f"cycle: branch {wt.branch} in {wt.repo.root}")
        wt_config = worktree_config(_project_config(a, wt.repo, target), repo.root)
        run = run_steps(wt.repo, wt_config, spec, steps, options, console.err)
        lines = review_lines(repo, wt.branch, wt.base, run, a.cwd)
        # the worktree goes before the decision: the branch alone carries the result
    write = console.err if as_json else console.out
    for line in lines:
        write(line)
    if not repo.git("rev-list", f"{wt.base}..{wt.branch}").strip():
        delete_branch(repo, wt.branch)  # nothing to approve: leave no empty branch behind
        write(f"nothing to merge: the cycle made no commit; the branch {wt.branch} is deleted")
        if as_json:
            console.out(
                json.dumps(
                    {
                        "branch": wt.branch,
                        "base": wt.base,
                        "decision": None,
                        "merged": False,
                        "stopped": run.stopped,
                    },
                    indent=2,
                )
            )
        return 1
    decision = _decide(yes, run.every_gate_held)
    result: dict[str, Any] = {"branch": wt.branch, "base": wt.base, "decision": decision}
    if target.task:
        result["task"] = target.task
    code = 0
    if decision == "approve":
        outcome = approve(repo, user_branch, wt.base, wt.branch)
        result["merged"] = outcome.merged
        if outcome.merged:
            delete_branch(repo, wt.branch)
            write(f"approved: {outcome.why}")
        else:
            write(f"not merged: {outcome.why}; the branch {wt.branch} is kept")
            write(f"  merge later with: {merge_command(wt.branch)}")
            code = 1
    elif decision == "abort":
        result["merged"] = False
        if keep_branch:
            write(f"aborted: the branch {wt.branch} is kept (--keep-branch)")
        else:
            discard(repo, wt.branch, wt.base, notes_before)
            write(f"aborted: the branch {wt.branch} is deleted; nothing was merged")
        code = 1
    else:
        result["merged"] = False
        why = "a step did not hold" if yes else "no terminal to ask"
        write(f"kept: {why}; the branch {wt.branch} is kept")
        write(f"  merge with: {merge_command(wt.branch)}")
        code = 0 if not yes else 1
    if as_json:
        result["steps"] = [
            {"phase": s.name, "holds": s.holds, "succeeded": s.succeeded, "commit": s.commit}
            for s in run.steps
        ]
        result["stopped"] = run.stopped
        result["unavailable"] = run.unavailable
        console.out(json.dumps(result, indent=2))
    return code


def _prefetch_sdk() -> None:
    """Import the provider's SDK (the slowest import by far) in a background thread while
    the worktree is made: the first request goes out sooner (bench/cycle_startup.py)."""
    import importlib
    import threading

    def load() -> None:
        try:
            importlib.import_module("anthropic")
        except Exception:  # not installed, or broken: the provider says so when it runs
            pass

    threading.Thread(target=load, name="tddgit-sdk-import", daemon=True).start()


def _decide(yes: bool, held: bool) -> str:
    """approve | abort | keep."""
    if yes:
        return "approve" if held else "keep"
    if not sys.stdin.isatty():
        return "keep"
    while True:
        answer = str(click.prompt(PROMPT, default="", show_default=False, err=True))
        answer = answer.strip().lower()
        if answer in ("approve", "abort"):
            return answer
        console.err("please type approve or abort")
