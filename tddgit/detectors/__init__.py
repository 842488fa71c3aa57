"""Static anti-pattern detectors (PRODUCT.md §9): Python by AST, JS/TS by a tolerant tokenizer.

Nothing here imports or runs the code it reads. Each detector returns ``DetectorFinding``
records; ``analyze_file`` picks the detector by file extension.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tddgit.languages import JS_EXTENSIONS as JS_EXTENSIONS
from tddgit.languages import PYTHON_EXTENSIONS as PYTHON_EXTENSIONS
from tddgit.languages import language_of as language_of

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any

    from tddgit.config import Config

OVER_MOCKING = "over-mocking"
BROAD_ASSERTION = "broad-assertion"
PARSE_ERROR = "parse-error"

SEVERITIES = ("note", "warning", "error")  # ascending


# One line per rule: what `detect --format sarif` and the audit show as its description.
RULE_DESCRIPTIONS: Mapping[str, str] = {
    OVER_MOCKING: "A test uses more mocks than antipatterns.max_mocks",
    BROAD_ASSERTION: (
        "A test asserts on more than antipatterns.max_asserts subjects, "
        "on a constant, or not at all"
    ),
    PARSE_ERROR: "A test file could not be parsed, so it was not checked",
}


@dataclass(frozen=True)
class DetectorFinding:
    """One anti-pattern found in one test (or a note about a whole file)."""

    rule: str  # OVER_MOCKING | BROAD_ASSERTION | PARSE_ERROR
    severity: str  # "note" | "warning" | "error"
    path: str
    line: int
    test: str | None  # qualified test name ("TestCls::test_x", "suite > case"); None for a file
    message: str  # one line naming the count and threshold, or the constant
    count: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "test": self.test,
            "message": self.message,
            "count": self.count,
        }


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else 0


def conftest_paths(path: str) -> list[str]:
    """Repo-relative paths of the conftest.py files pytest loads for ``path``, nearest first."""
    parts = path.split("/")[:-1]
    out = ["/".join([*parts[:i], "conftest.py"]) for i in range(len(parts), -1, -1)]
    return [p for p in out if p != path]


def analyze_file(
    path: str,
    source: str,
    config: Config,
    *,
    conftests: Mapping[str, str] | None = None,
) -> list[DetectorFinding]:
    """Run the detector for ``path``'s language with the configured thresholds."""
    language = language_of(path)
    max_mocks = int(config.get("antipatterns.max_mocks"))
    if language == "python":
        from tddgit.detectors.python import analyze_python

        max_asserts = int(config.get("antipatterns.max_asserts"))
        return analyze_python(
            source, path, max_mocks=max_mocks, max_asserts=max_asserts, conftests=conftests
        )
    if language == "js":
        from tddgit.detectors.js import analyze_js

        return analyze_js(source, path, max_mocks=max_mocks)
    return []
