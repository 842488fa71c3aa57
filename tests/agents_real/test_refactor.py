"""A behaviour change passed off as a refactor, by the real Claude Code against a scripted
fake model: the guard's mutation of the changed line tells the model (issue 31 item 3,
issue 26 item 5), as added context after the tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents_real import drivers
from tests.agents_real.fakes import Finish, Write
from tests.agents_real.test_parallel import green_project
from tests.project import CALC_SUB

pytestmark = [pytest.mark.agents, pytest.mark.slow]

SEVEN = CALC_SUB.replace("return a + b", "return a + b if b != 7 else 0")


def test_claude_code_is_told_of_an_unpinned_refactor(
    agents: Path, tmp_path: Path, home: Path
) -> None:
    repo = green_project(tmp_path / "project", "claude-code")
    session = drivers.run("claude-code", repo.root, home, [Write("calc.py", SEVEN), Finish("ok")])
    assert session.proc.returncode == 0, session.report()
    told = "\n".join(session.fake.after_tools())  # the Write's result, after its Read's
    assert "tddgit [refactor-unpinned]: your write to calc.py changes behaviour" in told, (
        session.report()
    )
    assert "becomes `return a + b if True else 0`" in told, session.report()
    assert (repo.root / "calc.py").read_text() == SEVEN  # warn: kept
