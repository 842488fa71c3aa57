"""The cycle's steps: each a model-driven phase run with ``run_phase`` inside the worktree,
committed there through its gate (trailers, evidence note) when the gate holds.

The steps are phases looked up by name in ``PHASES`` when the cycle runs: a build without
green or refactor generation stops after red and says so. Routing: a refused gate goes
back to the model inside ``run_phase`` (red refused: amber, premature pass, no tests →
the red loop; green refused → the green loop); any other end (stuck, out of turns or
budget, a hanging or crashing suite, the provider unavailable) stops the cycle and goes
to the review with the reason. Nothing a model cannot fix is retried. With a plan task
(``options["task"]``) every commit also carries its ``GSD-Task`` trailer.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tddgit.config import Config
from tddgit.errors import TddgitError, UsageError
from tddgit.git import Repo
from tddgit.spec import Spec

if TYPE_CHECKING:
    from tddgit.agent.run import RunReport

STEPS = ("red", "green", "refactor")
Progress = Callable[[str], None]


@dataclass
class StepResult:
    name: str
    report: RunReport | None = None  # None: the run ended in an error (see CycleRun.stopped)
    commit: str | None = None

    @property
    def holds(self) -> bool:
        return self.commit is not None

    @property
    def nothing_to_do(self) -> bool:
        """A refactor the model found nothing for: a step that succeeded, with no commit."""
        from tddgit.agent.loop import NOTHING

        return self.report is not None and self.report.end.status == NOTHING

    @property
    def succeeded(self) -> bool:
        return self.holds or self.nothing_to_do


@dataclass
class CycleRun:
    steps: list[StepResult] = field(default_factory=list)
    stopped: str | None = None  # why the cycle ended before its last step
    unavailable: str | None = None  # the first step this build cannot run

    def cost(self) -> float | None:
        """The estimated cost so far (None: a model with no known price)."""
        total = 0.0
        for step in self.steps:
            if step.report is not None:
                cost = step.report.cost
                if cost is None:
                    return None
                total += cost
        return total

    @property
    def every_gate_held(self) -> bool:
        return self.stopped is None and all(s.succeeded for s in self.steps if s.report)


def cycle_steps(refactor: bool, start: str = "red") -> tuple[str, ...]:
    """The steps from ``start`` (green: a plan task whose red is already committed)."""
    steps = STEPS if refactor else STEPS[:2]
    return steps[steps.index(start) :]


def worktree_config(config: Config, user_root: Path) -> Config:
    """The worktree's configuration with the user's interpreter pinned (the worktree has
    no ``.venv`` of its own: git-ignored), so its tests run with the user's packages."""
    from tddgit.runners.pytest import find_python

    python = find_python(config, user_root)[0]
    return dataclasses.replace(config, values={**config.values, "python": python})


def run_steps(
    repo: Repo,
    config: Config,
    spec: Spec,
    names: tuple[str, ...],
    options: dict[str, Any],
    progress: Progress,
) -> CycleRun:
    """Run ``names`` in order in the worktree ``repo``; stop at the first that does not hold."""
    from tddgit.agent.loop import COST
    from tddgit.agent.phases import PHASES
    from tddgit.agent.run import RunOptions, run_phase

    run = CycleRun()
    max_cost = options.get("max_cost")
    for name in names:
        # Each step gets what is left of the cycle's budget, enforced after every reply: a
        # step that reaches it stops there (and does not hold), so no step starts over it.
        # Never 0, which llm.max_cost reads as "no limit".
        left = None if max_cost is None else max(max_cost - (run.cost() or 0.0), 1e-9)
        phase = PHASES.get(name)
        if phase is None:
            run.unavailable = name
            progress(
                f"cycle: generate {name} is not available in this build: "
                f"the cycle stops after {run.steps[-1].name if run.steps else 'nothing'}"
            )
            break
        progress(f"cycle: {name} step")
        try:
            report = run_phase(
                repo,
                config,
                phase,
                RunOptions(
                    spec,
                    (),
                    options.get("model"),
                    options.get("max_turns"),
                    max_cost=left,
                    cwd=repo.root,
                ),
                progress,
            )
        except UsageError:
            raise  # bad input (no key, a bad spec): exit 2, nothing to review
        except TddgitError as exc:  # the provider unavailable, a git failure...
            run.steps.append(StepResult(name))
            run.stopped = f"{name}: {exc.message}"
            break
        step = StepResult(name, report)
        run.steps.append(step)
        if step.nothing_to_do:
            continue  # "nothing to refactor" is a refactor that succeeded
        if not report.holds:
            run.stopped = f"{name}: {report.end.message}"
            if report.end.status == COST and max_cost is not None:
                run.stopped += f" (what was left of the cycle's --max-cost ${max_cost:g})"
            break
        step.commit = _commit(repo, config, spec, report, options.get("task"))
    return run


def _commit(repo: Repo, config: Config, spec: Spec, report: RunReport, task: str | None) -> str:
    from tddgit.commands.phase import STEP_NOUN, commit_model_step, task_trailer
    from tddgit.evidence import cache_put

    evidence = report.evidence()
    assert evidence is not None
    agent = dict(evidence.agent or {})
    agent["cycle"] = {
        "worktree_head": repo.head(),  # the commit the step's tests ran on top of
        "python": config.python,
        "tddgit_python": sys.executable,
    }
    evidence = dataclasses.replace(evidence, agent=agent)
    cache_put(repo, evidence)
    title = f"{spec.task.id} {spec.task.title}" if spec.task else spec.title
    message = (f"{spec.spec_id}: {title} ({STEP_NOUN[report.phase]})",)
    return commit_model_step(
        repo, report.phase, report.model, evidence, message, task_trailer(task), True
    )
