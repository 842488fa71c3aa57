"""Each phase's comparison of this run's test ids with the previous step's (see ``ids``):
red narrows its targets to the new or changed cases, green and refactor refuse tests that
silently disappeared, and a test-side refactor records the ids it removed and added."""

from __future__ import annotations

from collections.abc import Sequence

from tddgit.config import Config
from tddgit.gates.ids import Comparison, Known, compare, complete, file_of, removal_reasons
from tddgit.gates.records import Plan, Reason
from tddgit.git import Repo
from tddgit.model import RunResult
from tddgit.notes import evidence_for_commit
from tddgit.paths import Kind
from tddgit.staged import StagedChange, tree_of


class Before:
    """What the previous step knew, read once and only when a comparison needs it."""

    def __init__(self, repo: Repo, config: Config, change: StagedChange) -> None:
        self.repo, self.config, self.change = repo, config, change
        self._known: Known | None = None

    def known(self, files: Sequence[str], plan: Plan) -> Known:
        if self._known is None:
            self._known = Known()
            evidence = list(plan.reds)
            if plan.previous is not None:
                evidence.append(plan.previous)
            head = self.change.head
            if not evidence and head is not None:
                tree = tree_of(self.repo, head)
                ev = evidence_for_commit(self.repo, head, tree, None, self.config.scope)
                evidence = [ev] if ev is not None else []
            for ev in evidence:
                self._known.add_evidence(ev)
        return complete(self._known, files, self._collect)

    def _collect(self, files: Sequence[str]) -> Sequence[str] | None:
        from tddgit.gates.execute import collect_at

        return collect_at(self.repo, self.config, self.change.head, files)


def _test_files(change: StagedChange) -> list[str]:
    return change.paths(Kind.TEST, include_deleted=True)


def red_targets(before: Before, plan: Plan, result: RunResult) -> None:
    """Narrow the red's targets to the new or changed cases (tests whose list of cases
    alone changed)."""
    if not plan.cases or result.coarse:
        return
    from tddgit.gates.ids import narrow

    known = before.known([file_of(t) for t in plan.cases], plan)
    plan.targets = narrow(plan.targets, result, known, plan.cases)


def red_reasons(
    before: Before, plan: Plan, result: RunResult, reasons: list[Reason]
) -> list[Reason]:
    """A target that passes and existed before: say so, and how to name the real one."""
    if not any(r.rule == "target-passes" and r.test for r in reasons):
        return reasons
    from tddgit.gates.ids import pre_existing

    files = sorted({file_of(r.test) for r in reasons if r.test})
    return pre_existing(reasons, result, before.known(files, plan), plan.targets)


def removed(before: Before, plan: Plan, result: RunResult, scope: str) -> Comparison | None:
    """What became of the previous step's passing tests in this run (None: no previous
    ids to compare with)."""
    if result.coarse or (not plan.reds and plan.previous is None):
        return None
    change = before.change
    known = before.known(_test_files(change), plan)
    ran = {file_of(t.id) for t in result.tests}
    gone = set(change.paths(Kind.TEST, include_deleted=True)) - set(
        change.paths(Kind.TEST, include_deleted=False)
    )
    return compare(known, result, lambda f: scope == "all" or f in ran or f in gone)


def green_reasons(before: Before, plan: Plan, result: RunResult, scope: str) -> list[Reason]:
    cmp = removed(before, plan, result, scope)
    return removal_reasons(cmp) if cmp is not None else []


def refactor_reasons(
    before: Before, plan: Plan, result: RunResult, scope: str
) -> tuple[list[Reason], Comparison | None]:
    """A production-side (or two-sided) refactor keeps exactly the previous ids; a
    test-side one may remove and add ids (recorded), but hides no passing test."""
    cmp = removed(before, plan, result, scope)
    if cmp is None:
        return [], None
    change = before.change
    if change.touches_tests and not change.touches_production:
        return removal_reasons(cmp, count_missing=False), cmp
    reasons = removal_reasons(cmp)
    reasons += [
        Reason("test-ids-changed", f"{new}: new test in a refactor", test=new)
        for new in cmp.added[:20]
    ]
    return reasons, cmp
