"""Which project a model-driven step works in (``tddgit generate``, ``tddgit cycle``;
docs/monorepo.md): the project of the spec's components, else the one the command started
in, else the only one the lineage allows the phase in (a green: the project whose red is
open). The step's gate still judges every project the change touches
(``projects.gate.run_step``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tddgit.errors import UsageError
from tddgit.git import Repo
from tddgit.projects.model import Project, Projects


def pick_project(
    repo: Repo, projects: Projects, phase: str, cwd: Path, paths: Iterable[str] = ()
) -> Project:
    """The project of a ``phase`` step; ``paths`` are the spec's files (repo-relative)."""
    if not projects.multi:
        return projects.all[0]
    named = list(dict.fromkeys(p for p in map(projects.of, paths) if p is not None))
    if len(named) == 1:
        return named[0]
    try:
        here = projects.here(cwd.resolve().relative_to(repo.root.resolve()).as_posix())
    except ValueError:
        here = None
    if here is not None and (not named or here in named):
        return here
    candidates = named or list(projects.all)
    if phase != "red":
        from tddgit.lineage import allowed, state_at

        head = repo.head()
        able = [p for p in candidates if allowed(state_at(repo, head, p.scope), phase) is None]
        if len(able) == 1:
            return able[0]
        if able:
            candidates = able
    names = ", ".join(p.label for p in candidates)
    raise UsageError(
        f"the repository holds several projects ({names}) and nothing says which this "
        f"{phase} step is for",
        "run the command in the project's directory (or with -C DIR), or name the project's "
        "files in the spec's components",
    )
