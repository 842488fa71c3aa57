"""`tddgit status`: where the cycle stands and what is expected next."""

from __future__ import annotations

import json
import time

import click

from tddgit import console
from tddgit.cli import app
from tddgit.evidence import cache_get
from tddgit.lineage import state_at
from tddgit.notes import evidence_for_commit
from tddgit.paths import Classifier, Kind
from tddgit.staged import staged_change, tree_of


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
    a = app(ctx)
    repo, config = a.repo, a.config
    change = staged_change(repo, Classifier.from_config(config))
    state = state_at(repo, change.head)
    open_targets: list[str] = []
    for red in state.open_reds:
        ev = evidence_for_commit(repo, red, tree_of(repo, red), "red")
        open_targets += [t.id for t in ev.targets] if ev else [f"(red {red[:10]}: no evidence)"]
    fresh = cache_get(repo, change.tree) if change.files else None
    branch = repo.run("symbolic-ref", "-q", "--short", "HEAD", check=False)
    where = branch.stdout.decode().strip() if branch.returncode == 0 else "(detached HEAD)"
    data = {
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
    if as_json:
        console.out(json.dumps(data, indent=2))
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
