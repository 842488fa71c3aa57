"""The prepare-commit-msg hook: add the `GSD-Phase` trailer the stored evidence proves.

After ``tddgit red --no-commit``, a plain ``git commit`` gets ``GSD-Phase: red`` added to
its message the way ``git commit --trailer`` would add it (``git interpret-trailers``:
into the trailer block, before the comment section), so the user need not type it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tddgit.config import Config
from tddgit.hooks.context import (
    PHASE_ENV,
    HookContext,
    comment_char,
    first_parent,
    index_tree,
    is_amend,
    phase_trailers,
    read_message,
)
from tddgit.hooks.report import note

if TYPE_CHECKING:
    from tddgit.evidence import Evidence

HOOK = "prepare-commit-msg"
_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@-]{0,99}")


def run(ctx: HookContext, config: Config, args: Sequence[str]) -> int:
    if os.environ.get(PHASE_ENV):
        return 0  # the phase command adds its own trailer
    path = args[0]
    # The pre-commit framework passes only the file; it exports git's other arguments.
    source = args[1] if len(args) > 1 else os.environ.get("PRE_COMMIT_COMMIT_MSG_SOURCE", "")
    if source in ("merge", "squash") or ctx.merging:
        return 0
    text = read_message(path)
    if phase_trailers(text, comment_char(ctx, text)):
        return 0
    amend = is_amend(ctx)
    parent = first_parent(ctx, amend)
    evidence = _proven(ctx, parent)
    if evidence is None:
        return 0
    phase = evidence.phase
    if amend and _declared(ctx, "HEAD") not in (None, phase):
        return 0  # amending a commit of another phase: not ours to relabel
    trailers = [f"GSD-Phase: {phase}"]
    model = _agent_model(evidence.agent)
    if model:
        trailers.append(f"GSD-Agent: {model}")  # the step a model made (tddgit generate)
    flags = [a for t in trailers for a in ("--trailer", t)]
    ctx.repo.run("interpret-trailers", "--in-place", *flags, path)
    shown = " and ".join(f"`{t}`" for t in trailers)
    note(HOOK, f"added {shown} (stored evidence for the staged tree)")
    return 0


def _proven(ctx: HookContext, parent: str | None) -> Evidence | None:
    from tddgit.evidence import cache_get

    evidence = cache_get(ctx.repo, index_tree(ctx))
    if evidence is None or evidence.parent != parent:
        return None
    return evidence


def _agent_model(agent: Mapping[str, Any] | None) -> str | None:
    model = agent.get("model") if agent else None
    if not isinstance(model, str) or not _MODEL_ID.fullmatch(model):
        return None
    return model


def _declared(ctx: HookContext, rev: str) -> str | None:
    proc = ctx.repo.run(
        "log",
        "-1",
        "--format=%(trailers:key=GSD-Phase,valueonly,separator=%x00)",
        rev,
        check=False,
    )
    values = [v.strip().lower() for v in proc.stdout.decode("utf-8", "replace").split("\0")]
    values = [v for v in values if v]
    return values[-1] if values else None
