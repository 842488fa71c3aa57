"""The gate (PRODUCT.md §5): is the staged change the step it claims to be?

Data flows one way: read (staged tree, lineage state, earlier evidence) -> plan (checks
before the run) -> run the tests on exactly that tree -> judge (pure, per phase) -> a
``Verdict`` with evidence. A gate changes no file: the caller decides what to store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from tddgit import __version__
from tddgit import early as early_start
from tddgit.config import Config
from tddgit.gates.execute import BackgroundRun, early_selection, execute
from tddgit.gates.records import PHASES, Plan, Reason, Verdict
from tddgit.git import Repo
from tddgit.paths import Classifier, Kind
from tddgit.staged import DirtyScan, StagedChange, staged_change

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

# The lineage, the plan's checks, the evidence and the fix lines are imported where they
# are used, after the tests have started: until then every import is start-up time.
if TYPE_CHECKING:
    from typing import Any

    from tddgit.gates.ids import Comparison
    from tddgit.lineage import State
    from tddgit.model import RunResult
    from tddgit.yagni import Added

_NEXT_OK = {
    "red": "next: make it pass with `tddgit green`",
    "green": "next: clean up with `tddgit refactor`, or start the next cycle with `tddgit red`",
    "refactor": "next: more `tddgit refactor`, or the next cycle with `tddgit red`",
}


def run_gate(
    repo: Repo,
    config: Config,
    phase: str,
    tests: Sequence[str] = (),
    *,
    on_progress: Callable[[str], None] | None = None,
    amend: bool = False,
    head: tuple[str | None, str] | None = None,
) -> Verdict:
    """Judge the staged change as a ``phase`` step (``amend``: a step that replaces HEAD,
    judged against HEAD's parent). Runs the tests unless a check before the run already
    refuses (the refusal is certain, and fast feedback matters). ``head``: HEAD's commit
    and tree, when the caller has read them (``staged_change``)."""
    if phase not in PHASES:
        raise ValueError(phase)
    classifier = Classifier.from_config(config)
    dirty = DirtyScan(repo)  # its git calls run while the staged tree is read
    try:
        return _gate(repo, config, phase, tests, classifier, dirty, on_progress, amend, head)
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
    head: tuple[str | None, str] | None = None,
) -> Verdict:
    change = staged_change(repo, classifier, amend=amend, head=head)
    if config.scope is not None:  # one project of several: its files are its step
        change = change.within(config.scope.owns)
    if not change.files and change.head is not None:
        from tddgit.errors import UsageError

        raise UsageError("nothing is staged", f"`git add` the {phase} step's files first")
    plan = Plan()
    yagni = str(config.get("green.yagni")) if phase == "green" else "off"
    mutation = str(config.get("green.mutation")) if phase == "green" else "off"
    # A production-side refactor adds no line that no test executes (`untested-code`).
    untested = phase == "refactor" and change.touches_production
    measured = yagni != "off" or mutation != "off" or untested
    cover = _coverable(change) if measured else ()
    background = BackgroundRun()
    started = time.time()
    if phase == "red":
        # A red may change test configuration; what that hides anywhere in the suite is
        # compared by id, so such a red runs the whole suite (certain from the staged
        # configuration files alone: no listing of the tree before the run starts).
        from tddgit.gates import testconfig

        plan.test_config = testconfig.changes(repo, change, loaded=False)
    try:
        early = early_selection(config, phase, change, tests, everything=bool(plan.test_config))

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
            if not early_start.waiting():  # an early start runs already: no need to wait
                background.wait_spawned()
        # The lineage (which step may come next) is read while the tests start; a step
        # out of turn is refused all the same, its run cancelled.
        from tddgit.gates.plan import check_transition
        from tddgit.lineage import state_at

        state = state_at(repo, change.head, config.scope)
        check_transition(state, phase, plan)
        if plan.reasons:
            background.cancel()
            return _refused(phase, plan, change, state)
        _plan_phase(repo, config, phase, change, state, tests, plan)
        if plan.reasons:
            background.cancel()
            return _refused(phase, plan, change, state)
        added = _added_code(repo, change) if cover or mutation != "off" else {}
        if not background.started:
            run(None)  # the selection comes from the plan
            background.wait_spawned()
        # Loaded while the tests run: the verdict's modules cost no wait after them.
        from tddgit.gates import compare
        from tddgit.gates.judge import judge_green, judge_red, judge_refactor, split
        from tddgit.snapshot import sweep_while_running

        if phase != "red" or plan.cases or plan.test_config:  # a red compares by id rarely
            from tddgit.gates import ids as _by_id  # noqa: F401  (loaded now, used after the run)

        sweep_while_running()  # a dead tddgit's leftovers: now, not after the run

        result, run_notes = background.result()
    finally:
        background.cancel()  # no-op after a normal end; on Ctrl-C: kill, clean up, unwind
    plan.notes.extend(run_notes)
    plan.notes.extend(result.notes)
    if result.coarse:
        plan.notes.append(_coarse_note(phase, result))
    scope = str(config.get(f"{phase}.scope"))
    before = compare.Before(repo, config, change)
    ids: Comparison | None = None
    if phase == "red":
        compare.red_targets(before, plan, result)
        reasons = judge_red(result, plan.targets, config.timeout)
        reasons = compare.red_reasons(before, plan, result, reasons)
        reasons += compare.red_config_reasons(before, plan, result)
    elif phase == "green":
        reasons = judge_green(result, plan.targets, config.timeout, plan.baseline)
        reasons += compare.green_reasons(before, plan, result, scope)
    else:
        reasons, extra = judge_refactor(result, config.timeout, plan.previous, scope)
        plan.notes.extend(extra)
        more, ids = compare.refactor_reasons(before, plan, result, scope)
        reasons += more
        if not reasons and added:
            reasons += _untested(added, result, plan)
    findings: list[dict[str, Any]] = []
    if added and not reasons and phase == "green":  # judged only on a green that holds
        if yagni != "off" and cover:
            findings = _yagni(repo, classifier, state, added, result, yagni, plan, reasons)
        if mutation != "off" and not reasons:
            findings += _mutation(
                repo, config, change, added, result, mutation, plan, reasons, on_progress
            )
    mine, others = split(result, plan.targets)
    from tddgit.evidence import Evidence

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
        removed=ids.removed if ids is not None and change.touches_tests else (),
        added=ids.added if ids is not None and change.touches_tests else (),
    )
    holds = not reasons
    from tddgit.gates.fixes import next_line

    return Verdict(
        phase,
        holds,
        tuple(reasons),
        change,
        state,
        evidence=evidence,
        run=result,
        notes=tuple(plan.notes),
        next_step=_NEXT_OK[phase] if holds else next_line(reasons),
    )


def _coarse_note(phase: str, result: RunResult) -> str:
    """What a verdict from the exit code alone proves; for a red, plainly: not which test
    fails, nor why (the audit's reading of such a red is the same: ``evidence_problems``)."""
    if phase != "red":
        return f"the {result.runner} runner knows only the exit code: a coarse verdict"
    return (
        f"the {result.runner} runner knows only the exit code: this red proves only that "
        f"the test command fails (exit code {result.exit_code}), not which test fails nor "
        "why (a syntax error fails it too); the go, rust, junit and pytest runners tell"
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
    from tddgit.gates.plan import plan_green, plan_red, plan_refactor

    if phase == "red":
        plan_red(repo, config, change, tests, plan)
    elif phase == "green":
        plan_green(repo, config, change, state, tests, plan)
    else:
        plan_refactor(repo, config, change, state, plan)


def _refused(phase: str, plan: Plan, change: StagedChange, state: State) -> Verdict:
    from tddgit.gates.fixes import next_line

    return Verdict(
        phase,
        False,
        tuple(plan.reasons),
        change,
        state,
        notes=tuple(plan.notes),
        next_step=next_line(plan.reasons),
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


def _mutation(
    repo: Repo,
    config: Config,
    change: StagedChange,
    added: Mapping[str, Added],
    result: RunResult,
    policy: str,
    plan: Plan,
    reasons: list[Reason],
    on_progress: Callable[[str], None] | None,
) -> list[dict[str, Any]]:
    """Mutants of the green's changed lines that no test kills (`green.mutation`); with
    ``refuse`` each survivor is also a refusal."""
    from tddgit.mutation.check import RULE, check

    severity = "error" if policy == "refuse" else "warning"
    show = (lambda text: on_progress(f"green gate: {text}")) if on_progress else None
    report = check(repo, config, change.tree, added, result, severity, show)
    plan.notes.extend(report.notes)
    if policy == "refuse":
        reasons.extend(Reason(RULE, str(f["message"])) for f in report.findings)
    return list(report.findings)


def _untested(added: Mapping[str, Added], result: RunResult, plan: Plan) -> list[Reason]:
    """`untested-code`: the refactor's added production lines that no test executed."""
    from tddgit.yagni import untested_lines

    found, notes = untested_lines(added, result)
    plan.notes.extend(notes)
    return [Reason("untested-code", line) for line in found]
