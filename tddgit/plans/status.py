"""Which task's red, green and refactor really happened, read from the history.

The history comes from the audit's reader (``tddgit.history``, one streamed ``git log``)
and the evidence from the notes (``tddgit.evidence``): a commit with ``GSD-Task: IMPL-N``
and ``GSD-Phase: <phase>`` trailers counts for that phase of that task only when its
evidence note is valid and was recorded for that phase and that commit's tree (the audit's
own test, ``evidence_problems``). A trailer alone is "declared, no evidence". Commits a
later ``git revert`` undid do not count. A task is complete when its red and its green
count; its refactor is ticked when one happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from tddgit.git import Repo
from tddgit.plans import PHASES, TASK_TRAILER
from tddgit.plans.model import Plan


@dataclass(frozen=True)
class Step:
    commit: str
    phase: str
    evidence: bool
    why: str = ""  # why the evidence does not count (when it does not)


@dataclass
class TaskProgress:
    steps: dict[str, list[Step]] = field(default_factory=lambda: {p: [] for p in PHASES})

    def done(self, phase: str) -> list[str]:
        return [s.commit for s in self.steps[phase] if s.evidence]

    def declared(self, phase: str) -> list[Step]:
        return [s for s in self.steps[phase] if not s.evidence]

    @property
    def complete(self) -> bool:
        return bool(self.done("red")) and bool(self.done("green"))

    @property
    def started(self) -> bool:
        return any(self.steps[p] for p in PHASES)


@dataclass(frozen=True)
class PlanStatus:
    plan: Plan
    progress: dict[str, TaskProgress]
    unknown: tuple[tuple[str, str], ...]  # (commit, task id) for ids the plan lacks

    def state(self, task_id: str) -> str:
        p = self.progress[task_id]
        if p.complete:
            return "complete"
        return "in progress" if any(p.done(ph) for ph in PHASES) else "not started"

    def next(self) -> tuple[str, str] | None:
        """(task, phase) to do next: the first task not complete whose dependencies are."""
        for t in self.plan.tasks:
            p = self.progress[t.id]
            if p.complete:
                continue
            if all(self.progress[d].complete for d in t.depends_on if d in self.progress):
                return t.id, "green" if p.done("red") else "red"
        return None

    def done_map(self) -> dict[str, dict[str, list[str]]]:
        return {t: {ph: p.done(ph) for ph in PHASES} for t, p in self.progress.items()}

    def to_json(self) -> dict[str, Any]:
        nxt = self.next()
        return {
            "schema": "tddgit.plan-status/1",
            "spec_id": self.plan.spec_id,
            "total": len(self.plan.tasks),
            "complete": sum(1 for p in self.progress.values() if p.complete),
            "tasks": [
                {
                    "id": t.id,
                    "title": t.title,
                    "state": self.state(t.id),
                    "depends_on": list(t.depends_on),
                    "phases": {
                        ph: {
                            "done": bool(self.progress[t.id].done(ph)),
                            "commits": self.progress[t.id].done(ph),
                            "declared_no_evidence": [
                                {"commit": s.commit, "why": s.why}
                                for s in self.progress[t.id].declared(ph)
                            ],
                        }
                        for ph in PHASES
                    },
                }
                for t in self.plan.tasks
            ],
            "next": None
            if nxt is None
            else {"task": nxt[0], "phase": nxt[1], "command": f"tddgit {nxt[1]} --task {nxt[0]}"},
            "unknown_tasks": [{"commit": c, "task": t} for c, t in self.unknown],
        }


def plan_status(repo: Repo, plan: Plan) -> PlanStatus:
    from tddgit.audit.phases import TRAILER_KEY, reverted_commit, trailer_phase
    from tddgit.audit.rebased import Move, moved_unchanged, tree_alone
    from tddgit.audit.rules import evidence_problems
    from tddgit.evidence import EvidenceError
    from tddgit.history import open_history
    from tddgit.notes import read_all_notes

    progress = {t.id: TaskProgress() for t in plan.tasks}
    unknown: list[tuple[str, str]] = []
    if repo.head() is None:
        return PlanStatus(plan, progress, ())
    notes = read_all_notes(repo)
    found: list[tuple[str, str, Step]] = []  # (commit, task, step) in history order
    moves: list[Move] = []
    undone: set[str] = set()
    with open_history(repo, ("HEAD",), with_files=False, reverse=True) as commits:
        for c in commits:
            if c.is_merge:
                continue
            reverted = reverted_commit(c.message)
            if reverted:
                undone.add(reverted)
            task = c.trailer(TASK_TRAILER) if c.trailers else None
            if not task:
                continue
            phase = trailer_phase(c.trailer(TRAILER_KEY))
            if phase is None:
                continue
            ev = notes.get(c.sha)
            if ev is None:
                step = Step(c.sha, phase, False, "no tddgit evidence note")
            elif isinstance(ev, EvidenceError):
                step = Step(c.sha, phase, False, f"invalid evidence note: {ev}")
            else:
                reasons = evidence_problems(ev, c.tree, phase)
                step = Step(c.sha, phase, not reasons, "; ".join(reasons))
                if reasons and c.parents and tree_alone(ev, phase):
                    moves.append((c.sha, c.parents[0], ev))  # perhaps rebased: see below
            found.append((c.sha, task, step))
    # A step a rebase or cherry-pick carried onto another base, with the change its
    # evidence judged, counts (the audit's ``evidence-rebased``).
    moved = moved_unchanged(repo, moves)
    found = [(c, t, replace(s, evidence=True, why="") if c in moved else s) for c, t, s in found]
    for sha, task, step in found:
        if any(sha.startswith(u) for u in undone):
            continue
        if task in progress:
            progress[task].steps[step.phase].append(step)
        else:
            unknown.append((sha, task))
    return PlanStatus(plan, progress, tuple(unknown))
