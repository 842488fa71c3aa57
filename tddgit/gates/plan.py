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
from tddgit.staged import StagedChange, base_blob, diff_trees, read_blob, tree_of

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
    reasons = []
    for f in change.files:
        if change.kinds[f.path] is not Kind.PRODUCTION or f.status == "D":
            continue
        if not config.flag("red.allow_stubs"):
            reasons.append(Reason("pre-test-code", f"{f.path}: production code in a red step"))
            continue
        # Here: a red of test files alone never loads the detectors' package.
        from tddgit.detectors.stubcheck import stub_checker

        check = stub_checker(f.path)
        if check is None:
            reasons.append(
                Reason(
                    "pre-test-code",
                    f"{f.path}: production change in a red step (stubs are recognised in "
                    "Python, JS/TS, Go and Rust only)",
                )
            )
            continue
        new = (read_blob(repo, change.tree, f.path) or b"").decode("utf-8", "replace")
        old_blob = base_blob(repo, change, f)
        old = old_blob.decode("utf-8", "replace") if old_blob is not None else None
        for line in check(old, new, f.path):
            reasons.append(Reason("pre-test-code", line))
    return reasons


def plan_red(
    repo: Repo, config: Config, change: StagedChange, tests: Sequence[str], plan: Plan
) -> None:
    from tddgit.targets import staged_test_changes  # lazily: the run starts before this

    staged, plan.cases = staged_test_changes(repo, change, config.globs("source_globs"))
    # A Rust source file's inline test module is a test change inside a production file.
    if not change.touches_tests and not staged:
        plan.reasons.append(
            Reason("no-test-change", "a red step must add or change a test; none is staged")
        )
    plan.reasons.extend(_pre_test_code(repo, config, change))
    plan.targets = list(tests) or staged
    if tests:
        plan.cases = {}
    if not plan.targets and (change.touches_tests or staged):
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
    # Stacked reds: a later red may change an earlier red's test file; the green leaves
    # every red's tests as the newest red committed them.
    newest = state.open_reds[-1]
    red_files: set[str] = set()
    for red in state.open_reds:
        ev = evidence_for_commit(repo, red, tree_of(repo, red), "red", config.scope)
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
            targets.extend(t for t in _red_targets(repo, config, red, ev) if t not in targets)
        plan.baseline.update({t.id: t for t in (*ev.targets, *ev.others)})
        plan.reds.append(ev)
        red_files.update(_red_test_files(repo, config, ev))
    if red_files and not config.flag("green.allow_test_edits"):
        for f in diff_trees(repo, tree_of(repo, newest), change.tree, sorted(red_files)):
            plan.reasons.append(
                Reason(
                    "test-edited-in-green",
                    f"{f.path}: the red's test file changed since {newest[:10]}",
                )
            )
    plan.targets = targets
    if not config.flag("green.allow_test_edits"):
        from tddgit.gates.snapshots import green_reasons

        plan.reasons.extend(green_reasons(repo, change, plan.reds))
    _check_test_config(repo, config, change, plan, "green", refuse=True)
    if not change.touches_production:
        plan.reasons.append(
            Reason(
                "no-production-change",
                "a green step must change production code; none is staged",
            )
        )


def _check_test_config(
    repo: Repo, config: Config, change: StagedChange, plan: Plan, phase: str, *, refuse: bool
) -> None:
    """Test configuration is the test side: a green or a production-side refactor that
    changes it is refused (unless ``<phase>.allow_test_config``); any phase records it,
    so the previous step's ids are compared in full."""
    from tddgit.gates import testconfig

    refuse = refuse and not config.flag(f"{phase}.allow_test_config")
    plan.test_config = testconfig.changes(repo, change, loaded=refuse)
    if not refuse:
        return
    where = "a green step" if phase == "green" else "a production-side refactor"
    for line in plan.test_config:
        plan.reasons.append(
            Reason("test-config-changed", f"{line}: test configuration changed in {where}")
        )


def _red_targets(repo: Repo, config: Config, red: str, ev: Evidence) -> list[str]:
    """The red's target ids. A go or rust red whose package did not build yet recorded
    the package's error (an id without ``::``) for its new tests: the green's targets are
    those tests, found in the red commit as the red gate found them."""
    ids = list(ev.target_ids)
    if ev.runner not in ("go", "rust") or all("::" in t for t in ids):
        return ids
    from tddgit.git import EMPTY_TREE
    from tddgit.paths import Classifier
    from tddgit.targets import belongs, staged_targets

    classifier = Classifier.from_config(config)
    base = tree_of(repo, ev.parent) if ev.parent else EMPTY_TREE
    files = tuple(diff_trees(repo, base, ev.tree))
    kinds = {f.path: classifier.kind(f.path) for f in files}
    change = StagedChange(tree=ev.tree, head=ev.parent, base_tree=base, files=files, kinds=kinds)
    named = staged_targets(repo, change, classifier.source_globs)
    out: list[str] = []
    for t in ids:
        inside = [n for n in named if "::" not in t and belongs(n, None, t)]
        out.extend(inside or [t])
    return list(dict.fromkeys(out))


def _red_test_files(repo: Repo, config: Config, ev: Evidence) -> list[str]:
    """The files a green may not edit: the test files the red's targets lie in or, when
    their ids name no test file (``go``: a package directory, ``rust``: a crate, the
    ``command`` runner: no target at all), the test files the red changed. Never an
    empty list standing for "every file" (diff_trees' meaning of no paths)."""
    from tddgit.paths import Classifier

    kind = Classifier.from_config(config).kind
    named = {t.split("::", 1)[0] for t in ev.target_ids}
    files = sorted(p for p in named if kind(p) is Kind.TEST)
    if files:
        return files
    from tddgit.git import EMPTY_TREE

    base = tree_of(repo, ev.parent) if ev.parent else EMPTY_TREE
    return sorted(f.path for f in diff_trees(repo, base, ev.tree) if kind(f.path) is Kind.TEST)


def _two_sided(repo: Repo, change: StagedChange) -> bool:
    """Whether the change touches tests and production code; a Rust source file's inline
    ``#[cfg(test)] mod`` is the test side of that file."""
    tests, production = change.touches_tests, False
    for f in change.files:
        if change.kinds[f.path] is not Kind.PRODUCTION:
            continue
        if f.status == "D" or not f.path.endswith(".rs"):
            production = True
            continue
        from tddgit.targets_rust import changed_sides

        new = (read_blob(repo, change.tree, f.path) or b"").decode("utf-8", "replace")
        old_blob = base_blob(repo, change, f)
        old = old_blob.decode("utf-8", "replace") if old_blob is not None else None
        production_side, test_side = changed_sides(old, new)
        tests = tests or test_side
        production = production or production_side
    return tests and production


def plan_refactor(
    repo: Repo, config: Config, change: StagedChange, state: State, plan: Plan
) -> None:
    _check_test_config(repo, config, change, plan, "refactor", refuse=change.touches_production)
    if _two_sided(repo, change):
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
            repo, state.phase_commit, tree_of(repo, state.phase_commit), None, config.scope
        )
