"""The Click command line: global options, lazy subcommands, and the one error handler.

Subcommands live in ``tddgit.commands.<module>`` and are imported only when invoked, so
``tddgit hook ...`` never pays for the audit or the report renderers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tddgit import __version__
from tddgit.appcontext import AppContext
from tddgit.errors import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
)

# name -> (module, attribute). Order here is the order of `tddgit --help`.
COMMANDS: dict[str, tuple[str, str]] = {
    "red": ("tddgit.commands.phase", "red"),
    "green": ("tddgit.commands.phase", "green"),
    "refactor": ("tddgit.commands.phase", "refactor"),
    "generate": ("tddgit.commands.generate", "generate"),
    "cycle": ("tddgit.commands.cycle", "cycle"),
    "status": ("tddgit.commands.status", "status"),
    "run": ("tddgit.commands.run", "run"),
    "audit": ("tddgit.commands.audit", "audit"),
    "detect": ("tddgit.commands.detect", "detect"),
    "plan": ("tddgit.commands.plan", "plan"),
    "hooks": ("tddgit.commands.hooks", "hooks"),
    "hook": ("tddgit.commands.hook", "hook"),
    "config": ("tddgit.commands.config", "config"),
    "demo": ("tddgit.commands.demo", "demo"),
    "agent": ("tddgit.commands.agent", "agent"),
    "notes": ("tddgit.commands.notes", "notes"),
    "ci": ("tddgit.commands.ci", "ci"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        import importlib

        try:
            module = importlib.import_module(target[0])
        except ModuleNotFoundError as exc:
            if exc.name == target[0]:
                return None  # not built yet
            raise
        cmd = getattr(module, target[1])
        assert isinstance(cmd, click.Command)
        return cmd


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx, value),
    help="Show the version and exit.",
)
@click.option(
    "-C",
    "cwd",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run as if tddgit was started in PATH (like git -C).",
    metavar="PATH",
)
@click.option("--debug", is_flag=True, help="Show tracebacks for errors (or TDDGIT_DEBUG=1).")
@click.pass_context
def cli(ctx: click.Context, cwd: Path | None, debug: bool) -> None:
    """Make test-driven development checkable in git.

    \b
    Examples:
      tddgit run                      # every test's traffic light
      tddgit red -m "parse empty input"
      tddgit green -m "handle empty input"
      tddgit audit --format markdown
    """
    ctx.obj = AppContext(cwd=cwd or Path.cwd(), debug=debug or _debug_env())


def _print_version(ctx: click.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"tddgit {__version__} (audit: {audit_build()})")
        ctx.exit()


def audit_build() -> str:
    """``compiled`` or ``pure Python``: how the audit's hot modules run (``--version``)."""
    from tddgit import audit_is_compiled

    return "compiled" if audit_is_compiled() else "pure Python"


def _debug_env() -> bool:
    from tddgit.entry import debug_env

    return debug_env()


def app(ctx: click.Context) -> AppContext:
    """The AppContext of the running command."""
    obj = ctx.find_root().obj
    assert isinstance(obj, AppContext)
    return obj


def run(argv: list[str]) -> int:
    """Run the CLI and map every error to its exit code and one line (PRODUCT.md §2)."""
    from tddgit import console
    from tddgit.entry import guarded

    def call() -> object:
        try:
            rv: Any = cli.main(args=argv, prog_name="tddgit", standalone_mode=False)
        except click.exceptions.Exit as exc:
            return int(exc.exit_code)
        except click.exceptions.Abort:
            console.err("tddgit: interrupted")
            return EXIT_INTERRUPTED
        except click.ClickException as exc:
            exc.show()
            return EXIT_USAGE
        return rv

    return guarded(call, "--debug" in argv or _debug_env())
