"""Reading one JUnit XML report (PRODUCT.md §4): every ``testcase`` -> a ``TestResult``.

Tolerant of the dialects people really produce (node, jest-junit, vitest, go-junit-report,
cargo nextest, Maven Surefire, pytest) and safe on hostile input: entities are refused,
control characters dropped, nesting walked iteratively; a bad report gives a note, never
an exception. The cause of each failure comes from ``junitcauses``.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from tddgit.detectors import language_of
from tddgit.model import Cause, Outcome, TestResult
from tddgit.runners.jsframes import wrong_behaviour
from tddgit.runners.junitcauses import classify

MAX_TEXT = 16 * 1024  # characters of a failure's body the cause rules look at
MAX_MESSAGE = 300
# Control characters XML 1.0 forbids; some reporters write them raw (ANSI colour codes).
_INVALID_XML = bytes(c for c in range(32) if c not in (9, 10, 13))


def _local(tag: object) -> str:
    """An element's tag without its namespace (some reporters declare one)."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _cases(root: ET.Element) -> Iterator[tuple[ET.Element, tuple[ET.Element, ...]]]:
    """Every ``testcase`` with its enclosing ``testsuite`` elements, outermost first.
    Iterative: a hostile report may nest deeper than Python's recursion limit."""
    if _local(root.tag) == "testcase":
        yield root, ()
        return
    start = (root,) if _local(root.tag) == "testsuite" else ()
    stack: list[tuple[ET.Element, tuple[ET.Element, ...]]] = [(root, start)]
    while stack:
        elem, suites = stack.pop()
        for child in reversed(list(elem)):
            tag = _local(child.tag)
            if tag == "testcase":
                stack.append((child, suites))
            elif tag in ("testsuite", "testsuites"):
                stack.append((child, (*suites, child) if tag == "testsuite" else suites))
        if _local(elem.tag) == "testcase":
            yield elem, suites


class ReportPaths:
    """Turns report paths (absolute, ``file://``, ``./x``) into repo-relative ones."""

    def __init__(self, root: Path | None) -> None:
        self.roots = [] if root is None else [root, root.resolve()]
        self.root = root
        self._is_file: dict[str, bool] = {}

    def rel(self, path: str) -> str:
        path = path.removeprefix("file://")
        if os.path.isabs(path):
            for base in self.roots:
                try:
                    return Path(path).relative_to(base).as_posix()
                except ValueError:
                    continue
            return path
        return path.replace("\\", "/").removeprefix("./")

    def is_file(self, path: str) -> bool:
        """Whether a classname is really a test file's path (vitest, some jest setups)."""
        if self.root is None or "." not in path or len(path) > 4096:
            return False
        if path not in self._is_file:
            try:
                self._is_file[path] = (self.root / path).is_file()
            except (OSError, ValueError):
                self._is_file[path] = False
        return self._is_file[path]


def _identity(
    case: ET.Element, suites: tuple[ET.Element, ...], paths: ReportPaths
) -> tuple[str, str | None]:
    """The test id (``classname::name``, or ``file::name``) and the test's file."""
    name = case.get("name") or "(unnamed)"
    classname = case.get("classname") or ""
    file = case.get("file") or next(
        (
            s.get("file") or s.get("filepath")
            for s in reversed(suites)
            if s.get("file") or s.get("filepath")
        ),
        None,
    )
    file = paths.rel(file) if file else None
    if classname == "test" and file is None:
        # Node's own junit reporter: no file, classname always "test", describe blocks as
        # nested testsuites, and a test file that failed as a whole named by its path.
        if os.path.isabs(name):
            rel = paths.rel(name)
            return rel, rel
        return " > ".join([s.get("name") or "" for s in suites] + [name]), None
    if file is None and classname and paths.is_file(classname):
        file = classname
    prefix = classname or file or (suites[-1].get("name") or "" if suites else "")
    if not prefix or prefix == name:
        return name, file
    return f"{prefix}::{name}", file


def _number(value: str | None, kind: type[float] | type[int]) -> float | int | None:
    try:
        return kind(value.replace(",", "")) if value else None
    except ValueError:
        return None


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _short(message: str) -> str:
    one = " ".join(message.split())
    return one if len(one) <= MAX_MESSAGE else one[: MAX_MESSAGE - 1] + "…"


def _result(case: ET.Element, suites: tuple[ET.Element, ...], paths: ReportPaths) -> TestResult:
    test_id, file = _identity(case, suites, paths)
    outcome, cause, message = Outcome.PASSED, None, ""
    children = [(c, _local(c.tag)) for c in case]
    problem = next(((c, t) for c, t in children if t in ("failure", "error")), None)
    skipped = next((c for c, t in children if t == "skipped"), None)
    if problem is not None:
        elem, tag = problem
        text = (elem.text or "")[:MAX_TEXT]
        raw = elem.get("message") or _first_line(text)
        cause, message = classify(elem.get("type") or "", raw, text)
        if cause is Cause.OTHER and file is not None and language_of(file) == "js":
            # node's runner through tddgit's reporter: the error's stack says where
            thrown = wrong_behaviour(elem.get("type") or "", raw, text, paths.rel, file)
            cause, message = thrown or (cause, message)
        outcome = Outcome.FAILED if tag == "failure" or cause is Cause.ASSERTION else Outcome.ERROR
    elif skipped is not None:
        xfail = skipped.get("type") == "pytest.xfail"
        outcome = Outcome.XFAILED if xfail else Outcome.SKIPPED
        message = skipped.get("message") or _first_line(skipped.text or "")
    line = _number(case.get("line"), int)
    return TestResult(
        id=test_id,
        outcome=outcome,
        cause=cause,
        message=_short(message),
        file=file,
        line=int(line) if line is not None else None,
        duration=float(_number(case.get("time"), float) or 0.0),
    )


def parse_report(
    data: bytes, *, root: Path | None = None, source: str = "report"
) -> tuple[tuple[TestResult, ...], tuple[str, ...]]:
    """Every test in one JUnit XML report, and notes on what could not be read. Never
    raises on bad input: a malformed report gives no tests and a note naming it."""
    if b"<!ENTITY" in data:
        # No real report declares entities; refusing them avoids entity-expansion bombs.
        return (), (f"JUnit report {source} declares XML entities; ignored",)
    try:
        tree = ET.fromstring(data.translate(None, _INVALID_XML))
    except ET.ParseError as exc:
        return (), (f"JUnit report {source} is not well-formed XML ({exc}); ignored",)
    if _local(tree.tag) not in ("testsuites", "testsuite", "testcase"):
        return (), (f"{source} is not a JUnit report (root element <{_local(tree.tag)}>)",)
    paths = ReportPaths(root)
    return tuple(_result(case, suites, paths) for case, suites in _cases(tree)), ()
