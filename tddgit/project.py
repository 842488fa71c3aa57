"""Which project a command works in (docs/monorepo.md): the project of the directory it
started in, found among the repository's projects (``tddgit.projects``).

Started where no project is (the top of a repository of several projects), a command
works on the whole repository with the top configuration: the gates then judge each
project the staged change touches (``tddgit.projects.gate``).

Paths in git-facing output (test ids, evidence, the audit) stay relative to the
repository; only the runner works relative to the project directory.
"""

from __future__ import annotations

from pathlib import Path

from tddgit.config import Config
from tddgit.git import Repo
from tddgit.projects import Project, Projects, load_projects, to_project, to_repo

__all__ = ["load_project_config", "project_at", "repo_projects", "to_project", "to_repo"]

_LOADED: dict[tuple[Path, str], Projects] = {}


def repo_projects(repo: Repo) -> Projects:
    """The repository's projects, loaded once per process (and per index state)."""
    index = repo.index_file()
    try:
        st = index.stat()
        stamp = f"{index}:{st.st_mtime_ns}:{st.st_size}"
    except OSError:
        stamp = ""
    key = (repo.root, stamp)
    found = _LOADED.get(key)
    if found is None:
        found = _LOADED[key] = load_projects(repo)
    return found


def project_at(repo: Repo, cwd: Path) -> Project | None:
    """The project of directory ``cwd``; the only project wherever ``cwd`` is when there is
    one; None at a place of a repository of several that no project holds."""
    projects = repo_projects(repo)
    try:
        rel = cwd.resolve().relative_to(repo.root.resolve()).as_posix()
    except (OSError, ValueError):
        rel = ""
    rel = "" if rel == "." else rel
    found = projects.here(rel)
    if found is None and not projects.multi:
        return projects.all[0]
    return found


def load_project_config(repo: Repo, cwd: Path) -> Config:
    """The configuration a command started in ``cwd`` works with: its project's, or the
    top configuration (``project`` = "", no scope) where no project holds ``cwd``."""
    project = project_at(repo, cwd)
    if project is not None:
        return project.config
    return repo_projects(repo).top
