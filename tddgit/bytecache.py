"""The runner's bytecode cache (``PYTHONPYCACHEPREFIX`` in tddgit's own directory) kept
honest.

Python reuses a cached ``.pyc`` while the source's mtime, in whole seconds, and its size
equal the ones the ``.pyc`` recorded (pytest's rewritten test modules did too, until
pytest checked them by hash).
A module rewritten within the second it was compiled, to the same length (``a + b`` →
``a - b``: a model's second try, an editor's save-all, a quick revert) would be judged on
its old bytecode. The same race in git's index is "racy git"; the cure is alike: a
``.pyc`` whose source changed at or after the moment it was written is not trusted.

Dropping such a ``.pyc`` costs nothing Python would not spend anyway: outside the race the
source's newer mtime makes Python recompile it all the same.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

# Trees under the project that are not the project's code: their bytecode is left alone
# (a virtualenv inside the repository holds thousands of modules nobody edits mid-cycle).
_NOT_THE_PROJECT = frozenset(
    {".venv", "venv", ".tox", ".nox", "site-packages", "dist-packages", "node_modules", ".git"}
)


def drop_stale(cache: Path, root: Path) -> None:
    """Remove the cached ``.pyc`` files of sources under ``root`` that changed at or after
    their ``.pyc`` was written."""
    for base in {root.absolute(), root.resolve()}:
        _drop_under(cache / base.relative_to(base.anchor), base)


def _drop_under(mirror: Path, source_dir: Path) -> None:
    """``mirror``: the cache's copy of ``source_dir`` (``<prefix>/<absolute dir>``)."""
    try:
        entries = list(os.scandir(mirror))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in _NOT_THE_PROJECT:
                _drop_under(Path(entry.path), source_dir / entry.name)
        elif entry.name.endswith(".pyc"):
            # calc.cpython-311.pyc, test_calc.cpython-311-pytest-8.3.4.pyc: a module name
            # has no dot, so the source is what comes before the first one.
            source = source_dir / (entry.name.partition(".")[0] + ".py")
            if _changed_since(source, entry):
                with suppress(OSError):
                    os.unlink(entry.path)


def _changed_since(source: Path, pyc: os.DirEntry[str]) -> bool:
    try:
        return source.stat().st_mtime_ns >= pyc.stat(follow_symlinks=False).st_mtime_ns
    except OSError:
        return False  # no source: Python never reads this .pyc
