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
      tddgit notes carry BEFORE..AFTER
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


@notes.command("carry")
@click.argument("range_", metavar="BASE..HEAD")
@click.option("--json", "as_json", is_flag=True, help="Print what was carried as JSON.")
@click.pass_context
def carry_cmd(ctx: click.Context, range_: str, as_json: bool) -> None:
    """Give the commits a rebase or squash merge made the evidence of the originals.

    A rebased commit gets the note of the original with the same change (git patch-id);
    a squash commit (its message lists the steps) gets the notes of the pull request's
    commits whose change together is its change. Run it after the merge, in a job that
    has the pull request's commits and their notes, then `tddgit notes sync` (docs/ci.md).

    \b
    Examples:
      tddgit notes carry "$BEFORE..$AFTER"
      tddgit notes carry origin/main@{1}..origin/main --json
    """
    from tddgit.ci.carry import carry

    done = carry(app(ctx).repo, range_)
    if as_json:
        console.out(json.dumps([c.to_json() for c in done], indent=2))
        return
    console.out(f"tddgit notes carry {range_}: {len(done)} commits got their evidence")
    for c in done:
        console.out(f"  {c.commit[:12]} ({c.how}) <- {', '.join(o[:12] for o in c.originals)}")
