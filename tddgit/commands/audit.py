"""`tddgit audit`: how test-first a history really was (PRODUCT.md §8)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import click

from tddgit.cli import app
from tddgit.errors import Refused, UsageError

# Formats whose renderer exists (tddgit.audit.report.FORMATS).
_FORMATS = ("text", "json", "markdown", "sarif", "html")
_PATHS_KEY = "tddgit.audit.paths"


class _AuditCommand(click.Command):
    """Splits ``-- PATHS`` off before Click sees it, as git does (RANGE... -- PATHS)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[_PATHS_KEY] = tuple(args[cut + 1 :])
            args = args[:cut]
        return super().parse_args(ctx, args)


def _rule_list(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    from tddgit.audit.ruleset import RULES

    names = tuple(n.strip() for n in value.split(",") if n.strip())
    unknown = [n for n in names if n not in RULES]
    if unknown:
        raise UsageError(
            f"unknown rule {', '.join(unknown)} in --fail-on",
            f"valid rules: {', '.join(RULES)}",
        )
    return names


def threshold_options(f: Any) -> Any:
    """The options that decide the exit code, shared by ``tddgit audit`` and ``tddgit ci``."""
    f = click.option(
        "--min-evidence",
        type=click.FloatRange(0, 100),
        metavar="PCT",
        help="Exit 1 when evidence coverage (declared steps with valid evidence) is below PCT.",
    )(f)
    f = click.option(
        "--require-evidence",
        is_flag=True,
        help="A declared phase without evidence counts against the result: missing-evidence "
        "lowers conformance and exits 1.",
    )(f)
    f = click.option(
        "--fail-on", metavar="RULE[,RULE]", help="Exit 1 when any of these rules fires."
    )(f)
    f = click.option(
        "--fail-under",
        type=click.FloatRange(0, 100),
        metavar="PCT",
        help="Exit 1 when conformance is below PCT.",
    )(f)
    return f


@click.command("audit", cls=_AuditCommand)
@click.argument("revs", nargs=-1, metavar="[RANGE]...")
@click.option("--since", metavar="DATE", help="Only commits after DATE (as git log --since).")
@click.option("--until", metavar="DATE", help="Only commits before DATE (as git log --until).")
@click.option("--author", metavar="PATTERN", help="Only commits by matching authors.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(_FORMATS),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the report to FILE instead of stdout.",
)
@threshold_options
@click.option(
    "--verify",
    is_flag=True,
    help="Re-run the tests at declared red and green commits in temporary worktrees "
    "(executes the repository's code) and report where the declared phase does not hold.",
)
@click.option(
    "--mutate",
    is_flag=True,
    help="With --verify: mutate the lines each green added and run each mutant against the "
    "tests that ran its line; survivors are unpinned-green-line findings, and a mutation "
    "score per cycle and per author is printed.",
)
@click.option(
    "--detectors/--no-detectors",
    default=False,
    show_default=True,
    help="Also run the static test detectors over every version of the test files: "
    "over-mocking and broad-assertion where a test first crosses antipatterns.max_mocks "
    "or antipatterns.max_asserts (results cached by blob in the git dir).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Test runs in parallel for --verify.",
)
@click.pass_context
def audit(
    ctx: click.Context,
    revs: tuple[str, ...],
    since: str | None,
    until: str | None,
    author: str | None,
    fmt: str,
    as_json: bool,
    output: Path | None,
    fail_under: float | None,
    fail_on: str | None,
    require_evidence: bool,
    min_evidence: float | None,
    verify: bool,
    mutate: bool,
    detectors: bool,
    jobs: int,
) -> None:
    """Report how test-first a history was: phases, cycles, findings and metrics.

    Reads any history, with GSD-Phase trailers or without (phases then come from commit
    messages or the files touched), in one pass, and never runs the repository's code.

    \b
    Examples:
      tddgit audit                               # the current branch, as tables
      tddgit audit main..HEAD --format markdown  # this branch's work, for a PR
      tddgit audit --since "2 weeks" --author alice
      tddgit audit --format sarif -o audit.sarif
      tddgit audit --fail-under 80 --fail-on green-without-red,refactor-while-red
      tddgit audit origin/main..HEAD --require-evidence --min-evidence 90
      tddgit audit HEAD -- src/parser            # only commits touching a path
      tddgit audit --format html -o audit.html   # a timeline to open in a browser
      tddgit audit --verify --jobs 4             # re-run the tests of declared commits
      tddgit audit --verify --mutate             # and mutate each green's added lines
      tddgit audit --detectors                   # over-mocking, broad assertions too
    """
    from tddgit import console
    from tddgit.audit import AuditOptions, keep_until_exit, run_audit
    from tddgit.audit.registry import detectors as using_detectors
    from tddgit.audit.report import render
    from tddgit.audit.required import evidence_required

    rules = _rule_list(fail_on)
    if mutate and not verify:
        raise UsageError("--mutate runs the repository's code", "add --verify: --verify --mutate")
    a = app(ctx)
    if as_json:
        fmt = "json"
    options = AuditOptions(
        revs=revs or ("HEAD",),
        since=since,
        until=until,
        author=author,
        paths=ctx.meta.get(_PATHS_KEY, ()),
        prerender_json=_json_stream_encoding(output) if fmt == "json" else None,
        leave_to_exit=True,
    )
    if fmt == "text":
        from tddgit.audit.render_text import preload

        preload()
    with console.progress("auditing history") as bar:
        verifier = _verifier(a, jobs, bar) if verify else None
        if verifier is not None:
            options = replace(options, post_checks=(*options.post_checks, verifier))
        scorer = _scorer(a, jobs, bar) if mutate else None
        if scorer is not None:
            options = replace(options, post_checks=(*options.post_checks, scorer))
        with (
            using_detectors(_detector_settings(a.config) if detectors else None),
            evidence_required(require_evidence),
        ):
            report = run_audit(a.repo, a.config, options, progress=bar)
    if verifier is not None:
        console.err(verifier.summary())
    for line in scorer.summary() if scorer is not None else ():
        console.err(line)
    _write(report, fmt, output, render)
    keep_until_exit(report)
    gate(
        report.metrics,
        [f.rule for f in report.findings],
        Thresholds(fail_under, rules, require_evidence, min_evidence),
    )


def _json_stream_encoding(output: Path | None) -> tuple[str, str] | None:
    """How the JSON report's stream encodes text (what ``_write`` will open or use)."""
    if output is not None:
        return ("utf-8", "strict")
    encoding, errors = getattr(sys.stdout, "encoding", None), getattr(sys.stdout, "errors", None)
    return (encoding, errors) if encoding and errors else None


def _detector_settings(config: Any) -> Any:
    from tddgit.audit.registry import DetectorSettings

    return DetectorSettings(
        max_mocks=int(config.get("antipatterns.max_mocks")),
        max_asserts=int(config.get("antipatterns.max_asserts")),
    )


def _verifier(a: Any, jobs: int, bar: Any) -> Any:
    """The --verify post-check; says first, on stderr, that it runs the repository's code."""
    from tddgit import console
    from tddgit.audit.verify import Verifier

    console.warn(
        "--verify executes this repository's code: it re-runs the tests at declared red "
        f"and green commits in temporary worktrees ({jobs} at a time, timeout "
        f"{a.config.timeout:g} s each)"
    )
    # On a terminal the progress line shows each result; elsewhere (CI logs) one line each.
    drawn = sys.stderr.isatty() and not os.environ.get("TDDGIT_NO_PROGRESS")
    show = bar.update if drawn else console.err
    return Verifier(a.repo, a.config, jobs=jobs, on_event=show)


def _scorer(a: Any, jobs: int, bar: Any) -> Any:
    """The --mutate post-check (tddgit.mutation.audit)."""
    from tddgit.mutation.audit import MutationScore

    drawn = sys.stderr.isatty() and not os.environ.get("TDDGIT_NO_PROGRESS")
    return MutationScore(a.repo, a.config, jobs=jobs, on_event=bar.update if drawn else None)


def _write(report: Any, fmt: str, output: Path | None, render: Any) -> None:
    if output is None:
        render(report, fmt, sys.stdout)
        sys.stdout.flush()
        return
    try:
        with output.open("w", encoding="utf-8", newline="\n") as fh:
            stream: IO[str] = fh
            render(report, fmt, stream)
    except OSError as exc:
        raise UsageError(
            f"cannot write {output}: {exc.strerror}", "choose a writable path"
        ) from exc


@dataclass(frozen=True)
class Thresholds:
    """What makes an audit exit 1 (the CI gate); `tddgit ci` takes the same."""

    fail_under: float | None = None
    fail_on: tuple[str, ...] = ()
    require_evidence: bool = False
    min_evidence: float | None = None


def gate(metrics: Any, fired: list[str], t: Thresholds) -> None:
    """Exit 1 (Refused) when conformance or findings cross the CI thresholds; exit 2 when
    the threshold has nothing to judge (an empty range passes no bar, it is a wrong range)."""
    if (t.fail_under is not None or t.min_evidence is not None) and not metrics.get("commits"):
        flag = "--fail-under" if t.fail_under is not None else "--min-evidence"
        raise UsageError(
            f"no commits in the range: {flag} has nothing to judge",
            "check the range, --since/--until, --author and the paths",
        )
    reasons = []
    score = metrics.get("conformance")
    if t.fail_under is not None and score is not None and score < t.fail_under:
        reasons.append(f"conformance {score} is below --fail-under {t.fail_under:g}")
    coverage = metrics.get("evidence_coverage")
    if t.min_evidence is not None and coverage is not None and coverage < t.min_evidence:
        reasons.append(f"evidence coverage {coverage} is below --min-evidence {t.min_evidence:g}")
    missing = fired.count("missing-evidence")
    if t.require_evidence and missing:
        reasons.append(f"--require-evidence: {missing} declared step(s) without evidence")
    hits = sorted({r for r in fired if r in t.fail_on})
    if hits:
        counts = ", ".join(f"{r} ({fired.count(r)})" for r in hits)
        reasons.append(f"--fail-on rules fired: {counts}")
    if reasons:
        raise Refused("; ".join(reasons), "see the report's findings")
