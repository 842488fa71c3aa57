"""Where the project lives inside the repository (PRODUCT.md §3, key ``root``).

A monorepo may keep its Python project in ``backend/`` with its own ``pyproject.toml`` and
pytest settings. The tests must run from there, or pytest reads the wrong settings (no
``pythonpath``, no ``testpaths``). The project directory is, in this order:

1. the ``root`` key of the configuration (a directory relative to the repository);
2. the nearest directory from the current one, up to the repository's top, that holds a
   ``pyproject.toml``, ``pytest.ini``, ``setup.cfg`` or ``package.json``;
3. at the top without such a file, nor any other sign of a project there (``setup.py``,
   ``tox.ini``, ``Makefile`` ...): the one shallowest directory whose tracked files include
   a marker (this is how ``tddgit`` run at the top, and the hooks, which git runs there,
   find ``backend/``); several at the same depth are ambiguous, and the top is used (set
   ``root``).

Paths in git-facing output (test ids, evidence, the audit) stay relative to the
repository; only the runner works relative to the project directory.
"""

from __future__ import annotations

import posixpath
from pathlib import Path, PurePosixPath

from tddgit.config import Config, find_config_file, load_config
from tddgit.errors import ConfigError
from tddgit.git import Repo, zsplit

MARKERS = ("pyproject.toml", "pytest.ini", "setup.cfg", "package.json")
# Files that make the top a project of its own even without a marker: then no directory
# below is taken for the project (a `docs/package.json` beside a setup.py project).
TOP_PROJECT_FILES = (
    "setup.py",
    "tox.ini",
    "conftest.py",
    "requirements.txt",
    "Makefile",
    "go.mod",
    "Cargo.toml",
    "pom.xml",
    "build.gradle",
)


def load_project_config(repo: Repo, cwd: Path) -> Config:
    """The configuration, with ``project`` set: the repository top's configuration file,
    else the project directory's (``backend/pyproject.toml [tool.tddgit]``)."""
    import dataclasses

    config = load_config(repo.root, repo.tddgit_dir)
    configured = config.get("root")
    subdir = find_project_dir(repo, cwd, configured)
    if config.file is None and subdir:
        project_root = repo.root / subdir
        if find_config_file(project_root)[0] is not None:
            config = load_config(project_root)
            if config.get("root") is not None:
                raise ConfigError(
                    f"{subdir}/{config.file.name if config.file else ''}: `root` is read "
                    "only from the configuration at the repository's top",
                    "move the `root` key there, or remove it",
                )
    return dataclasses.replace(config, project=subdir)


def find_project_dir(repo: Repo, cwd: Path, configured: str | None = None) -> str:
    """The project directory relative to the repository top (``""``: the top itself)."""
    if configured is not None:
        return _configured(repo, configured)
    top = repo.root.resolve()
    try:
        here = cwd.resolve()
        here.relative_to(top)
    except (OSError, ValueError):
        here = top
    while here != top:
        if _has_marker(here):
            return here.relative_to(top).as_posix()
        here = here.parent
    if _has_marker(top) or any((top / name).is_file() for name in TOP_PROJECT_FILES):
        return ""
    return _only_tracked_project(repo)


def _has_marker(directory: Path) -> bool:
    return any((directory / name).is_file() for name in MARKERS)


def _only_tracked_project(repo: Repo) -> str:
    specs = [f":(glob)**/{name}" for name in MARKERS]
    proc = repo.run("ls-files", "-z", "--", *specs, check=False)
    dirs = {posixpath.dirname(p) for p in zsplit(proc.stdout.decode("utf-8", "surrogateescape"))}
    dirs.discard("")
    if not dirs:
        return ""
    depth = min(d.count("/") for d in dirs)
    shallowest = sorted(d for d in dirs if d.count("/") == depth)
    return shallowest[0] if len(shallowest) == 1 else ""


def _configured(repo: Repo, value: str) -> str:
    rel = PurePosixPath(value.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts:
        raise ConfigError(
            f"`root` must be a directory inside the repository, not {value!r}",
            'give it relative to the repository\'s top, e.g. `root = "backend"`',
        )
    text = rel.as_posix()
    text = "" if text == "." else text
    if not (repo.root / text).is_dir():
        raise ConfigError(
            f"`root` names {value!r}, which is not a directory of the repository",
            "create it, or correct the `root` key (`tddgit config` shows its source)",
        )
    return text


def to_project(test: str, subdir: str) -> str:
    """A repository-relative test id or path as the runner in ``subdir`` names it."""
    if not subdir:
        return test
    path, sep, rest = test.partition("::")
    rel = posixpath.relpath(path or ".", subdir)
    return rel + sep + rest


def to_repo(test: str, subdir: str) -> str:
    """A test id or path relative to the project directory, relative to the repository."""
    if not subdir:
        return test
    path, sep, rest = test.partition("::")
    joined = posixpath.normpath(posixpath.join(subdir, path)) if path else subdir
    return joined + sep + rest
