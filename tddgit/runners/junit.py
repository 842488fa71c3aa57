"""The ``junit`` runner: any test command that writes JUnit XML (PRODUCT.md §4).

The command runs in its own process group (``process.run_command``); its reports are read
with the stdlib parser, tolerant of the dialects people really produce (node, jest-junit,
vitest, go-junit-report, cargo nextest, Maven Surefire, pytest). Placeholders in
``test_command`` name paths tddgit owns, so no stale report can ever be read:

- ``{junit}``: a report file path in a fresh temporary directory,
- ``{junit_dir}``: that directory (for tools that write one file per suite there),
- ``{node_reporter}``: tddgit's reporter module for ``node --test`` (``NODE_REPORTER``).

With a configured ``junit_xml`` glob instead, only reports created or changed during the
run are read; user files are never deleted.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tddgit.config import Config
from tddgit.console import plural
from tddgit.errors import ConfigError, RunnerError
from tddgit.model import Cause, Outcome, RunResult, TestResult
from tddgit.runners import RunRequest, select
from tddgit.runners.collection import unreported
from tddgit.runners.detect import default_command, default_junit_xml
from tddgit.runners.jscauses import explain, missing_export
from tddgit.runners.jsreports import read_jest_json
from tddgit.runners.node_reporter import NODE_REPORTER
from tddgit.runners.process import run_command

MAX_REPORTS = 2000
PLACEHOLDERS = ("{junit}", "{junit_dir}", "{node_reporter}")
REPORT_NAME = "report.xml"
NODE_REPORTER_NAME = "tddgit-node-reporter.mjs"
MAX_REPORT_BYTES = 32 * 1024 * 1024  # per report; reports are untrusted input
MAX_TEXT = 16 * 1024  # characters of a failure's body the cause rules look at
MAX_MESSAGE = 300
# Control characters XML 1.0 forbids; some reporters write them raw (ANSI colour codes).
_INVALID_XML = bytes(c for c in range(32) if c not in (9, 10, 13))


@dataclass(frozen=True)
class _Rule:
    """Failures whose ``field`` (the failure's type, its message, or its body) matches
    ``pattern`` have ``cause`` -- unless ``unless`` matches the body."""

    cause: Cause
    field: str
    pattern: re.Pattern[str]
    unless: re.Pattern[str] | None = None


# First match wins; anything unmatched is `other` (amber) with its message. The rules only
# say red (assertion / not-implemented) on unmistakable signs: an assertion error type,
# an assertion library's own wording, a NotImplemented type or message, a missing module
# named by a relative or absolute path. Missing project modules come first in
# ``classify`` (see ``_missing_module``).
RULES: tuple[_Rule, ...] = (
    _Rule(Cause.TIMEOUT, "type", re.compile(r"(?i)timeout")),
    _Rule(
        Cause.SYNTAX, "type", re.compile(r"(?:^|[.\s])(?:SyntaxError|IndentationError|TabError)\b")
    ),
    _Rule(Cause.FIXTURE, "type", re.compile(r"^HookFailed$")),  # tddgit's node reporter
    _Rule(Cause.CRASH, "type", re.compile(r"(?i)\babort|\bsignal\b|segfault|\bcrash")),
    _Rule(Cause.CRASH, "message", re.compile(r"\bSIG(?:SEGV|ABRT|BUS|ILL)\b|Segmentation fault")),
    _Rule(Cause.NOT_IMPLEMENTED, "type", re.compile(r"NotImplemented")),
    _Rule(
        Cause.ASSERTION,
        "type",
        re.compile(r"(?i)assert|ComparisonFailure|MultipleFailuresError|^Xunit\.Sdk\."),
    ),
    _Rule(Cause.TIMEOUT, "message", re.compile(r"Exceeded timeout of \d+ ?ms|timed out after")),
    _Rule(Cause.TIMEOUT, "text", re.compile(r"(?m)^panic: test timed out after")),
    _Rule(
        Cause.NOT_IMPLEMENTED,
        "message",
        re.compile(r"(?i)\bnot (?:yet )?implemented\b|^NotImplemented(?:Error|Exception)?\b"),
    ),
    _Rule(
        Cause.ASSERTION, "message", re.compile(r"^(?:AssertionError\b|assert\b)|(?:^|\W)expect\(")
    ),
    # go-junit-report: t.Error / t.Fatal (Go's assertions) give "Failed"; a panic does too.
    _Rule(Cause.ASSERTION, "message", re.compile(r"^Failed$"), re.compile(r"(?m)^\s*panic: ")),
    _Rule(Cause.SYNTAX, "text", re.compile(r"(?m)^\s*SyntaxError: ")),
    # vite's import analysis of a file that does not parse (vitest)
    _Rule(Cause.SYNTAX, "message", re.compile(r"^Failed to parse source for import analysis")),
    _Rule(Cause.NOT_IMPLEMENTED, "text", re.compile(r"(?im)(?:^|: )not (?:yet )?implemented\b")),
    _Rule(
        Cause.ASSERTION,
        "text",
        re.compile(r"\bERR_ASSERTION\b|\bAssertionError\b|assertion (?:`[^`\n]*` )?failed"),
    ),
)

_MISSING_MODULE = re.compile(
    r"Cannot find (module|package) '([^'\n]+)'"  # node (ESM and CommonJS), jest
    r"|Failed to load url (\S+)"  # vitest
    r"|Failed to resolve import \"([^\"\n]+)\""  # vite's import analysis
)


def _missing_module(message: str, text: str) -> tuple[Cause, str] | None:
    """A missing project module (a relative or absolute path) is not implemented yet; a
    missing package is the environment's fault."""
    m = _MISSING_MODULE.search(message) or _MISSING_MODULE.search(text)
    if m is None:
        return None
    spec = next(g for g in m.groups()[1:] if g)
    project = (
        m.group(1) != "package"
        and spec.startswith((".", "/", "file:"))
        and "/node_modules/" not in spec
    )
    if project:
        return Cause.NOT_IMPLEMENTED, m.group(0)
    return Cause.ENVIRONMENT, f"{m.group(0)} ({_install_fix(spec)})"


def _install_fix(spec: str) -> str:
    """How to get a missing package: its name from a bare specifier, else a reinstall."""
    if spec.startswith((".", "/", "file:")):
        return "a package's file is missing: reinstall the dependencies (npm install)"
    parts = spec.split("/")
    name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
    return f"not installed: npm install --save-dev {name}"


def classify(kind: str, message: str, text: str) -> tuple[Cause, str]:
    """The cause of one failure from its ``type`` attribute, message and body, and the
    message to show for it."""
    found = _missing_module(message, text) or missing_export(message) or missing_export(text)
    if found is not None:
        return found
    fields = {"type": kind.strip(), "message": message.strip(), "text": text}
    for rule in RULES:
        m = rule.pattern.search(fields[rule.field])
        if m and not (rule.unless and rule.unless.search(text)):
            if rule.field == "text":
                # The body's line that decided is more telling than a generic message.
                start = text.rfind("\n", 0, m.start()) + 1
                end = text.find("\n", m.end())
                return rule.cause, text[start : end if end != -1 else len(text)].strip()
            return rule.cause, message
    return Cause.OTHER, message


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


class _Paths:
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
    case: ET.Element, suites: tuple[ET.Element, ...], paths: _Paths
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


def _result(case: ET.Element, suites: tuple[ET.Element, ...], paths: _Paths) -> TestResult:
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
    paths = _Paths(root)
    return tuple(_result(case, suites, paths) for case, suites in _cases(tree)), ()


@dataclass(frozen=True)
class _Signature:
    """What identifies one version of a report file: a rewrite changes at least one."""

    mtime_ns: int
    size: int
    inode: int


def _signatures(root: Path, pattern: str) -> dict[str, _Signature]:
    found: dict[str, _Signature] = {}
    for path in sorted(glob.glob(str(root / pattern), recursive=True))[:MAX_REPORTS]:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if os.path.isfile(path):
            found[path] = _Signature(st.st_mtime_ns, st.st_size, st.st_ino)
    return found


def _read_capped(path: Path) -> bytes | None:
    """The report's bytes, or ``None`` when it exceeds ``MAX_REPORT_BYTES``."""
    with path.open("rb") as fh:
        data = fh.read(MAX_REPORT_BYTES + 1)
    return None if len(data) > MAX_REPORT_BYTES else data


def _expand(command: str, workdir: Path) -> str:
    report = workdir / REPORT_NAME
    reporter = workdir / NODE_REPORTER_NAME
    if "{node_reporter}" in command:
        reporter.write_text(NODE_REPORTER, encoding="utf-8")
    return (
        command.replace("{junit_dir}", shlex.quote(str(workdir)))
        .replace("{junit}", shlex.quote(str(report)))
        .replace("{node_reporter}", shlex.quote(str(reporter)))
    )


class JunitRunner:
    """Runs ``test_command`` and reads the JUnit XML it writes."""

    name = "junit"
    selects_tests = False

    def __init__(self, config: Config) -> None:
        self.config = config

    def _command(self, root: Path) -> str:
        command = self.config.test_command or default_command(root, self.name)
        if command is None:
            raise ConfigError(
                "runner `junit` has no test_command and none can be guessed for this repo",
                "set `test_command` (with {junit} where the report should go, "
                "or `junit_xml`; see docs/runners.md)",
            )
        return command

    def _pattern(self, root: Path, command: str) -> str | None:
        configured = self.config.get("junit_xml")
        if configured:
            return str(configured)
        if any(p in command for p in ("{junit}", "{junit_dir}")):
            return None
        pattern = default_junit_xml(root, self.name)
        if pattern is None:
            raise ConfigError(
                "runner `junit` does not know where the test command writes its report",
                "put {junit} in `test_command` where the report path goes, or set `junit_xml`",
            )
        return pattern

    def run(self, request: RunRequest) -> RunResult:
        request = request.in_project()  # its ids are the runner's own, not paths
        root = request.root
        command = self._command(root)
        pattern = self._pattern(root, command)
        before = _signatures(root, pattern) if pattern else {}
        workdir = Path(tempfile.mkdtemp(prefix="tddgit-junit-"))
        try:
            proc = run_command(
                _expand(command, workdir),
                root,
                timeout=request.timeout,
                env=request.env,
                on_start=request.on_start,
            )
            reports = sorted(
                p for p in workdir.rglob("*") if p.suffix in (".xml", ".json") and p.is_file()
            )[:MAX_REPORTS]
            if pattern:
                after = _signatures(root, pattern)
                reports += [Path(p) for p, sig in after.items() if before.get(p) != sig]
            tests, notes = _read_reports(reports, root)
            tests = explain(tests, root)
            tests += unreported(tests, proc.exit_code, root, self.config.globs("test_globs"))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        notes = _run_notes(proc.exit_code, proc.timed_out, request.timeout, bool(reports)) + notes
        if proc.exit_code in (126, 127) and not tests and not proc.timed_out:
            raise RunnerError(
                f"the test command could not run (the shell exited {proc.exit_code}): {command}",
                "install the tool it calls or fix `test_command`",
            )
        result = RunResult(
            runner=self.name,
            command=(command,),
            exit_code=proc.exit_code,
            tests=tests,
            duration=proc.duration,
            timed_out=proc.timed_out,
            output_tail=proc.output_tail,
            notes=notes,
        )
        return select(result, request.tests)


def _read_reports(paths: list[Path], root: Path) -> tuple[tuple[TestResult, ...], tuple[str, ...]]:
    tests: list[TestResult] = []
    notes: list[str] = []
    for path in paths:
        label = _label(path, root)
        try:
            data = _read_capped(path)
        except OSError as exc:
            notes.append(f"cannot read the JUnit report {label}: {exc.strerror}")
            continue
        if data is None:
            notes.append(
                f"JUnit report {label} is over {MAX_REPORT_BYTES // (1024 * 1024)} MiB; ignored"
            )
            continue
        if path.suffix == ".json":
            from_json, problem = read_jest_json(data, _Paths(root).rel, classify)
            tests.extend(from_json)
            notes.extend([f"report {label} {problem}; ignored"] if problem else [])
            continue
        found, problems = parse_report(data, root=root, source=label)
        tests.extend(found)
        notes.extend(problems)
    dupes = sorted(i for i, n in Counter(t.id for t in tests).items() if n > 1)
    if dupes:
        notes.append(f"{plural(len(dupes), 'test id')} reported more than once, e.g. {dupes[0]!r}")
    return tuple(tests), tuple(notes)


def _label(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name if "tddgit-junit-" in str(path.parent) else str(path)


def _run_notes(exit_code: int, timed_out: bool, timeout: float, reported: bool) -> tuple[str, ...]:
    if timed_out:
        return (f"the test command timed out after {timeout:g}s; its process group was killed",)
    if not reported:
        return (
            f"the test command (exit code {exit_code}) wrote no JUnit report: "
            "nothing is known about single tests",
        )
    return ()
