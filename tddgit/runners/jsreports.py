"""Jest's and vitest's own account of a run: the JSON both write (``jest --json``,
``vitest --reporter=json``), read by the junit runner when a report in its directory ends
in ``.json``.

Unlike their JUnit reporters, this account never drops a test file that failed to load
(a syntax error, a missing module or export): such a file is one result whose id is the
file's path, outcome ``error``, with the runner's message -- so it stands for every test
of the file in a gate. Test ids are ``file::describe > … > title``, each title stripped,
the same as tddgit's node reporter gives.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from tddgit.model import Cause, Outcome, TestResult
from tddgit.runners.jsframes import wrong_behaviour
from tddgit.runners.jssnapshots import snapshot_cause

MAX_TEXT = 16 * 1024
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# "TypeError: x is not a function", "AssertionError [ERR_ASSERTION]: ...", "Error: expect(…"
_HEAD = re.compile(r"^\s*([A-Za-z_$][\w$.]*(?: \[[A-Z_0-9]+\])?): (.*)$")
_SUITE_HEADER = re.compile(r"^\s*●\s*Test suite failed to run\s*$")
Classify = Callable[[str, str, str], tuple[Cause, str]]  # (type, message, text) -> cause
Rel = Callable[[str], str]  # a report's path -> repo-relative
_OUTCOMES = {
    "passed": Outcome.PASSED,
    "failed": Outcome.FAILED,
    "pending": Outcome.SKIPPED,
    "skipped": Outcome.SKIPPED,
    "todo": Outcome.SKIPPED,
    "disabled": Outcome.SKIPPED,
}


def is_jest_json(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("testResults"), list)


def _lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        if line.strip() and not _SUITE_HEADER.match(line):
            yield line.strip()


def failure(text: str) -> tuple[str, str, str]:
    """The error's type, its message and its whole text (colour codes dropped)."""
    text = _ANSI.sub("", text)[:MAX_TEXT]
    first = next(_lines(text), "")
    m = _HEAD.match(first)
    if m is not None:
        return m.group(1), m.group(2), text
    return "", first, text


def parse_jest_json(data: Any, rel: Rel, classify: Classify) -> list[TestResult]:
    """Results from a jest/vitest JSON report. ``rel`` makes a report path repo-relative;
    ``classify(type, message, text)`` gives a failure's cause and message."""
    tests: list[TestResult] = []
    for suite in data["testResults"]:
        if not isinstance(suite, dict):
            continue
        file = rel(str(suite.get("name") or "")) or "(unnamed)"
        cases = [
            _case(c, file, classify, rel)
            for c in suite.get("assertionResults") or []
            if isinstance(c, dict)
        ]
        tests += cases
        failed = any(t.outcome is Outcome.FAILED for t in cases)
        if suite.get("status") == "failed" and not failed:
            tests.append(_suite_failure(suite, file, classify))
    return tests


def _case(case: dict[str, Any], file: str, classify: Classify, rel: Rel) -> TestResult:
    titles = [*(case.get("ancestorTitles") or []), case.get("title") or "(unnamed)"]
    name = " > ".join(str(t).strip() for t in titles)
    outcome = _OUTCOMES.get(str(case.get("status")), Outcome.SKIPPED)
    cause: Cause | None = None
    message = ""
    if outcome is Outcome.FAILED:
        kind, raw, text = failure("\n".join(str(m) for m in case.get("failureMessages") or []))
        cause, message = snapshot_cause(text) or classify(kind, raw, text)
        if cause is Cause.OTHER:  # thrown in production code: the code's wrong behaviour
            cause, message = wrong_behaviour(kind, raw, text, rel, file) or (cause, message)
    duration = case.get("duration")
    location = case.get("location")
    line = location.get("line") if isinstance(location, dict) else None
    return TestResult(
        id=f"{file}::{name}",
        outcome=outcome,
        cause=cause,
        message=" ".join(str(message).split())[:300],
        file=file,
        line=line if isinstance(line, int) else None,
        duration=duration / 1000 if isinstance(duration, (int, float)) else 0.0,
    )


def _suite_failure(suite: dict[str, Any], file: str, classify: Classify) -> TestResult:
    """A test file that failed as a whole: it did not load, or failed outside its tests."""
    kind, raw, text = failure(str(suite.get("message") or ""))
    if not raw:
        cause, message = Cause.COLLECTION, "the test file failed without a message"
    else:
        cause, message = classify(kind, raw, text)
    return TestResult(
        id=file,
        outcome=Outcome.ERROR,
        cause=cause,
        message=" ".join(str(message).split())[:300],
        file=file,
    )


def read_jest_json(raw: bytes, rel: Rel, classify: Classify) -> tuple[list[TestResult], str]:
    """Results from a report's bytes, or none and what is wrong with it."""
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        return [], f"is not JSON ({exc})"
    if not is_jest_json(data):
        return [], "is not a jest/vitest JSON report (no testResults)"
    return parse_jest_json(data, rel, classify), ""
