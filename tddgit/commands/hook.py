"""`tddgit hook NAME ARGS`: the entry points git (or the pre-commit framework) calls.

The usual call never gets here: ``tddgit.__main__`` sends it to ``tddgit.hooks.dispatch``
without loading click. This command serves ``--help``, ``-C``/``--debug`` and bad usage.
"""

from __future__ import annotations

import click

from tddgit.cli import app


@click.group("hook")
def hook() -> None:
    """Run one git hook (called by the installed hook scripts and by pre-commit).

    Exit 0 lets the commit go on, 1 refuses it with one paragraph saying why and what to
    do. See docs/hooks.md.

    \b
    Examples:
      tddgit hook commit-msg .git/COMMIT_EDITMSG
      tddgit hook prepare-commit-msg .git/COMMIT_EDITMSG message
      tddgit hook post-commit
      tddgit hook pre-commit
    """


def _run(ctx: click.Context, name: str, args: list[str]) -> int:
    from tddgit.hooks.dispatch import run_hook

    return run_hook(name, args, cwd=app(ctx).cwd)


@hook.command("commit-msg")
@click.argument("msgfile", type=click.Path(dir_okay=False))
@click.pass_context
def commit_msg(ctx: click.Context, msgfile: str) -> int:
    """Check a declared GSD-Phase: its value, the transition from the lineage state, and
    fresh evidence for the index tree (or run the gate when hooks.run_gate). In strict
    mode, refuse production changes without a phase.

    \b
    Examples:
      tddgit hook commit-msg .git/COMMIT_EDITMSG
    """
    return _run(ctx, "commit-msg", [msgfile])


@hook.command("prepare-commit-msg")
@click.argument("msgfile", type=click.Path(dir_okay=False))
@click.argument("source", required=False)
@click.argument("sha", required=False)
@click.pass_context
def prepare_commit_msg(
    ctx: click.Context, msgfile: str, source: str | None, sha: str | None
) -> int:
    """Add the GSD-Phase trailer that stored evidence proves for the index tree.

    \b
    Examples:
      tddgit hook prepare-commit-msg .git/COMMIT_EDITMSG message
    """
    return _run(ctx, "prepare-commit-msg", [a for a in (msgfile, source, sha) if a is not None])


@hook.command("post-commit")
@click.pass_context
def post_commit(ctx: click.Context) -> int:
    """Attach the stored evidence as a git note to the commit just made.

    \b
    Examples:
      tddgit hook post-commit
    """
    return _run(ctx, "post-commit", [])


@hook.command("pre-commit")
@click.argument("files", nargs=-1)
@click.pass_context
def pre_commit(ctx: click.Context, files: tuple[str, ...]) -> int:
    """Static checks of the staged test files (read from the index); runs no tests.
    FILES (passed by the pre-commit framework) are ignored: the index is the truth.

    \b
    Examples:
      tddgit hook pre-commit
    """
    return _run(ctx, "pre-commit", list(files))
