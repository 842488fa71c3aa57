"""What every command gets: where to work, and lazily the repository and its
configuration. Click-free, so a command's fast path (``tddgit.commands.audit_fast``)
shares it with the click command line (``tddgit.cli``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tddgit.config import Config
    from tddgit.git import Repo


@dataclass
class AppContext:
    """What every command gets: where to work, and lazily the repo and its config."""

    cwd: Path
    debug: bool = False
    _repo: Repo | None = field(default=None, repr=False)
    _config: Config | None = field(default=None, repr=False)

    @property
    def repo(self) -> Repo:
        if self._repo is None:
            from tddgit.git import find_repo

            self._repo = find_repo(self.cwd)
        return self._repo

    @property
    def config(self) -> Config:
        if self._config is None:
            from tddgit.project import load_project_config

            self._config = load_project_config(self.repo, self.cwd)
        return self._config
