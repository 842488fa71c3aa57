"""Hooks that silently do not load: an untrusted folder. Gemini CLI run headless with
``--skip-trust`` drops an untrusted workspace's settings (its hooks); ``codex exec``
without ``--trust`` ignores the project's configuration and without hook trust skips the
hooks. The session shows it (the production write lands, nothing is refused), and
``tddgit agent doctor AGENT`` must say so, with the fix; in a trusted Gemini folder it
passes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.agents_real import drivers
from tests.agents_real.conftest import guarded_project
from tests.agents_real.fakes import Finish, Write
from tests.agents_real.test_cycle import CALC_MUL

pytestmark = [pytest.mark.agents, pytest.mark.slow]


def doctor(
    agent: str, project: Path, home: Path, agents: Path, *, trusted: bool
) -> subprocess.CompletedProcess[str]:
    """``tddgit agent doctor`` as the person would run it: the agent's configuration in
    ``home``, the agent's own CLI on PATH."""
    env = drivers.configure(agent, home, project, "http://127.0.0.1:9", trusted=trusted)
    env["PATH"] = str(agents) + os.pathsep + env["PATH"]
    return subprocess.run(
        [f"{drivers.BIN}/tddgit", "agent", "doctor", agent],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=drivers.SESSION_TIMEOUT,
    )


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_untrusted_folder_is_detected(agent: str, agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", agent)
    script = [Write("calc.py", CALC_MUL), Finish("wrote it")]
    session = drivers.run(agent, repo.root, home, script, trusted=False)
    # The agent really ran without the guard: the write landed, no hook said a word.
    assert (repo.root / "calc.py").read_text() == CALC_MUL, session.report()
    assert not session.fake.seen("tddgit ["), session.report()
    proc = doctor(agent, repo.root, home, agents, trusted=False)
    said = proc.stdout + proc.stderr
    assert proc.returncode != 0, said
    assert "trust" in said.lower(), said
    assert "Traceback" not in said, said


def test_doctor_passes_a_trusted_gemini_folder(agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", "gemini")
    proc = doctor("gemini", repo.root, home, agents, trusted=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
