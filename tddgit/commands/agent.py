"""`tddgit agent install|uninstall|check|hook`: hold coding agents to test-first (§13)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from tddgit.cli import app
from tddgit.guard.adapters import AGENTS

AGENT = click.Choice(list(AGENTS))
F = TypeVar("F", bound=Callable[..., Any])


@click.group("agent")
def agent() -> None:
    """Hooks that hold a coding agent to test-first, decided from test outcomes.

    Production writes need an open red (or are refactors that keep every test green and
    add nothing untested, else they are undone); stopping with broken tests is blocked;
    tddgit's own faults never block. See docs/agents/.

    \b
    Examples:
      tddgit agent install claude-code
      tddgit agent install codex --user
      tddgit agent uninstall gemini
      echo '{"hook_event_name": "PreToolUse", ...}' | tddgit agent check claude-code --json
    """


def _scope_option(fn: F) -> F:
    fn = click.option(
        "--user", "scope", flag_value="user", help="The agent's configuration in your home."
    )(fn)
    return click.option(
        "--project",
        "scope",
        flag_value="project",
        default=True,
        help="The project's configuration (default), paths relative to the project.",
    )(fn)


def _record(ctx: click.Context, name: str, scope: str) -> tuple[Path, Path]:
    from tddgit.guard.adapters import adapter

    mod = adapter(name)
    if scope == "user":
        root = Path.home()
        record = Path.home() / ".config" / "tddgit" / f"agent-installed-{name}.json"
    else:
        repo = app(ctx).repo
        root = repo.root
        record = repo.tddgit_dir / "guard" / f"installed-{name}.json"
    return mod.config_path(scope, root), record


@agent.command("install")
@click.argument("name", metavar="AGENT", type=AGENT)
@_scope_option
@click.pass_context
def install(ctx: click.Context, name: str, scope: str) -> int:
    """Merge the guard's hooks into AGENT's configuration (your own hooks stay).

    \b
    Examples:
      tddgit agent install claude-code       # .claude/settings.json
      tddgit agent install cursor --user     # ~/.cursor/hooks.json
    """
    from tddgit.guard import install as inst
    from tddgit.guard.adapters import adapter
    from tddgit.guard.trust import trust_problems

    path, record = _record(ctx, name, scope)
    done = inst.install(adapter(name), path, record)
    click.echo(f"tddgit: the {name} guard is installed in {path} ({', '.join(done)})")
    root = path.parent.parent
    for problem in trust_problems(name, scope, root):
        click.echo(f"tddgit: to do: {problem}")
    click.echo(f"        see docs/agents/{name}.md; confirm with `tddgit agent doctor {name}`")
    return 0


@agent.command("doctor")
@click.argument("name", metavar="AGENT", type=AGENT)
@_scope_option
@click.pass_context
def doctor(ctx: click.Context, name: str, scope: str) -> int:
    """Verify that AGENT really loads the guard's hooks, and say how to fix what does not.

    Checks the installed configuration (every event, its matcher), that `tddgit` is on
    PATH, and the agent's trust rules (Gemini CLI folder trust, Codex project and hook
    trust, Claude Code's trust dialog), read from the agent's own files; and, where the
    agent's CLI is on PATH and has a command for it, asks the agent itself (`claude
    doctor`: settings entries it ignores; `codex features list`: the hooks feature).
    Exit 1 when something needs doing.

    \b
    Examples:
      tddgit agent doctor claude-code
      tddgit agent doctor codex --user
    """
    from tddgit.guard.adapters import adapter
    from tddgit.guard.trust import doctor as run_doctor

    path, _record_path = _record(ctx, name, scope)
    good, bad = run_doctor(adapter(name), scope, path.parent.parent, path)
    for line in good:
        click.echo(f"ok: {line}")
    for line in bad:
        click.echo(f"to do: {line}")
    click.echo(f"tddgit: the {name} guard " + ("needs the above" if bad else "is active"))
    return 1 if bad else 0


@agent.command("uninstall")
@click.argument("name", metavar="AGENT", type=AGENT)
@_scope_option
@click.pass_context
def uninstall(ctx: click.Context, name: str, scope: str) -> int:
    """Take the guard's hooks out of AGENT's configuration; nothing else changes.

    \b
    Examples:
      tddgit agent uninstall claude-code
    """
    from tddgit.guard import install as inst
    from tddgit.guard.adapters import adapter

    path, record = _record(ctx, name, scope)
    done = inst.uninstall(adapter(name), path, record)
    if done:
        click.echo(f"tddgit: the {name} guard is removed from {path}")
    else:
        click.echo(f"tddgit: no {name} guard was installed in {path}")
    return 0


@agent.command("check")
@click.argument("name", metavar="AGENT", type=AGENT)
@click.option("--json", "as_json", is_flag=True, help="Print the decision as JSON.")
@click.pass_context
def check(ctx: click.Context, name: str, as_json: bool) -> int:
    """Read one AGENT hook event on stdin and print the guard's decision.

    A dry run: it judges the event as the installed hook would (running the tests for a
    post-write or stop event) but takes no snapshot and puts no file back.

    \b
    Examples:
      tddgit agent check claude-code --json < event.json
    """
    from tddgit.guard.dispatch import handle, render

    raw = sys.stdin.buffer.read()
    event, decision = handle(name, raw, dry_run=True)
    reply = render(name, event, decision)
    if as_json:
        out = {
            "agent": name,
            "event": event.native if event else None,
            "kind": event.kind if event else None,
            "paths": [w.path for w in event.writes] if event else [],
            **decision.to_json(),
            "hook_stdout": reply.stdout,
            "hook_exit_code": reply.exit_code,
        }
        click.echo(json.dumps(out, indent=2))
    else:
        click.echo(
            f"{decision.verdict} [{decision.rule}]"
            + (f": {decision.reason}" if decision.reason else "")
        )
        if decision.warning:
            click.echo(f"warning: {decision.warning}", err=True)
    return 0


@agent.command("hook")
@click.argument("name", metavar="AGENT", type=AGENT)
def hook(name: str) -> int:
    """The command the installed hooks run: one AGENT event on stdin, its answer on stdout.

    \b
    Examples:
      tddgit agent hook claude-code < event.json
    """
    from tddgit.guard.dispatch import main

    return main(name)
