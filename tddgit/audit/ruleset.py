"""Every audit rule: its id, severity, title, why it matters and how to fix it.

The checks that fire them are in ``tddgit.audit.rules`` (and, for the detector rules, in
``tddgit.audit.detector_rules``); the ids here are the ones ``--fail-on``, the reports
and docs/rules.md use. The three detector rules (``over-mocking``, ``broad-assertion``,
``yagni``) are listed whether or not their checks run, so their ids are stable.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One audit rule: its id, default severity and one-line title."""

    id: str
    severity: str  # error | warning | note
    title: str
    why: str
    fix: str
    implemented: bool = True


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "pre-test-code",
            "warning",
            "Production code without a failing test",
            "production code was added with no open red and no test change (stubs allowed), "
            "or a red step added more than stubs",
            "write the failing test first (tddgit red), then the code (tddgit green)",
        ),
        Rule(
            "green-without-red",
            "error",
            "Green step without a red one",
            "a commit declares green but its lineage has no open red to make pass",
            "start each cycle with a red step that fails for the right reason",
        ),
        Rule(
            "test-after-fact",
            "warning",
            "Test written after the code",
            "a test file was created after the production file it tests (by name or import)",
            "write the test before the production file, in a red step",
        ),
        Rule(
            "red-lapsed",
            "note",
            "Inferred red that never went green",
            "a commit read as red from its test files alone (no trailer, message or "
            "evidence) saw no green within the red window (audit.red_window_commits, "
            "audit.red_window_days): it opens no cycle for what comes later",
            "declare phases (GSD-Phase trailers or tddgit red/green) so the audit need not "
            "guess, or widen the window if your cycles are long",
        ),
        Rule(
            "test-edited-in-green",
            "warning",
            "Green step edited the red's tests",
            "a green step changed the test files of its red, so the test may have been "
            "bent to the code",
            "keep the red's tests unchanged in green; change tests in a new red or a refactor",
        ),
        Rule(
            "refactor-changes-tests",
            "warning",
            "Refactor changed tests and code together",
            "a refactor step touched test and production files in one commit",
            "refactor one side at a time, keeping the other as the safety net",
        ),
        Rule(
            "tests-removed",
            "warning",
            "Refactor removed tests",
            "a test-side refactor removed test ids that passed at the previous step "
            "(renamed, merged, parametrized or deleted)",
            "check that the tests that replace them check the same behaviour",
        ),
        Rule(
            "refactor-while-red",
            "error",
            "Refactor with a failing test",
            "a refactor step was made while a red was still open",
            "make the red pass first (green), then refactor",
        ),
        Rule(
            "missing-evidence",
            "warning",
            "Declared phase without evidence",
            "a commit carries a GSD-Phase trailer but no tddgit evidence note",
            "commit through tddgit red/green/refactor or the hooks; fetch refs/notes/tddgit",
        ),
        Rule(
            "evidence-contradiction",
            "error",
            "Evidence contradicts the commit",
            "the evidence note is invalid, was recorded for another phase or tree, or its "
            "targets did not show what the phase claims",
            "re-run the step through tddgit so the evidence matches the commit",
        ),
        Rule(
            "evidence-rebased",
            "note",
            "Evidence from another base",
            "a rebase or cherry-pick moved the step onto another base: its evidence was "
            "judged on the tree before, for the same change, and its tests have not run on "
            "this tree",
            "run `tddgit audit --verify` to re-run the step on this tree",
        ),
        Rule(
            "squashed-steps",
            "note",
            "Steps squashed into one commit",
            "a squash merge's message lists several GSD-Phase steps; the audit reads them in "
            "order, but each step's own change and tests are no longer in this history",
            "merge pull requests with a merge commit or a rebase to keep each step, or run "
            "`tddgit notes carry` after the merge to keep the evidence",
        ),
        Rule(
            "over-mocking",
            "warning",
            "Test with too many mocks",
            "a test uses more mocks than antipatterns.max_mocks",
            "test through real collaborators or split the unit",
            implemented=False,
        ),
        Rule(
            "broad-assertion",
            "warning",
            "Test asserts too much or nothing",
            "a test asserts on many subjects, on a constant, or not at all",
            "one behaviour per test, with an assertion that can fail",
            implemented=False,
        ),
        Rule(
            "yagni",
            "note",
            "Code no test needs",
            "a green step added production code that no test executes",
            "add only the code the red's tests need",
            implemented=False,
        ),
        Rule(
            "unpinned-green-line",
            "note",
            "A green line no test demands",
            "a mutant of a line the green added survived every test that ran the line "
            "(audit --verify --mutate)",
            "add a test that fails for this change, or remove the line",
            implemented=False,
        ),
    )
}
