"""The probe's line coverage, only when ``TDDGIT_PROBE_COVER`` asks (see
``tddgit_probe_hooks``): coverage.py started for the requested files alone, one context
per test, and a ``coverage`` record per process at session finish.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from tddgit_probe_out import _emit, _state

# -- line coverage (only when TDDGIT_PROBE_COVER asks) ---------------------------------------

_NO_WARN = ["no-data-collected", "module-not-measured", "module-not-imported", "include-ignored"]


def _glob_safe(path: str) -> str:
    # coverage's `include` takes globs: a literal `*?[]` in a path becomes `?` (any one
    # character), which can only widen the match; results are read back by exact path.
    return "".join("?" if c in "*?[]" else c for c in path)


def _start_coverage() -> None:
    request = os.environ.get("TDDGIT_PROBE_COVER")
    if not request:
        return  # never import coverage unless asked: it costs time in every gate run
    try:
        with open(request, encoding="utf-8") as fh:
            files = [str(f) for f in json.load(fh)]
    except (OSError, ValueError) as exc:
        _state["cover"] = {"unavailable": f"cannot read the coverage request: {exc}"}
        return
    try:
        import coverage
    except ImportError as exc:
        reason = f"coverage.py is not importable by {sys.executable} ({exc})"
        _state["cover"] = {"unavailable": reason}
        return
    if coverage.Coverage.current() is not None:
        _state["cover"] = {"unavailable": "another coverage measurement is already running"}
        return
    try:
        cov = coverage.Coverage(
            data_file=None,
            include=[_glob_safe(f) for f in files],
            branch=False,
            config_file=False,
        )
        cov.set_option("run:disable_warnings", _NO_WARN)
        cov.start()
    except Exception as exc:  # a broken coverage install must not break the user's run
        _state["cover"] = {"unavailable": f"coverage.py failed to start: {exc!r}"[:300]}
        return
    _state["cover"] = {"cov": cov, "files": files}


def _finish_coverage(config: pytest.Config) -> None:
    cover = _state.get("cover")
    if not cover:
        return
    _state["cover"] = None
    worker = getattr(config, "workerinput", {}).get("workerid")
    rec: dict[str, Any] = {"t": "coverage"}
    if worker:
        rec["worker"] = worker
    cov = cover.get("cov")
    if cov is None:
        rec["unavailable"] = cover["unavailable"]
        _emit(rec)
        return
    try:
        cov.stop()
    except Exception as exc:
        rec["unavailable"] = f"coverage.py failed to stop: {exc!r}"[:300]
        _emit(rec)
        return
    if config.pluginmanager.get_plugin("_cov") is not None:
        # pytest-cov started its own tracer over ours: our data would be partial.
        rec["unavailable"] = "pytest-cov (--cov) is measuring this run"
        _emit(rec)
        return
    rec["files"] = _analysed(cov, cover["files"])
    _emit(rec)


def _switch_context(test_id: str) -> None:
    cover = _state.get("cover")
    cov = cover.get("cov") if cover else None
    if cov is None:
        return
    try:
        cov.switch_context(test_id)
    except Exception:  # an old coverage.py: lines are then known to have run, not by whom
        pass


def _analysed(cov: Any, files: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    try:
        data = cov.get_data()
    except Exception:
        data = None
    for path in files:
        try:
            _, statements, _, missing, _ = cov.analysis2(path)
        except Exception:  # gone, unreadable or not Python: the reader leaves it unjudged
            continue
        ran = sorted(set(statements) - set(missing))
        out[path] = {"statements": sorted(statements), "executed": ran}
        by_line = _tests_by_line(data, path)
        if by_line:
            out[path]["tests"] = by_line
    return out


def _tests_by_line(data: Any, path: str) -> dict[str, list[str]]:
    """line -> the tests that ran it (the empty context, code run outside any test such
    as at import, is left out)."""
    if data is None:
        return {}
    try:
        real = os.path.realpath(path)
        contexts = data.contexts_by_lineno(real) or data.contexts_by_lineno(path)
    except Exception:
        return {}
    return {str(n): sorted(c for c in ids if c) for n, ids in contexts.items() if any(ids)}
