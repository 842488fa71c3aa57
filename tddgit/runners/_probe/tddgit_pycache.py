"""The project's bytecode aside, for tddgit's pytest probe (loaded by it, beside it on
PYTHONPATH; standard library only, like the probe).

With ``TDDGIT_PYCACHE`` the project's ``.pyc`` files go under that directory (the layout of
``PYTHONPYCACHEPREFIX``), never into the user's tree; pytest's, the libraries' and the
standard library's stay where Python keeps them.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def divert() -> None:
    """With ``TDDGIT_PYCACHE``: the project's bytecode (its modules, its tests rewritten by
    pytest) is cached under that directory, never in the user's tree; everything else
    (pytest itself, site-packages, the standard library) where Python normally caches it,
    so a first gate in a fresh clone recompiles nothing but the project. The runner starts
    pytest with ``PYTHONDONTWRITEBYTECODE`` (nothing imported before this probe writes a
    ``.pyc``); writing is switched back on here only once the project's paths are diverted."""
    prefix = os.environ.get("TDDGIT_PYCACHE")
    if not prefix:
        return
    try:
        from importlib import _bootstrap_external as bootstrap
        from pathlib import Path

        from _pytest.assertion import rewrite

        normal = bootstrap.cache_from_source
        normal_dir = rewrite.get_cache_dir
    except (ImportError, AttributeError):
        return  # an unknown pytest or Python: keep writing no bytecode at all
    roots = [os.path.realpath(os.getcwd())]
    roots += [
        os.path.realpath(p)
        for p in os.environ.get("TDDGIT_PROBE_PROJECT", "").split(os.pathsep)
        if p
    ]

    known: dict[str, bool] = {}

    def ours(path: str) -> bool:
        # Decided once per directory: every import asks (twice), and resolving a path
        # costs a system call per component.
        head = os.path.dirname(os.path.abspath(path))
        found = known.get(head)
        if found is None:
            real = os.path.realpath(head)
            parts = real.split(os.sep)
            inside = any(real == r or real.startswith(r + os.sep) for r in roots)
            found = known[head] = inside and not (
                "site-packages" in parts or "dist-packages" in parts
            )
        return found

    def cache_from_source(
        path: Any, debug_override: Any = None, *, optimization: Any = None
    ) -> str:
        cached: str = normal(path, debug_override, optimization=optimization)
        source = os.fspath(path)
        if not ours(source):
            return cached
        head = os.path.dirname(os.path.abspath(source))
        return os.path.join(prefix, head.lstrip(os.sep), os.path.basename(cached))

    def get_cache_dir(file_path: Any) -> Any:
        if ours(str(file_path)):
            return Path(prefix, *Path(os.path.abspath(file_path)).parts[1:-1])
        return normal_dir(file_path)

    bootstrap.cache_from_source = cache_from_source
    rewrite.get_cache_dir = get_cache_dir
    sys.dont_write_bytecode = False
