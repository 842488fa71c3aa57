"""``tddgit audit``'s work once its command line is read, click-free: the click command
(``tddgit.commands.audit``) and the fast path of a plain audit of the current branch
(``tddgit.commands.audit_fast``, which skips importing click: ~10 ms of every audit) both
run ``execute``; ``tddgit ci`` shares the thresholds."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tddgit.errors import Refused, UsageError

if TYPE_CHECKING:
    from tddgit.appcontext import AppContext


def rule_list(value: str | None) -> tuple[str, ...]:
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


@dataclass(frozen=True)
class Thresholds:
    """What makes an audit exit 1 (the CI gate); `tddgit ci` takes the same."""

    fail_under: float | None = None
    fail_on: tuple[str, ...] = ()
    require_evidence: bool = False
    min_evidence: float | None = None


@dataclass(frozen=True)
class AuditRequest:
    """What the command line asked of an audit (``tddgit audit --help``)."""

    revs: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    author: str | None = None
    paths: tuple[str, ...] = ()
    fmt: str = "text"
    output: Path | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    verify: bool = False
    mutate: bool = False
    detectors: bool = False
    jobs: int = 2


def execute(a: AppContext, r: AuditRequest) -> None:
    """Audit, write the report, and exit 1 (``Refused``) when a threshold is crossed."""
    from tddgit import console
    from tddgit.audit import AuditOptions, keep_until_exit, run_audit
    from tddgit.audit.registry import detectors as using_detectors
    from tddgit.audit.report import render
    from tddgit.audit.required import evidence_required

    fmt, output, jobs = r.fmt, r.output, r.jobs
    options = AuditOptions(
        revs=r.revs or ("HEAD",),
        since=r.since,
        until=r.until,
        author=r.author,
        paths=r.paths,
        prerender_json=_json_stream_encoding(output) if fmt == "json" else None,
        leave_to_exit=True,
    )
    if fmt == "text":
        from tddgit.audit import textparts

        textparts.preload()
        if output is None:  # (a file is opened once the audit is done)
            options = replace(options, on_final=textparts.starter(sys.stdout))
    with console.progress("auditing history") as bar:
        verifier = _verifier(a, jobs, bar) if r.verify else None
        if verifier is not None:
            options = replace(options, post_checks=(*options.post_checks, verifier))
        scorer = _scorer(a, jobs, bar) if r.mutate else None
        if scorer is not None:
            options = replace(options, post_checks=(*options.post_checks, scorer))
        with (
            using_detectors(_detector_settings(a.config) if r.detectors else None),
            evidence_required(r.thresholds.require_evidence),
        ):
            report = run_audit(a.repo, a.config, options, progress=bar)
    if verifier is not None:
        console.err(verifier.summary())
    for line in scorer.summary() if scorer is not None else ():
        console.err(line)
    _write(report, fmt, output, render)
    keep_until_exit(report)
    gate(report.metrics, [f.rule for f in report.findings], r.thresholds)


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
    show = bar.update if console.progress_drawn() else console.err
    return Verifier(a.repo, a.config, jobs=jobs, on_event=show)


def _scorer(a: Any, jobs: int, bar: Any) -> Any:
    """The --mutate post-check (tddgit.mutation.audit)."""
    from tddgit import console
    from tddgit.mutation.audit import MutationScore

    drawn = console.progress_drawn()
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
