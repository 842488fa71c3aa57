"""cargo-nextest for the ``rust`` runner, when the project configures its JUnit report
(a ``[profile.<name>.junit]`` with a ``path`` in ``.config/nextest.toml``) and
``cargo-nextest`` is installed: the report gives the outcomes (ids ``binary-id::test``,
nextest's own: ``crate::tests::adds``, ``crate::mul::multiplies``), cargo's JSON
diagnostics on stdout the compile errors, read as for ``cargo test``.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from tddgit.model import Outcome, TestResult
from tddgit.runners.rustcauses import test_cause

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

MAX_REPORT = 32 * 1024 * 1024


@dataclass(frozen=True)
class Nextest:
    """A project's nextest run: the profile, and where its JUnit report is written."""

    profile: str
    report: Path  # where the JUnit report will be, for this project

    def written(self) -> tuple[int, int] | None:
        """The report's ``signature`` now."""
        return signature(self.report)

    def argv(self, offline: bool) -> list[str]:
        return [
            "cargo",
            "nextest",
            "run",
            "--no-fail-fast",
            "--cargo-message-format",
            "json",
            "--profile",
            self.profile,
            *(["--offline"] if offline else []),
        ]


def configured(project: Path) -> Nextest | None:
    """The nextest run the project asks for, or None (not configured, no JUnit report,
    or cargo-nextest not installed)."""
    path = project / ".config" / "nextest.toml"
    if not path.is_file() or shutil.which("cargo-nextest") is None:
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    profile = os.environ.get("NEXTEST_PROFILE", "default")
    profiles = data.get("profile")
    table = profiles.get(profile) if isinstance(profiles, dict) else None
    junit = table.get("junit") if isinstance(table, dict) else None
    report = junit.get("path") if isinstance(junit, dict) else None
    if not isinstance(report, str):
        return None
    target = os.environ.get("CARGO_TARGET_DIR") or str(project / "target")
    return Nextest(profile, Path(target) / "nextest" / profile / report)


def signature(path: Path) -> tuple[int, int] | None:
    """``path``'s modification time and size (None when it is not there): a report
    written by this run has another."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def read_junit(path: Path) -> tuple[list[TestResult], list[str]]:
    """nextest's JUnit report: a testsuite per binary, a testcase per test."""
    import xml.etree.ElementTree as ET  # only when a report is read: not on every gate's start

    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_REPORT + 1)
    except OSError as exc:
        return [], [f"cannot read nextest's JUnit report {path}: {exc.strerror}"]
    if len(data) > MAX_REPORT:
        return [], [f"nextest's JUnit report {path} is over 32 MiB; ignored"]
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        return [], [f"nextest's JUnit report {path} is not XML ({exc}); ignored"]
    tests: list[TestResult] = []
    for suite in root.iter("testsuite"):
        binary = suite.get("name", "")
        for case in suite.iter("testcase"):
            tests.append(_case(binary, case))
    return tests, []


def _case(binary: str, case: ET.Element) -> TestResult:
    test_id = f"{binary}::{case.get('name', '')}"
    try:
        duration = float(case.get("time", "0") or 0)
    except ValueError:
        duration = 0.0
    failed = case.find("failure")
    if failed is None:
        failed = case.find("error")
    if failed is not None:
        cause, message = test_cause(failed.text or failed.get("message") or "")
        return TestResult(test_id, Outcome.FAILED, cause, message, duration=duration)
    if case.find("skipped") is not None:
        return TestResult(test_id, Outcome.SKIPPED, duration=duration)
    return TestResult(test_id, Outcome.PASSED, duration=duration)
