"""A repository's projects: each a directory with its own effective configuration.

``Projects.of(path)`` is the project a repo-relative path belongs to (the nearest
enclosing project directory); ``Projects.split(paths)`` groups paths by project. Both
are pure: what is a project was decided when the ``Projects`` were loaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tddgit.config import Config
from tddgit.projects.scope import Scope


@dataclass(frozen=True, eq=False)
class Project:
    """One project: its directory (repo-relative posix, "" for the top), its effective
    configuration (``config.project`` is ``dir``; ``config.scope`` is set when the
    repository holds several projects) and where the project came from: ``discovered``,
    ``projects`` (a `projects` entry) or ``root`` (the `root` key)."""

    dir: str
    config: Config
    origin: str = "discovered"
    # Where the project's root lives on disk (the work tree's top joined with ``dir``).
    path: Path = field(default=Path("."), compare=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Project) and other.dir == self.dir

    def __hash__(self) -> int:
        return hash(self.dir)

    @property
    def label(self) -> str:
        """How output names the project: its directory, ``.`` for the top."""
        return self.dir or "."

    @property
    def scope(self) -> Scope:
        return self.config.scope or Scope(self.dir)

    @property
    def sources(self) -> Mapping[str, str]:
        """Key -> where its value came from (``default``, a file, a `projects` entry)."""
        return self.config.sources

    @property
    def runner(self) -> str:
        """The runner's name: the configured one, else detected from the project's files
        (detection reads a few small files; asked only when shown or run)."""
        name = self.config.runner
        if name != "auto":
            return name
        from tddgit.runners.detect import detect

        return detect(self.path)

    @property
    def runner_source(self) -> str:
        source = self.config.sources.get("runner", "default")
        return "detected" if self.config.runner == "auto" else source


@dataclass(frozen=True)
class Projects:
    """All projects of one repository (sorted by directory) and its top configuration."""

    all: tuple[Project, ...]
    top: Config  # the configuration at the repository's top (repo-wide keys)

    @property
    def multi(self) -> bool:
        return len(self.all) > 1

    def get(self, directory: str) -> Project | None:
        return next((p for p in self.all if p.dir == directory), None)

    def of(self, path: str) -> Project | None:
        """The project ``path`` (repo-relative posix; a test id works too) belongs to:
        the deepest project directory enclosing it; None when none does."""
        path = path.split("::", 1)[0]
        best: Project | None = None
        for project in self.all:
            d = project.dir
            inside = d == "" or path == d or path.startswith(d + "/")
            if inside and (best is None or len(d) > len(best.dir)):
                best = project
        return best

    def split(self, paths: Iterable[str]) -> dict[Project, list[str]]:
        """``paths`` grouped by the project each belongs to (in project order); paths no
        project holds are left out (``outside`` lists them)."""
        groups: dict[Project, list[str]] = {}
        for path in paths:
            project = self.of(path)
            if project is not None:
                groups.setdefault(project, []).append(path)
        order = {p.dir: i for i, p in enumerate(self.all)}
        return dict(sorted(groups.items(), key=lambda kv: order[kv[0].dir]))

    def outside(self, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if self.of(p) is None]

    def here(self, rel: str) -> Project | None:
        """The project of a directory (repo-relative posix: where a command started)."""
        return self.of(rel)
