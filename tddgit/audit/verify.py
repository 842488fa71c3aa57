"""``tddgit audit --verify``: re-run the tests at declared red and green commits.

The audit itself never runs repository code; this opt-in check does, and only in
throwaway worktrees: ``git worktree add --detach`` into a temporary directory (hooks off),
removed in ``finally`` and followed by ``git worktree prune``, so the user's work tree,
index, untracked files and branches are never touched.

A declared (``GSD-Phase`` trailer) **red** claims its targets fail for the right reason at
that commit; a declared **green** claims the targets of its cycle's red pass there. The
targets come from the evidence note, else from the tests the red commit added or changed.
Where a re-run disagrees, an ``evidence-contradiction`` finding says what was claimed and
what was observed. A run that cannot tell (a timeout, a missing third-party package, a
runner that cannot start) gives the same rule at warning severity, marked inconclusive.

Plugs into ``AuditOptions.post_checks``: ``Verifier(...)`` is called with the report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tddgit.audit.checkview import finding
from tddgit.audit.model import AuditReport, CommitRecord, Finding
from tddgit.config import Config
from tddgit.console import plural
from tddgit.errors import TddgitError
from tddgit.git import EMPTY_TREE, Repo
from tddgit.model import Cause, Light, Outcome, RunResult, TestResult
from tddgit.worktrees import detached as worktree
from tddgit.worktrees import prune

# Causes that say the run could not tell, not that the claim is false.
_INCONCLUSIVE = frozenset({Cause.TIMEOUT, Cause.ENVIRONMENT})
_MESSAGE_CHARS = 300


@dataclass(frozen=True)
class Claim:
    """What a declared commit claims, and which tests show it."""

    commit: str
    phase: str  # red | green
    targets: tuple[str, ...]  # test ids or test files; () = the whole suite
    source: str  # where the targets came from
    claimed: tuple[Mapping[str, Any], ...] = ()  # the evidence's outcomes, when it has them
    related: tuple[str, ...] = ()
    # a step a squash carries (verify_squash): run at the squash's parent plus the change
    # from ``base`` to ``tree``; ``broken`` (verdict, problem) when it cannot be
    step: tuple[str, str] | None = None  # (base, tree)
    broken: tuple[str, str] | None = None
    label: str = ""  # e.g. "squash step 1/3"


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    status: str  # holds | contradiction | inconclusive
    problems: tuple[str, ...]
    observed: tuple[Mapping[str, Any], ...]
    duration: float = 0.0


class Verifier:
    """A post-check: re-runs every declared red/green commit of the report, ``jobs`` at a
    time; ``verdicts`` holds the outcome of each after the call."""

    def __init__(
        self,
        repo: Repo,
        config: Config,
        *,
        jobs: int = 2,
        timeout: float | None = None,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        self.repo = repo
        self.config = config
        self.jobs = max(1, jobs)
        self.timeout = float(timeout if timeout is not None else config.timeout)
        self.on_event = on_event
        self.verdicts: list[Verdict] = []

    def __call__(self, report: AuditReport) -> list[Finding]:
        claims = claims_of(self.repo, self.config, report)
        self.verdicts = self._run_all(claims)
        order = {id(c): n for n, c in enumerate(claims)}  # a squash has a claim per step
        self.verdicts.sort(key=lambda v: order[id(v.claim)])
        return [f for v in self.verdicts if (f := to_finding(v, self.timeout)) is not None]

    def summary(self) -> str:
        counts = {s: sum(1 for v in self.verdicts if v.status == s) for s in _STATUSES}
        return (
            f"verify: re-ran {plural(len(self.verdicts), 'declared commit')}: "
            f"{counts['holds']} hold, "
            f"{counts['contradiction']} contradicted, {counts['inconclusive']} inconclusive"
        )

    def _run_all(self, claims: Sequence[Claim]) -> list[Verdict]:
        if not claims:
            return []
        from tddgit.runners import get_runner

        runner = get_runner(self.config, self.repo.root)
        verdicts: list[Verdict] = []
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="tddgit-verify")
        try:
            futures = [pool.submit(self._verify, runner, claim) for claim in claims]
            for done in as_completed(futures):
                verdict = done.result()
                verdicts.append(verdict)
                self._event(len(verdicts), len(claims), verdict)
        except BaseException:
            # Ctrl-C or a crash: queued commits never start; runs in flight end at the
            # latest at their timeout, and each removes its worktree on the way out.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            pool.shutdown(wait=True)
            prune(self.repo)
        return verdicts

    def _event(self, n: int, total: int, v: Verdict) -> None:
        if self.on_event is None:
            return
        why = f": {v.problems[0]}" if v.problems else ""
        c = v.claim
        label = f" ({c.label})" if c.label else ""
        self.on_event(f"verify {n}/{total}: {c.commit[:10]} {c.phase}{label} {v.status}{why}")

    def _verify(self, runner: Any, claim: Claim) -> Verdict:
        from tddgit.audit.verify_squash import step_tree

        if claim.broken is not None:
            return Verdict(claim, claim.broken[0], (claim.broken[1],), ())
        try:
            if claim.step is None:
                with worktree(self.repo, claim.commit) as root:
                    result = _run(runner, root, self.repo.root, claim.targets, self.timeout)
            else:
                parent = claim.related[0]
                with worktree(self.repo, parent) as at, step_tree(self.repo, at, *claim.step):
                    result = _run(runner, at, self.repo.root, claim.targets, self.timeout)
        except TddgitError as exc:
            return Verdict(claim, "inconclusive", (f"could not run the tests: {exc}",), ())
        return judge(claim, result, self.timeout)


_STATUSES = ("holds", "contradiction", "inconclusive")


def _run(runner: Any, root: Path, project: Path, targets: Sequence[str], timeout: float) -> Any:
    from tddgit.runners import RunRequest
    from tddgit.snapshot import import_paths

    # Imports must resolve to the worktree, not to an editable install of the user's tree.
    paths = import_paths(root)
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    request = RunRequest(
        root=root,
        tests=tuple(targets) if runner.selects_tests else (),
        timeout=timeout,
        env=env,
        project_root=project,
    )
    return runner.run(request)


# --- what each declared commit claims --------------------------------------------------


def claims_of(repo: Repo, config: Config, report: AuditReport) -> list[Claim]:
    """One claim per declared red or green step of the report, oldest first."""
    from tddgit.paths import Classifier

    classifier = Classifier.from_config(config)
    by_sha = {c.sha: c for c in report.commits}
    red_of = {c.green: c.red for c in report.cycles if c.green is not None}
    red_targets: dict[str, tuple[tuple[str, ...], str, tuple[Mapping[str, Any], ...]]] = {}

    def targets_of_red(sha: str) -> tuple[tuple[str, ...], str, tuple[Mapping[str, Any], ...]]:
        if sha not in red_targets:
            red_targets[sha] = _red_targets(repo, classifier, by_sha[sha])
        return red_targets[sha]

    claims: list[Claim] = []
    for c in report.commits:
        if c.phase_source == "trailer" and c.rule == "squash" and c.is_step:
            carried = _squash_claims(repo, c)
            if carried is not None:  # each step re-proved, not the squash as a whole
                claims += carried
                continue
        if c.phase_source != "trailer" or c.phase not in ("red", "green") or not c.is_step:
            continue
        if c.phase == "red":
            targets, source, claimed = targets_of_red(c.sha)
            claims.append(Claim(c.sha, "red", targets, source, claimed))
            continue
        red = red_of.get(c.sha)
        if red is not None and red in by_sha:
            targets, source, _ = targets_of_red(red)
            claims.append(
                Claim(c.sha, "green", targets, f"its red {red[:10]}: {source}", (), (red,))
            )
        elif _evidence_ids(c):
            claims.append(Claim(c.sha, "green", _evidence_ids(c), "its evidence note", ()))
        else:
            claims.append(Claim(c.sha, "green", (), "no red and no evidence: the whole suite"))
    return claims


def _squash_claims(repo: Repo, c: CommitRecord) -> list[Claim] | None:
    from tddgit.audit.verify_squash import carried_steps, mismatch

    steps = carried_steps(repo, c)
    if steps is None:
        return None
    broken = mismatch(repo, c, steps)
    base, out = steps[0].parent or "", []
    for n, s in enumerate(steps, 1):
        if s.phase not in ("red", "green"):
            continue  # a refactor claims no outcome of its own to re-run
        label = f"squash step {n}/{len(steps)}"
        claimed = tuple(t.to_json() for t in s.targets)
        step = (base, s.tree)
        out.append(
            Claim(c.sha, s.phase, s.target_ids, label, claimed, c.parents[:1], step, broken, label)
        )
    return out


def _evidence_ids(c: CommitRecord) -> tuple[str, ...]:
    ev = c.evidence
    if ev is None or not ev.valid:
        return ()
    return tuple(str(t["id"]) for t in ev.targets if isinstance(t.get("id"), str))


def _red_targets(
    repo: Repo, classifier: Any, c: CommitRecord
) -> tuple[tuple[str, ...], str, tuple[Mapping[str, Any], ...]]:
    ids = _evidence_ids(c)
    if ids and c.evidence is not None:
        return ids, "the evidence note", c.evidence.targets
    return _changed_tests(repo, classifier, c), "the tests changed in the red commit", ()


def _changed_tests(repo: Repo, classifier: Any, c: CommitRecord) -> tuple[str, ...]:
    from tddgit.staged import StagedChange, diff_trees, tree_of
    from tddgit.targets import staged_targets

    tree = tree_of(repo, c.sha)
    parent = c.parents[0] if c.parents else None
    base = tree_of(repo, parent) if parent else EMPTY_TREE
    files = tuple(diff_trees(repo, base, tree))
    kinds = {f.path: classifier.kind(f.path) for f in files}
    change = StagedChange(tree=tree, head=parent, base_tree=base, files=files, kinds=kinds)
    return tuple(staged_targets(repo, change, classifier.source_globs))


# --- judging a re-run --------------------------------------------------------------------


def judge(claim: Claim, result: RunResult, timeout: float) -> Verdict:
    """Does the re-run show what the commit claims? (pure)"""
    from tddgit.gates.judge import results_for

    observed = tuple(_observed(t) for t in result.tests)
    if result.timed_out:
        killed = f"the test run was killed after {timeout:g} s (amber: timeout)"
        return Verdict(claim, "inconclusive", (killed,), observed, result.duration)
    if result.coarse:
        return _judge_exit_code(claim, result, observed)
    hard: list[str] = []
    soft: list[str] = []
    chosen: list[TestResult] = []
    for target in claim.targets:
        found = results_for(result, target)
        if not found:
            hard.append(f"{target}: not found at this commit")
        chosen += found
    if not claim.targets:
        chosen = list(result.tests)
        if not chosen:
            hard.append("no test ran")
    for t in chosen:
        problem = _problem(claim.phase, t)
        if problem is not None:
            (soft if t.cause in _INCONCLUSIVE else hard).append(problem)
    status = "contradiction" if hard else "inconclusive" if soft else "holds"
    shown = tuple(_observed(t) for t in chosen) or observed
    return Verdict(claim, status, tuple(hard + soft), shown, result.duration)


def _problem(phase: str, t: TestResult) -> str | None:
    how = t.outcome.value + (f" ({t.cause.value})" if t.cause else "")
    if phase == "red":
        if t.light is Light.GREEN:
            return f"{t.id}: passed, so it was not red"
        if t.light is Light.AMBER:
            return f"{t.id}: {how}, not a failure for the right reason"
        return None
    if t.outcome in (Outcome.PASSED, Outcome.XPASSED):
        return None
    return f"{t.id}: still {how}"


def _judge_exit_code(
    claim: Claim, result: RunResult, observed: tuple[Mapping[str, Any], ...]
) -> Verdict:
    failed = result.exit_code != 0
    problem: str | None = None
    if claim.phase == "red" and not failed:
        problem = "the test command passed (exit code 0), so nothing was red"
    if claim.phase == "green" and failed:
        problem = f"the test command still failed (exit code {result.exit_code})"
    status = "contradiction" if problem else "holds"
    return Verdict(claim, status, (problem,) if problem else (), observed, result.duration)


def _observed(t: TestResult) -> dict[str, Any]:
    return {
        "id": t.id,
        "outcome": t.outcome.value,
        "cause": t.cause.value if t.cause else None,
        "light": t.light.value,
        "message": t.message[:_MESSAGE_CHARS],
    }


_CLAIM_TEXT = {
    "red": "its targets fail for the right reason",
    "green": "its red's targets pass",
}


def to_finding(v: Verdict, timeout: float) -> Finding | None:
    if v.status == "holds":
        return None
    c = v.claim
    claim = _CLAIM_TEXT[c.phase]
    if c.claimed:
        claim += " (evidence: " + ", ".join(_short(t) for t in c.claimed[:5]) + ")"
    problems = "; ".join(v.problems[:5]) + (" …" if len(v.problems) > 5 else "")
    if v.status == "contradiction":
        message = f"declared {c.phase}, but the re-run contradicts it: {problems}"
    else:
        message = f"declared {c.phase} could not be confirmed by the re-run: {problems}"
    data: dict[str, object] = {
        "verify": {
            "verdict": v.status,
            "phase": c.phase,
            "claimed": claim,
            "targets": list(c.targets),
            "targets_from": c.source,
            "observed": [dict(o) for o in v.observed[:50]],
            "problems": list(v.problems),
            "timeout": timeout,
            "duration": round(v.duration, 3),
        }
    }
    f = finding(
        "evidence-contradiction",
        c.commit,
        f"{message} (claimed: {claim})",
        related=c.related,
        files=tuple(sorted({t.split("::", 1)[0] for t in c.targets}))[:20],
        data=data,
    )
    # Inconclusive is not a proven lie: it must not weigh like one.
    return f if v.status == "contradiction" else replace(f, severity="warning")


def _short(t: Mapping[str, Any]) -> str:
    cause = f" ({t['cause']})" if t.get("cause") else ""
    return f"{t.get('id')} {t.get('outcome')}{cause}"
