"""The honest cycle with each real agent, and a production write with no red refused by
its file tool: the guard installed by ``tddgit agent install``, the agent headless against
a scripted fake model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents_real import drivers
from tests.agents_real.conftest import guarded_project
from tests.agents_real.fakes import Finish, Shell, Write
from tests.project import CALC, trailer

pytestmark = [pytest.mark.agents, pytest.mark.slow]

TDDGIT = f"{drivers.BIN}/tddgit"
TEST_MUL = """\
import calc


def test_add():
    assert calc.add(2, 3) == 5


def test_mul():
    assert calc.mul(4, 3) == 12
"""
CALC_MUL = CALC + "\n\ndef mul(a, b):\n    return a * b\n"


@pytest.mark.parametrize("agent", drivers.AGENTS)
def test_honest_cycle_red_then_green(agent: str, agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", agent)
    script = [
        Write("tests/test_calc.py", TEST_MUL),
        Shell(f"git add tests/test_calc.py && {TDDGIT} red -m multiply"),
        Write("calc.py", CALC_MUL),
        Shell(f"git add calc.py && {TDDGIT} green -m multiply"),
        Finish("mul is implemented, test first."),
    ]
    session = drivers.run(agent, repo.root, home, script)
    assert session.proc.returncode == 0, session.report()
    assert (repo.root / "calc.py").read_text() == CALC_MUL, session.report()
    assert trailer(repo, "HEAD") == "green", session.report()
    assert trailer(repo, "HEAD~1") == "red", session.report()
    assert repo.git("status", "--porcelain", "--", "calc.py", "tests").strip() == ""
    assert not session.fake.seen("tddgit ["), session.report()  # nothing refused


@pytest.mark.parametrize("agent", drivers.AGENTS)
def test_production_write_with_no_red_is_refused(
    agent: str, agents: Path, tmp_path: Path, home: Path
) -> None:
    repo = guarded_project(tmp_path / "project", agent)
    script = [Write("calc.py", CALC_MUL), Finish("tried")]
    session = drivers.run(agent, repo.root, home, script)
    assert (repo.root / "calc.py").read_text() == CALC, session.report()
    told = session.fake.after_tools()
    assert any("write-needs-red" in text for text in told), session.report()
