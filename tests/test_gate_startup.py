"""A gate's start-up is overhead on its test run (PRODUCT.md §11: the red gate <= 1.3x
plain pytest): the test command starts before the machinery only needed for the verdict
(lineage, notes, evidence, the plan's checks, the probe's reader) is loaded, and the
verdict is the same when that work overlaps the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import GitRepo
from tests.project import rules, stage_green, stage_red, start_project, verdict

# A fresh interpreter runs tddgit's entry point; when the gate starts pytest, the modules
# loaded so far are written down (observed, nothing replaced: the Popen goes on as usual).
PROBE = """\
import json, subprocess, sys
out = sys.argv[1]
real_init = subprocess.Popen.__init__
def init(self, args, *a, **k):
    if "pytest" in args and not getattr(init, "seen", False):
        init.seen = True
        with open(out, "w") as fh:
            json.dump(sorted(sys.modules), fh)
    real_init(self, args, *a, **k)
subprocess.Popen.__init__ = init
from tddgit.__main__ import main
sys.exit(main(sys.argv[2:]))
"""

NOT_BEFORE_THE_RUN = (
    "tddgit.lineage",
    "tddgit.notes",
    "tddgit.evidence",
    "tddgit.gates.plan",
    "tddgit.gates.compare",
    "tddgit.gates.judge",
    "tddgit.runners.probelog",
    "tddgit.runners.pyresults",
)


def loaded_at_spawn(repo: GitRepo, tmp_path: Path, *argv: str) -> tuple[int, list[str]]:
    out = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *argv],
        cwd=repo.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.is_file(), f"no test command started (exit {proc.returncode}): {proc.stderr}"
    return proc.returncode, json.loads(out.read_text())


def test_the_red_gate_starts_its_tests_before_loading_the_verdict_machinery(
    repo: GitRepo, tmp_path: Path
) -> None:
    start_project(repo)
    stage_red(repo)
    code, modules = loaded_at_spawn(repo, tmp_path, "red", "--no-commit")
    assert code == 0
    assert "tddgit.gates.gate" in modules  # the probe saw the gate's own run
    assert [m for m in modules if m in NOT_BEFORE_THE_RUN] == []


def test_a_step_out_of_turn_is_refused_though_its_tests_had_started(repo: GitRepo) -> None:
    """The lineage is read while the tests start: a green with no open red is refused
    as before (`green-without-red`), nothing committed."""
    start_project(repo)
    stage_green(repo)
    head = repo.git("rev-parse", "HEAD").strip()
    code, data = verdict(repo, "green", "--no-commit")
    assert code == 1, data
    assert rules(data) == ["green-without-red"], data
    assert data["evidence"] is None
    assert repo.git("rev-parse", "HEAD").strip() == head


# The red's test waits (at most WAIT seconds) for the dead process's directory to go, then
# writes down whether it went, and fails as a red's test does.
SWEEP_TEST = """\
import os
import time
from pathlib import Path

import calc

WAIT = 15


def test_sub():
    stale = os.environ["G_STALE"]
    deadline = time.monotonic() + WAIT
    while os.path.exists(stale) and time.monotonic() < deadline:
        time.sleep(0.02)
    Path(os.environ["G_SEEN"]).write_text("there" if os.path.exists(stale) else "gone")
    assert calc.sub(5, 3) == 2
