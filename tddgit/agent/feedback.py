"""What ``run_tests`` tells the model: the tests that do not pass, each with where it
failed in the project's own code (``file:line`` frames from the runner's traceback), and
the totals; no passing test listed, no null field, nothing said twice."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tddgit.model import OK_OUTCOMES, RunResult, TestResult

MAX_SHOWN = 30  # failing tests listed, at most
MAX_FRAMES = 6  # frames per test, the innermost kept
MAX_MESSAGE = 500

# pytest's section header for one test, and a frame line in the project ("a/b.py:12: ...").
_SECTION = re.compile(r"^_{3,} (?P<name>\S.*?) _{3,}$")
_FRAME = re.compile(r"^(?P<file>[\w.\-][\w./\-]*\.\w+):(?P<line>\d+): ")


def frames(output: str) -> dict[str, list[str]]:
    """Each failing test's frames in the project's code (relative paths only: the
    interpreter's and installed packages' frames are absolute), by pytest's section name."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        header = _SECTION.match(line)
        if header:
            current = out.setdefault(header.group("name"), [])
            continue
        frame = _FRAME.match(line)
        if frame and current is not None:
            where = f"{frame.group('file')}:{frame.group('line')}"
            if where not in current:
                current.append(where)
    return out


def _section_name(test_id: str) -> str:
    """pytest's section header for a test id: ``Class.test[param]`` or ``test[param]``."""
    return test_id.split("::", 1)[-1].replace("::", ".")


def payload(result: RunResult, shown: Sequence[TestResult]) -> dict[str, Any]:
    found = frames(result.output_tail)
    failing: list[dict[str, Any]] = []
    for t in shown:
        if t.outcome in OK_OUTCOMES:
            continue
        entry: dict[str, Any] = {"id": t.id, "light": t.light.value, "outcome": t.outcome.value}
        if t.cause is not None:
            entry["cause"] = t.cause.value
        if t.message:
            entry["message"] = t.message[:MAX_MESSAGE]
        where = found.get(_section_name(t.id), [])[-MAX_FRAMES:]
        if where:
            entry["where"] = where
        failing.append(entry)
    totals = {k: v for k, v in result.totals().items() if v}
    data: dict[str, Any] = {"failing": failing[:MAX_SHOWN], "totals": totals}
    if len(failing) > MAX_SHOWN:
        data["more_failing"] = len(failing) - MAX_SHOWN
    if result.timed_out:
        data["timed_out"] = True
    return data
