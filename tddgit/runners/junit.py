"""The ``junit`` runner: any test command that writes JUnit XML (PRODUCT.md §4).

The command runs in its own process group (``process.run_command``); its reports are read
by ``junitxml`` (JUnit XML, in the dialects people really produce) and ``jsreports`` (jest's
and vitest's JSON), the causes named by ``junitcauses``. Placeholders in ``test_command``
name paths tddgit owns, so no stale report can ever be read:

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
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tddgit.config import Config
from tddgit.console import plural
from tddgit.errors import ConfigError, RunnerError
from tddgit.model import RunResult, TestResult
from tddgit.runners import RunRequest, in_repo, jsrecord, select
from tddgit.runners.collection import unreported
from tddgit.runners.detect import default_command, default_junit_xml
from tddgit.runners.jscauses import explain
from tddgit.runners.jsreports import read_jest_json
from tddgit.runners.jssnapshots import obsolete_notes, refine
from tddgit.runners.junitcauses import classify
from tddgit.runners.junitxml import ReportPaths, parse_report
from tddgit.runners.node_reporter import NODE_REPORTER
from tddgit.runners.process import run_command

MAX_REPORTS = 2000
PLACEHOLDERS = ("{junit}", "{junit_dir}", "{node_reporter}")
REPORT_NAME = "report.xml"
NODE_REPORTER_NAME = "tddgit-node-reporter.mjs"
MAX_REPORT_BYTES = 32 * 1024 * 1024  # per report; reports are untrusted input


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
        subdir = request.subdir
        request = request.in_project()  # it names tests relative to the project
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
                env=_js_env(command, request.env, workdir),
                on_start=request.on_start,
            )
            reports = sorted(
                p for p in workdir.rglob("*") if p.suffix in (".xml", ".json") and p.is_file()
            )[:MAX_REPORTS]
            if pattern:
                after = _signatures(root, pattern)
                reports += [Path(p) for p, sig in after.items() if before.get(p) != sig]
            tests, notes = _read_reports(reports, root)
            tests = refine(explain(tests, root), root)
            seen = jsrecord.read(workdir, ReportPaths(root).rel)
            tests, tampered = jsrecord.cross_check(tests, seen, root, classify)
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
            tampered=tampered,
        )
        return in_repo(select(result, request.tests), subdir)


def _js_env(command: str, env: Mapping[str, str] | None, workdir: Path) -> dict[str, str] | None:
    """jest and vitest in CI mode: a snapshot the tree lacks fails instead of being
    written into the user's tree (vitest reads ``CI``; jest also gets ``--ci``); and
    tddgit's record of each test's outcome loaded into their processes (``jsrecord``)."""
    if not re.search(r"\b(jest|vitest)\b", command):
        return dict(env) if env is not None else None
    base = {**(env if env is not None else os.environ), "CI": "true"}
    return jsrecord.env(workdir, base)


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
            rel = ReportPaths(root).rel
            from_json, problem = read_jest_json(data, rel, classify)
            tests.extend(from_json)
            notes.extend([f"report {label} {problem}; ignored"] if problem else [])
            notes.extend(obsolete_notes(data, rel))
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
