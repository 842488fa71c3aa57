"""The ``rust`` runner: ``cargo test`` with libtest's JSON events (or cargo-nextest's
JUnit report when the project configures one: ``nextest``), one outcome per test
(ids ``crate::module::test``, ``crate::binary::test`` for ``tests/binary.rs``), compile
errors read from cargo's JSON diagnostics (``rustcauses``).

The command line and its environment are ``tddgit.cargocmd``'s (``RUSTC_BOOTSTRAP=1``
for libtest's JSON, ``--no-fail-fast``, ``--offline`` with ``CARGO_NET_OFFLINE``); cargo's
``Running …`` lines (on the same stream, in order) say which binary the events that follow
belong to.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tddgit.cargocmd import cargo_argv, cargo_env, doc_tests_possible, offline
from tddgit.config import Config
from tddgit.errors import RunnerError
from tddgit.model import Outcome, RunResult, TestResult
from tddgit.runners import RunRequest
from tddgit.runners.captured import run_captured, run_result
from tddgit.runners.rustcauses import compile_cause, test_cause
from tddgit.targets_rust import package_name

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from tddgit.runners.nextest import Nextest

_RUNNING = re.compile(r"^\s*Running (?:unittests )?(\S+)")
_DOCTESTS = re.compile(r"^\s*Doc-tests (\S+)")


class RustRunner:
    """Runs ``cargo test`` in the project directory and reads its JSON."""

    name = "rust"
    selects_tests = False

    def __init__(self, config: Config) -> None:
        self.config = config

    def run(self, request: RunRequest) -> RunResult:
        project = request.root / request.subdir
        crate = _crate(project)
        nextest = _nextest(project)
        argv = nextest.argv(offline()) if nextest else cargo_argv(doc_tests_possible(project))
        before = nextest.written() if nextest else None
        env = cargo_env(request.env or os.environ)
        install = "install Rust's cargo (rustup) or choose another runner"
        captured = run_captured(self.name, argv, project, request, env, merge=True, install=install)
        read = read_output(captured.stdout, crate)
        if nextest is not None:
            read.tests = [t for t in read.tests if t.outcome is Outcome.ERROR]  # compile errors
            if nextest.written() not in (None, before):
                from tddgit.runners.nextest import read_junit

                found, problems = read_junit(nextest.report)
                read.tests += found
                read.notes += problems
            elif not read.tests:
                read.notes.append(f"cargo nextest wrote no JUnit report at {nextest.report}")
        code = captured.proc.exit_code
        silent = (
            f"cargo test exited {code} and reported no test" if code and not read.tests else None
        )
        return run_result(
            self.name,
            argv,
            captured,
            read.tests,
            read.notes,
            request.timeout,
            silent_failure=silent,
        )


def _nextest(project: Path) -> Nextest | None:
    """The project's nextest run, or None; nextest's module is imported only where its
    configuration file exists (a plain cargo test never needs it: CPU beside the tests)."""
    if not (project / ".config" / "nextest.toml").is_file():
        return None
    from tddgit.runners.nextest import configured

    return configured(project)


def _crate(project: Path) -> str:
    try:
        text = (project / "Cargo.toml").read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RunnerError(
            f"the rust runner needs Cargo.toml in {project} ({exc.strerror})",
            "run tddgit in a cargo package, or set `project` to its directory",
        ) from exc
    name = package_name(text)
    if name is None:
        raise RunnerError(
            f"{project / 'Cargo.toml'} has no [package] name (a workspace root?)",
            "set `project` to one package's directory",
        )
    return name


class Read:
    """The tests and notes read from cargo's output (a plain class: see ``Captured``)."""

    __slots__ = ("notes", "tests")

    def __init__(self) -> None:
        self.tests: list[TestResult] = []
        self.notes: list[str] = []


def read_output(text: str, crate: str) -> Read:
    """Cargo's JSON messages, its ``Running`` lines and libtest's events, in order."""
    read = Read()
    prefix = crate
    errors: list[tuple[str | None, str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("{"):
            m = _RUNNING.match(line)
            if m:
                prefix = _binary_prefix(crate, m.group(1))
            elif _DOCTESTS.match(line):
                prefix = f"{crate}::doc"
            continue
        try:
            event = json.loads(stripped)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("reason") == "compiler-message":
            message = event.get("message") or {}
            if isinstance(message, dict) and message.get("level") == "error":
                code = message.get("code")
                code_id = code.get("code") if isinstance(code, dict) else None
                errors.append((str(code_id) if code_id else None, str(message.get("message", ""))))
        elif event.get("type") == "test" and event.get("event") in ("ok", "failed", "ignored"):
            read.tests.append(_test(prefix, event))
    if errors:
        cause, message = compile_cause(errors)
        read.tests.insert(
            0, TestResult(id=crate, outcome=Outcome.ERROR, cause=cause, message=message)
        )
    return read


def _binary_prefix(crate: str, source: str) -> str:
    """``crate`` for unit tests (``src/lib.rs``, ``src/main.rs``), ``crate::name`` for an
    integration test ``tests/name.rs``."""
    parts = source.split("/")
    if "tests" in parts[:-1] and source.endswith(".rs"):
        i = parts.index("tests")
        name = parts[-1][:-3] if len(parts) - i == 2 else parts[i + 1]
        return f"{crate}::{name}"
    return crate


def _test(prefix: str, event: dict[str, object]) -> TestResult:
    name = f"{prefix}::{event.get('name', '')}"
    seconds = event.get("exec_time")
    duration = float(seconds) if isinstance(seconds, (int, float)) else 0.0
    kind = event.get("event")
    if kind == "ok":
        return TestResult(id=name, outcome=Outcome.PASSED, duration=duration)
    if kind == "ignored":
        return TestResult(id=name, outcome=Outcome.SKIPPED, duration=duration)
    cause, message = test_cause(str(event.get("stdout", "") or ""))
    return TestResult(
        id=name, outcome=Outcome.FAILED, cause=cause, message=message, duration=duration
    )
