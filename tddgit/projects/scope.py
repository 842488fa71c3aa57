"""What one project owns in a repository of several: its directory minus the projects
nested inside it (a project inside a project: the nearest wins).

Pure and import-free: the configuration, the lineage and the evidence read it on the hook
path.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """The paths a project owns: under ``dir`` ("" for the top) and under none of
    ``nested`` (the projects inside it, which own their own paths)."""

    dir: str
    nested: tuple[str, ...] = ()

    def owns(self, path: str) -> bool:
        """``path`` (repo-relative, posix; a test id's file part is enough) is this
        project's."""
        path = path.split("::", 1)[0]
        if self.dir and not (path == self.dir or path.startswith(self.dir + "/")):
            return False
        return not any(path == n or path.startswith(n + "/") for n in self.nested)

    def keep(self, ids: Iterable[str]) -> tuple[str, ...]:
        """The ids (or paths) of ``ids`` this project owns."""
        return tuple(i for i in ids if self.owns(i))

    @property
    def key(self) -> str:
        """A short stable name for caches kept per project."""
        import hashlib  # here: a cache key is not needed to start a gate's tests

        text = "\0".join((self.dir, *self.nested))
        return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]

    @property
    def label(self) -> str:
        return self.dir or "."


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
