"""`tddgit run`: run the tests in the work tree and show each one's traffic light and cause."""

from __future__ import annotations

import json
import sys

import click

from tddgit import console
from tddgit.cli import app
from tddgit.console import outcome_count, plural
from tddgit.model import Light, Outcome, RunResult, TestResult

SYMBOLS = {Light.RED: "✗", Light.AMBER: "!", Light.GREEN: "✓"}
ASCII_SYMBOLS = {Light.RED: "x", Light.AMBER: "!", Light.GREEN: "+"}
PAINT = {Light.RED: "red", Light.AMBER: "amber", Light.GREEN: "green"}
FAILING = frozenset({Outcome.FAILED, Outcome.ERROR})
# pytest's exit codes that are not a failure of the suite: all passed, no tests collected
QUIET_EXIT_CODES = frozenset({0, 5})


@click.command("run")
@click.argument("tests", nargs=-1, metavar="[TEST]...")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.pass_context
def run(ctx: click.Context, tests: tuple[str, ...], as_json: bool) -> None:
    """Run the tests (all, or the given TEST ids / files) and show each one's traffic light.

    RED: fails for the right reason (an assertion, or code not implemented yet).
    AMBER: cannot tell (broken test, syntax, fixture, missing dependency, timeout...).
    GREEN: passed. Exit code 0 when nothing failed or errored, else 1.

    \b
    Examples:
      tddgit run
      tddgit run tests/test_calc.py
      tddgit run "tests/test_calc.py::test_add[1-2]" --json
    """
    from tddgit.project import project_at, repo_projects
    from tddgit.projects.names import repo_test_id
    from tddgit.projects.run import run_projects, which

    a = app(ctx)
    repo, config = a.repo, a.config
    wanted = tuple(repo_test_id(t, repo.root, a.cwd, config.project) for t in tests)
    chosen = which(repo_projects(repo), project_at(repo, a.cwd), wanted)
    shown = ", ".join(f"{p.runner} in {p.label}" for p in chosen)
    with console.progress(f"running the tests ({shown})"):
        result = run_projects(repo, chosen, wanted)
    if as_json:
        click.echo(json.dumps(to_json(result), ensure_ascii=False))
    else:
        _print(result)
    ctx.exit(exit_code(result))


def exit_code(result: RunResult) -> int:
    """0 when no test failed or errored and the runner itself did not fail; else 1."""
    if any(t.outcome in FAILING for t in result.tests):
        return 1
    if result.timed_out or (not result.coarse and result.exit_code not in QUIET_EXIT_CODES):
        return 1
    if result.coarse and result.exit_code != 0:
        return 1
    return 0


def to_json(result: RunResult) -> dict[str, object]:
    """``RunResult.to_json()`` plus each test's file, line and duration (docs/run-json.md)."""
    data = result.to_json()
    for entry, test in zip(data["tests"], result.tests, strict=True):
        entry["file"] = test.file
        entry["line"] = test.line
        entry["duration"] = round(test.duration, 6)
    return data


def _symbols() -> dict[Light, str]:
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        "".join(SYMBOLS.values()).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return ASCII_SYMBOLS
    return SYMBOLS


def _line(test: TestResult, symbols: dict[Light, str]) -> str:
    light = test.light
    badge = console.paint(f"{symbols[light]} {light.value.upper():<5}", PAINT[light])
    text = f"{badge}  {test.id}"
    label = test.cause.value if test.cause else None
    if label is None and test.outcome not in (Outcome.PASSED, Outcome.FAILED, Outcome.ERROR):
        label = test.outcome.value
    if label:
        text += f"  [{label}]"
    if test.message:
        text += f"  {test.message}"
    return text


def _print(result: RunResult) -> None:
    symbols = _symbols()
    for test in result.tests:
        click.echo(_line(test, symbols))
    totals = result.totals()
    counts = ", ".join(outcome_count(totals[o.value], o.value) for o in Outcome if totals[o.value])
    lights = ", ".join(
        f"{totals['light_' + lt.value]} {lt.value}" for lt in Light if totals["light_" + lt.value]
    )
    summary = plural(totals["total"], "test")
    if counts:
        summary += f": {counts}"
    if lights:
        summary += f" | lights: {lights}"
    click.echo(f"{summary} ({result.duration:.1f}s, {result.runner})")
    for note in result.notes:
        click.echo(f"note: {note}")
    if exit_code(result) and not result.tests and result.output_tail.strip():
        # nothing to show per test: the runner's own words are the only clue
        console.err("last lines of the runner's output:")
        for ln in result.output_tail.strip().splitlines()[-15:]:
            console.err(f"  {ln}")
