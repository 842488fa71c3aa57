"""`tddgit generate red SPEC`: a model writes the failing tests; the red gate decides.

The command is thin: ``tddgit.agent.run.run_phase`` does the run (and restores the tree on
any unsuccessful end); here the result is shown, the evidence stored with its ``agent``
block, and with ``--commit`` the step committed with `GSD-Phase` and `GSD-Agent`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tddgit import console
from tddgit.cli import app
from tddgit.errors import Refused, UsageError

if TYPE_CHECKING:
    from tddgit.agent.phases import Phase
    from tddgit.agent.run import RunReport
    from tddgit.config import Config
    from tddgit.git import Repo
    from tddgit.spec import Spec

_FIXES = {
    "stuck": "read the transcript, then refine the spec or pass --context with what the "
    "model is missing",
    "cost-budget": "raise --max-cost (llm.max_cost), or narrow the step",
    "max-turns": "raise --max-turns (llm.max_turns), or narrow the spec",
    "token-budget": "raise llm.token_budget, or narrow the spec and --context",
    "model-refused": "read the transcript; rephrase the spec",
    "no-tool": "read the transcript: answer what the model asked in the spec or --context",
    "gate-fatal": "fix the test suite (it hangs or crashes) and run again",
}


@click.group("generate")
def generate() -> None:
    """Let a model make a TDD step; tddgit's gates decide when it is done (docs/llm.md).

    \b
    Examples:
      tddgit generate red specs/cart.yaml
      tddgit generate red specs/cart.yaml --commit -m "cart totals: tests"
      tddgit generate green --commit
      tddgit generate green --commit --task IMPL-2
      tddgit generate refactor --side production
    """


def _common(f: Callable[..., int]) -> Callable[..., int]:
    """The options every ``generate`` command takes."""
    options = [
        click.option(
            "--commit", "do_commit", is_flag=True, help="Commit the step as the gate command does."
        ),
        click.option(
            "-m",
            "--message",
            "messages",
            multiple=True,
            help="Commit message with --commit (default: from the spec or the step).",
        ),
        click.option("--model", help="The model id (default: llm.model)."),
        click.option(
            "--max-turns", type=click.IntRange(min=1), help="Requests at most (llm.max_turns)."
        ),
        click.option(
            "--max-cost",
            type=click.FloatRange(min=0),
            metavar="USD",
            help="Stop when the estimated cost reaches this many dollars (llm.max_cost).",
        ),
        click.option(
            "--keep-best",
            is_flag=True,
            help="On a run that does not hold, keep the best state seen (unstaged) instead "
            "of restoring the tree.",
        ),
        click.option(
            "--context",
            "context",
            multiple=True,
            type=click.Path(dir_okay=False, path_type=Path),
            help="A file to send with the request (repeatable; may be git-ignored, never a secret).",
        ),
        click.option(
            "--task",
            metavar="ID",
            help="With --commit: the plan task this step belongs to; adds a `GSD-Task: ID` "
            "trailer (plan status).",
        ),
        click.option("--json", "as_json", is_flag=True, help="Print the result as JSON."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


@generate.command("red")
@click.argument("spec_path", metavar="SPEC", type=click.Path(dir_okay=False, path_type=Path))
@_common
@click.pass_context
def red(ctx: click.Context, spec_path: Path, **kw: Any) -> int:
    """Write the failing tests for SPEC until the red gate holds.

    SPEC is a YAML spec (spec_id, title, components, test_cases...) or any text file. The
    model works through seven tools inside a sandbox (test files only, nothing ignored or
    secret); `finish` runs the red gate. Without --commit the tests are written and staged
    and the evidence stored, so a plain `git commit` gets the trailers from the hooks.
    Any other end restores the tree exactly and exits 1.

    \b
    Examples:
      tddgit generate red specs/cart.yaml
      tddgit generate red notes/cart.md --context src/shop/cart.py --commit
    """
    from tddgit.agent.phases import RED

    return _generate(ctx, RED, spec_path, **kw)


@generate.command("green")
@click.argument(
    "spec_path", metavar="[SPEC]", required=False, type=click.Path(dir_okay=False, path_type=Path)
)
@_common
@click.pass_context
def green(ctx: click.Context, spec_path: Path | None, **kw: Any) -> int:
    """Implement until the open red's tests pass and the green gate holds.

    The targets are the open red's tests, found along the lineage as `tddgit green` finds
    them (none: green-without-red, exit 1, before any request). The model may change
    production and other files, never a test ("tests are the specification in a green
    step"). SPEC (default: the one the red was generated from, as in a cycle) and --context
    are optional extra context. Stuck once on the same failure:
    back to the best state seen, and the model is told to change its approach; stuck
    again, or a budget reached: the tree is restored (or the best state kept with
    --keep-best) and the exit code is 1.

    \b
    Examples:
      tddgit generate green
      tddgit generate green specs/cart.yaml --commit --max-cost 0.50
    """
    from tddgit.agent.phases import GREEN

    return _generate(ctx, GREEN, spec_path, **kw)


@generate.command("refactor")
@click.argument(
    "spec_path", metavar="[SPEC]", required=False, type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--side",
    type=click.Choice(["production", "tests"]),
    default="production",
    show_default=True,
    help="The one side the model may change; writes to the other are refused.",
)
@_common
@click.pass_context
def refactor(ctx: click.Context, spec_path: Path | None, side: str, **kw: Any) -> int:
    """Improve one side of the code after a green; the refactor gate decides.

    Same test ids, all passing, no untested added production code, one side only. A run
    the model ends without a change ends cleanly: "nothing to refactor", exit 0. SPEC
    defaults to the one the cycle's red was generated from.

    \b
    Examples:
      tddgit generate refactor
      tddgit generate refactor --side tests --commit
    """
    from tddgit.agent.phases import SIDES

    return _generate(ctx, SIDES[side], spec_path, **kw)


def _generate(
    ctx: click.Context,
    phase: Phase,
    spec_path: Path | None,
    *,
    do_commit: bool,
    messages: tuple[str, ...],
    model: str | None,
    max_turns: int | None,
    max_cost: float | None,
    keep_best: bool,
    context: tuple[Path, ...],
    task: str | None,
    as_json: bool,
) -> int:
    from tddgit.agent.loop import NOTHING
    from tddgit.agent.run import RunOptions, run_phase
    from tddgit.commands.phase import task_trailer
    from tddgit.spec import load_spec

    task_trailers = task_trailer(task)
    if task_trailers and not do_commit:  # before any request: the trailer needs the commit
        raise UsageError(
            "--task needs --commit: without it tddgit generate makes no commit",
            f"add --commit, or add `--trailer 'GSD-Task: {task}'` to your `git commit`",
        )
    a = app(ctx)
    repo, config = a.repo, a.config
    spec = None
    if spec_path is not None:
        spec = load_spec(spec_path if spec_path.is_absolute() else a.cwd / spec_path)
    config = step_config(repo, config, phase.name, a.cwd, spec)
    options = RunOptions(spec, context, model, max_turns, a.cwd, max_cost, keep_best)
    console.err(f"generate {phase.name}" + (f": {spec.spec_id} ({spec.title})" if spec else ""))
    report = run_phase(repo, config, phase, options, console.err)
    if report.end.status == NOTHING:
        _emit_end(report, as_json, a.cwd)
        if not as_json:
            console.out(f"nothing to {phase.name}: the model ended without a change")
        return 0
    if not report.holds:
        _emit_end(report, as_json, a.cwd)
        kept = keep_best and report.end.best is not None
        where = "the best state seen is kept, unstaged" if kept else "the tree is as it was"
        raise Refused(f"{report.end.message} ({where})", _FIXES.get(report.end.status))
    evidence = report.evidence()
    assert evidence is not None and report.end.verdict is not None
    from tddgit.commands.phase import STEP_NOUN, commit_model_step, render_verdict
    from tddgit.evidence import cache_put

    cache_put(repo, evidence)
    commit = None
    if do_commit:
        default = f"{spec.spec_id}: {spec.title}" if spec else phase.name
        suffix = STEP_NOUN[phase.name]
        message = messages or (f"{default} ({suffix})" if spec else f"{suffix} (tddgit generate)",)
        commit = commit_model_step(
            repo, phase.name, report.model, evidence, message, task_trailers, as_json
        )
    if as_json:
        payload = report.to_json()
        payload["commit"] = commit
        payload["verdict"] = {**report.end.verdict.to_json(), "evidence": evidence.to_json()}
        console.out(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    render_verdict(report.end.verdict, console.out)
    _summary(report, console.out, a.cwd)
    if commit:
        added = "".join(f", {t}" for t in task_trailers)
        console.out(
            f"  committed {commit[:10]} with GSD-Phase: {phase.name}, "
            f"GSD-Agent: {report.model}{added}"
        )
    else:
        console.out(
            f"  staged: {', '.join(report.files)}; evidence stored for tree {evidence.tree[:10]}"
            " — commit with plain `git commit` (the hooks add the trailers)"
        )
    return 0


def step_config(repo: Repo, config: Config, phase: str, cwd: Path, spec: Spec | None) -> Config:
    """In a repository of several projects, the configuration of the project the step is
    for (``tddgit.projects.pick``): its runner, directory, lineage and settings."""
    from tddgit.project import repo_projects

    projects = repo_projects(repo)
    if not projects.multi:
        return config
    from tddgit.projects.names import repo_test_id
    from tddgit.projects.pick import pick_project

    files = [c.file_path for c in spec.components if c.file_path] if spec else []
    paths = [repo_test_id(f, repo.root, cwd, config.project) for f in files]
    project = pick_project(repo, projects, phase, cwd, paths)
    console.err(f"generate {phase}: in project {project.label} (runner: {project.runner})")
    return project.config


def _emit_end(report: RunReport, as_json: bool, cwd: Path) -> None:
    if as_json:
        console.out(json.dumps({**report.to_json(), "commit": None}, indent=2, ensure_ascii=False))
    else:
        _summary(report, console.err, cwd)


def _summary(report: RunReport, write: Callable[[str], None], cwd: Path) -> None:
    """Spec coverage, then the session: id, turns, tokens, estimated cost, transcript."""
    if report.coverage is not None:
        cov = report.coverage
        total = len(cov.covered) + len(cov.missing)
        line = f"  spec coverage: {len(cov.covered)}/{total} test cases named in a test"
        write(line + (f" (missing: {', '.join(cov.missing)})" if cov.missing else ""))
    from tddgit.agent.transcript import session_summary

    summary = session_summary(
        report.session_id,
        report.end.turns,
        report.provider,
        report.model,
        report.end.usage,
        report.transcript,
        cwd,
    )
    for line in summary:
        write(line)
