"""What the pre-write rules read, computed lazily and cheaply: one ``git rev-parse`` for
the repository and HEAD, the cached lineage state of HEAD, and only when a rule asks, one
``git write-tree`` (red evidence for the index) or one ``git notes show`` (the open red's
targets). No test runs and nothing heavy is imported here: this runs on every edit.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tddgit.config import Config
from tddgit.git import Repo
from tddgit.lineage import State, state_at

if TYPE_CHECKING:
    from tddgit.evidence import Evidence
    from tddgit.projects import Projects, Scope


class Facts:
    """The facts of the repository, or (``at``) of the project holding a path: in a
    repository of several projects (docs/monorepo.md) its own lineage, red evidence,
    classifier and runner settings, so a backend red opens backend code only."""

    def __init__(
        self, repo: Repo, config: Config, head: str | None, scope: Scope | None = None
    ) -> None:
        self.repo = repo
        self.config = config
        self.head = head
        self.scope = scope
        self._at: dict[str, Facts] = {}

    def at(self, rel: str) -> Facts:
        """The facts of the project ``rel`` (repo-relative) belongs to; these facts in a
        repository of one project at the top, or for a path of no project."""
        projects = self._projects
        project = projects.of(rel) if projects is not None else None
        if project is None:
            return self
        found = self._at.get(project.dir)
        if found is None:
            found = self._at[project.dir] = Facts(
                self.repo, project.config, self.head, project.config.scope
            )
        return found

    def each(self) -> list[Facts]:
        """The facts of every project (these facts alone in a repository of one)."""
        projects = self._projects
        if projects is None:
            return [self]
        return [self.at(p.dir + "/" if p.dir else ".") for p in projects.all]

    @cached_property
    def _projects(self) -> Projects | None:
        """The projects, when there is more than the top (discovery is cached per index
        state: one small file read on the usual edit)."""
        if self.scope is not None:
            return None
        if not self.config.get("projects") and self.config.get("root") is None:
            from tddgit.projects.discover import discover

            if discover(self.repo) == ("",):
                return None
        from tddgit.project import repo_projects

        return repo_projects(self.repo)

    @cached_property
    def state(self) -> State:
        return state_at(self.repo, self.head, self.scope)

    @property
    def phase(self) -> str | None:
        return self.state.phase

    @property
    def open_red(self) -> bool:
        return bool(self.state.open_reds)

    @cached_property
    def index_red(self) -> Evidence | None:
        """Red evidence for the index on top of HEAD (``tddgit red --no-commit``)."""
        from tddgit.evidence import cache_get
        from tddgit.hooks.context import HookContext, index_tree

        tree = index_tree(HookContext(self.repo, self.head))
        ev = cache_get(self.repo, tree, "red")
        if ev is None or ev.parent != self.head:
            return None
        return ev.of_project(self.scope)

    @property
    def uncommitted_red(self) -> bool:
        return self.index_red is not None

    @cached_property
    def red_target_files(self) -> frozenset[str]:
        """The test files of the open reds' targets, from their evidence."""
        from tddgit.notes import evidence_for_commit

        files: set[str] = set()
        for commit in self.state.open_reds:
            tree = self.repo.run("rev-parse", f"{commit}^{{tree}}", check=False)
            ev = evidence_for_commit(
                self.repo, commit, tree.stdout.decode().strip(), "red", self.scope
            )
            for t in ev.targets if ev else ():
                files.add(t.file or t.id.split("::", 1)[0])
        return frozenset(files)

    @property
    def allow_test_edits(self) -> bool:
        return self.config.flag("green.allow_test_edits")

    def relative(self, path: str, cwd: str | None) -> str | None:
        """``path`` relative to the repository root (``/``-separated); None outside it."""
        p = Path(path)
        if not p.is_absolute():
            p = Path(cwd or self.repo.root) / p
        try:
            rel = Path(os.path.normpath(p)).relative_to(self.repo.root)
        except ValueError:
            try:
                rel = Path(os.path.realpath(p)).relative_to(os.path.realpath(self.repo.root))
            except ValueError:
                return None
        text = rel.as_posix()
        return None if text.startswith(".git/") or text in (".", ".git") else text

    def kind(self, rel: str) -> str:
        from tddgit.paths import Classifier

        classifier = Classifier.from_config(self.config)
        if classifier.is_exempt(rel):
            return "other"
        return classifier.kind(rel).value
