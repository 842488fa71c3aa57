"""The files a run changes: remembered before the first write, so any end can put them back.

Only the files the model wrote are ever touched: :meth:`Workspace.restore` writes back
their bytes as they were (and removes the files and directories the run created), and
:meth:`Workspace.unstage` puts their index entries back to ``HEAD`` (a run starts with
nothing staged). :meth:`snapshot` and :meth:`restore` with a snapshot are the "best state"
a later phase may return to.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from tddgit.git import Repo

Snapshot = Mapping[str, bytes | None]  # repo-relative path -> bytes (None: no such file)


class Workspace:
    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.root = repo.root.resolve()
        self._original: dict[str, bytes | None] = {}
        self._created_dirs: list[Path] = []
        # files and directories the tests changed or created (agent.census): put back
        # with the run's own, never staged
        self._by_tests: dict[str, bytes | None] = {}
        self._test_dirs: list[Path] = []

    @property
    def touched(self) -> list[str]:
        return sorted(self._original)

    def before_write(self, rel: str) -> None:
        """Remember ``rel`` as it is now, once, before the run first writes it."""
        if rel in self._original:
            return
        path = self.root / rel
        if rel in self._by_tests:  # a test wrote it first: its bytes before that count
            self._original[rel] = self._by_tests.pop(rel)
        else:
            self._original[rel] = path.read_bytes() if path.is_file() else None
        missing = []
        for parent in path.parents:
            if parent == self.root or parent.exists():
                break
            missing.append(parent)
        self._created_dirs.extend(missing)  # deepest first

    def write(self, rel: str, content: str) -> None:
        """Write ``rel`` (remembered first); a write that fails leaves no trace."""
        path = self.root / rel
        new = rel not in self._original
        dirs = len(self._created_dirs)
        self.before_write(rel)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8", newline="") as fh:
                fh.write(content)
        except (OSError, UnicodeError):
            if new and self._original[rel] is None:
                del self._original[rel]
                with contextlib.suppress(OSError):
                    path.unlink()
                for directory in self._created_dirs[dirs:]:
                    with contextlib.suppress(OSError):
                        os.rmdir(directory)
                del self._created_dirs[dirs:]
            raise

    def adopt(self, rel: str, original: bytes | None) -> None:
        """A file a test run changed, created (``original`` None) or deleted."""
        if rel not in self._original and rel not in self._by_tests:
            self._by_tests[rel] = original

    def adopt_dir(self, path: Path) -> None:
        """A directory a test run created (removed when empty, deepest first)."""
        if path not in self._test_dirs:
            self._test_dirs.append(path)

    def original(self, rel: str) -> bytes | None:
        """``rel``'s bytes before the run first wrote it (None: it did not exist)."""
        return self._original.get(rel)

    @property
    def written_by_tests(self) -> list[str]:
        return sorted(self._by_tests)

    def changed(self) -> bool:
        """Whether any file the run wrote differs from what it was before the run."""
        return any(data != self._original[rel] for rel, data in self.snapshot().items())

    def snapshot(self) -> dict[str, bytes | None]:
        out: dict[str, bytes | None] = {}
        for rel in self._original:
            path = self.root / rel
            out[rel] = path.read_bytes() if path.is_file() else None
        return out

    def restore(self, snapshot: Snapshot | None = None) -> None:
        """Put every touched file back as in ``snapshot`` (default: before the run)."""
        state = self._original if snapshot is None else snapshot
        for rel in self._original:
            path = self.root / rel
            # a file first written after the snapshot was taken goes back to its original
            _put_back(path, state[rel] if rel in state else self._original[rel])
        for rel, original in self._by_tests.items():  # test output never is a state
            _put_back(self.root / rel, original)
        if snapshot is None:
            for directory in [*self._created_dirs, *sorted(self._test_dirs, key=_depth)]:
                with contextlib.suppress(OSError):
                    os.rmdir(directory)  # only if empty: never remove what is not ours

    def stage(self) -> None:
        if self._original:
            self.repo.git("add", "-A", "--", *self.touched)

    def unstage(self) -> None:
        """The index entries of the touched files back as in ``HEAD`` (the tree untouched)."""
        if not self._original:
            return
        paths = self.touched
        in_head: dict[str, str] = {}
        if self.repo.head() is not None:
            listing = self.repo.run("ls-tree", "-z", "HEAD", "--", *paths).stdout
            for entry in listing.split(b"\0"):
                if entry:
                    meta, _, name = entry.partition(b"\t")
                    in_head[name.decode("utf-8", "surrogateescape")] = meta.decode()
        info = "".join(f"{meta}\t{rel}\0" for rel, meta in in_head.items())
        if info:
            self.repo.run(
                "update-index", "-z", "--index-info", input=info.encode("utf-8", "surrogateescape")
            )
        gone = [rel for rel in paths if rel not in in_head]
        if gone:
            self.repo.git("update-index", "--force-remove", "--", *gone)


def _put_back(path: Path, data: bytes | None) -> None:
    if path.is_symlink() or (data is None and path.exists()):
        with contextlib.suppress(FileNotFoundError, NotADirectoryError, IsADirectoryError):
            path.unlink()
    if data is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _depth(path: Path) -> int:
    return -len(path.parts)  # deepest first
