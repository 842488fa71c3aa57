"""`tddgit status`: where the cycle stands and what is expected next."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from tddgit import console
from tddgit.cli import app
from tddgit.evidence import cache_get
from tddgit.git import Repo
from tddgit.lineage import State, state_at
from tddgit.notes import evidence_for_commit
from tddgit.paths import Classifier, Kind
from tddgit.staged import StagedChange, staged_change, tree_of

if TYPE_CHECKING:
    from tddgit.projects import Project, Scope


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Show the last phase, open red targets, the staged change and what comes next.

    \b
    Examples:
      tddgit status
      tddgit status --json | jq .next
    """
    from tddgit.project import repo_projects

    a = app(ctx)
    repo, config = a.repo, a.config
    projects = repo_projects(repo)
    change = staged_change(repo, Classifier.from_config(config))
    state = state_at(repo, change.head, config.scope)
    open_targets = _open_targets(repo, state, config.scope)
    fresh = cache_get(repo, change.tree) if change.files else None
    branch = repo.run("symbolic-ref", "-q", "--short", "HEAD", check=False)
    where = branch.stdout.decode().strip() if branch.returncode == 0 else "(detached HEAD)"
    data: dict[str, Any] = {
        "branch": where,
        "head": change.head,
        "phase": state.phase,
        "phase_commit": state.phase_commit,
        "open_reds": list(state.open_reds),
        "open_targets": open_targets,
        "staged": change.summary(),
        "tree": change.tree,
        "fresh_evidence": fresh.phase if fresh else None,
        "next": _next(
            state.phase,
            bool(state.open_reds),
            change.touches_tests,
            change.touches_production,
            bool(change.files),
        ),
    }
    per = [_project(repo, p, change) for p in projects.all] if projects.multi else []
    if per:
        data["projects"] = per
    if as_json:
        console.out(json.dumps(data, indent=2))
        return
    if per:
        _print_projects(where, change, per, fresh.phase if fresh else None)
        return
    head = change.head[:10] if change.head else "no commits yet"
    console.out(f"on {where} at {head}")
    last = f"{state.phase} ({state.phase_commit[:10]})" if state.phase_commit else "none yet"
    console.out(f"last phase:     {last}")
    if open_targets:
        console.out(
            "open red:       " + console.paint(console.plural(len(open_targets), "target"), "red")
        )
        for t in open_targets:
            console.out(f"  {t}")
    staged = change.summary()
    counts = ", ".join(f"{len(staged[k.value])} {k.value}" for k in Kind)
    console.out(f"staged:         {counts}" if change.files else "staged:         nothing")
    for k in Kind:
        for p in staged[k.value]:
            console.out(f"  {k.value:<10} {p}")
    if fresh:
        age = int(time.time() - fresh.started)
        console.out(f"evidence:       fresh {fresh.phase} evidence for the index ({age} s old)")
    else:
        console.out("evidence:       none for the index tree")
    console.out(f"next:           {data['next']}")


def _open_targets(repo: Repo, state: State, scope: Scope | None) -> list[str]:
    found: list[str] = []
    for red in state.open_reds:
        ev = evidence_for_commit(repo, red, tree_of(repo, red), "red", scope)
        found += [t.id for t in ev.targets] if ev else [f"(red {red[:10]}: no evidence)"]
    return found


def _project(repo: Repo, project: Project, change: StagedChange) -> dict[str, Any]:
    """One project's state: its own lineage, open targets and part of the staged change."""
    state = state_at(repo, change.head, project.config.scope)
    classifier = Classifier.from_config(project.config)
    mine = change.within(project.scope.owns)
    kinds = {f.path: classifier.kind(f.path) for f in mine.files}
    mine = replace(mine, kinds=kinds)
    return {
        "dir": project.dir,
        "runner": project.runner,
        "phase": state.phase,
        "phase_commit": state.phase_commit,
        "open_reds": list(state.open_reds),
        "open_targets": _open_targets(repo, state, project.config.scope),
        "staged": mine.summary(),
        "next": _next(
            state.phase,
            bool(state.open_reds),
            mine.touches_tests,
            mine.touches_production,
            bool(mine.files),
        ),
    }


def _print_projects(
    where: str, change: StagedChange, per: list[dict[str, Any]], fresh: str | None
) -> None:
    head = change.head[:10] if change.head else "no commits yet"
    console.out(f"on {where} at {head}, {len(per)} projects (each with its own cycle)")
    for p in per:
        label = p["dir"] or "."
        last = f"{p['phase']} ({p['phase_commit'][:10]})" if p["phase_commit"] else "none yet"
        console.out(f"{label} ({p['runner']}): last phase {last}")
        if p["open_targets"]:
            console.out("  open red:   " + ", ".join(p["open_targets"]))
        staged = [f for kind in Kind for f in p["staged"][kind.value]]
        if staged:
            console.out("  staged:     " + ", ".join(staged))
        console.out(f"  next:       {p['next']}")
    evidence = f"fresh {fresh} evidence" if fresh else "none"
    console.out(f"evidence for the index: {evidence}")


def _next(phase: str | None, red_open: bool, tests: bool, production: bool, staged: bool) -> str:
    if red_open:
        if staged and production and not tests:
            return "this looks like the green: `tddgit green`"
        return "make the red tests pass, stage the code, then `tddgit green`"
    if phase in ("green", "refactor"):
        if staged and tests and not production:
            return "a new test: `tddgit red`; or a test-side refactor: `tddgit refactor`"
        if staged and production and not tests:
            return "a clean-up: `tddgit refactor`"
        return "`tddgit refactor`, or start the next cycle with a failing test and `tddgit red`"
    if staged and tests and not production:
        return "a test is staged: `tddgit red` checks that it fails for the right reason"
    return "write a failing test, stage it, then `tddgit red`"
