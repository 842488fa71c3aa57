"""Two sessions of one agent on one file: one's kept refactor survives the other's
revert, and only the session whose change broke a test is told.

Session B starts first (its accepted state is the tree before A's change); in one shell
call it waits until A's change is kept, then breaks ``sub`` (a change the guard sees only
by comparing the tree with what it accepted for B, A's change included); the guard must
undo B's change alone,
not put the whole file back to B's state (which would wipe A's change). A stops only
after B's change was judged, so A's stop is never blocked by B's doing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.agents_real import drivers
from tests.agents_real.fakes import Edit, Finish, Shell
from tests.conftest import GitRepo
from tests.project import CALC_SUB, stage_green, stage_red, start_project

pytestmark = [pytest.mark.agents, pytest.mark.slow]

AGENT = "claude-code"
KEPT = CALC_SUB.replace("return a + b", "return b + a")
BREAK_SUB = (
    "python3 -c \"import pathlib; p = pathlib.Path('calc.py'); "
    "p.write_text(p.read_text().replace('a - b', 'a + b'))\""
)


def _wait(marker: Path) -> str:
    return f"for i in $(seq 400); do [ -f {marker} ] && break; sleep 0.25; done; [ -f {marker} ]"


def green_project(root: Path, agent: str) -> GitRepo:
    root.mkdir(parents=True)
    repo = GitRepo(root)
    repo.git("init", "-q")
    start_project(repo)
    stage_red(repo)
    repo.tddgit("red", "-m", "subtract", check=True)
    stage_green(repo)
    repo.tddgit("green", "-m", "subtract", check=True)
    repo.tddgit("agent", "install", agent, check=True)
    return repo


def test_two_sessions_on_one_file(agents: Path, tmp_path: Path) -> None:
    repo = green_project(tmp_path / "project", AGENT)
    kept, judged = tmp_path / "a-kept", tmp_path / "b-judged"
    # One tool call of B's spans A's kept change: B's accepted state predates it.
    script_b = [
        Shell(f"{_wait(kept)} && {BREAK_SUB}"),
        Shell(f"touch {judged}"),
        Finish("b done"),
    ]
    script_a = [
        Edit("calc.py", "    return a + b", "    return b + a"),
        Shell(f"touch {kept}"),
        Shell(_wait(judged)),
        Finish("a done"),
    ]
    fake_b = drivers.FAKES[AGENT](script_b, repo.root)
    fake_a = drivers.FAKES[AGENT](script_a, repo.root)
    with fake_b, fake_a:
        proc_b = drivers.start(AGENT, repo.root, tmp_path / "home-b", fake_b)
        try:
            deadline = time.monotonic() + drivers.SESSION_TIMEOUT
            while not fake_b.requests and proc_b.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)  # B's session has started: its state is the tree before A
            proc_a = drivers.start(AGENT, repo.root, tmp_path / "home-a", fake_a)
            try:
                out_a = proc_a.communicate(timeout=drivers.SESSION_TIMEOUT)
            finally:
                proc_a.kill()
            out_b = proc_b.communicate(timeout=drivers.SESSION_TIMEOUT)
        finally:
            proc_b.kill()
    report = (
        f"A: {out_a[1][-2000:]}\n" + "\n".join(fake_a.after_tools())
        + f"\nB: {out_b[1][-2000:]}\n" + "\n".join(fake_b.after_tools())
    )  # fmt: skip
    assert (repo.root / "calc.py").read_text() == KEPT, report
    told_a, told_b = fake_a.after_tools(), fake_b.after_tools()
    assert any("tddgit [" in text and _reverted(text) for text in told_b), report
    assert not any("tddgit [" in text and _reverted(text) for text in told_a), report


def _reverted(text: str) -> bool:
    return "undone" in text or "put back" in text
