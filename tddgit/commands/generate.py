"""`tddgit generate red SPEC`: a model writes the failing tests; the red gate decides.

The command is thin: ``tddgit.agent.run.run_phase`` does the run (and restores the tree on
any unsuccessful end); here the result is shown, the evidence stored with its ``agent``
block, and with ``--commit`` the step committed with `GSD-Phase` and `GSD-Agent`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tddgit import console
from tddgit.cli import app
from tddgit.errors import Refused

if TYPE_CHECKING:
    from tddgit.agent.run import RunReport

_FIXES = {
    "stuck": "read the transcript, then refine the spec or pass --context with what the "
    "model is missing",
    "max-turns": "raise --max-turns (llm.max_turns), or narrow the spec",
    "token-budget": "raise llm.token_budget, or narrow the spec and --context",
    "model-refused": "read the transcript; rephrase the spec",
    "gate-fatal": "fix the test suite (it hangs or crashes) and run again",
}


@click.group("generate")
def generate() -> None:
    """Let a model make a TDD step; tddgit's gates decide when it is done (docs/llm.md).

    \b
    Examples:
      tddgit generate red specs/cart.yaml
      tddgit generate red specs/cart.yaml --commit -m "cart totals: tests"
    """


@generate.command("red")
@click.argument("spec_path", metavar="SPEC", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--commit", "do_commit", is_flag=True, help="Commit the step as `tddgit red` does.")
@click.option(
    "-m",
    "--message",
    "messages",
    multiple=True,
    help="Commit message with --commit (default: the spec's id and title).",
)
@click.option("--model", help="The model id (default: llm.model).")
@click.option("--max-turns", type=click.IntRange(min=1), help="Requests at most (llm.max_turns).")
@click.option(
    "--context",
    "context",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A file to send with the spec (repeatable; may be git-ignored, never a secret).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def red(
    ctx: click.Context,
    spec_path: Path,
    do_commit: bool,
    messages: tuple[str, ...],
    model: str | None,
    max_turns: int | None,
    context: tuple[Path, ...],
    as_json: bool,
) -> int:
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
    from tddgit.agent.run import RunOptions, run_phase
    from tddgit.spec import load_spec

    a = app(ctx)
    repo, config = a.repo, a.config
    spec = load_spec(spec_path if spec_path.is_absolute() else a.cwd / spec_path)
    options = RunOptions(spec, context, model, max_turns, cwd=a.cwd)
    console.err(f"generate red: {spec.spec_id} ({spec.title})")
    report = run_phase(repo, config, RED, options, console.err)
    if not report.holds:
        _emit_end(report, as_json, a.cwd)
        raise Refused(
            f"{report.end.message} (the tree is as it was)", _FIXES.get(report.end.status)
        )
    evidence = report.evidence()
    assert evidence is not None and report.end.verdict is not None
    from tddgit.commands.phase import CommitFailed, attach_evidence, commit_step, render_verdict
    from tddgit.evidence import cache_put

    cache_put(repo, evidence)
    commit = None
    if do_commit:
        message = messages or (f"{spec.spec_id}: {spec.title} (tests)",)
        trailers = ["GSD-Phase: red", f"GSD-Agent: {report.model}"]
        commit = commit_step(
            repo, "red", trailers, message, None, None, False, True, False, as_json
        )
        if commit is None:
            raise CommitFailed(evidence.tree)
        attach_evidence(repo, commit, evidence)
    if as_json:
        payload = report.to_json()
        payload["commit"] = commit
        payload["verdict"] = {**report.end.verdict.to_json(), "evidence": evidence.to_json()}
        console.out(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    render_verdict(report.end.verdict, console.out)
    _summary(report, console.out, a.cwd)
    if commit:
        console.out(f"  committed {commit[:10]} with GSD-Phase: red, GSD-Agent: {report.model}")
    else:
        console.out(
            f"  staged: {', '.join(report.files)}; evidence stored for tree {evidence.tree[:10]}"
            " — commit with plain `git commit` (the hooks add the trailers)"
        )
    return 0


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
