"""Hanging, forking and flooding test suites through the real `tddgit red` with a short
`timeout`: each ends at the timeout with an amber `timeout`, leaves no process behind, and
tddgit's memory stays bounded however much the suite prints (PRODUCT.md §4, §10)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TDDGIT, GitRepo
from tests.project import start_project
from tests.reliability.harness import assert_no_process_left, marked_env

TIMEOUT = 2

SLEEPS = """\
import time

def test_sleeps_forever():
    time.sleep(3600)
"""

FORKS = """\
import signal, subprocess, sys, time

def test_forks_a_stubborn_child():
    subprocess.Popen([sys.executable, "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"])
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(3600)
"""

# Runs with `-s` (see _hanging_repo), so fd 1 is the pipe tddgit drains; progress every
# 64 MiB, until the timeout.
# Floods 576 MiB, then hangs until the timeout: the volume does not depend on how fast a
# busy machine runs it (a flood bounded by the timeout alone printed 0 bytes at a load of 20).
FLOOD = """\
import os, time

def test_floods_the_output():
    chunk = b"x" * (1 << 20)
    written = 0
    while written < (576 << 20):
        os.write(1, chunk)
        written += len(chunk)
        if written % (64 << 20) == 0:
            with open(os.environ["FLOOD_LOG"], "w") as fh:
                fh.write(str(written))
    time.sleep(3600)
"""


def _hanging_repo(repo: GitRepo, body: str, timeout: int = TIMEOUT) -> None:
    start_project(repo)
    if body is FLOOD:
        pyproject = (repo.root / "pyproject.toml").read_text()
        repo.write("pyproject.toml", pyproject + 'addopts = "-s"\n', dedent=False)
    repo.write(".tddgit.yaml", f"timeout: {timeout}\n")
    repo.commit("short timeout", ".tddgit.yaml")
    repo.write("tests/test_hang.py", body, dedent=False)
    repo.add("tests/test_hang.py")


def _run_measured(
    repo: GitRepo, env: dict[str, str], *args: str
) -> tuple[int, str, str, float, int]:
    """Run tddgit; (exit code, stdout, stderr, seconds, tddgit's own peak RSS in KiB, sampled
    from /proc while it runs)."""
    out, err = repo.root.parent / "out.txt", repo.root.parent / "err.txt"
    start = time.monotonic()
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen([*TDDGIT, *args], cwd=repo.root, env=env, stdout=o, stderr=e)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, _vm_hwm(proc.pid))
            time.sleep(0.05)
    took = time.monotonic() - start
    return proc.returncode, out.read_text(), err.read_text(), took, peak


def _vm_hwm(pid: int) -> int:
    """The process's own peak RSS in KiB (VmHWM: per address space, so unlike ru_maxrss it
    does not carry over the pytest worker's size through fork+exec); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


@pytest.mark.parametrize("body", [SLEEPS, FORKS], ids=["sleeps-forever", "forks-stubborn-child"])
def test_a_hanging_suite_ends_amber_at_the_timeout(
    repo: GitRepo, tmp_path: Path, body: str
) -> None:
    _hanging_repo(repo, body)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env, mark = marked_env(tmpdir)
    head = repo.head()
    code, out, err, took, _ = _run_measured(repo, env, "red", "--json", "-m", "hangs")
    assert code == 1, out + err
    assert "Traceback" not in err
    verdict = json.loads(out)
    assert not verdict["holds"]
    [target] = verdict["evidence"]["targets"]
    assert target["cause"] == "timeout", target
    assert TIMEOUT <= took < TIMEOUT + 15
    assert_no_process_left(mark, within=2)
    assert repo.head() == head
    assert list(tmpdir.iterdir()) == []


def test_a_flooding_suite_costs_bounded_memory(repo: GitRepo, tmp_path: Path) -> None:
    _hanging_repo(repo, FLOOD, timeout=30)  # 576 MiB of output, then a hang
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    log = tmp_path / "flood.log"
    env, mark = marked_env(tmpdir, FLOOD_LOG=str(log))
    code, out, err, _, maxrss_kib = _run_measured(repo, env, "red", "--json", "-m", "x")
    assert code == 1, out[-2000:] + err[-2000:]
    assert "Traceback" not in err
    [target] = json.loads(out)["evidence"]["targets"]
    assert target["cause"] == "timeout", target
    written = int(log.read_text()) if log.exists() else 0
    assert written >= 512 << 20, f"the suite printed only {written} bytes"
    # tddgit keeps a 64 KiB tail; the bound leaves room for the interpreter.
    assert 0 < maxrss_kib < 200 * 1024, f"peak RSS {maxrss_kib} KiB after {written} bytes"
    assert_no_process_left(mark, within=2)
    assert list(tmpdir.iterdir()) == []


def test_rss_measure_sees_a_big_process(tmp_path: Path) -> None:
    """The measurement above can fail: it sees a process that holds 300 MiB."""
    code = (
        "import time\nb = bytearray(300 << 20)\n"
        "for i in range(0, len(b), 4096): b[i] = 1\ntime.sleep(0.5)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _vm_hwm(proc.pid))
        time.sleep(0.05)
    assert peak > 250 * 1024
