"""Probe records -> test results (PRODUCT.md §4): every test's outcome and cause, and
notes on the run as a whole.

A test that never finished, never started or was never collected still gets an entry
(timeout, crash, "not collected..."), so a requested test cannot vanish from the evidence.
The cause of each failure comes from the rules in ``pycauses``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tddgit.model import Cause, Outcome, TestResult
from tddgit.runners.probelog import ProbeLog
from tddgit.runners.pycauses import classify, describe, short
from tddgit.runners.pydeps import Project


@dataclass(frozen=True)
class Ending:
    """How the pytest process ended, as the process runner saw it."""

    exit_code: int
    timed_out: bool = False
    timeout: float = 0.0
    output_tail: str = ""


def file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def _test_result(
    tid: str, phases: Mapping[str, Mapping[str, Any]], log: ProbeLog, project: Project
) -> TestResult:
    """One test from its setup/call/teardown reports (an incomplete test is judged later)."""
    file = file_of(tid)
    duration = sum(float(r.get("duration") or 0) for r in phases.values())
    line = log.lines.get(tid)

    def failure(rec: Mapping[str, Any], when: str, outcome: Outcome) -> TestResult:
        exc = rec.get("exc")
        if not isinstance(exc, Mapping):
            text = short(str(rec.get("longrepr") or f"{when} failed"))
            return TestResult(tid, outcome, Cause.OTHER, text, file, line, duration)
        cause, message = classify(exc, when=when, test_file=file, project=project)
        at = exc.get("test_line") if isinstance(exc.get("test_line"), int) else line
        return TestResult(tid, outcome, cause, message, file, at, duration)

    setup, call, teardown = (phases.get(w) for w in ("setup", "call", "teardown"))
    if setup and setup.get("outcome") == "failed":
        return failure(setup, "setup", Outcome.ERROR)
    result: TestResult
    if call is None and setup is not None and setup.get("outcome") == "skipped":
        outcome = Outcome.XFAILED if "wasxfail" in setup else Outcome.SKIPPED
        reason = setup.get("wasxfail") if "wasxfail" in setup else setup.get("reason")
        result = TestResult(tid, outcome, None, short(str(reason or "")), file, line, duration)
    elif call is not None and call.get("outcome") == "failed":
        return failure(call, "call", Outcome.FAILED)
    elif call is not None and call.get("outcome") == "skipped":
        outcome = Outcome.XFAILED if "wasxfail" in call else Outcome.SKIPPED
        reason = call.get("wasxfail") if "wasxfail" in call else call.get("reason")
        result = TestResult(tid, outcome, None, short(str(reason or "")), file, line, duration)
    else:
        outcome = Outcome.XPASSED if call is not None and "wasxfail" in call else Outcome.PASSED
        result = TestResult(tid, outcome, None, "", file, line, duration)
    if teardown and teardown.get("outcome") == "failed":
        return failure(teardown, "teardown", Outcome.ERROR)
    return result


def _collect_entry(rec: Mapping[str, Any], project: Project) -> TestResult:
    cid = str(rec.get("id") or ".")
    file = file_of(cid)
    if rec.get("outcome") == "skipped":
        return TestResult(cid, Outcome.SKIPPED, None, short(str(rec.get("reason") or "")), file)
    exc = rec.get("exc")
    if not isinstance(exc, Mapping):
        text = short(str(rec.get("longrepr") or "collection failed"))
        return TestResult(cid, Outcome.ERROR, Cause.COLLECTION, text, file)
    when = "conftest" if "ConftestImportFailure" in str(exc.get("wrapper")) else "collect"
    cause, message = classify(exc, when=when, test_file=file, project=project)
    line = exc.get("line") if project.rel(exc.get("file")) == file else None
    return TestResult(cid, Outcome.ERROR, cause, message, file, line)


def _conftest_entry(rec: Mapping[str, Any], project: Project) -> TestResult:
    path = project.rel(str(rec.get("path") or "")) or str(rec.get("path") or "conftest.py")
    exc = rec.get("exc")
    if not isinstance(exc, Mapping):
        exc = {"type": "ImportError"}
    cause, message = classify(exc, when="conftest", test_file=path, project=project)
    return TestResult(path, Outcome.ERROR, cause, message, path)


def _broken_parent(test_id: str, broken: Mapping[str, TestResult]) -> TestResult | None:
    path = file_of(test_id)
    for bid, entry in broken.items():
        if bid.rsplit("/", 1)[-1] == "conftest.py":  # a conftest breaks its whole directory
            bid = bid.rsplit("/", 1)[0] if "/" in bid else "."
        if entry.outcome is Outcome.ERROR and (
            bid in (".", path) or path.startswith(bid.rstrip("/") + "/")
        ):
            return entry
    return None


def _covered(entry_id: str, requested: Sequence[str]) -> bool:
    if not requested:
        return True
    for r in requested:
        if r == entry_id or r in (".", "", "./"):
            return True
        if "::" not in r and entry_id.startswith(r.rstrip("/") + "/"):
            return True
    return False


def _unfinished(tid: str, phases: Mapping[str, Any], ending: Ending, file: str) -> TestResult:
    in_call = "setup" in phases and phases["setup"].get("outcome") == "passed"
    outcome = Outcome.FAILED if in_call else Outcome.ERROR
    if ending.timed_out:
        msg = f"timed out after {ending.timeout:g}s while this test was running"
        return TestResult(tid, outcome, Cause.TIMEOUT, msg, file)
    return TestResult(
        tid, outcome, Cause.CRASH, f"{_death(ending)} while this test was running", file
    )


def _death(ending: Ending) -> str:
    code = ending.exit_code
    if code < 0:
        return f"the test process was killed by signal {-code}"
    return f"the test process exited (code {code}) before pytest finished"


def _not_run(tid: str, log: ProbeLog, ending: Ending) -> TestResult:
    file = file_of(tid)
    if ending.timed_out:
        msg = "not run: the run timed out before this test started"
        return TestResult(tid, Outcome.ERROR, Cause.TIMEOUT, msg, file)
    if log.exitstatus is None:
        msg = f"not run: {_death(ending)} before this test started"
        return TestResult(tid, Outcome.ERROR, Cause.CRASH, msg, file)
    msg = f"not run: pytest stopped early (exit status {log.exitstatus})"
    return TestResult(tid, Outcome.ERROR, Cause.OTHER, msg, file)


def _tail_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):  # for display only: pytest's own "error:" line if any
        if "error:" in ln.lower():
            return short(ln)
    return short(lines[-1]) if lines else "no output"


def _notes(
    log: ProbeLog, ending: Ending, requested: Sequence[str], conftests: Sequence[str]
) -> list[str]:
    notes: list[str] = []
    if ending.timed_out:
        notes.append(f"timed out after {ending.timeout:g}s: the whole process group was killed")
    elif log.exitstatus is None and conftests:
        notes.append(f"{', '.join(conftests)} could not be imported, so pytest ran no test")
    elif log.exitstatus is None and log.session is None:
        notes.append(
            f"pytest did not start (exit code {ending.exit_code}): {_tail_line(ending.output_tail)}"
        )
    elif log.exitstatus is None:
        notes.append(f"{_death(ending)}: the session did not finish")
    elif log.exitstatus == 5:
        notes.append(
            "none of the requested tests were collected" if requested else "no tests collected"
        )
    elif log.exitstatus == 4:
        notes.append(f"pytest usage error: {_tail_line(ending.output_tail)}")
    elif log.exitstatus == 2:
        notes.append("pytest was interrupted")
    elif log.exitstatus == 3:
        notes.append(f"pytest internal error: {_tail_line(ending.output_tail)}")
    for rec in log.internal:
        exc = rec.get("exc")
        if isinstance(exc, Mapping):
            notes.append(f"pytest internal error: {describe(exc)}")
    return notes


def build_results(
    log: ProbeLog,
    ending: Ending,
    *,
    project: Project,
    requested: Sequence[str] = (),
    absent: Sequence[str] = (),
) -> tuple[tuple[TestResult, ...], tuple[str, ...]]:
    """Every test's result from the probe's records, and notes on the run as a whole.

    ``requested``: the ids or paths asked for (empty = all); ``absent``: those of them
    whose file does not exist (never given to pytest). A requested test never collected
    still gets an entry (``error``/``collection``, "not collected..."), so it cannot vanish.
    """
    broken: dict[str, TestResult] = {}
    for rec in log.conftests:
        entry = _conftest_entry(rec, project)
        broken[entry.id] = entry
    conftests = list(broken)
    for rec in log.collect_failures:
        entry = _collect_entry(rec, project)
        broken[entry.id] = entry
    tests: dict[str, TestResult] = {}
    order = list(dict.fromkeys([*log.collected, *log.started, *log.reports]))
    for tid in order:
        phases = {str(r.get("when")): r for r in log.reports.get(tid, ())}
        if "teardown" in phases:
            tests[tid] = _test_result(tid, phases, log, project)
        elif phases or tid in log.started:
            tests[tid] = _unfinished(tid, phases, ending, file_of(tid))
        else:
            tests[tid] = _not_run(tid, log, ending)
    unreported = list(absent) + list(log.missing)
    if not log.collection_done:
        unreported += list(requested)
    expanded: set[str] = set()
    for w in dict.fromkeys(unreported):
        if w in tests or w in broken:
            continue
        parent = _broken_parent(w, broken)
        if parent is not None:
            tests[w] = replace(parent, id=w, file=file_of(w), line=None)
            expanded.add(parent.id)
            continue
        if w in absent:
            msg = f"not collected: {file_of(w)} does not exist"
        elif log.collection_done:
            msg = "not collected: no test matches this id"
        elif broken:
            msg = f"not collected: pytest stopped on {next(iter(broken))}"
        else:
            msg = "not collected: pytest stopped before collecting"
        cause = Cause.TIMEOUT if ending.timed_out else Cause.COLLECTION
        tests[w] = TestResult(w, Outcome.ERROR, cause, msg, file_of(w))
    kept = [b for bid, b in broken.items() if bid not in expanded or _covered(bid, requested)]
    notes = _notes(log, ending, requested, conftests)
    return tuple(kept) + tuple(tests.values()), tuple(notes)


def tampered(log: ProbeLog) -> tuple[str, ...]:
    """One line per test phase whose report was rewritten after its call (the probe saw
    the call fail, the final report said otherwise), naming the suspected plugins."""
    out: list[str] = []
    for tid, recs in log.reports.items():
        for rec in recs:
            seen = rec.get("tampered")
            if not isinstance(seen, Mapping):
                continue
            exc = rec.get("exc")
            what = str(exc.get("type")) if isinstance(exc, Mapping) else "an exception"
            plugins = [str(p) for p in seen.get("plugins") or ()]
            by = f" by a report hook in {', '.join(plugins)}" if plugins else ""
            out.append(
                f"{tid}: its {rec.get('when')} raised {what}, but the report was rewritten "
                f"to {seen.get('reported')}{by}"
            )
    return tuple(out)
