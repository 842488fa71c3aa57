"""Judging a run (pure functions): does each phase's rule hold for these outcomes?"""

from __future__ import annotations

from collections.abc import Sequence

from tddgit.evidence import Evidence
from tddgit.gates.records import Reason
from tddgit.model import OK_OUTCOMES, Light, Outcome, RunResult, TestResult
from tddgit.targets import belongs


def results_for(result: RunResult, target: str) -> list[TestResult]:
    file_of_target = target.split("::", 1)[0]
    out = []
    for t in result.tests:
        if belongs(t.id, t.file, target):
            out.append(t)
        elif "::" not in t.id and t.id == file_of_target and t.outcome is Outcome.ERROR:
            out.append(t)  # a file-level collection error stands for every test in it
    return out


def split(result: RunResult, targets: Sequence[str]) -> tuple[list[TestResult], list[TestResult]]:
    target_results: list[TestResult] = []
    for target in targets:
        for t in results_for(result, target):
            if t not in target_results:
                target_results.append(t)
    others = [t for t in result.tests if t not in target_results]
    return target_results, others


def _describe(t: TestResult) -> str:
    cause = f" ({t.cause.value})" if t.cause else ""
    return f"{t.outcome.value}{cause}"


def _missing_targets(result: RunResult, targets: Sequence[str]) -> list[Reason]:
    return [
        Reason("target-not-run", f"{target}: the runner reported no result for it", test=target)
        for target in targets
        if not results_for(result, target)
    ]


def _timeout_reason(result: RunResult, timeout: float) -> list[Reason]:
    """The run-wide refusals every phase starts with: a killed run, rewritten reports."""
    reasons = [
        Reason("report-tampered", line, test=line.split(": ", 1)[0]) for line in result.tampered
    ]
    if result.timed_out:
        reasons.append(
            Reason("timeout", f"the test run was killed after {timeout:g} s", cause="timeout")
        )
    return reasons


def judge_red(result: RunResult, targets: Sequence[str], timeout: float) -> list[Reason]:
    reasons = _timeout_reason(result, timeout)
    if result.coarse:
        # Exit code only: a failing suite is all we can see.
        if result.exit_code == 0 and not result.timed_out:
            reasons.append(Reason("target-passes", "the test command passed: nothing is red"))
        return reasons
    reasons += _missing_targets(result, targets)
    mine, others = split(result, targets)
    for t in mine:
        if t.light is Light.GREEN:
            reasons.append(
                Reason(
                    "target-passes", f"{t.id}: passes already, so it tests nothing new", test=t.id
                )
            )
        elif t.light is Light.AMBER:
            reasons.append(
                _about(t, "target-amber", f"{t.id}: fails for the wrong reason: {_describe(t)}")
            )
    reasons += _broken(others, "pre-existing test")
    return reasons


def _about(t: TestResult, rule: str, message: str) -> Reason:
    """A reason about one test, carrying its cause and the runner's message."""
    return Reason(
        rule, message, test=t.id, cause=t.cause.value if t.cause else None, detail=t.message
    )


def _broken(
    tests: Sequence[TestResult], what: str, baseline: dict[str, TestResult] | None = None
) -> list[Reason]:
    reasons = []
    for t in tests:
        if t.outcome in OK_OUTCOMES:
            continue
        before = baseline.get(t.id) if baseline is not None else None
        if baseline is not None and before is not None and before.outcome not in OK_OUTCOMES:
            continue  # it already failed at the red: not this step's regression
        rule = "regression" if before is not None or baseline is None else "test-failing"
        when = " (passed at the red)" if before is not None else ""
        reasons.append(_about(t, rule, f"{t.id}: {what} now {_describe(t)}{when}"))
    return reasons


def judge_green(
    result: RunResult, targets: Sequence[str], timeout: float, baseline: dict[str, TestResult]
) -> list[Reason]:
    reasons = _timeout_reason(result, timeout)
    if result.coarse:
        if result.exit_code != 0:
            reasons.append(Reason("target-fails", "the test command still fails"))
        return reasons
    reasons += _missing_targets(result, targets)
    mine, others = split(result, targets)
    for t in mine:
        if t.outcome not in (Outcome.PASSED, Outcome.XPASSED):
            reasons.append(_about(t, "target-fails", f"{t.id}: red target still {_describe(t)}"))
    reasons += _broken(others, "test", baseline)
    return reasons


def judge_refactor(
    result: RunResult, timeout: float, previous: Evidence | None, scope: str
) -> tuple[list[Reason], list[str]]:
    reasons = _timeout_reason(result, timeout)
    notes: list[str] = []
    if result.coarse:
        if result.exit_code != 0:
            reasons.append(Reason("test-failing", "the test command fails"))
        return reasons, notes
    reasons += _broken(result.tests, "test")
    if previous is None:
        notes.append("no evidence of the previous phase: test ids not compared")
    elif scope != "all" or previous.scope != "all":
        notes.append("the previous phase ran a different scope: only the tests both ran compared")
    return reasons, notes
