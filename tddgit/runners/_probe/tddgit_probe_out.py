"""The probe's output and paths (see ``tddgit_probe_hooks``): its state, one whole JSON
line appended per record, node ids made relative to the invocation directory, and
whether a file is the project's own code. Standard library and pytest only, like the probe.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest

_state: dict[str, Any] = {
    "fd": None,
    "prefix": None,
    "roots": None,
    "config": None,
    "missing": [],
    "cover": None,
}


# -- writing ---------------------------------------------------------------------------------


def _emit(record: dict[str, Any]) -> None:
    _write(json.dumps(record, separators=(",", ":"), default=str) + "\n")


def _write(line: str) -> None:
    """Append one whole record (an ASCII JSON line)."""
    fd = _state["fd"]
    try:
        if fd is None:
            path = os.environ.get("TDDGIT_PROBE_OUT")
            if not path:
                return
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            _state["fd"] = fd
        os.write(fd, line.encode("ascii"))
    except OSError:
        # A full disk must not turn into a pytest internal error: the missing records make
        # tddgit report the run as incomplete instead.
        pass


def _is_worker(config: object) -> bool:
    # Under xdist the controller re-fires the workers' reports; write them only there.
    return hasattr(config, "workerinput")


# -- ids and paths ---------------------------------------------------------------------------


def _remember(config: pytest.Config) -> None:
    if _state["config"] is not None:
        return
    _state["config"] = config
    rootdir = str(config.rootpath)
    here = str(config.invocation_params.dir)
    rel = os.path.relpath(rootdir, here).replace(os.sep, "/")
    _state["prefix"] = "" if rel == "." else rel


def _tid(nodeid: str) -> str:
    """A rootdir-relative node id made relative to the invocation directory."""
    prefix = _state["prefix"]
    if not prefix:
        return nodeid
    path, sep, rest = nodeid.partition("::")
    joined = os.path.normpath(os.path.join(str(prefix), path)) if path else str(prefix)
    return joined.replace(os.sep, "/") + sep + rest


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _roots() -> tuple[list[str], list[str]]:
    """(project roots, excluded prefixes), computed on first need only."""
    cached = _state["roots"]
    if cached is None:
        config = _state["config"]
        roots = [os.getcwd()]
        if config is not None:
            roots += [str(config.rootpath), str(config.invocation_params.dir)]
        extra = os.environ.get("TDDGIT_PROBE_PROJECT", "")
        roots += [p for p in extra.split(os.pathsep) if p]
        roots = [os.path.realpath(r) for r in roots]
        excluded = []
        for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
            real = os.path.realpath(prefix)
            # An interpreter prefix that contains the project (a system Python over a
            # project in /usr/src) must not exclude the project itself.
            if not any(_under(r, real) for r in roots):
                excluded.append(real)
        cached = (roots, excluded)
        _state["roots"] = cached
    return cached  # type: ignore[no-any-return]


def _is_project(path: object) -> bool | None:
    if not isinstance(path, str) or not path:
        return None
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    roots, excluded = _roots()
    if any(_under(real, e) for e in excluded):
        return False
    return any(_under(real, r) for r in roots)
