"""`tddgit ci`: the audit of a pull request, in one command, in GitHub Actions or GitLab CI."""

from __future__ import annotations

import os
from pathlib import Path

import click

from tddgit.ci.reports import Outputs
from tddgit.cli import app
from tddgit.commands.audit import threshold_options
from tddgit.commands.audit_run import Thresholds, gate, rule_list


@click.command("ci")
@threshold_options
@click.option(
    "--remote",
    default="origin",
    show_default=True,
    help="The remote to deepen the clone and fetch the notes from.",
)
@click.option(
    "--sarif",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="SARIF 2.1.0 report for code scanning. Default on GitHub: tddgit.sarif.",
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="HTML report, to keep as an artifact. Default: tddgit-audit.html.",
)
@click.option(
    "--codequality",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="GitLab code-quality report. Default on GitLab: gl-code-quality-report.json.",
)
@click.option(
    "--no-fetch",
    is_flag=True,
    help="Fetch nothing: audit what the clone holds, without the remote's notes.",
)
@click.pass_context
def ci(
    ctx: click.Context,
    fail_under: float | None,
    fail_on: str | None,
    require_evidence: bool,
    min_evidence: float | None,
    remote: str,
    sarif: Path | None,
    html: Path | None,
    codequality: Path | None,
    no_fetch: bool,
) -> None:
    """Audit the pull request (or pushed commits) of this CI job and report it there.

    Finds the provider (GITHUB_ACTIONS, GITLAB_CI) and the range (the event payload or
    GITHUB_BASE_REF; CI_MERGE_REQUEST_DIFF_BASE_SHA), deepens a shallow clone as far as
    the range needs, fetches the evidence notes (read only: nothing is pushed, so a fork's
    pull request gets its report too), writes the reports where the provider shows them
    and exits 1 when a threshold is crossed. See docs/ci.md.

    \b
    Examples:
      tddgit ci
      tddgit ci --fail-under 80 --require-evidence
      tddgit ci --fail-on green-without-red,refactor-while-red --no-fetch
    """
    from tddgit import console
    from tddgit.audit import AuditOptions, run_audit
    from tddgit.audit.required import evidence_required
    from tddgit.ci.providers import detect
    from tddgit.ci.reports import write_all
    from tddgit.ci.shallow import fetch_notes, prepare

    thresholds = Thresholds(fail_under, rule_list(fail_on), require_evidence, min_evidence)
    run = detect(os.environ)
    a = app(ctx)
    repo = a.repo

    def say(text: str) -> None:
        console.err(f"tddgit ci: {text}")

    if no_fetch:
        rng = run.range
    else:
        from tddgit.ci.notes_sync import check_remote

        check_remote(repo, remote)
        rng = prepare(repo, run, remote, say)
        fetch_notes(repo, remote, say)
    with evidence_required(require_evidence):
        report = run_audit(repo, a.config, AuditOptions(revs=(rng,)))
    outputs = Outputs(
        sarif=sarif or (Path("tddgit.sarif") if run.provider == "github" else None),
        html=html or Path("tddgit-audit.html"),
        codequality=codequality
        or (Path("gl-code-quality-report.json") if run.provider == "gitlab" else None),
    )
    written = write_all(report, run, _under(outputs, a.cwd))
    m = report.metrics
    console.out(
        f"tddgit ci ({run.provider}): {rng}: {m.get('commits')} commits, conformance "
        f"{m.get('conformance')}, evidence coverage {m.get('evidence_coverage')}, "
        f"{len(report.findings)} findings"
    )
    for line in written:
        console.out(f"  {line}")
    gate(m, [f.rule for f in report.findings], thresholds)


def _under(out: Outputs, cwd: Path) -> Outputs:
    """Relative report paths are the working directory's (the job's workspace)."""

    def at(p: Path | None) -> Path | None:
        return cwd / p if p is not None and not p.is_absolute() else p

    return Outputs(sarif=at(out.sarif), html=at(out.html), codequality=at(out.codequality))
