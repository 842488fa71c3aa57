"""``tddgit agent doctor AGENT`` asks the agent's own CLI where it has a command for it
(guard/agentcli.py): ``claude doctor`` lists settings entries Claude Code ignores,
``codex features list`` says whether Codex runs hooks at all; Gemini CLI has no such
command and doctor says it read the files instead. The real pinned CLIs, on PATH."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.agents_real import drivers
from tests.agents_real.conftest import guarded_project
from tests.agents_real.test_untrusted import doctor

pytestmark = [pytest.mark.agents, pytest.mark.slow]


def test_claude_doctor_confirms_the_settings(agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", "claude-code")
    proc = doctor("claude-code", repo.root, home, agents, trusted=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok: `claude doctor` reads the settings with no invalid entry" in proc.stdout


def test_claude_doctor_names_a_hook_claude_code_ignores(
    agents: Path, tmp_path: Path, home: Path
) -> None:
    """A hook entry tddgit's own reading takes as fine (the commands and matchers are all
    there) but Claude Code drops: only its own CLI can say so."""
    repo = guarded_project(tmp_path / "project", "claude-code")
    settings = repo.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["PostToolUse"].append(
        {"matcher": "*", "hooks": [{"type": "comand", "command": "echo typo"}]}
    )
    settings.write_text(json.dumps(data, indent=2))
    proc = doctor("claude-code", repo.root, home, agents, trusted=True)
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1, said
    assert "to do: `claude doctor` ignores settings entries:" in proc.stdout, said
    assert 'Unknown hook type "comand"' in proc.stdout, said
    assert "Traceback" not in said


def test_codex_features_confirm_hooks_run(agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", "codex")
    proc = doctor("codex", repo.root, home, agents, trusted=True)
    assert "ok: `codex features list`: the hooks feature is on" in proc.stdout, proc.stdout


def test_codex_with_hooks_turned_off_is_caught(agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", "codex")
    env = drivers.configure("codex", home, repo.root, "http://127.0.0.1:9", trusted=True)
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text() + "\n[features]\nhooks = false\n")
    env["PATH"] = str(agents) + os.pathsep + env["PATH"]
    proc = subprocess.run(
        [f"{drivers.BIN}/tddgit", "agent", "doctor", "codex"],
        cwd=repo.root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=drivers.SESSION_TIMEOUT,
    )
    assert proc.returncode == 1
    assert "to do: `codex features list` says the hooks feature is off" in proc.stdout, (
        proc.stdout + proc.stderr
    )


def test_gemini_doctor_says_it_read_the_files(agents: Path, tmp_path: Path, home: Path) -> None:
    repo = guarded_project(tmp_path / "project", "gemini")
    proc = doctor("gemini", repo.root, home, agents, trusted=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no command that lists the hooks it loads" in proc.stdout
