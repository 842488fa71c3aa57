"""Write docs/cli.md from the Click commands themselves, so the reference cannot drift.

python scripts/gen_cli_docs.py          # rewrite docs/cli.md (or: make docs)
python scripts/gen_cli_docs.py --check  # exit 1 when docs/cli.md is stale

Each command's help is made in a context built as Click builds it for a real call (the
command's ``context_settings``: ``-h`` next to ``--help``, the width), so the page shows
what ``tddgit CMD --help`` prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tddgit.cli import COMMANDS, cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"

INTRO = """\
# CLI reference

Generated from the commands' own help by `scripts/gen_cli_docs.py` (`make docs`); every
command also answers `-h` / `--help`.

Global options (before the command): `-C PATH` runs as if started in PATH (like `git -C`);
`--debug` (or `TDDGIT_DEBUG=1`) shows tracebacks; `--version`. Colour only on a terminal
(`NO_COLOR` turns it off, `FORCE_COLOR` on); progress displays go to stderr, data to stdout.

Exit codes: 0 success; 1 a gate refused or findings crossed a threshold; 2 usage, config or
input error (one line naming the cause and the fix); 3 internal error; 130 interrupted.
"""


def _help(ctx: click.Context, cmd: click.Command) -> str:
    formatter = ctx.make_formatter()
    formatter.width = 100
    cmd.format_help(ctx, formatter)
    return formatter.getvalue().rstrip()


def _section(name: str, cmd: click.Command, parent: click.Context, level: int) -> list[str]:
    ctx = click.Context(cmd, info_name=name, parent=parent, **cmd.context_settings)
    out = [f"{'#' * level} `{ctx.command_path}`", "", "```text", _help(ctx, cmd), "```", ""]
    if isinstance(cmd, click.Group):
        for sub in cmd.list_commands(ctx):
            subcmd = cmd.get_command(ctx, sub)
            if subcmd is not None:
                out += _section(sub, subcmd, ctx, level + 1)
    return out


def render() -> str:
    root = click.Context(cli, info_name="tddgit", **cli.context_settings)
    lines = [INTRO, "## `tddgit`", "", "```text", _help(root, cli), "```", ""]
    for name in COMMANDS:
        cmd = cli.get_command(root, name)
        if cmd is not None:
            lines += _section(name, cmd, root, 2)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if not DOC.exists() or DOC.read_text() != text:
            print("docs/cli.md is stale: run `python scripts/gen_cli_docs.py`", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
