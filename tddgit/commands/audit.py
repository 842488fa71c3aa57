"""`tddgit audit`: how test-first a history really was (PRODUCT.md §8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tddgit.cli import app
from tddgit.errors import UsageError

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
    from tddgit.commands.audit_run import AuditRequest, Thresholds, execute, rule_list

    rules = rule_list(fail_on)
    if mutate and not verify:
        raise UsageError("--mutate runs the repository's code", "add --verify: --verify --mutate")
    request = AuditRequest(
        revs=revs,
        since=since,
        until=until,
        author=author,
        paths=ctx.meta.get(_PATHS_KEY, ()),
        fmt="json" if as_json else fmt,
        output=output,
        thresholds=Thresholds(fail_under, rules, require_evidence, min_evidence),
        verify=verify,
        mutate=mutate,
        detectors=detectors,
        jobs=jobs,
    )
    execute(app(ctx), request)
