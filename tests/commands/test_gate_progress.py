"""A long test run says how far it is: tests done and failed so far, from the probe's
stream; outside a terminal as a line on stderr every few seconds."""

from __future__ import annotations

import re

from tests.conftest import GitRepo
from tests.project import start_project

SLOW_TESTS = "import time\n\nimport calc\n" + "".join(
    f"\n\ndef test_sub_{n}():\n    time.sleep(0.7)\n    assert calc.sub({n}, 0) == {n}\n"
    for n in range(4)
)


def test_a_gate_outside_a_terminal_prints_tests_done_so_far(repo: GitRepo) -> None:
    start_project(repo)
    repo.write("tests/test_slow.py", SLOW_TESTS, dedent=False)
    repo.add("tests/test_slow.py")
    env = {"TDDGIT_NO_PROGRESS": "", "TDDGIT_PROGRESS_EVERY": "0.4"}
    proc = repo.tddgit("red", "--no-commit", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = [
        (int(m[1]), int(m[2]))
        for m in re.finditer(r"red gate: .* (\d+) tests? done, (\d+) failed", proc.stderr)
    ]
    assert len(counts) >= 3, proc.stderr  # a line every 0.4 s of a 2.8 s run
    assert counts == sorted(counts)  # it only goes forward
    assert any(done >= 1 for done, _ in counts), proc.stderr
    assert all(done == failed for done, failed in counts)  # each new test fails, as red must
    assert all(line.startswith("tddgit: ") for line in proc.stderr.splitlines() if "gate" in line)
