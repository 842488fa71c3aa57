"""A gate command ends without the interpreter's teardown (``tddgit/__main__.py``
``_exit_now``: ~15 ms of CPU after the verdict, on the critical path of every test run,
issue 29), and loses nothing by it: its output, its exit code, what ``atexit`` holds, a
thread that is not a daemon."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import GitRepo
from tests.project import stage_red, start_project

# The entry point as the console script calls it, with an exit handler and (``thread``) a
# non-daemon thread that writes its file only after a pause.
DRIVER = """\
import atexit, sys, threading, time
out = sys.argv[1]
atexit.register(lambda: open(out + ".atexit", "w").write("ran"))
if sys.argv[2] == "thread":
    def late():
        time.sleep(0.3)
        open(out + ".thread", "w").write("ran")
    threading.Thread(target=late, daemon=False).start()
sys.argv = ["tddgit", *sys.argv[3:]]
from tddgit.__main__ import main
sys.exit(main())
"""


def run(repo: GitRepo, tmp_path: Path, mode: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, str(tmp_path / "out"), mode, *argv],
        cwd=repo.root,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_gate_keeps_its_output_exit_code_and_exit_handlers(repo: GitRepo, tmp_path: Path) -> None:
    start_project(repo)
    stage_red(repo)
    proc = run(repo, tmp_path, "plain", "red", "--no-commit")
    assert proc.returncode == 0, proc.stderr
    assert "red holds" in proc.stdout and "evidence stored" in proc.stdout, proc.stdout
    assert (tmp_path / "out.atexit").read_text() == "ran"


def test_a_refused_gate_keeps_its_message_and_code(repo: GitRepo, tmp_path: Path) -> None:
    start_project(repo)
    proc = run(repo, tmp_path, "plain", "red")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "nothing is staged" in proc.stderr
    assert (tmp_path / "out.atexit").read_text() == "ran"


def test_a_thread_that_is_not_a_daemon_is_waited_for(repo: GitRepo, tmp_path: Path) -> None:
    start_project(repo)
    proc = run(repo, tmp_path, "thread", "red")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert (tmp_path / "out.thread").read_text() == "ran"
    assert (tmp_path / "out.atexit").read_text() == "ran"
