"""``procgroup.spawn_files``: the early start's spawn without ``subprocess`` or a shell
(``os.posix_spawn``, its output to files), run to its end by ``run_command`` like any
test command, and watched like one: a SIGKILL of its owner leaves nothing behind. Real
processes only."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tddgit.cargocmd import _doc_code
from tddgit.procgroup import spawn_files
from tddgit.runners.process import run_command
from tests.runners.test_process import gone

SCRIPT = "echo out; echo err >&2; pwd; exit 3"


def test_the_output_goes_to_files_in_order_and_the_exit_code_through(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    here = os.getcwd()
    group = spawn_files(["sh", "-c", SCRIPT], str(work), dict(os.environ), str(out), None)
    assert os.getcwd() == here  # its own directory changed for the spawn only
    result = run_command("unused: already started", work, timeout=30, started=group)
    assert result.exit_code == 3
    assert out.read_text().splitlines() == ["out", "err", str(work)]
    group = spawn_files(["sh", "-c", SCRIPT], str(work), dict(os.environ), str(out), str(err))
    assert run_command("unused", work, timeout=30, started=group).exit_code == 3
    assert (out.read_text(), err.read_text()) == (f"out\n{work}\n", "err\n")


def test_a_missing_command_does_not_start(tmp_path: Path) -> None:
    out = str(tmp_path / "out.txt")
    try:
        spawn_files(["no-such-command-here"], str(tmp_path), dict(os.environ), out, None)
    except FileNotFoundError:
        return
    raise AssertionError("a missing command started")


OWNER = textwrap.dedent(
    """
    import os, sys, time
    from tddgit.procgroup import spawn_files
    group = spawn_files(["sleep", "300"], sys.argv[1], dict(os.environ), sys.argv[2], None)
    print(group.proc.pid, flush=True)
    time.sleep(300)
    """
)


def test_a_sigkilled_owner_leaves_no_process_behind(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(tmp_path), str(tmp_path / "out.txt")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout is not None
    pid = int(owner.stdout.readline())
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    assert gone([pid], within=10.0)  # the watchdog killed the group; a busy machine is slow


# The doc-test scan reads sources without `re` (its import delays the early start): it
# must answer as this pattern's search does.
DOC_CODE = re.compile(r"(?m)```|~~~|\bdoc\s*=|/\*[*!]|^\s*//[/!] {5,}\S")
PIECES = ["d", "o", "c", "doc", "=", " ", "     ", "\t", "\n", "/", "//", "///", "//!", "*", "!"]
PIECES += ["`", "``", "~", "x", "_", "é", "\r", "\u00a0", "1", "#![", "]"]


def test_the_doc_test_scan_answers_as_its_pattern() -> None:
    rng = random.Random(29)
    samples = ["", "/// ```\n/// x\n", '#![doc = include_str!("R.md")]', "///     code()"]
    samples += ["// doc=", "undoc = 1", "mydoc\n=", "//!      \tx", "  //!     y", "/*! x */"]
    samples += [
        "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14))) for _ in range(20000)
    ]
    wrong = [s for s in samples if _doc_code(s) != bool(DOC_CODE.search(s))]
    assert not wrong, wrong[:5]


def test_a_stopped_watchdog_is_killed_not_waited_for_and_reaped_later(tmp_path: Path) -> None:
    """The test command's end is not held up by its watchdog's death (a scheduler round
    trip before the verdict, issue 29): the watchdog is killed and reaped at the next
    start or stop, never left running, and never left a zombie for long."""
    from tddgit import procgroup
    from tests.procs import alive

    group = spawn_files(["true"], str(tmp_path), dict(os.environ), str(tmp_path / "o"), None)
    assert group.watchdog is not None
    watchdog = group.watchdog.child.pid
    assert run_command("unused", tmp_path, timeout=30, started=group).exit_code == 0
    assert gone([watchdog])  # dead at once: killed, not asked to end
    again = spawn_files(["true"], str(tmp_path), dict(os.environ), str(tmp_path / "o"), None)
    assert all(c.pid != watchdog for c in procgroup._dying)  # reaped by the next start:
    with pytest.raises(ChildProcessError):
        os.waitpid(watchdog, os.WNOHANG)  # no longer a child of ours, not even a zombie
    assert run_command("unused", tmp_path, timeout=30, started=again).exit_code == 0
    procgroup.reap_stopped()
    for _ in range(200):
        if not procgroup._dying:
            break
        time.sleep(0.01)
        procgroup.reap_stopped()
    assert procgroup._dying == []
    assert not alive(watchdog)
