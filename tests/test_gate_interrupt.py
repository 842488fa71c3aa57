"""An interrupted gate (Ctrl-C or SIGTERM mid-run) leaves everything as it was."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import TDDGIT, GitRepo
from tests.procs import alive
from tests.project import snapshot_state, start_project

HANGING_TEST = """\
import os, time

def test_hangs():
    with open(os.environ["PIDFILE"], "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(60)
    assert False
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_mid_run_leaves_everything_as_it_was(
    repo: GitRepo, tmp_path: Path, sig: signal.Signals
) -> None:
    start_project(repo)
    repo.write("tests/test_hang.py", HANGING_TEST, dedent=False)
    repo.add("tests/test_hang.py")
    repo.write(
        "calc.py", "# unstaged edit forces a snapshot\n" + (repo.root / "calc.py").read_text()
    )
    repo.write("untracked.txt", "keep me\n")
    before = snapshot_state(repo)
    pidfile = tmp_path / "pid"
    tmpdir = tmp_path / "tmp"  # where the gate's snapshot lives
    tmpdir.mkdir()
    proc = subprocess.Popen(
        [*TDDGIT, "red", "-m", "hang"],
        cwd=repo.root,
        env={**os.environ, "PIDFILE": str(pidfile), "TMPDIR": str(tmpdir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() < deadline, "the test never started"
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    test_pid = int(pidfile.read_text())
    assert list(tmpdir.glob("tddgit-snapshot-*")), "the gate should run on a snapshot"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    assert not alive(test_pid), "the test process outlived the gate"
    assert snapshot_state(repo) == before
    assert repo.git("rev-list", "--count", "HEAD").strip() == "1"
    assert list(tmpdir.iterdir()) == [], "the snapshot was not removed"


@pytest.mark.parametrize(
    "args", [["audit", "--format", "markdown"], ["status"], ["-C", ".", "config"]]
)
def test_ctrl_c_while_the_command_line_loads_is_one_line(
    repo: GitRepo, tmp_path: Path, args: list[str]
) -> None:
    """Ctrl-C while Python still imports the command line (before any command's own
    handler is in place): one line and 130, not a KeyboardInterrupt traceback. A
    ``click`` first on the path raises it exactly where a Ctrl-C would land."""
    start_project(repo)
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "click.py").write_text("raise KeyboardInterrupt\n")
    path = os.pathsep.join(p for p in (str(fake), os.environ.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [*TDDGIT, *args],
        cwd=repo.root,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 130, done.stdout + done.stderr
    assert done.stderr == "tddgit: interrupted\n"
