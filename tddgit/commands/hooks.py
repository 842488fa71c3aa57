"""`tddgit hooks install|uninstall`: standalone git hooks that call `tddgit hook NAME`."""

from __future__ import annotations

import json

import click

from tddgit import console
from tddgit.cli import app
from tddgit.hooks.install import (
    HOOK_TYPES,
    SHARE_HOOK,
    Action,
    follow_rewrites,
    install,
    unfollow_rewrites,
    uninstall,
)

_TYPE_OPTION = click.option(
    "-t",
    "--hook-type",
    "types",
    multiple=True,
    type=click.Choice(HOOK_TYPES),
    help="Hook to (un)install; repeatable. Default: all four.",
)
_JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")


@click.group("hooks")
def hooks() -> None:
    """Install or remove tddgit's git hooks in this repository.

    The hooks keep tddgit's rules for plain `git commit`: commit-msg checks a declared
    GSD-Phase (transition and evidence), prepare-commit-msg adds the trailer the stored
    evidence proves, post-commit attaches the evidence note, pre-commit runs the static
    test checks. Teams using the pre-commit framework use .pre-commit-hooks.yaml instead
    (docs/hooks.md).

    \b
    Examples:
      tddgit hooks install
      tddgit hooks install --hook-type commit-msg --hook-type prepare-commit-msg
      tddgit hooks uninstall --json
    """


@hooks.command("install")
@_TYPE_OPTION
@click.option(
    "--share-notes",
    is_flag=True,
    help="Also install a pre-push hook running `tddgit notes sync` (docs/hooks.md).",
)
@_JSON_OPTION
@click.pass_context
def install_cmd(
    ctx: click.Context, types: tuple[str, ...], share_notes: bool, as_json: bool
) -> None:
    """Install the hooks where git runs them (core.hooksPath and worktrees honoured).

    An existing hook is kept and chained: it runs first, and its failure still blocks the
    commit; `tddgit hooks uninstall` puts it back. Running install again is harmless.
    With post-commit, git is also set to copy the evidence notes when it rewrites commits
    (notes.rewriteRef, notes.rewriteMode; docs/hooks.md). With --share-notes, each `git
    push` first shares the evidence notes with that remote (`tddgit notes sync`).

    \b
    Examples:
      tddgit hooks install
      tddgit hooks install --share-notes
      tddgit hooks install -t commit-msg --json
    """
    repo = app(ctx).repo
    wanted = (types or HOOK_TYPES) + ((SHARE_HOOK,) if share_notes else ())
    directory, actions = install(repo, wanted)
    # the notes follow amend and rebase, and post-commit copies them on cherry-pick
    settings = follow_rewrites(repo) if "post-commit" in (types or HOOK_TYPES) else []
    _report(directory, actions, as_json, "installed in", settings)


@hooks.command("uninstall")
@_TYPE_OPTION
@_JSON_OPTION
@click.pass_context
def uninstall_cmd(ctx: click.Context, types: tuple[str, ...], as_json: bool) -> None:
    """Remove tddgit's hooks and restore the hooks they chained. Hooks that are not
    tddgit's are left alone.

    \b
    Examples:
      tddgit hooks uninstall
    """
    repo = app(ctx).repo
    directory, actions = uninstall(repo, types or HOOK_TYPES)
    if not types:  # the opt-in notes hook goes too, when it is there
        _, shared = uninstall(repo, (SHARE_HOOK,))
        actions += [a for a in shared if a.action != "absent"]
    if "post-commit" in (types or HOOK_TYPES):
        unfollow_rewrites(repo)
    _report(directory, actions, as_json, "removed from")


_SAY = {
    "installed": "installed",
    "updated": "updated (new tddgit location)",
    "unchanged": "already installed",
    "chained": "installed; the existing hook runs first (kept as {chained})",
    "removed": "removed",
    "restored": "removed; the earlier hook is back",
    "absent": "not installed",
    "foreign": "left alone (not tddgit's hook)",
}


def _report(
    directory: object,
    actions: list[Action],
    as_json: bool,
    verb: str,
    settings: list[str] | None = None,
) -> None:
    if as_json:
        payload: dict[str, object] = {
            "hooks_dir": str(directory),
            "hooks": [a.to_json() for a in actions],
        }
        if settings is not None:
            payload["config"] = settings
        console.out(json.dumps(payload, indent=2))
        return
    console.out(f"tddgit hooks {verb} {directory}:")
    for a in actions:
        console.out(f"  {a.hook:<19} {_SAY[a.action].format(chained=a.chained)}")
    for setting in settings or ():
        console.out(f"  git config {setting} (evidence notes follow amend and rebase)")
