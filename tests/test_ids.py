"""The comparison of test ids across steps works for any runner's ids (here jest-style
ids, as a JS runner reports them), not only pytest's."""

from __future__ import annotations

from tddgit.gates.ids import Known, compare, narrow, pre_existing, removal_reasons
from tddgit.gates.records import Reason
from tddgit.model import Outcome, RunResult, TestResult

SPEC = "src/cart.test.ts"


def run(*tests: tuple[str, Outcome]) -> RunResult:
    results = tuple(TestResult(tid, out, file=tid.split("::", 1)[0]) for tid, out in tests)
    return RunResult("vitest", ("vitest",), 0, results)


def known(*ids: str, files: set[str] | None = None) -> Known:
    k = Known(files=set() if files is None else files)
    k.add_collected([SPEC], ids)
    return k


def test_a_whole_file_target_narrows_to_its_new_ids() -> None:
    before = known(f"{SPEC}::cart > adds", f"{SPEC}::cart > removes")
    result = run(
        (f"{SPEC}::cart > adds", Outcome.PASSED),
        (f"{SPEC}::cart > removes", Outcome.PASSED),
        (f"{SPEC}::cart > totals", Outcome.FAILED),
    )
    assert narrow([SPEC], result, before, {SPEC: []}) == [f"{SPEC}::cart > totals"]
    assert narrow([SPEC], result, before, {}) == [SPEC]  # not asked to narrow: stays whole


def test_a_passing_target_that_existed_names_the_new_one() -> None:
    before = known(f"{SPEC}::cart > adds")
    result = run((f"{SPEC}::cart > adds", Outcome.PASSED), (f"{SPEC}::cart > tax", Outcome.FAILED))
    reason = Reason("target-passes", "passes", test=f"{SPEC}::cart > adds")
    (out,) = pre_existing([reason], result, before, [f"{SPEC}::cart > adds"])
    assert "existed before this step" in out.message
    assert out.fix.endswith(f"tddgit red '{SPEC}::cart > tax'")


def test_removed_skipped_and_added_ids_of_any_runner() -> None:
    before = known(f"{SPEC}::a", f"{SPEC}::b", f"{SPEC}::c")
    result = run(
        (f"{SPEC}::a", Outcome.PASSED),
        (f"{SPEC}::b", Outcome.SKIPPED),
        (f"{SPEC}::d", Outcome.PASSED),
    )
    cmp = compare(before, result, lambda f: True)
    assert cmp.removed == (f"{SPEC}::c",)
    assert cmp.hidden == ((f"{SPEC}::b", "skipped"),)
    assert cmp.added == (f"{SPEC}::d",)
    assert [r.test for r in removal_reasons(cmp)] == [f"{SPEC}::c", f"{SPEC}::b"]
    assert [r.test for r in removal_reasons(cmp, count_missing=False)] == [f"{SPEC}::b"]
    assert compare(before, result, lambda f: False).removed == ()  # out of this run's scope
