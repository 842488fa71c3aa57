"""The gate (PRODUCT.md §5): is the staged change the step it claims to be?

Data flows one way: read (staged tree, lineage state, earlier evidence) -> plan (checks
before the run) -> run the tests on exactly that tree -> judge (pure, per phase) -> a
``Verdict`` with evidence. A gate changes no file: the caller decides what to store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tddgit import __version__
from tddgit.config import Config
from tddgit.evidence import Evidence
from tddgit.gates.execute import BackgroundRun, early_selection, execute
from tddgit.gates.plan import check_transition, plan_green, plan_red, plan_refactor
from tddgit.gates.records import PHASES, Plan, Reason, Verdict
from tddgit.git import Repo
from tddgit.lineage import State, state_at
from tddgit.model import RunResult
from tddgit.paths import Classifier, Kind
from tddgit.staged import DirtyScan, StagedChange, staged_change

if TYPE_CHECKING:
    from tddgit.yagni import Added

_NEXT_OK = {
    "red": "next: make it pass with `tddgit green`",
    "green": "next: clean up with `tddgit refactor`, or start the next cycle with `tddgit red`",
    "refactor": "next: more `tddgit refactor`, or the next cycle with `tddgit red`",
}

FIXES = {
    "no-test-change": "stage a new or changed test (`git add tests/...`)",
    "no-targets": "stage a new or changed test function, or name the tests: tddgit red TEST...",
    "pre-test-code": "commit the test first; production code may only be stubs in a red step",
    "target-passes": "the test must fail before the code exists: test something not yet built",
    "target-amber": "fix the test itself (syntax, imports of third-party modules, fixtures) "
    "so it fails on an assertion or a missing project feature",
    "target-not-run": "check the test id (`tddgit run`), or name the tests explicitly",
    "regression": "fix what broke before committing this step",
    "test-failing": "make the whole suite pass before committing this step",
    "timeout": "speed the tests up or raise `timeout` in the configuration",
    "green-without-red": "commit a failing test first: `tddgit red`",
    "refactor-while-red": "make the red pass first: `tddgit green`",
    "refactor-without-green": "a refactor follows a green: `tddgit green` first",
    "missing-evidence": "name the red's tests: tddgit green TEST...",
    "test-edited-in-green": "leave the red's tests as they were (or set "
    "green.allow_test_edits = true)",
    "no-production-change": "a test that passes without implementation was not red; "
    "stage the production change",
    "target-fails": "keep implementing until the red tests pass",
    "refactor-changes-tests": "refactor one side at a time: unstage the tests or the code",
    "test-ids-changed": "a refactor keeps the same tests; add new tests in a red step",
    "yagni": "remove the code no test needs, or write the test that needs it in a new red "
    "(green.yagni = warn only records it)",
}


def run_gate(
    repo: Repo,
    config: Config,
    phase: str,
    tests: Sequence[str] = (),
    *,
    on_progress: Callable[[str], None] | None = None,
    amend: bool = False,
) -> Verdict:
    """Judge the staged change as a ``phase`` step (``amend``: a step that replaces HEAD,
    judged against HEAD's parent). Runs the tests unless a check before the run already
    refuses (the refusal is certain, and fast feedback matters)."""
    if phase not in PHASES:
        raise ValueError(phase)
    classifier = Classifier.from_config(config)
    dirty = DirtyScan(repo)  # its git calls run while the staged tree is read
    try:
        return _gate(repo, config, phase, tests, classifier, dirty, on_progress, amend)
    finally:
        dirty.close()


def _gate(
    repo: Repo,
    config: Config,
    phase: str,
    tests: Sequence[str],
    classifier: Classifier,
    dirty: DirtyScan,
    on_progress: Callable[[str], None] | None,
    amend: bool = False,
) -> Verdict:
    change = staged_change(repo, classifier, amend=amend)
    if not change.files and change.head is not None:
        from tddgit.errors import UsageError

        raise UsageError("nothing is staged", f"`git add` the {phase} step's files first")
    state = state_at(repo, change.head)
    plan = Plan()
    check_transition(state, phase, plan)
    if plan.reasons:
        return _refused(phase, plan, change, state)
    yagni = str(config.get("green.yagni")) if phase == "green" else "off"
    cover = _coverable(change) if yagni != "off" else ()
    background = BackgroundRun()
    started = time.time()
    try:
        early = early_selection(config, phase, change, tests)

        def run(selection: tuple[str, ...] | None) -> None:
            background.start(
                lambda on_start: execute(
                    repo,
                    config,
                    phase,
                    plan,
                    change,
                    on_progress,
                    cover,
                    selection=selection,
                    on_start=on_start,
                    dirty=dirty,
                )
            )

        if early is not None:
            run(early)  # start the tests now; the checks below run while they do
        _plan_phase(repo, config, phase, change, state, tests, plan)
        if plan.reasons:
            background.cancel()
            return _refused(phase, plan, change, state)
        added = _added_code(repo, change) if yagni != "off" else {}
        if not background.started:
            run(None)  # the selection comes from the plan
        result, run_notes = background.result()
    finally:
        background.cancel()  # no-op after a normal end; on Ctrl-C: kill, clean up, unwind
    # Imported only now: the tests were already running while Python loaded it.
    from tddgit.gates.judge import judge_green, judge_red, judge_refactor, split

    plan.notes.extend(run_notes)
    plan.notes.extend(result.notes)
    if result.coarse:
        plan.notes.append(f"the {result.runner} runner knows only the exit code: a coarse verdict")
    scope = str(config.get(f"{phase}.scope"))
    if phase == "red":
        reasons = judge_red(result, plan.targets, config.timeout)
    elif phase == "green":
        reasons = judge_green(result, plan.targets, config.timeout, plan.baseline)
    else:
        reasons, extra = judge_refactor(result, config.timeout, plan.previous, scope)
        plan.notes.extend(extra)
    findings: list[dict[str, Any]] = []
    if added and not reasons:  # judged only on a green that holds otherwise
        findings = _yagni(repo, classifier, state, added, result, yagni, plan, reasons)
    mine, others = split(result, plan.targets)
    evidence = Evidence(
        phase=phase,
        tree=change.tree,
        parent=change.head,
        runner=result.runner,
        command=result.command,
        started=started,
        duration=result.duration,
        tddgit_version=__version__,
        scope=scope,
        targets=tuple(mine),
        others=tuple(others),
        suite=result.totals(),
        test_ids=tuple(t.id for t in result.tests),
        changes={k: tuple(v) for k, v in change.summary().items()},
        findings=tuple(findings),
        coarse=result.coarse,
    )
    holds = not reasons
    return Verdict(
        phase,
        holds,
        tuple(reasons),
        change,
        state,
        evidence=evidence,
        run=result,
        notes=tuple(plan.notes),
        next_step=_NEXT_OK[phase] if holds else _next(reasons),
    )


def _plan_phase(
    repo: Repo,
    config: Config,
    phase: str,
    change: StagedChange,
    state: State,
    tests: Sequence[str],
    plan: Plan,
) -> None:
    if phase == "red":
        plan_red(repo, config, change, tests, plan)
    elif phase == "green":
        plan_green(repo, config, change, state, tests, plan)
    else:
        plan_refactor(repo, config, change, state, plan)


def _refused(phase: str, plan: Plan, change: StagedChange, state: State) -> Verdict:
    return Verdict(
        phase,
        False,
        tuple(plan.reasons),
        change,
        state,
        notes=tuple(plan.notes),
        next_step=_next(plan.reasons),
    )


def _added_code(repo: Repo, change: StagedChange) -> dict[str, Added]:
    from tddgit.yagni import added_production

    return added_production(repo, change)


def _coverable(change: StagedChange) -> tuple[str, ...]:
    """The staged Python production files whose line coverage a green run measures."""
    return tuple(
        p for p in change.paths(Kind.PRODUCTION, include_deleted=False) if p.endswith(".py")
    )


def _yagni(
    repo: Repo,
    classifier: Classifier,
    state: State,
    added: Mapping[str, Added],
    result: RunResult,
    policy: str,
    plan: Plan,
    reasons: list[Reason],
) -> list[dict[str, Any]]:
    """The green's yagni findings; with ``green.yagni = block`` each is also a refusal."""
    from tddgit.yagni import judge

    severity = "error" if policy == "block" else "warning"
    findings, notes = judge(repo, classifier, state, added, result, severity)
    plan.notes.extend(notes)
    if policy == "block":
        reasons.extend(Reason("yagni", str(f["message"])) for f in findings)
    return findings


def _next(reasons: Sequence[Reason]) -> str:
    seen: list[str] = []
    for r in reasons:
        fix = FIXES.get(r.rule)
        if fix and fix not in seen:
            seen.append(fix)
    return "; ".join(seen)
