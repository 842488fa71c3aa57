"""run_command: timeouts kill the whole process group, output memory stays bounded, exit
codes pass through, start failures are clear errors, and Ctrl-C leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tddgit.errors import RunnerError
from tddgit.runners.process import TAIL_BYTES, TERM_GRACE, run_command
from tests.procs import alive

REPO_ROOT = Path(__file__).resolve().parents[2]


def gone(pids: list[int], within: float = 2.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.02)
    return not any(alive(p) for p in pids)


def read_pids(*files: Path) -> list[int]:
    return [int(f.read_text().split()[0]) for f in files]


# A leader that forks a child ignoring SIGTERM, which forks a grandchild; each writes its
# pid once it is running.
FORKER = textwrap.dedent(
    """
    import os, signal, sys, time
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            open("grandchild.pid", "w").write(str(os.getpid()))
            time.sleep(1000)
        open("child.pid", "w").write(str(os.getpid()))
        time.sleep(1000)
    open("leader.pid", "w").write(str(os.getpid()))
    time.sleep(1000)
    """
)


def test_a_command_that_sleeps_forever_is_ended_at_the_timeout(tmp_path: Path) -> None:
    start = time.monotonic()
    result = run_command(["sleep", "1000"], tmp_path, timeout=0.5)
    assert result.timed_out
    assert result.exit_code != 0
    assert 0.4 < result.duration < 0.5 + TERM_GRACE
    assert time.monotonic() - start < 0.5 + TERM_GRACE + 1


def test_a_timeout_kills_children_that_ignore_sigterm_and_grandchildren(tmp_path: Path) -> None:
    (tmp_path / "forker.py").write_text(FORKER)
    # The shell waits until all three are running, so the timeout hits a full tree.
    script = (
        f"{sys.executable} forker.py & "
        "while [ ! -s leader.pid ] || [ ! -s child.pid ] || [ ! -s grandchild.pid ]; "
        "do sleep 0.01; done; wait"
    )
    result = run_command(script, tmp_path, timeout=1.5)
    assert result.timed_out
    pids = read_pids(tmp_path / "leader.pid", tmp_path / "child.pid", tmp_path / "grandchild.pid")
    assert len(set(pids)) == 3
    assert gone(pids), [p for p in pids if alive(p)]


def test_a_leader_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    script = "trap '' TERM; echo $$ > leader.pid; while :; do sleep 0.05; done"
    result = run_command(["sh", "-c", script], tmp_path, timeout=0.3)
    assert result.timed_out
    assert result.duration >= 0.3 + TERM_GRACE - 0.1
    assert gone(read_pids(tmp_path / "leader.pid"))


def test_background_children_do_not_outlive_a_command_that_finished(tmp_path: Path) -> None:
    # The background sleep still holds the output pipe: returning at all proves it died.
    result = run_command("sleep 1000 & echo $! > bg.pid; echo done", tmp_path, timeout=5)
    assert not result.timed_out
    assert result.exit_code == 0
    assert result.output_tail == "done\n"
    assert gone(read_pids(tmp_path / "bg.pid"))


def test_huge_output_keeps_only_a_bounded_tail(tmp_path: Path) -> None:
    # Measured in a fresh interpreter so the peak RSS is this run's alone.
    driver = textwrap.dedent(
        """
        import json, sys
        from pathlib import Path
        from tddgit.runners.process import run_command
        r = run_command("yes 0123456789abcdef | head -c 300000000; echo END", Path("."), timeout=30)
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork+exec, so a child of a
        # big pytest-xdist worker would report the worker's size instead of its own.
        hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
        peak = int(hwm.split()[1]) * 1024
        print(json.dumps({"peak": peak, "tail": len(r.output_tail), "end": r.output_tail[-4:],
                          "code": r.exit_code}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", driver],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["code"] == 0
    assert out["end"] == "END\n"
    assert out["tail"] <= TAIL_BYTES
    assert out["peak"] < 120 * 1024 * 1024  # 300 MB went through


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["sh", "-c", "exit 0"], 0),
        (["sh", "-c", "exit 7"], 7),
        ("exit 42", 42),
        (["false"], 1),
        (["sh", "-c", "kill -9 $$"], -9),  # death by signal, as subprocess reports it
    ],
)
def test_exit_codes_pass_through(tmp_path: Path, argv: list[str] | str, code: int) -> None:
    result = run_command(argv, tmp_path, timeout=5)
    assert result.exit_code == code
    assert not result.timed_out


def test_output_of_stdout_and_stderr_is_kept(tmp_path: Path) -> None:
    result = run_command("echo out; echo err >&2", tmp_path, timeout=5)
    assert "out\n" in result.output_tail
    assert "err\n" in result.output_tail


def test_a_missing_executable_is_a_clear_runner_error(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="tddgit-no-such-tool not found"):
        run_command(["tddgit-no-such-tool", "-x"], tmp_path, timeout=5)


def test_a_missing_directory_is_not_reported_as_a_missing_command(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match=r"directory .*missing") as info:
        run_command(["true"], tmp_path / "gone", timeout=5)
    assert "true not found" not in info.value.one_line()


def test_a_file_that_is_not_executable_is_a_runner_error(tmp_path: Path) -> None:
    script = tmp_path / "run-tests.sh"
    script.write_text("echo hi\n")
    with pytest.raises(RunnerError, match=r"run-tests\.sh"):
        run_command([str(script)], tmp_path, timeout=5)


def test_keyboard_interrupt_still_kills_the_group(tmp_path: Path) -> None:
    (tmp_path / "forker.py").write_text(FORKER)
    # A signal handler raises KeyboardInterrupt while run_command waits, as Ctrl-C would.
    driver = textwrap.dedent(
        f"""
        import os, signal, time
        from pathlib import Path
        from tddgit.runners.process import run_command

        def interrupt(signum, frame):
            raise KeyboardInterrupt

        def armed():
            return all(os.path.exists(p) and os.path.getsize(p)
                       for p in ("leader.pid", "child.pid", "grandchild.pid"))

        signal.signal(signal.SIGALRM, lambda s, f: (
            interrupt(s, f) if armed() else signal.setitimer(signal.ITIMER_REAL, 0.05)))
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        try:
            run_command([{sys.executable!r}, "forker.py"], Path("."), timeout=30)
        except KeyboardInterrupt:
            print("interrupted")
        """
    )
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", driver],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert proc.stdout.strip() == "interrupted", proc.stderr
    assert time.monotonic() - start < 10
    pids = read_pids(tmp_path / "leader.pid", tmp_path / "child.pid", tmp_path / "grandchild.pid")
    assert gone(pids), [p for p in pids if alive(p)]


def test_a_process_that_left_the_group_does_not_hang_the_run(tmp_path: Path) -> None:
    # setsid puts it in a new session, out of reach of the group kill, and it still holds
    # the output pipe: run_command must return anyway (PRODUCT.md §10: never hang).
    try:
        result = run_command(
            "setsid sh -c 'echo $$ > escapee.pid; exec sleep 1000' & "
            "while [ ! -s escapee.pid ]; do sleep 0.01; done; echo started",
            tmp_path,
            timeout=5,
        )
        assert all(alive(p) for p in read_pids(tmp_path / "escapee.pid"))
        assert result.exit_code == 0
        assert result.duration < 5
        assert "started" in result.output_tail
    finally:
        for pid in read_pids(tmp_path / "escapee.pid"):
            os.kill(pid, 9)
