"""Stuck detection with one recovery, the best state seen, and yagni minimisation.

A run is stuck when the same failure comes back ``stuck_after`` times in a row on the same
files: the same gate refusal (its signature) or the same failing ``run_tests`` result
(tests, causes and normalised messages), with the changed files' contents unchanged. In a phase that
recovers (green, refactor) the first time puts the files back to the best state seen
(most targets passing, then fewest other tests failing; a tie goes to the latest) and tells the model to change its
approach; the second time ends the run. A holding green with added lines no test executes
is sent back once (``llm.minimize``); the holding state with fewer such lines is kept.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tddgit.agent.finish import Judgement
from tddgit.agent.workspace import Snapshot, Workspace
from tddgit.model import OK_OUTCOMES, Outcome, RunResult, TestResult


@dataclass
class StuckWatch:
    """The same signature ``limit`` times in a row is stuck."""

    limit: int
    last: str = ""
    count: int = 0

    def observe(self, signature: str) -> bool:
        self.count = self.count + 1 if signature == self.last else 1
        self.last = signature
        return self.count >= self.limit

    def reset(self) -> None:
        self.last, self.count = "", 0


@dataclass(frozen=True)
class Best:
    passing: int  # targets that pass
    failing: int  # other tests that fail
    snapshot: Snapshot

    def better_than(self, other: Best | None) -> bool:
        """At least as good: a tie goes to the later state (the model's latest idea)."""
        return other is None or (self.passing, -self.failing) >= (other.passing, -other.failing)

    def describe(self) -> str:
        return f"{self.passing} target(s) passing, {self.failing} other test(s) failing"


def score(tests: Iterable[TestResult], targets: Sequence[str]) -> tuple[int, int]:
    """(targets passing, other tests failing) of one run of the suite."""
    passing = failing = 0
    for t in tests:
        if is_target(t.id, targets):
            passing += t.outcome is Outcome.PASSED
        else:
            failing += t.outcome not in OK_OUTCOMES
    return passing, failing


def is_target(test_id: str, targets: Sequence[str]) -> bool:
    return any(test_id == t or test_id.startswith(t + "::") for t in targets)


# What differs between two runs of the same code: temporary paths, addresses, durations.
_VOLATILE = (
    (re.compile(r"\S*tddgit-\d+-[^\s/]*\S*|/tmp/\S+"), "<tmp>"),
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    (re.compile(r"\d+(?:\.\d+)?\s*(?:s|ms|seconds)\b"), "<time>"),
    (re.compile(r"\s+"), " "),
)


def normalise(message: str) -> str:
    for pattern, repl in _VOLATILE:
        message = pattern.sub(repl, message)
    return message.strip()


def tests_signature(result: RunResult) -> str:
    """Equal for two runs that fail the same tests the same way, messages included ("" when
    all pass): "assert 8 == 2" and "assert 15 == 2" are two different failures."""
    failing = sorted(
        f"{t.id}|{t.outcome.value}|{t.cause.value if t.cause else ''}|{normalise(t.message)}"
        for t in result.tests
        if t.outcome not in OK_OUTCOMES
    )
    if not failing:
        return ""
    return hashlib.sha256("\n".join(failing).encode()).hexdigest()[:16]


def files_signature(snapshot: Snapshot) -> str:
    """The changed files' contents: the same failure on different code is progress."""
    digest = hashlib.sha256()
    for rel in sorted(snapshot):
        data = snapshot[rel]
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(data).digest() if data is not None else b"-")
    return digest.hexdigest()[:16]


@dataclass
class Recovery:
    workspace: Workspace
    limit: int
    recovers: bool
    targets: Sequence[str] = ()
    gate: StuckWatch = field(init=False)
    tests: StuckWatch = field(init=False)
    best: Best | None = None
    recovered: bool = False

    def __post_init__(self) -> None:
        self.gate = StuckWatch(self.limit)
        self.tests = StuckWatch(self.limit)

    def saw_run(self, result: RunResult) -> bool:
        """A ``run_tests`` result: remember the state if best; True when stuck on it."""
        self._keep(*score(result.tests, self.targets))
        signature = tests_signature(result)
        files = files_signature(self.workspace.snapshot())
        return bool(signature) and self.tests.observe(f"{signature}:{files}")

    def saw_refusal(self, judgement: Judgement) -> bool:
        verdict = judgement.verdict
        if verdict is not None and verdict.run is not None:
            regressions = sum(r.rule in ("regression", "test-failing") for r in verdict.reasons)
            passing, _ = score(verdict.run.tests, self.targets)
            self._keep(passing, regressions)
        files = files_signature(self.workspace.snapshot())
        return self.gate.observe(f"{judgement.signature}:{files}")

    def _keep(self, passing: int, failing: int) -> None:
        if not self.workspace.touched:
            return
        candidate = Best(passing, failing, self.workspace.snapshot())
        if candidate.better_than(self.best):
            self.best = candidate

    def recover(self, failure: str) -> str | None:
        """The first time stuck: restore the best state and return what the model reads;
        None when the run must stop (stuck again, or a phase that does not recover)."""
        if not self.recovers or self.recovered:
            return None
        self.recovered = True
        self.gate.reset()
        self.tests.reset()
        where = "The files are as you left them."
        if self.best is not None:
            self.workspace.restore(self.best.snapshot)
            where = (
                "The files you changed are back to the best state seen so far "
                f"({self.best.describe()})."
            )
        return (
            f"You are stuck: {failure}. {where} Try a fundamentally different approach; do not repeat "
            "what failed. The next time you are stuck the run ends and nothing is kept."
        )


@dataclass(frozen=True)
class Held:
    """A holding green kept while the model is asked to remove unneeded lines."""

    judgement: Judgement
    yagni_lines: int
    snapshot: Snapshot


def yagni_lines(judgement: Judgement) -> int:
    total = 0
    for finding in _yagni(judgement):
        spans: Any = finding.get("lines") or []
        total += sum(int(end) - int(start) + 1 for start, end in spans)
    return total


def minimize_feedback(judgement: Judgement) -> str:
    lines = [
        judgement.feedback,
        "",
        "These lines are not needed by any test: remove them, or keep them if a test needs "
        "them. Then call finish again (the run keeps whichever holding version has fewer).",
    ]
    lines += [f"- {f.get('message', '')}" for f in _yagni(judgement)]
    return "\n".join(lines)


def _yagni(judgement: Judgement) -> list[dict[str, Any]]:
    verdict = judgement.verdict
    if verdict is None or verdict.evidence is None:
        return []
    return [dict(f) for f in verdict.evidence.findings if f.get("rule") == "yagni"]
