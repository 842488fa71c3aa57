"""``test-after-fact``: an index of the production files created before any test that
matches them, kept across the audit's pass (one compiled module of the pass)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tddgit.audit.checkview import CommitView, count, finding
from tddgit.audit.model import Finding
from tddgit.audit.naming import Key, imported_keys, production_key, test_key
from tddgit.model import Commit, FileChange


@dataclass(frozen=True)
class _Created:
    """Where and when a production file was created, and by which commit."""

    sha: str
    index: int
    time: int
    path: str


class TestAfterIndex:
    """``test-after-fact``: production files created before any test that matches them.

    Every path is keyed once (``tddgit.audit.naming``), so each commit costs O(files).
    """

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self.pending: dict[Key, _Created] = {}  # production files no test matches yet
        self.tested: set[Key] = set()
        self._test_keys: dict[str, Key | None] = {}  # paths repeat: key each one once
        self._prod_keys: dict[str, Key | None] = {}

    def _tkey(self, path: str) -> Key | None:
        try:
            return self._test_keys[path]
        except KeyError:
            key = self._test_keys[path] = test_key(path)
            return key

    def _pkey(self, path: str) -> Key | None:
        try:
            return self._prod_keys[path]
        except KeyError:
            key = self._prod_keys[path] = production_key(path)
            return key

    def observe(
        self,
        v: CommitView,
        index: int,
        read_text: Callable[[str, str], str | None],
        resolve: Callable[[str, str | None], frozenset[str]] | None = None,
        is_placeholder: Callable[[str, str], bool] | None = None,
    ) -> list[Finding]:
        """The findings of one commit. ``resolve``: the production files a test file's
        text imports, resolved against the tree (``tddgit.audit.imports``); with it a new
        test is matched to the modules it really imports, not to any of the same name.
        ``is_placeholder(sha, path)``: ``placeholder`` of that file's text (the engine
        keeps the answer for the next audit); by default it is read with ``read_text``."""
        c = v.commit
        out: list[Finding] = []
        keys: list[Key] = []
        # Tests moved out of another file (a split, a rename) were not written now.
        moved = any(f.status in ("R", "D") for f in v.tests)
        # A red its evidence proves failed was written before the code it tests.
        proven_red = _proven_red(v)
        imported: set[str] = set()  # what this commit's new tests import (resolved)
        for f in v.tests:
            key = self._tkey(f.path)
            new = f.status in ("A", "C")
            resolved: frozenset[str] = frozenset()
            if new and resolve is not None and (self.pending or v.prods):
                resolved = resolve(f.path, read_text(c.sha, f.path))
                imported |= resolved
            if resolved:
                found = self._by_path(resolved)
            else:
                found = self.pending.pop(key, None) if key else None
                if found is None and f.status == "A" and self.pending:
                    found = self._by_import(c.sha, f.path, read_text)
            if (
                found is not None
                and new
                and not moved
                and not proven_red
                and not (
                    is_placeholder(found.sha, found.path)
                    if is_placeholder is not None
                    else placeholder(read_text(found.sha, found.path))
                )
            ):
                out.append(self._finding(c, index, f.path, found))
            if key:
                keys.append(key)
        self.tested.update(keys)
        for f in v.prods:
            self._production(f, c, index)
        # Code created with a test of another name is covered at its creation.
        for path in imported:
            pkey = self._pkey(path)
            if pkey is not None:
                self.tested.add(pkey)
                gone = self.pending.get(pkey)
                if gone is not None and gone.path == path:
                    del self.pending[pkey]
        return out

    def _by_path(self, paths: frozenset[str]) -> _Created | None:
        """The pending production file that is one of ``paths`` (the modules a test
        imports), if any."""
        for path in sorted(paths):
            key = self._pkey(path)
            if key is None:
                continue
            found = self.pending.get(key)
            if found is not None and found.path == path:
                return self.pending.pop(key)
        return None

    def _production(self, f: FileChange, c: Commit, index: int) -> None:
        key = self._pkey(f.path)
        if f.status == "R" and f.old_path:
            old = self._pkey(f.old_path)
            moved = self.pending.pop(old, None) if old else None
            if moved is not None and key and key not in self.tested:
                # the flag follows the file to its new name
                self.pending[key] = _Created(moved.sha, moved.index, moved.time, f.path)
            elif old is not None and old in self.tested and key:
                self.tested.add(key)  # a tested file stays tested under its new name
        elif f.status in ("A", "C") and key and key not in self.tested:
            self.pending.setdefault(key, _Created(c.sha, index, c.author_time, f.path))
        elif f.status == "D" and key:
            gone = self.pending.get(key)
            if gone is not None and gone.path == f.path:
                del self.pending[key]

    def _by_import(
        self, sha: str, path: str, read_text: Callable[[str, str], str | None]
    ) -> _Created | None:
        parts = test_key(path) or production_key(path)
        if parts is None or parts[1] not in ("py", "js", "jvm"):
            return None
        text = read_text(sha, path)
        if not text:
            return None
        for key in sorted(imported_keys(text, parts[1])):
            if key in self.pending:
                return self.pending.pop(key)
        return None

    @staticmethod
    def _finding(c: Commit, index: int, test_path: str, prod: _Created) -> Finding:
        lag_commits = index - prod.index
        lag_seconds = max(0, c.author_time - prod.time)
        return finding(
            "test-after-fact",
            c.sha,
            f"{test_path} was created {count(lag_commits, 'commit')} and {_human(lag_seconds)} "
            f"after {prod.path}",
            related=(prod.sha,),
            files=(test_path, prod.path),
            data={"lag_commits": lag_commits, "lag_seconds": lag_seconds},
        )


def _proven_red(v: CommitView) -> bool:
    """Does the commit's evidence prove a red (its tests failed when committed)?"""
    if v.evidence is None:  # nearly every commit of a history: no import per commit
        return False
    from tddgit.evidence import Evidence

    return isinstance(v.evidence, Evidence) and v.evidence.phase == "red"


def placeholder(text: str | None) -> bool:
    """An empty placeholder file (nothing, or only blank lines and comments): nothing was
    there to test before its test came."""
    if text is None:
        return False
    return all(not ln.strip() or ln.lstrip().startswith(("#", "//")) for ln in text.splitlines())


def _human(seconds: int) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"
