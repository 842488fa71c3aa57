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
from pathlib import Path

# Trees under the project that are not the project's code: their bytecode is left alone
# (a virtualenv inside the repository holds thousands of modules nobody edits mid-cycle).
_NOT_THE_PROJECT = frozenset(
    {".venv", "venv", ".tox", ".nox", "site-packages", "dist-packages", "node_modules", ".git"}
)


def drop_stale(cache: Path, root: Path) -> int:
    """Remove the cached ``.pyc`` files of sources under ``root`` that changed at or after
    their ``.pyc`` was written; the number removed."""
    dropped = 0
    for base in {root.absolute(), root.resolve()}:
        mirror = cache / base.relative_to(base.anchor)
        dropped += _drop_under(mirror, base)
    return dropped


def _drop_under(mirror: Path, source_dir: Path) -> int:
    """``mirror``: the cache's copy of ``source_dir`` (``<prefix>/<absolute dir>``)."""
    try:
        entries = list(os.scandir(mirror))
    except OSError:
        return 0
    dropped = 0
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in _NOT_THE_PROJECT:
                dropped += _drop_under(Path(entry.path), source_dir / entry.name)
            continue
        if not entry.name.endswith(".pyc"):
            continue
        # calc.cpython-311.pyc, test_calc.cpython-311-pytest-8.3.4.pyc: a module name
        # has no dot, so the source is what comes before the first one.
        source = source_dir / (entry.name.partition(".")[0] + ".py")
        try:
            written = entry.stat(follow_symlinks=False).st_mtime_ns
            changed = source.stat().st_mtime_ns
        except OSError:
            continue  # no source: Python never reads this .pyc
        if changed >= written:
            try:
                os.unlink(entry.path)
                dropped += 1
            except OSError:
                pass
    return dropped
