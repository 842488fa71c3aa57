"""The early-start tests' clock: the order in which a gate spawned its tools."""

from __future__ import annotations

import os
from pathlib import Path

from tests.runners.startlog import spawn_order


def test_spawn_order_holds_across_a_pid_wrap(tmp_path: Path) -> None:
    """A fresh clone's suite spawns thousands of processes: a gate's early run can get
    pid 32624 and its first git, spawned after it, pid 301 (seen in a CI run)."""
    own = os.getpgrp()
    (tmp_path / "starts.log.groups").write_text(f"32626 32624\n301 {own}\n")
    (tmp_path / "starts.log.ref").write_text("32600")
    go = ["go", "32626", str(tmp_path), "test"]
    git = ["git", "301", str(tmp_path), "write-tree"]
    assert spawn_order(tmp_path, go) < spawn_order(tmp_path, git)
