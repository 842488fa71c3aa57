"""The post-commit hook: attach the stored evidence as the new commit's git note.

A commit made by plain ``git commit`` whose tree has fresh evidence for the phase its
message declares gets the note ``tddgit red|green|refactor`` would have attached. It also
records the new commit's lineage state, so the next hook starts from a cached state.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tddgit.config import Config
from tddgit.hooks.context import PHASE_ENV, PHASES, HookContext
from tddgit.hooks.report import note, warn

HOOK = "post-commit"


def run(ctx: HookContext, config: Config, args: Sequence[str]) -> int:
    if os.environ.get(PHASE_ENV) or ctx.head is None:
        return 0  # the phase command attaches its own note
    from tddgit.lineage import state_at

    fields = (
        ctx.repo.git(
            "show",
            "-s",
            "--format=%T%x00%P%x00%(trailers:key=GSD-Phase,valueonly,separator=%x01)",
            ctx.head,
        )
        .rstrip("\n")
        .split("\0")
    )
    tree, parents = fields[0], fields[1].split()
    values = [v.strip().lower() for v in fields[2].split("\x01") if v.strip()]
    state_at(ctx.repo, ctx.head)  # warm the lineage cache for the next commit's hooks
    if not values or len(parents) > 1 or values[-1] not in PHASES:
        return 0
    phase = values[-1]
    from tddgit.evidence import cache_get
    from tddgit.notes import read_note, write_note

    parent = parents[0] if parents else None
    evidence = cache_get(ctx.repo, tree, phase)
    if evidence is None or evidence.parent != parent:
        if _copy_picked_note(ctx, ctx.head, phase):
            return 0
        warn(
            HOOK,
            f"{ctx.head[:10]} declares `GSD-Phase: {phase}` but no {phase} evidence exists "
            "for its tree: no note attached (the audit will report missing-evidence)",
        )
        return 0
    try:
        existing = read_note(ctx.repo, ctx.head)
    except ValueError:
        existing = None
    if existing is None or existing.tree != tree:
        write_note(ctx.repo, ctx.head, evidence)
        note(HOOK, f"{phase} evidence attached to {ctx.head[:10]} (refs/notes/tddgit)")
    return 0


def _copy_picked_note(ctx: HookContext, commit: str, phase: str) -> bool:
    """A cherry-pick copies no notes (and runs no post-rewrite hook), but git runs
    post-commit with CHERRY_PICK_HEAD naming the picked commit: its evidence follows the
    copy, as ``notes.rewriteRef`` makes it follow a rebase. On another base the tree
    differs from the evidence's, which the audit reports."""
    from tddgit.evidence import EvidenceError
    from tddgit.notes import read_note, write_note

    picked = ctx.picked()
    if picked is None or picked == commit:
        return False
    try:
        evidence = read_note(ctx.repo, picked)
    except EvidenceError:
        return False
    if evidence is None or evidence.phase != phase:
        return False
    write_note(ctx.repo, commit, evidence)
    note(HOOK, f"{phase} evidence of {picked[:10]} copied to {commit[:10]} (cherry-pick)")
    return True
