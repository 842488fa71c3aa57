"""Test ids compared across steps, for every runner that reports per-test ids.

What the previous step knew (its evidence's ``test_ids`` and outcomes, or a collection of
HEAD where there is no evidence for a file) against what this run reports: which targets
are really new or changed cases, and which tests silently disappeared (missing,
deselected, skipped or xfailed). Nothing here knows a language: a test id is
``file::name[case]`` for pytest and any id whose file part comes before ``::``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tddgit.evidence import Evidence
from tddgit.gates.records import Reason
from tddgit.model import Outcome, RunResult, TestResult
from tddgit.targets import belongs

_PASSED = frozenset({Outcome.PASSED, Outcome.XPASSED})
_GONE = {Outcome.SKIPPED: "skipped", Outcome.XFAILED: "xfailed"}


def file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


@dataclass
class Known:
    """The test ids known at the previous step: id -> outcome there (None: collected,
    never run), and the test files that knowledge covers (None: every file)."""

    outcomes: dict[str, Outcome | None] = field(default_factory=dict)
    files: set[str] | None = field(default_factory=set)

    def covers(self, file: str) -> bool:
        return self.files is None or file in self.files

    def add_evidence(self, ev: Evidence) -> None:
        results = {t.id: t.outcome for t in (*ev.targets, *ev.others)}
        for tid in (*ev.test_ids, *results):
            self.outcomes.setdefault(tid, results.get(tid))
        if ev.scope == "all" and not ev.coarse:
            self.files = None
        elif self.files is not None:
            self.files.update(file_of(t) for t in self.outcomes)

    def add_collected(self, files: Iterable[str], ids: Iterable[str]) -> None:
        for tid in ids:
            self.outcomes.setdefault(tid, None)
        if self.files is not None:
            self.files.update(files)

    def missing_files(self, files: Iterable[str]) -> list[str]:
        return sorted({f for f in files if not self.covers(f)})


def complete(
    known: Known, files: Iterable[str], collect: Callable[[Sequence[str]], Sequence[str] | None]
) -> Known:
    """``known`` plus a collection (of HEAD) of the ``files`` it does not cover yet."""
    wanted = known.missing_files(files)
    if wanted:
        ids = collect(wanted)
        if ids is not None:
            known.add_collected(wanted, ids)
    return known


# -- targets -----------------------------------------------------------------------------------


def narrow(
    targets: Sequence[str],
    result: RunResult,
    known: Known,
    cases: Mapping[str, Sequence[str]],
) -> list[str]:
    """The targets as test cases: a target in ``cases`` (a test whose only change is its
    list of cases) becomes its new ids, plus the cases named there whose values changed;
    when it has none, it stays whole (a removed case is no red)."""
    out: list[str] = []
    for target in targets:
        if target not in cases:
            out.append(target)
            continue
        changed = {f"{target}[{case}]" for case in cases[target]}
        mine = [
            t.id
            for t in result.tests
            if belongs(t.id, t.file, target) and (t.id not in known.outcomes or t.id in changed)
        ]
        out.extend(mine or [target])
    return list(dict.fromkeys(out))


def pre_existing(
    reasons: list[Reason], result: RunResult, known: Known, targets: Sequence[str]
) -> list[Reason]:
    """``target-passes`` refusals of tests the previous step already had say so, and how
    to name the real target (a new id of this run when there is one)."""
    new = [
        t.id
        for t in result.tests
        if "::" in t.id and t.id not in known.outcomes and known.covers(file_of(t.id))
    ]
    new = [t for t in new if not any(belongs(t, None, target) for target in targets)] or new
    example = new[0] if new else "path::test[case]"
    out = []
    for r in reasons:
        if r.rule == "target-passes" and r.test is not None and r.test in known.outcomes:
            r = Reason(
                r.rule,
                f"{r.test}: passes already; it existed before this step, so it is not the new test",
                test=r.test,
                fix=f"name the new or changed test case as the target: tddgit red '{example}'",
            )
        out.append(r)
    return out


# -- tests that disappear ---------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """The previous step's tests that passed and are gone now, and the new ids."""

    removed: tuple[str, ...]  # no longer reported (deleted, renamed, deselected)
    hidden: tuple[tuple[str, str], ...]  # (id, "skipped" | "xfailed")
    added: tuple[str, ...]


def compare(known: Known, result: RunResult, in_scope: Callable[[str], bool]) -> Comparison:
    """What became of every test that passed at the previous step (outcome unknown:
    collected there, counted as passing) among the files this run is judged on."""
    now: dict[str, TestResult] = {t.id: t for t in result.tests}
    broken_files = {t.id for t in result.tests if "::" not in t.id}  # collection errors
    removed: list[str] = []
    hidden: list[tuple[str, str]] = []
    for tid, before in known.outcomes.items():
        file = file_of(tid)
        if "::" not in tid or (before is not None and before not in _PASSED):
            continue
        if not in_scope(file) or file in broken_files:
            continue  # not run this time, or its file broke: a regression, judged elsewhere
        t = now.get(tid)
        if t is None:
            removed.append(tid)
        elif t.outcome in _GONE:
            hidden.append((tid, _GONE[t.outcome]))
    added = [
        t.id
        for t in result.tests
        if "::" in t.id and t.id not in known.outcomes and known.covers(file_of(t.id))
    ]
    return Comparison(tuple(sorted(removed)), tuple(sorted(hidden)), tuple(added))


def removal_reasons(
    cmp: Comparison, *, count_missing: bool = True, limit: int = 20
) -> list[Reason]:
    """``tests-removed`` for each test that passed at the previous step and is now
    missing (when ``count_missing``), skipped or xfailed."""
    out: list[Reason] = []
    if count_missing:
        for tid in cmp.removed:
            out.append(
                Reason(
                    "tests-removed",
                    f"{tid}: passed at the previous step, now missing (deleted, renamed or "
                    "deselected)",
                    test=tid,
                )
            )
    for tid, how in cmp.hidden:
        out.append(
            Reason("tests-removed", f"{tid}: passed at the previous step, now {how}", test=tid)
        )
    return out[:limit]
