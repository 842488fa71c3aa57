"""What the tests wrote: the work tree compared before and after every test run a model
triggers, so a run that ends without a holding gate removes those files too.

A test may write into the work tree (the jail lets it: runners keep caches there). The
model's own writes go through :class:`Workspace`; everything else that changed during a
run (``README.md`` appended, ``export.csv`` created, a file deleted) is handed to the
workspace with its bytes from before the run's first test, and put back like the model's.

The first look keeps the bytes of every file (at most :data:`MAX_KEPT` in all) outside
the installed-packages directories, which are never walked: a run that changes a file
whose bytes were not kept says so rather than guessing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tddgit.agent.workspace import Workspace

# Directories of installed packages and virtual environments: large, and no test's output.
SKIPPED = frozenset({".git", ".venv", "venv", "node_modules", ".tox", ".nox"})
MAX_KEPT = 64 * 1024 * 1024  # bytes of original files kept in memory, at most

Stat = tuple[int, int, int]  # (mode, size, mtime_ns)


class Census:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.root = workspace.root
        self._kept: dict[str, bytes] | None = None  # the bytes before the first run
        self._dirs: set[str] = set()  # the directories before the first run
        self._existed: set[str] = set()  # the files before the first run
        self.unknown: set[str] = set()  # changed by a test, bytes before not kept

    @contextmanager
    def around_run(self) -> Iterator[None]:
        """Hand whatever the tests change inside the block to the workspace."""
        before = self._look()
        try:
            yield
        finally:
            self._compare(before, self._look())

    def _look(self) -> dict[str, Stat]:
        files: dict[str, Stat] = {}
        dirs: set[str] = set()
        for top, subdirs, names in os.walk(self.root):
            subdirs[:] = [d for d in subdirs if d not in SKIPPED]
            rel_top = os.path.relpath(top, self.root)
            for name in subdirs:
                dirs.add(_join(rel_top, name))
            for name in names:
                path = os.path.join(top, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                files[_join(rel_top, name)] = (st.st_mode, st.st_size, st.st_mtime_ns)
        if self._kept is None:
            self._kept = self._keep(files)
            self._dirs, self._existed = dirs, set(files)
        return files

    def _keep(self, files: dict[str, Stat]) -> dict[str, bytes]:
        kept: dict[str, bytes] = {}
        total = 0
        for rel, (_, size, _) in sorted(files.items(), key=lambda item: item[1][1]):
            if total + size > MAX_KEPT:
                break
            try:
                kept[rel] = (self.root / rel).read_bytes()
            except OSError:
                continue
            total += size
        return kept

    def _compare(self, before: dict[str, Stat], after: dict[str, Stat]) -> None:
        assert self._kept is not None
        touched = set(self.workspace.touched)
        for rel in sorted(set(before) | set(after)):
            if before.get(rel) == after.get(rel) or rel in touched:
                continue
            if rel in self._kept:
                self.workspace.adopt(rel, self._kept[rel])
            elif rel not in self._existed:
                self.workspace.adopt(rel, None)
            else:
                self.unknown.add(rel)
        for rel in sorted(self._new_dirs(after), key=len, reverse=True):
            self.workspace.adopt_dir(self.root / rel)

    def _new_dirs(self, after: dict[str, Stat]) -> set[str]:
        dirs = set()
        for rel in after:
            parent = Path(rel).parent
            while parent != Path("."):
                if parent.as_posix() not in self._dirs:
                    dirs.add(parent.as_posix())
                parent = parent.parent
        return dirs


def _join(top: str, name: str) -> str:
    return name if top == "." else f"{Path(top).as_posix()}/{name}"
