"""Which tools a gate started, in order: wrappers put ahead on PATH log each start
(``<tool> <pid> <cwd> <args>``; ``exec`` keeps the pid, the tool's own) and ``starts``
reads the log. Used by the early-start tests of every runner."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

WRAPPER = '#!/bin/sh\necho "{name} $$ $(pwd) $*" >> "$TDDGIT_TEST_LOG"\nexec {real} "$@"\n'


def log_starts(
    tools: Mapping[str, str], bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Put a logging wrapper for each ``name -> real executable`` in ``bin_dir``, first on
    PATH, with the log and a scratch TMPDIR (the gate's files) in ``tmp_path``."""
    bin_dir.mkdir(parents=True)
    for name, real in tools.items():
        wrapper = bin_dir / name
        wrapper.write_text(WRAPPER.format(name=name, real=real))
        wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TDDGIT_TEST_LOG", str(tmp_path / "starts.log"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))


def which(name: str) -> str:
    import shutil

    real = shutil.which(name)
    assert real is not None, name
    return real


def starts(tmp_path: Path) -> list[list[str]]:
    """The logged starts since the last call: [tool, pid, cwd, args...] each."""
    log = tmp_path / "starts.log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.write_text("")
    return [line.split() for line in lines]
