"""Building a repository's ``Projects``: which directories (the `projects` list, the
`root` key, else discovery) and each one's effective configuration.

A project's value for a key comes from, the later winning: the default; the top
configuration's top-level keys; the project's own configuration file
(``backend/pyproject.toml [tool.tddgit]`` or ``backend/.tddgit.yaml``); its `projects`
entry. Globs a project sets for itself that hold a ``/`` are relative to the project and
are anchored at its directory here (the classifier matches repo-relative paths).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from tddgit.config import PROJECT_KEYS, Config, find_config_file, load_config
from tddgit.errors import ConfigError
from tddgit.git import Repo
from tddgit.projects.model import Project, Projects
from tddgit.projects.scope import Scope

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any


def load_projects(repo: Repo) -> Projects:
    """The repository's projects with their configurations (ConfigError on bad input)."""
    top = load_config(repo.root, repo.tddgit_dir)
    listed: tuple[Mapping[str, Any], ...] = tuple(top.get("projects"))
    root = top.get("root")
    if listed and root is not None:
        raise ConfigError(
            f"{_name(top)}: both `root` and `projects` are set",
            "keep `projects` (`root` is the shorthand for one project), or remove it",
        )
    if listed:
        entries = {str(e["dir"]): e for e in listed}
        origin = "projects"
    elif root is not None:
        from tddgit.config_file import project_dir

        entries = {project_dir(str(root), "`root`"): {}}
        origin = "root"
    else:
        from tddgit.projects.discover import discover

        entries = {d: {} for d in discover(repo)}
        origin = "discovered"
    for directory in entries:
        if origin != "discovered" and not (repo.root / directory).is_dir():
            what = "`root`" if origin == "root" else "a `projects` entry"
            raise ConfigError(
                f"{what} names {directory!r}, which is not a directory of the repository",
                f"create it, or correct {what} (`tddgit config` shows its source)",
            )
    dirs = sorted(entries)
    multi = len(dirs) > 1
    own_alone = top.file is None and len(dirs) == 1
    projects = []
    for directory in dirs:
        config = _project_config(repo, top, directory, entries[directory], own_alone)
        scope = Scope(directory, _nested(directory, dirs)) if multi else None
        config = dataclasses.replace(config, project=directory, scope=scope)
        projects.append(Project(directory, config, origin, repo.root / directory))
    if own_alone and projects[0].config.file is not None:
        top = projects[0].config  # the only configuration there is: its repo-wide keys hold
    return Projects(tuple(projects), top)


def _nested(directory: str, dirs: list[str]) -> tuple[str, ...]:
    prefix = directory + "/" if directory else ""
    return tuple(d for d in dirs if d != directory and d.startswith(prefix))


def _name(config: Config) -> str:
    return config.file.name if config.file else "the configuration"


def _project_config(
    repo: Repo, top: Config, directory: str, entry: Mapping[str, Any], own_alone: bool
) -> Config:
    values = dict(top.values)
    sources = dict(top.sources)
    file = top.file
    if directory:
        own = _own_file(repo, directory, own_alone)
        if own is not None:
            file = own.file
            for key in own.values:
                if own.sources[key] != "default":
                    values[key] = _anchored(key, own.values[key], directory)
                    sources[key] = f"{directory}/{own.sources[key]}"
    label = f"{_name(top)} projects[{directory or '.'}]"
    for key, value in entry.items():
        if key != "dir":
            values[key] = _anchored(key, value, directory)
            sources[key] = label
    return Config(values=values, sources=sources, file=file, root=repo.root)


def _own_file(repo: Repo, directory: str, own_alone: bool) -> Config | None:
    """The project's own configuration file, read for its keys. The repo-wide keys hold
    only at the top, except in a repository whose only configuration this is."""
    root = repo.root / directory
    if find_config_file(root)[0] is None:
        return None
    own = load_config(root)
    for key, source in own.sources.items():
        if source == "default" or key in PROJECT_KEYS:
            continue
        if own_alone and key not in ("root", "projects"):
            continue
        raise ConfigError(
            f"{directory}/{_name(own)}: `{key}` is read only from the configuration at the "
            "repository's top",
            "move the key there, or remove it",
        )
    return own


def _anchored(key: str, value: Any, directory: str) -> Any:
    """A project's own glob with a ``/`` is relative to the project: anchor it."""
    if not directory or not key.endswith(("globs", "exempt")) or not isinstance(value, tuple):
        return value
    return tuple(f"{directory}/{g.lstrip('/')}" if "/" in g else g for g in value)
