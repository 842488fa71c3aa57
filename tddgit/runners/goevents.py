"""``go test -json`` read into per-test outcomes (test2json events, PRODUCT.md §4).

Both event formats: before Go 1.24 a package that does not build shows up as plain text
(its compiler errors on stderr under ``# import/path``, then ``FAIL import/path [build
failed]``); since 1.24 as ``build-output`` / ``build-fail`` events and a package ``fail``
event carrying ``FailedBuild``. Ids are ``dir::TestName/subtest`` with ``dir`` the
package's directory relative to the repository (``.`` for a module at its root); a
package that does not build is one result with id ``dir`` (a file-level error, as
pytest's collection errors are), which stands for every test in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tddgit.model import Cause, Outcome, TestResult
from tddgit.runners.gocauses import build_cause, test_cause

_PLAIN_FAIL = re.compile(r"^FAIL\s+(\S+)\s+\[(build|setup) failed\]", re.M)
_MESSAGE_LINES = 6


@dataclass
class _Test:
    outcome: Outcome | None = None
    output: list[str] = field(default_factory=list)
    elapsed: float = 0.0


@dataclass
class Events:
    """What one run's events said, by package import path."""

    tests: dict[tuple[str, str], _Test] = field(default_factory=dict)
    failed_packages: dict[str, str] = field(default_factory=dict)  # import path -> build id
    build_output: dict[str, list[str]] = field(default_factory=dict)  # build id -> lines
    package_output: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_events(stdout: str, stderr: str) -> Events:
    """Parse the JSON lines of ``stdout``; plain lines (Go < 1.24) and ``stderr`` hold
    the build failures."""
    ev = Events()
    for line in stdout.splitlines():
        if not line.startswith("{"):
            _plain_fail(ev, line)
            continue
        try:
            event = json.loads(line)
        except ValueError:
            ev.problems.append(f"an unreadable line of go test -json: {line[:80]!r}")
            continue
        if isinstance(event, dict):
            _event(ev, event)
    for line in stderr.splitlines():
        _plain_fail(ev, line)
    _stderr_sections(ev, stderr)
    return ev


def _plain_fail(ev: Events, line: str) -> None:
    m = _PLAIN_FAIL.match(line)
    if m:
        ev.failed_packages.setdefault(m.group(1), m.group(1))


def _event(ev: Events, event: dict[str, object]) -> None:
    action = str(event.get("Action", ""))
    output = str(event.get("Output", "") or "")
    if action in ("build-output", "build-fail"):
        build = str(event.get("ImportPath", ""))
        if action == "build-output":
            ev.build_output.setdefault(build, []).append(output)
        return
    package = str(event.get("Package", ""))
    name = event.get("Test")
    if not name:
        if action == "output":
            ev.package_output.setdefault(package, []).append(output)
        elif action == "fail":
            failed = event.get("FailedBuild")
            if failed:
                ev.failed_packages[package] = str(failed)
        return
    test = ev.tests.setdefault((package, str(name)), _Test())
    if action == "output":
        test.output.append(output)
    elif action in ("pass", "fail", "skip"):
        test.outcome = {"pass": Outcome.PASSED, "fail": Outcome.FAILED}.get(action, Outcome.SKIPPED)
        elapsed = event.get("Elapsed")
        test.elapsed = float(elapsed) if isinstance(elapsed, (int, float)) else 0.0


def _stderr_sections(ev: Events, stderr: str) -> None:
    """The compiler's ``# import/path [import/path.test]`` sections, by that header."""
    current: list[str] | None = None
    for line in stderr.splitlines(keepends=True):
        if line.startswith("# "):
            current = ev.build_output.setdefault(line[2:].strip(), [])
            current.append(line)
        elif current is not None and not _PLAIN_FAIL.match(line):
            current.append(line)


def _build_lines(ev: Events, package: str, build: str) -> list[str]:
    """The compiler output of ``package``'s failed build (the test variant, the package
    itself, or its external ``_test`` package)."""
    lines: list[str] = []
    for key, text in ev.build_output.items():
        first = key.split(" ", 1)[0]
        if key == build or first in (package, package + "_test") or f"[{package}.test]" in key:
            lines.extend(text)
    return lines


def results(ev: Events, directory: Callable[[str], str]) -> tuple[TestResult, ...]:
    """Per-test outcomes; ``directory`` maps an import path to its repository-relative
    directory."""
    out: list[TestResult] = []
    for package, build in ev.failed_packages.items():
        lines = _build_lines(ev, package, build)
        why, shown = build_cause(lines)
        out.append(
            TestResult(id=directory(package), outcome=Outcome.ERROR, cause=why, message=shown)
        )
    by_parent = _failed_children(ev.tests)
    for (package, name), test in ev.tests.items():
        if package in ev.failed_packages:
            continue
        outcome = test.outcome
        if outcome is None:  # started, never ended: the test binary died under it
            outcome = Outcome.FAILED
        cause: Cause | None = None
        message = ""
        if outcome is Outcome.FAILED:
            text = "".join(test.output)
            cause, message = test_cause(text, by_parent.get((package, name), ()))
        out.append(
            TestResult(
                id=f"{directory(package)}::{name}",
                outcome=outcome,
                cause=cause,
                message=message,
                duration=test.elapsed,
            )
        )
    return tuple(out)


def _failed_children(
    tests: dict[tuple[str, str], _Test],
) -> dict[tuple[str, str], list[str]]:
    """Each test's failed subtests' output, for a parent that failed only through them."""
    found: dict[tuple[str, str], list[str]] = {}
    for (package, name), test in tests.items():
        if test.outcome is Outcome.FAILED and "/" in name:
            parent = name.rsplit("/", 1)[0]
            found.setdefault((package, parent), []).append("".join(test.output))
    return found


def first_lines(lines: Iterable[str]) -> str:
    kept = [line.rstrip() for line in lines if line.strip()]
    return "\n".join(kept[:_MESSAGE_LINES])
