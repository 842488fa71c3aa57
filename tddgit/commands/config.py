"""`tddgit config`: the effective configuration and where each value came from."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from tddgit.cli import app
from tddgit.config import KEYS

if TYPE_CHECKING:
    from tddgit.projects import Project
    from tddgit.runners.explain import GatePlan


def _project(project: Project, plan: GatePlan) -> dict[str, Any]:
    """One project as `tddgit config` shows it: where it is, what its gate runs, and the
    keys set for it (not defaults) with where each came from."""
    sources = {k: v for k, v in project.sources.items() if v != "default"}
    return {"dir": project.dir, "origin": project.origin, **plan.to_json(), "sources": sources}


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
    from tddgit.project import repo_projects
    from tddgit.runners.explain import gate_plan

    a = app(ctx)
    cfg = a.config
    root = a.repo.root
    plan = gate_plan(cfg, root / cfg.project)
    projects = [_project(p, gate_plan(p.config, p.path)) for p in repo_projects(a.repo).all]
    if as_json:
        data = {**cfg.to_json(), "project": cfg.project, "gate": plan.to_json()}
        click.echo(json.dumps({**data, "projects": projects}, indent=2))
        return
    click.echo(f"# projects ({len(projects)}; docs/monorepo.md)")
    for p in projects:
        own = ", ".join(f"{k} ({v})" for k, v in p["sources"].items()) or "none"
        click.echo(f"{p['dir'] or '.'}  [{p['origin']}]")
        click.echo(f"  runner   {p['runner']}  ({p['runner_source']})")
        click.echo(f"  command  {p['command'] or '–'}  ({p['command_source']})")
        click.echo(f"  keys set {own}")
    here = f"project {cfg.project or '.'}" if cfg.project or len(projects) == 1 else "the top"
    click.echo(f"# keys here ({here})")
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
