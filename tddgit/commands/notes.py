"""`tddgit notes sync|carry`: share the evidence notes with a team, and carry them to the
commits a rebase or squash merge made."""

from __future__ import annotations

import json

import click

from tddgit import console
from tddgit.cli import app


@click.group("notes")
def notes() -> None:
    """Share tddgit's evidence notes (refs/notes/tddgit) and keep them across merges.

    \b
    Examples:
      tddgit notes sync
      tddgit notes sync upstream --json
    """


@notes.command("sync")
@click.argument("remote", default="origin")
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
@click.pass_context
def sync_cmd(ctx: click.Context, remote: str, as_json: bool) -> None:
    """Fetch REMOTE's notes, merge them with yours (both kept), push the result.

    A commit two people attached evidence to keeps both records; the earliest is the one
    the gates and the audit read. A push refused because someone else synced meanwhile is
    retried after a new fetch and merge. Safe to run again and by several people at once;
    `tddgit hooks install --share-notes` runs it before each `git push` (docs/hooks.md).

    \b
    Examples:
      tddgit notes sync
      tddgit notes sync upstream
    """
    from tddgit.ci.notes_sync import sync

    result = sync(app(ctx).repo, remote)
    if as_json:
        console.out(json.dumps(result.to_json(), indent=2))
        return
    what = "pushed" if result.pushed else f"{remote} already had them"
    both = f", {result.combined} merged holding both sides' records" if result.combined else ""
    console.out(f"tddgit notes sync {remote}: {result.notes} notes, {what}{both}")
