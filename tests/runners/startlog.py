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
    _mark(tmp_path)


def which(name: str) -> str:
    import shutil

    real = shutil.which(name)
    assert real is not None, name
    return real


def spawn_order(tmp_path: Path, start: list[str]) -> int:
    """When the gate spawned ``start`` (an entry of ``starts``), as a pid: the kernel hands
    pids out in order (counted from the last one before the gate ran, across a wrap).
    Not the log's order: two wrappers started a millisecond apart may reach their
    ``echo`` in either order on a busy machine. An early run leads its own
    process group (through a shell, the wrapper is the shell's child): its group's id is
    the pid of what the gate spawned; a command the gate runs directly (git) stays in the
    gate's group, which is this process's, and its own pid is what was spawned."""
    log = tmp_path / "starts.log.groups"
    groups = dict(line.split() for line in log.read_text().splitlines())
    group = int(groups[start[1]])
    pid = group if group != os.getpgrp() else int(start[1])
    # pids wrap around (at 32768 by default): counted from the last pid handed out
    # before the gate ran (``_mark``), they keep their order across the wrap
    ref = tmp_path / "starts.log.ref"
    if not ref.exists():
        return pid
    return (pid - int(ref.read_text())) % _pid_max()


def _mark(tmp_path: Path) -> None:
    """Note the last pid the kernel handed out (``/proc/loadavg``'s last field): every
    start logged after this comes after it."""
    try:
        last = Path("/proc/loadavg").read_text().split()[-1]
    except OSError:
        return
    (tmp_path / "starts.log.ref").write_text(last)


def _pid_max() -> int:
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text())
    except (OSError, ValueError):
        return 1 << 22


def starts(tmp_path: Path) -> list[list[str]]:
    """The logged starts since the last call: [tool, pid, cwd, args...] each."""
    log = tmp_path / "starts.log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.write_text("")
    _mark(tmp_path)
    return [line.split() for line in lines]
