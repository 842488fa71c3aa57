"""Each phase's comparison of this run's test ids with the previous step's (see ``ids``):
red narrows its targets to the new or changed cases, green and refactor refuse tests that
silently disappeared, and a test-side refactor records the ids it removed and added."""

from __future__ import annotations

from collections.abc import Sequence

from tddgit.config import Config
from tddgit.gates.records import Plan, Reason
from tddgit.gates.stubs import stub_notes  # here: this module loads while the tests run
from tddgit.git import Repo
from tddgit.model import OK_OUTCOMES, Light, RunResult
from tddgit.notes import evidence_for_commit
from tddgit.paths import Kind
from tddgit.staged import StagedChange, tree_of

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from tddgit.gates.ids import Comparison, Known

# ``tddgit.gates.ids`` (the comparison by id) is imported where it is used: a red whose
# run shows no regression, no case list and no test configuration compares nothing, and
# its import is CPU beside the test command (``gate.py`` loads it while the tests run
# when the phase will compare).


class Before:
    """What the previous step knew, read once and only when a comparison needs it."""

    def __init__(self, repo: Repo, config: Config, change: StagedChange) -> None:
        self.repo, self.config, self.change = repo, config, change
        self._known: Known | None = None

    def known(self, files: Sequence[str] | None, plan: Plan) -> Known:
        """The previous step's ids for ``files`` (None: for the whole suite, as the
        previous step's configuration collects it)."""
        from tddgit.gates.ids import Known, complete, file_of

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
        if files is None:
            if self._known.files is not None:
                ids = self._collect(None)
                if ids is not None:
                    self._known.add_collected((file_of(t) for t in ids), ids)
                    self._known.files = None
            return self._known
        return complete(self._known, files, self._collect)

    def source(self, path: str) -> str | None:
        """A file's text in the tree under test."""
        from tddgit.staged import read_blob

        blob = read_blob(self.repo, self.change.tree, path)
        return blob.decode("utf-8", "replace") if blob is not None else None

    def _collect(self, files: Sequence[str] | None) -> Sequence[str] | None:
        from tddgit.gates.execute import collect_at

        return collect_at(self.repo, self.config, self.change.head, files)


def _test_files(change: StagedChange) -> list[str]:
    return change.paths(Kind.TEST, include_deleted=True)


def red_targets(before: Before, plan: Plan, result: RunResult) -> None:
    """Narrow the red's targets to the new or changed cases (tests whose list of cases
    alone changed)."""
    if not plan.cases or result.coarse:
        return
    from tddgit.gates.ids import file_of, narrow

    known = before.known([file_of(t) for t in plan.cases], plan)
    plan.targets = narrow(plan.targets, result, known, plan.cases)


def red_reasons(
    before: Before, plan: Plan, result: RunResult, reasons: list[Reason]
) -> list[Reason]:
    """A test that failed at the previous step and still fails as expected is no
    regression (a red stacked on an open red); a target that passes and existed before:
    say so, and how to name the real one."""
    reasons = _still_failing(before, plan, result, reasons)
    plan.notes.extend(stub_notes(result, plan.targets, before.source))
    if not any(r.rule == "target-passes" and r.test for r in reasons):
        return reasons
    from tddgit.gates.ids import file_of, pre_existing

    files = sorted({file_of(r.test) for r in reasons if r.test})
    return pre_existing(reasons, result, before.known(files, plan), plan.targets)


def _still_failing(
    before: Before, plan: Plan, result: RunResult, reasons: list[Reason]
) -> list[Reason]:
    """Drop the ``regression`` of each test that failed at the previous step too and still
    fails for the right reason (red): the open red's own targets, under a second red."""
    failing = [r for r in reasons if r.rule == "regression" and r.test]
    if not failing:
        return reasons
    from tddgit.gates.ids import file_of

    known = before.known(sorted({file_of(str(r.test)) for r in failing}), plan)
    now = result.by_id()
    kept: list[Reason] = []
    for r in reasons:
        was = known.outcomes.get(r.test) if r in failing and r.test else None
        test = now.get(r.test) if r.test else None
        if was is not None and was not in OK_OUTCOMES and test and test.light is Light.RED:
            plan.notes.append(f"{r.test}: still fails as at the open red (both reds stay open)")
            continue
        kept.append(r)
    return kept


def red_config_reasons(before: Before, plan: Plan, result: RunResult) -> list[Reason]:
    """A red that changes test configuration ran the whole suite: every test the previous
    step's configuration collects and that passed there must still be reported, unskipped
    (``tests-removed`` by id otherwise), as for a green."""
    if not plan.test_config or result.coarse:
        return []
    from tddgit.gates.ids import compare, file_of, removal_reasons

    known = before.known(None, plan)
    ran = {file_of(t.id) for t in result.tests}
    # Without a full collection of the previous step, what it covers is still compared.
    return removal_reasons(compare(known, result, lambda f: known.covers(f) or f in ran))


def removed(before: Before, plan: Plan, result: RunResult, scope: str) -> Comparison | None:
    """What became of the previous step's passing tests in this run (None: no previous
    ids to compare with)."""
    if result.coarse or (not plan.reds and plan.previous is None):
        return None
    from tddgit.gates.ids import compare, file_of

    change = before.change
    # A change to test configuration may hide tests in any file: compare every id the
    # previous step's configuration collects (with scope all, every file was run).
    everything = bool(plan.test_config) and scope == "all"
    known = before.known(None if everything else _test_files(change), plan)
    ran = {file_of(t.id) for t in result.tests}
    gone = set(change.paths(Kind.TEST, include_deleted=True)) - set(
        change.paths(Kind.TEST, include_deleted=False)
    )
    return compare(known, result, lambda f: scope == "all" or f in ran or f in gone)


def green_reasons(before: Before, plan: Plan, result: RunResult, scope: str) -> list[Reason]:
    from tddgit.gates.ids import removal_reasons

    cmp = removed(before, plan, result, scope)
    return removal_reasons(cmp) if cmp is not None else []


def refactor_reasons(
    before: Before, plan: Plan, result: RunResult, scope: str
) -> tuple[list[Reason], Comparison | None]:
    """A production-side (or two-sided) refactor keeps exactly the previous ids; a
    test-side one may remove and add ids (recorded), but hides no passing test."""
    from tddgit.gates.ids import removal_reasons

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
