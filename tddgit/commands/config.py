"""`tddgit config`: the effective configuration and where each value came from."""

from __future__ import annotations

import json

import click

from tddgit.cli import app
from tddgit.config import KEYS


@click.command("config")
@click.option("--json", "as_json", is_flag=True, help="Print the configuration as JSON.")
@click.pass_context
def config(ctx: click.Context, as_json: bool) -> None:
    """Show the effective configuration and where each value came from.

    \b
    Examples:
      tddgit config
      tddgit config --json | jq '.keys.mode'
    """
    from tddgit.runners.explain import gate_plan

    a = app(ctx)
    cfg = a.config
    plan = gate_plan(cfg, a.repo.root)
    if as_json:
        click.echo(json.dumps({**cfg.to_json(), "gate": plan.to_json()}, indent=2))
        return
    click.echo(f"# configuration file: {cfg.file if cfg.file else '(none: defaults)'}")
    width = max(len(k.path) for k in KEYS)
    for spec in KEYS:
        value = cfg.values[spec.path]
        shown = ", ".join(value) if isinstance(value, tuple) else json.dumps(value)
        if isinstance(value, tuple) and len(shown) > 60:
            shown = f"[{len(value)} globs] " + shown[:50] + "…"
        click.echo(f"{spec.path:<{width}}  {shown}  ({cfg.sources[spec.path]})")
    click.echo("# what a gate runs")
    click.echo(f"runner (gate)  {plan.runner}  ({plan.runner_source})")
    click.echo(f"command (gate)  {plan.command or '–'}  ({plan.command_source})")
