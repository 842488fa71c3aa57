"""Two sessions of one agent on one file: one's kept refactor survives the other's
revert, and only the session whose change broke a test is told. Marker files outside the
project order the two sessions' tool calls, so each scenario is the same on every run.

Session B starts first (its accepted state is the tree before A's change) and breaks
``sub`` through its shell: a change the guard sees only by comparing the tree with what
it accepted for B, A's kept change included."""

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


def run_pair(
    repo: GitRepo, script_a: list[object], script_b: list[object], tmp_path: Path
) -> tuple[list[str], list[str], str]:
    """B started first (its state is the tree before A's change), then A; both awaited."""
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
    return fake_a.after_tools(), fake_b.after_tools(), report


def test_a_revert_keeps_the_other_sessions_change(agents: Path, tmp_path: Path) -> None:
    """B's one shell call spans A's kept change; B's revert undoes B's hunk alone. A's
    last call spans B's change too, but began after B's: the change is B's to judge."""
    repo = green_project(tmp_path / "project", AGENT)
    kept, judged = tmp_path / "a-kept", tmp_path / "b-judged"
    begun = tmp_path / "b-begun"
    script_b = [
        Shell(f"touch {begun} && {_wait(kept)} && {BREAK_SUB}"),
        Shell(f"touch {judged}"),
        Finish("b done"),
    ]
    script_a = [
        Edit("calc.py", "    return a + b", "    return b + a"),
        Shell(_wait(begun)),  # A's next call begins after B's (the race rule's order)
        Shell(f"touch {kept} && {_wait(judged)}"),
        Finish("a done"),
    ]
    told_a, told_b, report = run_pair(repo, script_a, script_b, tmp_path)
    assert (repo.root / "calc.py").read_text() == KEPT, report
    assert any("tddgit [" in text and _reverted(text) for text in told_b), report
    assert not any("tddgit [" in text and _reverted(text) for text in told_a), report


def test_a_change_made_during_another_sessions_call_is_not_blamed_on_it(
    agents: Path, tmp_path: Path
) -> None:
    """A's check runs while B's breaking shell call is still running (B waits for it):
    B's call began before A's, so the change on disk is left to B (guard/inflight.py): A
    is not told of it and does not undo it; B's own check then does, and tells B. The
    marker files fix the order of every call, so no timing decides it."""
    repo = green_project(tmp_path / "project", AGENT)
    kept, broken = tmp_path / "a-kept", tmp_path / "b-broke"
    checked, judged = tmp_path / "a-checked", tmp_path / "b-judged"
    begun = tmp_path / "b-begun"
    script_b = [
        Shell(
            f"touch {begun} && {_wait(kept)} && {BREAK_SUB} && touch {broken} && {_wait(checked)}"
        ),
        Shell(f"touch {judged}"),
        Finish("b done"),
    ]
    script_a = [
        Edit("calc.py", "    return a + b", "    return b + a"),
        Shell(_wait(begun)),  # A's next call begins after B's (the race rule's order)
        Shell(f"touch {kept} && {_wait(broken)}"),
        Shell(f"touch {checked} && {_wait(judged)}"),
        Finish("a done"),
    ]
    told_a, told_b, report = run_pair(repo, script_a, script_b, tmp_path)
    assert (repo.root / "calc.py").read_text() == KEPT, report
    assert not any("tddgit [" in text and _reverted(text) for text in told_a), report
    assert any("tddgit [" in text and _reverted(text) for text in told_b), report


def _reverted(text: str) -> bool:
    return "undone" in text or "put back" in text
