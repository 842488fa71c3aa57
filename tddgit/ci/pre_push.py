"""The opt-in pre-push hook (`tddgit hooks install --share-notes`): share the evidence notes
with the remote being pushed to. A failed sync warns and lets the push go on: the code push
must not depend on the notes (the next push, or `tddgit notes sync`, tries again)."""

from __future__ import annotations

from collections.abc import Sequence

from tddgit.config import Config
from tddgit.errors import TddgitError
from tddgit.hooks.context import HookContext
from tddgit.hooks.report import warn

HOOK = "pre-push"


def run(ctx: HookContext, config: Config, args: Sequence[str]) -> int:
    from tddgit.ci.notes_sync import sync

    remote = args[0] if args else "origin"
    if ctx.repo.run("remote", "get-url", remote, check=False).returncode != 0:
        return 0  # a push to a bare address: no remote name to keep a side ref for
    try:
        sync(ctx.repo, remote)
    except TddgitError as exc:
        warn(HOOK, f"the evidence notes were not shared: {exc.one_line()}")
    return 0