"""


def test_a_dead_gates_leftovers_are_swept_while_the_tests_run(
    repo: GitRepo, tmp_path: Path
) -> None:
    """The temporary directory of a tddgit that died without cleaning up is removed
    while the gate's tests run, not after them (after them, the sweep of a crowded
    temporary directory was on the critical path, between the test command's exit and
    the verdict's)."""
    start_project(repo)
    repo.write("tests/test_sub.py", SWEEP_TEST, dedent=False)
    repo.add("tests/test_sub.py")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid names no live process now
    stale = tmpdir / f"tddgit-{dead.pid}-leftover"
    (stale / "inside").mkdir(parents=True)
    seen = tmp_path / "seen.txt"
    env = {**os.environ, "TMPDIR": str(tmpdir), "G_STALE": str(stale), "G_SEEN": str(seen)}
    proc = subprocess.run(
        [sys.executable, "-m", "tddgit", "red", "--no-commit"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert seen.read_text() == "gone"
    assert not stale.exists()


# The modules a whole gate loaded, written down as it exits (``_exit_now`` runs atexit).
AT_EXIT = """\
import atexit, json, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
from tddgit.__main__ import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_gate_that_holds_never_loads_the_traceback_machinery(
    repo: GitRepo, tmp_path: Path
) -> None:
    """``traceback`` (with ``linecache``'s and ``textwrap``'s imports) serves only
    ``--debug``'s error path: every gate paid its import beside the test command."""
    modules = _probe(repo, AT_EXIT, tmp_path / "modules.json")
    assert "tddgit.gates.judge" in modules  # the whole gate ran
    assert [m for m in modules if m in ("traceback", "textwrap")] == []


# When the gate starts pytest: whether the cyclic collector runs; and after main returns.
GC_PROBE = """\
import gc, json, subprocess, sys
out = sys.argv[1]
seen = {}
real_init = subprocess.Popen.__init__
def init(self, args, *a, **k):
    if "pytest" in args and "during" not in seen:
        seen["during"] = gc.isenabled()
    real_init(self, args, *a, **k)
subprocess.Popen.__init__ = init
from tddgit.__main__ import main
code = main(sys.argv[2:])
seen["after"] = gc.isenabled()
with open(out, "w") as fh:
    json.dump(seen, fh)
sys.exit(code)
"""


def test_a_phase_command_runs_without_the_cyclic_collector_and_gives_it_back(
    repo: GitRepo, tmp_path: Path
) -> None:
    """The collector's walks are CPU taken from the tests beside the gate (issue 29): off
    for the phase command's fast path, on again when it returns (a caller in the same
    process gets its collector back)."""
    assert _probe(repo, GC_PROBE, tmp_path / "gc.json") == {"during": False, "after": True}


def _probe(repo: GitRepo, script: str, out: Path) -> Any:
    """A red of the project's staged test, run by ``script`` (it writes JSON to ``out``):
    what it wrote."""
    start_project(repo)
    stage_red(repo)
    proc = subprocess.run(
        [sys.executable, "-c", script, str(out), "red", "--no-commit"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


# The first thread a phase command starts: whether ``typing`` was whole by then.
FIRST_THREAD = """\
import json, sys, threading
out = sys.argv[1]
real_start = threading.Thread.start
def start(self):
    if not getattr(start, "seen", False):
        start.seen = True
        with open(out, "w") as fh:
            json.dump({"typing": "typing" in sys.modules, "thread": self.name}, fh)
    real_start(self)
threading.Thread.start = start
from tddgit.__main__ import main
sys.exit(main(sys.argv[2:]))
"""


def test_typing_is_whole_before_a_phase_command_starts_a_thread(
    repo: GitRepo, tmp_path: Path
) -> None:
    """`dataclasses` reads `typing` from `sys.modules` without the import lock: a pytest
    red run from a subproject's tests (the runner's module, importing `typing`, loaded in
    the run's thread while this one made a dataclass) failed about one time in three
    with `internal error: AttributeError: partially initialized module 'typing' has no
    attribute 'ClassVar'`. So `typing` is loaded whole before any thread starts."""
    repo.write("tools/pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    repo.write("tools/slug.py", "def slug(s):\n    return s.lower()\n")
    test = "from slug import slug\n\ndef test_slug():\n    assert slug('A') == 'a'\n"
    repo.write("tools/tests/test_slug.py", test)
    repo.commit("start")
    repo.write(
        "tools/tests/test_slug.py", test + "\ndef test_dash():\n    assert slug('A B') == 'a-b'\n"
    )
    repo.add("tools/tests/test_slug.py")
    out = tmp_path / "first-thread.json"
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_THREAD, str(out), "red", "--no-commit"],
        cwd=repo.root / "tools" / "tests",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(out.read_text())["typing"], out.read_text()
