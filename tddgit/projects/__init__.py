"""Projects (docs/monorepo.md): a repository holds one or more, each a directory with its
own runner and settings; a step is judged in each project it touches.

- ``load_projects(repo) -> Projects``: the projects and their effective configurations;
- ``Projects.of(path)``, ``Projects.split(paths)``, ``Projects.here(rel)``;
- ``Project``: ``dir``, ``config``, ``runner``, ``sources``, ``scope``, ``label``;
- ``Scope``: what a project owns (``owns``, ``keep``), for the lineage and the evidence;
- ``to_repo`` / ``to_project``: a test id between the repository's and a runner's view.

Importing this package loads no runner, gate nor YAML parser (the hooks use it).
"""

from __future__ import annotations

from tddgit.projects.load import load_projects
from tddgit.projects.model import Project, Projects
from tddgit.projects.scope import Scope, to_project, to_repo

__all__ = ["Project", "Projects", "Scope", "load_projects", "to_project", "to_repo"]
