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


class Facts:
    def __init__(self, repo: Repo, config: Config, head: str | None) -> None:
        self.repo = repo
        self.config = config
        self.head = head

    @cached_property
    def state(self) -> State:
        return state_at(self.repo, self.head)

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
        return ev if ev is not None and ev.parent == self.head else None

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
            ev = evidence_for_commit(self.repo, commit, tree.stdout.decode().strip(), "red")
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
