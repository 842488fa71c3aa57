"""Which tools a gate started, in order: wrappers put ahead on PATH log each start
(``<tool> <pid> <cwd> <args>``; ``exec`` keeps the pid, the tool's own) and ``starts``
reads the log. Used by the early-start tests of every runner."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

# Each start also records its process group (``/proc``'s 5th field: a wrapper's name has
# no space), for ``spawn_order``.
WRAPPER = (
    "#!/bin/sh\n"
    'echo "{name} $$ $(pwd) $*" >> "$TDDGIT_TEST_LOG"\n'
    'echo "$$ $(cut -d" " -f5 /proc/$$/stat)" >> "$TDDGIT_TEST_LOG.groups"\n'
    'exec {real} "$@"\n'
)


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


def spawn_order(tmp_path: Path, start: list[str]) -> int:
    """When the gate spawned ``start`` (an entry of ``starts``), as a pid: the kernel hands
    pids out in order. Not the log's order: two wrappers started a millisecond apart may
    reach their ``echo`` in either order on a busy machine. An early run leads its own
    process group (through a shell, the wrapper is the shell's child): its group's id is
    the pid of what the gate spawned; a command the gate runs directly (git) stays in the
    gate's group, which is this process's, and its own pid is what was spawned."""
    log = tmp_path / "starts.log.groups"
    groups = dict(line.split() for line in log.read_text().splitlines())
    group = int(groups[start[1]])
    return group if group != os.getpgrp() else int(start[1])


def starts(tmp_path: Path) -> list[list[str]]:
    """The logged starts since the last call: [tool, pid, cwd, args...] each."""
    log = tmp_path / "starts.log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.write_text("")
    return [line.split() for line in lines]
