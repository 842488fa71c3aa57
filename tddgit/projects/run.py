"""`tddgit run` across projects: each project's tests with its own runner, in its own
directory, one result with repository-relative ids."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from tddgit.git import Repo
from tddgit.model import RunResult
from tddgit.projects.model import Project, Projects


def which(projects: Projects, here: Project | None, tests: Sequence[str]) -> list[Project]:
    """The projects a run covers: those holding the named tests; else the project the
    command started in; else (the top of a repository of several) every project."""
    if tests:
        return list(projects.split(tests)) or ([here] if here else list(projects.all))
    return [here] if here is not None else list(projects.all)


def run_projects(repo: Repo, chosen: Sequence[Project], tests: Sequence[str]) -> RunResult:
    """Run each chosen project's tests (of ``tests``, the ones it holds; all when none)."""
    from tddgit.runners import run_work_tree

    results = []
    for project in chosen:
        own = [t for t in tests if project.scope.owns(t)] if len(chosen) > 1 else list(tests)
        results.append(run_work_tree(repo, project.config, own))
    if len(results) == 1:
        return results[0]
    first = results[0]
    return dataclasses.replace(
        first,
        runner="+".join(dict.fromkeys(r.runner for r in results)),
        command=tuple(c for r in results for c in r.command),
        exit_code=next((r.exit_code for r in results if r.exit_code not in (0, 5)), 0),
        tests=tuple(t for r in results for t in r.tests),
        duration=sum(r.duration for r in results),
        coarse=any(r.coarse for r in results),
        timed_out=any(r.timed_out for r in results),
        output_tail="\n".join(r.output_tail for r in results if r.output_tail)[-4000:],
        notes=tuple(
            f"[{p.label}] {n}" for p, r in zip(chosen, results, strict=True) for n in r.notes
        ),
    )
