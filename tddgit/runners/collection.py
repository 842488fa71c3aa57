"""No vanishing tests: a run whose command failed while its reports show no failure.

Some reporters drop a test file that failed to load (jest-junit without
``reportTestSuiteErrors``, a crashed worker): the command exits non-zero and every
reported test passed. Such a run is not a pass. Each JS/TS test file of the tree that
no report mentions becomes an ``error`` result with cause ``collection`` (amber), named
by its path -- so it stands for every test in it, and a green cannot hold over it; when
every test file was reported, one result for the whole command says the same.
"""

from __future__ import annotations

import os
from pathlib import Path

from tddgit.detectors import language_of
from tddgit.model import OK_OUTCOMES, Cause, Outcome, TestResult
from tddgit.paths import matches

MAX_FILES = 5000  # paths looked at in the tree; a test tree is far smaller
_SKIP_DIRS = frozenset({"node_modules", ".git", "dist", "build", "coverage"})


def _test_files(root: Path, test_globs: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    seen = 0
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            seen += 1
            if seen > MAX_FILES:
                return found
            rel = Path(top, name).relative_to(root).as_posix()
            if language_of(rel) == "js" and matches(rel, test_globs):
                found.append(rel)
    return found


def unreported(
    tests: tuple[TestResult, ...], exit_code: int, root: Path, test_globs: tuple[str, ...]
) -> tuple[TestResult, ...]:
    """Results for what a failed run did not report; ``()`` when nothing vanished."""
    if exit_code == 0 or not tests or any(t.outcome not in OK_OUTCOMES for t in tests):
        return ()
    reported = {t.file for t in tests if t.file} | {t.id.split("::", 1)[0] for t in tests}
    missing = [f for f in _test_files(root, test_globs) if f not in reported]
    why = f"the test command exited {exit_code} but reported no test of this file"
    if missing:
        return tuple(
            TestResult(id=f, outcome=Outcome.ERROR, cause=Cause.COLLECTION, message=why, file=f)
            for f in missing
        )
    return (
        TestResult(
            id="(test command)",
            outcome=Outcome.ERROR,
            cause=Cause.COLLECTION,
            message=f"the test command exited {exit_code} but its reports show no failure",
        ),
    )
