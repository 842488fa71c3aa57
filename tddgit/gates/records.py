"""The records a gate produces: a Verdict made of Reasons, and the Plan gathered before
the run."""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:  # annotations only: a gate builds a Plan before its tests start
    from tddgit.evidence import Evidence
    from tddgit.lineage import State
    from tddgit.model import RunResult, TestResult
    from tddgit.staged import StagedChange

PHASES = ("red", "green", "refactor")


@dataclass(frozen=True)
class Reason:
    """One reason a gate refused: a rule id, a one-line message, and the test it is about."""

    rule: str
    message: str
    test: str | None = None
    cause: str | None = None
    detail: str = ""
    fix: str = ""  # this refusal's own fix line, when the rule's generic one would mislead

    def to_json(self) -> dict[str, str | None]:
        return {
            "rule": self.rule,
            "message": self.message,
            "test": self.test,
            "cause": self.cause,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Verdict:
    """A gate's answer: whether the step holds, why not, and the evidence when it does."""

    phase: str
    holds: bool
    reasons: tuple[Reason, ...]
    change: StagedChange
    state: State
    evidence: Evidence | None = None
    run: RunResult | None = None
    notes: tuple[str, ...] = ()
    next_step: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "phase": self.phase,
            "holds": self.holds,
            "tree": self.change.tree,
            "parent": self.change.head,
            "reasons": [r.to_json() for r in self.reasons],
            "changes": self.change.summary(),
            "notes": list(self.notes),
            "next": self.next_step,
            "evidence": self.evidence.to_json() if self.evidence else None,
        }


class Plan:
    """What a gate will run and judge, gathered before the run: one per gate, filled in
    as it goes. A plain class: a dataclass is code generated and compiled at import, CPU
    a gate spends beside its test command (issue 29)."""

    __slots__ = (
        "baseline",
        "cases",
        "notes",
        "previous",
        "reasons",
        "reds",
        "targets",
        "test_config",
    )

    def __init__(
        self,
        targets: list[str] | None = None,
        reasons: list[Reason] | None = None,
        notes: list[str] | None = None,
        baseline: dict[str, TestResult] | None = None,
        previous: Evidence | None = None,
        cases: dict[str, list[str]] | None = None,
        reds: list[Evidence] | None = None,
        test_config: list[str] | None = None,
    ) -> None:
        self.targets = targets if targets is not None else []
        self.reasons = reasons if reasons is not None else []
        self.notes = notes if notes is not None else []
        self.baseline = baseline if baseline is not None else {}  # outcomes at the red
        self.previous = previous  # refactor: the previous phase's evidence
        # red: tests whose only change is their list of cases -> the explicit ids of
        # changed cases (the new cases are found by id after the run)
        self.cases = cases if cases is not None else {}
        self.reds = reds if reds is not None else []  # green: the open reds' evidence
        # changes to test configuration ("path: key"): the previous ids are then
        # collected in full, so a deselection anywhere shows by id
        self.test_config = test_config if test_config is not None else []
