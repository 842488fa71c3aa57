"""The red, green and refactor gates (PRODUCT.md §5): is the staged change the step it claims?

Data flows one way: read (staged tree, lineage state, earlier evidence) -> run the tests
on exactly that tree -> judge (pure functions per phase) -> a ``Verdict`` with evidence.
A gate changes no file: refusals commit nothing, and the caller decides what to store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tddgit import __version__
from tddgit.config import Config
from tddgit.evidence import Evidence, evidence_for_commit
from tddgit.git import Repo
from tddgit.lineage import State, allowed, state_at
from tddgit.model import OK_OUTCOMES, Light, Outcome, RunResult, TestResult
from tddgit.paths import Classifier, Kind
from tddgit.staged import StagedChange, diff_trees, dirty_paths, read_blob, staged_change, tree_of
from tddgit.targets import belongs, staged_targets

PHASES = ("red", "green", "refactor")

# Files that are "other" by kind but still steer a test run: a dirty one forces a snapshot.
_RUN_CONFIG_FILES = frozenset(
    {"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "conftest.py", "package.json"}
)


@dataclass(frozen=True)
class Reason:
    """One reason a gate refused: a rule id, a one-line message, and the test it is about."""

    rule: str
    message: str
    test: str | None = None
    cause: str | None = None
    detail: str = ""

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


@dataclass
class _Plan:
    """What a gate will run and judge, gathered before the run."""

    targets: list[str] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    baseline: dict[str, TestResult] = field(default_factory=dict)  # outcomes at the red
    previous: Evidence | None = None  # refactor: the previous phase's evidence


# --- before the run ---------------------------------------------------------------------

_TRANSITION_TEXT = {
    "green-without-red": "there is no open red on this branch to make green",
    "refactor-while-red": "a red is still open: refactor only on green",
    "refactor-without-green": "there is no green on this branch to refactor from",
}


def _check_transition(state: State, phase: str, plan: _Plan) -> None:
    rule = allowed(state, phase)
    if rule is not None:
        plan.reasons.append(Reason(rule, _TRANSITION_TEXT[rule]))


def _pre_test_code(repo: Repo, config: Config, change: StagedChange) -> list[Reason]:
    from tddgit.detectors.stubs import non_stub_additions

    reasons = []
    for f in change.files:
        if change.kinds[f.path] is not Kind.PRODUCTION or f.status == "D":
            continue
        if not config.flag("red.allow_stubs"):
            reasons.append(Reason("pre-test-code", f"{f.path}: production code in a red step"))
            continue
        if not f.path.endswith((".py", ".pyi")):
            reasons.append(
                Reason(
                    "pre-test-code",
                    f"{f.path}: production change in a red step (stubs are recognised in "
                    "Python only)",
                )
            )
            continue
        new = (read_blob(repo, change.tree, f.path) or b"").decode("utf-8", "replace")
        old_blob = read_blob(repo, change.base_tree, f.old_path or f.path)
        old = old_blob.decode("utf-8", "replace") if old_blob is not None else None
        for line in non_stub_additions(old, new, f.path):
            reasons.append(Reason("pre-test-code", line))
    return reasons


def _plan_red(
    repo: Repo, config: Config, change: StagedChange, tests: Sequence[str], plan: _Plan
) -> None:
    if not change.touches_tests:
        plan.reasons.append(
            Reason("no-test-change", "a red step must add or change a test; none is staged")
        )
    plan.reasons.extend(_pre_test_code(repo, config, change))
    plan.targets = list(tests) or staged_targets(repo, change)
    if not plan.targets and change.touches_tests:
        plan.reasons.append(
            Reason("no-targets", "no new or changed test found in the staged test files")
        )


def _plan_green(
    repo: Repo,
    config: Config,
    change: StagedChange,
    state: State,
    tests: Sequence[str],
    plan: _Plan,
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
        if not config.flag("green.allow_test_edits"):
            files = sorted({t.split("::", 1)[0] for t in ev.target_ids})
            for f in diff_trees(repo, ev.tree, change.tree, files):
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


def _plan_refactor(
    repo: Repo, config: Config, change: StagedChange, state: State, plan: _Plan
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


# --- the run --------------------------------------------------------------------------


def _needs_snapshot(repo: Repo, classifier: Classifier) -> list[str]:
    """Dirty paths that could change a run in the work tree (empty: run in place)."""
    risky = []
    for path in dirty_paths(repo):
        name = path.rsplit("/", 1)[-1]
        if classifier.kind(path) is not Kind.OTHER or name in _RUN_CONFIG_FILES:
            risky.append(path)
    return risky


@contextmanager
def _run_root(repo: Repo, tree: str, use_snapshot: bool) -> Iterator[tuple[Path, dict[str, str]]]:
    if not use_snapshot:
        yield repo.root, {}
        return
    import os

    from tddgit.snapshot import import_paths, snapshot

    with snapshot(repo, tree) as root:
        paths = import_paths(root)
        if os.environ.get("PYTHONPATH"):
            paths.append(os.environ["PYTHONPATH"])
        yield root, {"PYTHONPATH": os.pathsep.join(paths)}


def _selection(config: Config, phase: str, plan: _Plan, change: StagedChange) -> tuple[str, ...]:
    scope = str(config.get(f"{phase}.scope"))
    if scope == "all":
        return ()
    chosen = list(plan.targets)
    if scope == "changed":
        for path in change.paths(Kind.TEST, include_deleted=False):
            name = path.rsplit("/", 1)[-1]
            if name not in ("conftest.py", "__init__.py") and path not in chosen:
                chosen.append(path)
    # A file in the selection already covers its tests: keep pytest from running them twice.
    files = {c for c in chosen if "::" not in c}
    return tuple(c for c in chosen if "::" not in c or c.split("::", 1)[0] not in files)


def _execute(
    repo: Repo,
    config: Config,
    phase: str,
    plan: _Plan,
    change: StagedChange,
    on_progress: Callable[[str], None] | None,
) -> tuple[RunResult, list[str]]:
    import os

    from tddgit.runners import RunRequest, get_runner

    classifier = Classifier.from_config(config)
    risky = _needs_snapshot(repo, classifier)
    notes = []
    if risky:
        shown = ", ".join(risky[:5]) + (" …" if len(risky) > 5 else "")
        notes.append(f"ran on a snapshot of the index (unstaged or untracked: {shown})")
    runner = get_runner(config, repo.root)
    selection = _selection(config, phase, plan, change)
    if selection and not runner.selects_tests:
        notes.append(f"the {runner.name} runner runs its whole command; results filtered")
    with _run_root(repo, change.tree, bool(risky)) as (root, env_extra):
        env = {**os.environ, **env_extra} if env_extra else None
        request = RunRequest(
            root=root,
            tests=selection if runner.selects_tests else (),
            timeout=config.timeout,
            env=env,
            project_root=repo.root,
        )
        if on_progress:
            on_progress(f"{phase} gate: running {runner.name} on tree {change.tree[:10]}")
        result = runner.run(request)
    return result, notes


# --- judging (pure) ---------------------------------------------------------------------


def _results_for(result: RunResult, target: str) -> list[TestResult]:
    file_of_target = target.split("::", 1)[0]
    out = []
    for t in result.tests:
        if belongs(t.id, t.file, target):
            out.append(t)
        elif "::" not in t.id and t.id == file_of_target and t.outcome is Outcome.ERROR:
            out.append(t)  # a file-level collection error stands for every test in it
    return out


def _split(result: RunResult, targets: Sequence[str]) -> tuple[list[TestResult], list[TestResult]]:
    target_results: list[TestResult] = []
    for target in targets:
        for t in _results_for(result, target):
            if t not in target_results:
                target_results.append(t)
    others = [t for t in result.tests if t not in target_results]
    return target_results, others


def _describe(t: TestResult) -> str:
    cause = f" ({t.cause.value})" if t.cause else ""
    return f"{t.outcome.value}{cause}"


def _missing_targets(result: RunResult, targets: Sequence[str]) -> list[Reason]:
    return [
        Reason("target-not-run", f"{target}: the runner reported no result for it", test=target)
        for target in targets
        if not _results_for(result, target)
    ]


def _timeout_reason(result: RunResult, timeout: float) -> list[Reason]:
    if not result.timed_out:
        return []
    return [Reason("timeout", f"the test run was killed after {timeout:g} s", cause="timeout")]


def judge_red(result: RunResult, targets: Sequence[str], timeout: float) -> list[Reason]:
    reasons = _timeout_reason(result, timeout)
    if result.coarse:
        # Exit code only: a failing suite is all we can see.
        if result.exit_code == 0 and not result.timed_out:
            reasons.append(Reason("target-passes", "the test command passed: nothing is red"))
        return reasons
    reasons += _missing_targets(result, targets)
    mine, others = _split(result, targets)
    for t in mine:
        if t.light is Light.GREEN:
            reasons.append(
                Reason(
                    "target-passes", f"{t.id}: passes already, so it tests nothing new", test=t.id
                )
            )
        elif t.light is Light.AMBER:
            reasons.append(
                Reason(
                    "target-amber",
                    f"{t.id}: fails for the wrong reason: {_describe(t)}",
                    test=t.id,
                    cause=t.cause.value if t.cause else None,
                    detail=t.message,
                )
            )
    reasons += _broken(others, "pre-existing test")
    return reasons


def _broken(
    tests: Sequence[TestResult], what: str, baseline: dict[str, TestResult] | None = None
) -> list[Reason]:
    reasons = []
    for t in tests:
        if t.outcome in OK_OUTCOMES:
            continue
        before = baseline.get(t.id) if baseline is not None else None
        if baseline is not None and before is not None and before.outcome not in OK_OUTCOMES:
            continue  # it already failed at the red: not this step's regression
        rule = "regression" if before is not None or baseline is None else "test-failing"
        when = " (passed at the red)" if before is not None else ""
        reasons.append(
            Reason(
                rule,
                f"{t.id}: {what} now {_describe(t)}{when}",
                test=t.id,
                cause=t.cause.value if t.cause else None,
                detail=t.message,
            )
        )
    return reasons


def judge_green(
    result: RunResult, targets: Sequence[str], timeout: float, baseline: dict[str, TestResult]
) -> list[Reason]:
    reasons = _timeout_reason(result, timeout)
    if result.coarse:
        if result.exit_code != 0:
            reasons.append(Reason("target-fails", "the test command still fails"))
        return reasons
    reasons += _missing_targets(result, targets)
    mine, others = _split(result, targets)
    for t in mine:
        if t.outcome not in (Outcome.PASSED, Outcome.XPASSED):
            reasons.append(
                Reason(
                    "target-fails",
                    f"{t.id}: red target still {_describe(t)}",
                    test=t.id,
                    cause=t.cause.value if t.cause else None,
                    detail=t.message,
                )
            )
    reasons += _broken(others, "test", baseline)
    return reasons


def judge_refactor(
    result: RunResult, timeout: float, previous: Evidence | None, scope: str
) -> tuple[list[Reason], list[str]]:
    reasons = _timeout_reason(result, timeout)
    notes: list[str] = []
    if result.coarse:
        if result.exit_code != 0:
            reasons.append(Reason("test-failing", "the test command fails"))
        return reasons, notes
    reasons += _broken(result.tests, "test")
    if previous is None:
        notes.append("no evidence of the previous phase: test ids not compared")
    elif scope == "all" and previous.scope == "all" and previous.test_ids:
        now = {t.id for t in result.tests}
        before = set(previous.test_ids)
        for gone in sorted(before - now)[:20]:
            reasons.append(Reason("test-ids-changed", f"{gone}: test disappeared", test=gone))
        for new in sorted(now - before)[:20]:
            reasons.append(Reason("test-ids-changed", f"{new}: new test in a refactor", test=new))
    else:
        notes.append("the previous phase ran a different scope: test ids not compared")
    return reasons, notes


# --- the gate ---------------------------------------------------------------------------

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
}


def run_gate(
    repo: Repo,
    config: Config,
    phase: str,
    tests: Sequence[str] = (),
    *,
    on_progress: Callable[[str], None] | None = None,
) -> Verdict:
    """Judge the staged change as a ``phase`` step. Runs the tests unless a check before the
    run already refuses (the refusal is certain, and fast feedback matters)."""
    if phase not in PHASES:
        raise ValueError(phase)
    classifier = Classifier.from_config(config)
    change = staged_change(repo, classifier)
    if not change.files and change.head is not None:
        from tddgit.errors import UsageError

        raise UsageError("nothing is staged", f"`git add` the {phase} step's files first")
    state = state_at(repo, change.head)
    plan = _Plan()
    _check_transition(state, phase, plan)
    if phase == "red":
        _plan_red(repo, config, change, tests, plan)
    elif phase == "green":
        _plan_green(repo, config, change, state, tests, plan)
    else:
        _plan_refactor(repo, config, change, state, plan)
    if plan.reasons:
        return Verdict(
            phase,
            False,
            tuple(plan.reasons),
            change,
            state,
            notes=tuple(plan.notes),
            next_step=_next(plan.reasons),
        )
    started = time.time()
    result, run_notes = _execute(repo, config, phase, plan, change, on_progress)
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
    mine, others = _split(result, plan.targets)
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


def _next(reasons: Sequence[Reason]) -> str:
    seen: list[str] = []
    for r in reasons:
        fix = FIXES.get(r.rule)
        if fix and fix not in seen:
            seen.append(fix)
    return "; ".join(seen)
