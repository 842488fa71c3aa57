"""`tddgit cycle SPEC`: red → green → refactor by a model in a throwaway worktree, then a
person's approve (fast-forward) or abort (discard). See docs/llm.md."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from tddgit import console
from tddgit.cli import app
from tddgit.errors import UsageError

PROMPT = "Type approve to merge, abort to discard"


@click.command("cycle")
@click.argument(
    "spec_path",
    metavar="SPEC",
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
    clean: bool,
    as_json: bool,
) -> int:
    """Run a whole TDD cycle for SPEC in an isolated git worktree, then approve or abort.

    A branch tddgit/<spec-id>-<n> is made at HEAD and checked out in a locked worktree
    outside the repository; `generate red`, `generate green` and `generate refactor` run
    there, each committed through its gate. The review shows the commits, their lights,
    the diff stat, findings, tokens and cost. `approve` fast-forwards your branch (only if
    it has not moved and your uncommitted changes touch none of the cycle's files);
    `abort` deletes the branch. The worktree is removed either way. Without a terminal
    and without --yes the branch is kept and the merge command printed.

    \b
    Examples:
      tddgit cycle specs/cart.yaml
      tddgit cycle specs/cart.yaml --no-refactor --yes
      tddgit cycle --clean
    """
    from tddgit.cycle.worktree import sweep_stale

    a = app(ctx)
    if not clean:
        _prefetch_sdk()
    repo = a.repo
    for s in sweep_stale(repo):
        console.err(
            f"cycle: removed the stale worktree {s.path} (pid {s.pid} is gone)"
            + (f"; its branch {s.branch} is kept" if s.branch else "")
        )
    if clean:
        return 0
    if spec_path is None:
        raise UsageError("no SPEC given", "pass the spec file: tddgit cycle specs/x.yaml")
    options = {"model": model, "max_turns": max_turns, "max_cost": max_cost}
    return _run(a, spec_path, refactor, yes, keep_branch, options, as_json)


def _run(
    a: object,
    spec_path: Path,
    refactor: bool,
    yes: bool,
    keep_branch: bool,
    options: dict[str, Any],
    as_json: bool,
) -> int:
    from tddgit.cli import AppContext
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
    from tddgit.project import load_project_config
    from tddgit.spec import load_spec

    assert isinstance(a, AppContext)
    repo, config = a.repo, a.config
    user_branch = repo.run("symbolic-ref", "-q", "--short", "HEAD", check=False).stdout.decode()
    user_branch = user_branch.strip()
    if not user_branch:
        raise UsageError(
            "HEAD is detached: the cycle merges into the branch you start from",
            "check out a branch first",
        )
    spec = load_spec(spec_path if spec_path.is_absolute() else a.cwd / spec_path)
    console.err(f"cycle: {spec.spec_id} ({spec.title})")
    include = config.globs("cycle.include")
    notes_before = notes_ref(repo)
    with cycle_worktree(repo, spec.spec_id, include) as wt:
        console.err(f"cycle: branch {wt.branch} in {wt.repo.root}")
        wt_config = worktree_config(load_project_config(wt.repo, wt.repo.root), repo.root)
        run = run_steps(wt.repo, wt_config, spec, cycle_steps(refactor), options, console.err)
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
            {"phase": s.name, "holds": s.holds, "commit": s.commit} for s in run.steps
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
