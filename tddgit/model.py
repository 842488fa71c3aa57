"""Records shared by runners, gates, evidence and the audit (frozen dataclasses)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"  # setup / teardown / collection
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"


class Cause(str, Enum):
    ASSERTION = "assertion"
    NOT_IMPLEMENTED = "not-implemented"
    WRONG_BEHAVIOUR = "wrong-behaviour"  # the code under test raised (TypeError, KeyError...)
    SNAPSHOT_MISSING = "snapshot-missing"  # the expected value is not committed
    SYNTAX = "syntax"
    COLLECTION = "collection"
    FIXTURE = "fixture"
    ENVIRONMENT = "environment"
    TIMEOUT = "timeout"
    CRASH = "crash"
    OTHER = "other"


class Light(str, Enum):
    RED = "red"  # fails for the right reason
    AMBER = "amber"  # cannot tell: broken test, could not run
    GREEN = "green"  # passed


# A snapshot the tree lacks is a red too: its expected value is written with the code, in
# the green (which may add exactly those entries: tddgit.gates.snapshots).
RED_CAUSES = frozenset(
    {Cause.ASSERTION, Cause.NOT_IMPLEMENTED, Cause.WRONG_BEHAVIOUR, Cause.SNAPSHOT_MISSING}
)

# Outcomes that do not break a suite: what "still passes" means for pre-existing tests.
OK_OUTCOMES = frozenset({Outcome.PASSED, Outcome.SKIPPED, Outcome.XFAILED, Outcome.XPASSED})


def light_of(outcome: Outcome, cause: Cause | None) -> Light:
    """The traffic light of one test outcome (PRODUCT.md §1)."""
    if outcome in (Outcome.PASSED, Outcome.XPASSED, Outcome.XFAILED):
        return Light.GREEN
    if outcome is Outcome.SKIPPED:
        return Light.AMBER
    if outcome is Outcome.FAILED and cause in RED_CAUSES:
        return Light.RED
    if outcome is Outcome.ERROR and cause is Cause.NOT_IMPLEMENTED:
        # e.g. a collection error from importing a project module that does not exist yet
        return Light.RED
    return Light.AMBER


@dataclass(frozen=True)
class TestResult:
    """The outcome of one test (or of one file that could not be collected)."""

    __test__ = False  # not a pytest test class

    id: str
    outcome: Outcome
    cause: Cause | None = None
    message: str = ""
    file: str | None = None  # repo-relative path of the test file, when known
    line: int | None = None
    duration: float = 0.0

    @property
    def light(self) -> Light:
        return light_of(self.outcome, self.cause)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "outcome": self.outcome.value,
            "cause": self.cause.value if self.cause else None,
            "light": self.light.value,
            "message": self.message,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestResult:
        cause = data.get("cause")
        return cls(
            id=str(data["id"]),
            outcome=Outcome(data["outcome"]),
            cause=Cause(cause) if cause else None,
            message=str(data.get("message", "")),
        )


@dataclass(frozen=True)
class LineCoverage:
    """Line coverage of one measured file: its executable lines (coverage.py's statements,
    ``# pragma: no cover`` lines excluded) and those of them that ran."""

    statements: frozenset[int]
    executed: frozenset[int]
    # line -> the ids of the tests that ran it (empty when the runner cannot tell)
    tests: Mapping[int, frozenset[str]] = field(default_factory=dict)

    @property
    def missing(self) -> frozenset[int]:
        return self.statements - self.executed


@dataclass(frozen=True)
class RunResult:
    """One run of a test runner: what ran and every test's outcome."""

    runner: str
    command: tuple[str, ...]
    exit_code: int
    tests: tuple[TestResult, ...]
    duration: float = 0.0
    coarse: bool = False  # the runner only knows pass/fail of the whole suite
    timed_out: bool = False
    output_tail: str = ""  # the last lines of the runner's output, for diagnostics
    notes: tuple[str, ...] = field(default_factory=tuple)
    # Line coverage of the files the request asked to measure (root-relative path -> lines);
    # None when nothing was asked or it could not be measured (``coverage_note`` says why).
    coverage: Mapping[str, LineCoverage] | None = None
    coverage_note: str = ""
    # Tests whose report said other than what their call did (a plugin's report hook
    # rewrote it): one line each, naming the plugin where the runner can tell.
    tampered: tuple[str, ...] = ()

    def by_id(self) -> dict[str, TestResult]:
        return {t.id: t for t in self.tests}

    def totals(self) -> dict[str, int]:
        counts = Counter(t.outcome.value for t in self.tests)
        lights = Counter(t.light.value for t in self.tests)
        out = {o.value: counts.get(o.value, 0) for o in Outcome}
        out.update({f"light_{lt.value}": lights.get(lt.value, 0) for lt in Light})
        out["total"] = len(self.tests)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "runner": self.runner,
            "command": list(self.command),
            "exit_code": self.exit_code,
            "coarse": self.coarse,
            "timed_out": self.timed_out,
            "duration": round(self.duration, 3),
            "tests": [t.to_json() for t in self.tests],
            "totals": self.totals(),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class FileChange:
    """One file touched by a commit, as ``git log --name-status`` reports it."""

    status: str  # "A", "M", "D", "T", "R" (rename), "C" (copy)
    path: str  # the path after the change (the new name for renames)
    old_path: str | None = None  # for renames and copies


@dataclass(frozen=True)
class Commit:
    """One commit as the history reader sees it."""

    sha: str
    parents: tuple[str, ...]
    tree: str
    author_name: str
    author_email: str
    author_time: int  # unix seconds
    committer_time: int
    message: str  # the whole raw message
    trailers: tuple[tuple[str, str], ...] = ()
    files: tuple[FileChange, ...] = ()
    # (new blob, old blob) of each of ``files``, when the reader was asked for them; None
    # where a side does not exist (an added file has no old blob, a deleted one no new).
    blobs: tuple[tuple[str | None, str | None], ...] = ()

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    def trailer(self, key: str) -> str | None:
        """The last value of trailer ``key`` (case-insensitive), like git's own lookup."""
        found = None
        lk = key.lower()
        for k, v in self.trailers:
            if k.lower() == lk:
                found = v
        return found
