"""Checks before the run: the transition, what the change contains, and the targets.

A refusal found here is certain, so the gate returns it without running any test.
"""

from __future__ import annotations

from collections.abc import Sequence

from tddgit.config import Config
from tddgit.evidence import Evidence
from tddgit.gates.records import Plan, Reason
from tddgit.git import Repo
from tddgit.lineage import State, allowed
from tddgit.notes import evidence_for_commit
from tddgit.paths import Kind
from tddgit.staged import StagedChange, diff_trees, read_blob, tree_of

TRANSITION_TEXT = {
    "green-without-red": "there is no open red on this branch to make green",
    "refactor-while-red": "a red is still open: refactor only on green",
    "refactor-without-green": "there is no green on this branch to refactor from",
}


def check_transition(state: State, phase: str, plan: Plan) -> None:
    rule = allowed(state, phase)
    if rule is not None:
        plan.reasons.append(Reason(rule, TRANSITION_TEXT[rule]))


def _pre_test_code(repo: Repo, config: Config, change: StagedChange) -> list[Reason]:
    from tddgit.detectors import language_of
    from tddgit.detectors.jsstubs import non_stub_additions_js
    from tddgit.detectors.stubs import non_stub_additions

    reasons = []
    for f in change.files:
        if change.kinds[f.path] is not Kind.PRODUCTION or f.status == "D":
            continue
        if not config.flag("red.allow_stubs"):
            reasons.append(Reason("pre-test-code", f"{f.path}: production code in a red step"))
            continue
        is_js = language_of(f.path) == "js"
        if not is_js and not f.path.endswith((".py", ".pyi")):
            reasons.append(
                Reason(
                    "pre-test-code",
                    f"{f.path}: production change in a red step (stubs are recognised in "
                    "Python and JS/TS only)",
                )
            )
            continue
        new = (read_blob(repo, change.tree, f.path) or b"").decode("utf-8", "replace")
        old_blob = read_blob(repo, change.base_tree, f.old_path or f.path)
        old = old_blob.decode("utf-8", "replace") if old_blob is not None else None
        check = non_stub_additions_js if is_js else non_stub_additions
        for line in check(old, new, f.path):
            reasons.append(Reason("pre-test-code", line))
    return reasons


def plan_red(
    repo: Repo, config: Config, change: StagedChange, tests: Sequence[str], plan: Plan
) -> None:
    if not change.touches_tests:
        plan.reasons.append(
            Reason("no-test-change", "a red step must add or change a test; none is staged")
        )
    plan.reasons.extend(_pre_test_code(repo, config, change))
    from tddgit.targets import staged_test_changes  # lazily: the run starts before this

    staged, plan.cases = staged_test_changes(repo, change, config.globs("source_globs"))
    plan.targets = list(tests) or staged
    if tests:
        plan.cases = {}
    if not plan.targets and change.touches_tests:
        plan.reasons.append(
            Reason("no-targets", "no new or changed test found in the staged test files")
        )


def plan_green(
    repo: Repo,
    config: Config,
    change: StagedChange,
    state: State,
    tests: Sequence[str],
    plan: Plan,
) -> None:
    if not state.open_reds:
        return  # the transition check already refused
    targets: list[str] = list(tests)
    for red in state.open_reds:
        ev = evidence_for_commit(repo, red, tree_of(repo, red), "red")
        if ev is None:
            if not tests:
                plan.reasons.append(
                    Reason(
                        "missing-evidence",
                        f"red commit {red[:10]} has no tddgit evidence, so its target tests "
                        "are unknown",
                    )
                )
            continue
        if not tests:
            targets.extend(t.id for t in ev.targets if t.id not in targets)
        plan.baseline.update({t.id: t for t in (*ev.targets, *ev.others)})
        plan.reds.append(ev)
        if not config.flag("green.allow_test_edits"):
            files = _red_test_files(repo, config, ev)
            for f in diff_trees(repo, ev.tree, change.tree, files) if files else ():
                plan.reasons.append(
                    Reason(
                        "test-edited-in-green",
                        f"{f.path}: the red's test file changed since {red[:10]}",
                    )
                )
    plan.targets = targets
    if not change.touches_production:
        plan.reasons.append(
            Reason(
                "no-production-change",
                "a green step must change production code; none is staged",
            )
        )


def _red_test_files(repo: Repo, config: Config, ev: Evidence) -> list[str]:
    """The files a green may not edit: those of the red's targets or, for a red without
    per-test outcomes (the ``command`` runner), the test files the red changed. Never an
    empty list standing for "every file" (diff_trees' meaning of no paths)."""
    files = sorted({t.split("::", 1)[0] for t in ev.target_ids})
    if files:
        return files
    from tddgit.git import EMPTY_TREE
    from tddgit.paths import Classifier

    kind = Classifier.from_config(config).kind
    base = tree_of(repo, ev.parent) if ev.parent else EMPTY_TREE
    return sorted(f.path for f in diff_trees(repo, base, ev.tree) if kind(f.path) is Kind.TEST)


def plan_refactor(
    repo: Repo, config: Config, change: StagedChange, state: State, plan: Plan
) -> None:
    if change.touches_tests and change.touches_production:
        if config.flag("refactor.one_side"):
            plan.reasons.append(
                Reason(
                    "refactor-changes-tests",
                    "this refactor changes tests and production code together",
                )
            )
        else:
            plan.notes.append("two-sided refactor (refactor.one_side = false)")
    if state.phase_commit is not None:
        plan.previous = evidence_for_commit(
            repo, state.phase_commit, tree_of(repo, state.phase_commit), None
        )
