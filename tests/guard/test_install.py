"""install/uninstall merge with the user's configuration and leave it as it was."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GitRepo
from tests.guard.conftest import installed_commands

USER_CONFIG: dict[str, tuple[str, dict[str, Any]]] = {
    "claude-code": (
        ".claude/settings.json",
        {
            "model": "opus",
            "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Bash(tee:*)", "Read(.env)"]},
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [{"type": "command", "command": "./audit-bash.sh"}],
                    },
                    {
                        "matcher": "Write|Edit",
                        "hooks": [{"type": "command", "command": "prettier"}],
                    },
                ],
                "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
            },
        },
    ),
    "codex": (
        ".codex/hooks.json",
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
                ]
            }
        },
    ),
    "gemini": (
        ".gemini/settings.json",
        {
            "theme": "GitHub",
            "hooks": {
                "AfterTool": [
                    {"matcher": "write_file", "hooks": [{"type": "command", "command": "fmt"}]}
                ]
            },
        },
    ),
    "cursor": (
        ".cursor/hooks.json",
        {
            "version": 1,
            "hooks": {
                "afterFileEdit": [{"command": "./format.sh"}],
                "stop": [{"command": "./done.sh"}],
            },
        },
    ),
}


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    repo.write("README.md", "x\n")
    repo.commit("start")
    return repo


@pytest.mark.parametrize("agent", list(USER_CONFIG))
def test_install_then_uninstall_leaves_the_users_configuration_as_it_was(
    project: GitRepo, agent: str
) -> None:
    rel, theirs = USER_CONFIG[agent]
    path = project.root / rel
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(theirs, indent=4))
    project.tddgit("agent", "install", agent, check=True)
    merged = json.loads(path.read_text())
    assert set(installed_commands(project, agent).values()) == {f"tddgit agent hook {agent}"}
    for event, entries in theirs["hooks"].items():  # every user hook is still there, in order
        assert merged["hooks"][event][: len(entries)] == entries
    project.tddgit("agent", "install", agent, check=True)  # idempotent
    assert json.loads(path.read_text()) == merged
    project.tddgit("agent", "uninstall", agent, check=True)
    assert json.loads(path.read_text()) == theirs


@pytest.mark.parametrize("agent", list(USER_CONFIG))
def test_uninstall_removes_a_file_install_created(project: GitRepo, agent: str) -> None:
    path = project.root / USER_CONFIG[agent][0]
    out = project.tddgit("agent", "install", agent, check=True).stdout
    assert str(path) in out
    assert path.exists()
    project.tddgit("agent", "uninstall", agent, check=True)
    assert not path.exists() and not path.parent.exists()


def test_claude_code_gets_deny_rules_for_shell_writes_and_keeps_the_users(project: GitRepo) -> None:
    project.tddgit("agent", "install", "claude-code", check=True)
    settings = json.loads((project.root / ".claude/settings.json").read_text())
    deny = settings["permissions"]["deny"]
    assert "Bash(sed -i:*)" in deny and "Bash(tee:*)" in deny
    # prefixes Claude Code never matches (it takes redirections out first) are not installed
    assert not {"Bash(cat >:*)", "Bash(echo >:*)", "Bash(printf >:*)"} & set(deny)
    hooks = settings["hooks"]
    assert hooks["PreToolUse"][0]["matcher"] == "Write|Edit|NotebookEdit|Bash"
    # the tree check runs after every tool, shell and MCP tools included
    assert hooks["PostToolUse"][0]["matcher"] == "*"
    assert hooks["PostToolUseFailure"][0]["matcher"] == "*"
    assert set(hooks) == {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionStart"}


def test_reinstall_takes_out_the_deny_rules_that_never_matched(project: GitRepo) -> None:
    project.tddgit("agent", "install", "claude-code", check=True)
    path = project.root / ".claude/settings.json"
    settings = json.loads(path.read_text())
    settings["permissions"]["deny"].append("Bash(cat >:*)")  # as an older tddgit installed
    path.write_text(json.dumps(settings))
    record = project.root / ".git/tddgit/guard/installed-claude-code.json"
    data = json.loads(record.read_text())
    data["deny_rules"].append("Bash(cat >:*)")
    record.write_text(json.dumps(data))
    project.tddgit("agent", "install", "claude-code", check=True)
    assert "Bash(cat >:*)" not in json.loads(path.read_text())["permissions"]["deny"]


def test_user_scope_writes_to_the_home_directory(project: GitRepo) -> None:
    home = Path.home()
    project.tddgit("agent", "install", "cursor", "--user", check=True)
    data = json.loads((home / ".cursor/hooks.json").read_text())
    assert (
        data["version"] == 1
        and data["hooks"]["preToolUse"][0]["command"] == "tddgit agent hook cursor"
    )
    project.tddgit("agent", "uninstall", "cursor", "--user", check=True)
    assert not (home / ".cursor/hooks.json").exists()


def test_a_configuration_that_is_not_json_is_refused_and_left_alone(project: GitRepo) -> None:
    path = project.root / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text("{ not json")
    proc = project.tddgit("agent", "install", "claude-code")
    assert proc.returncode == 2
    assert "is not valid JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert path.read_text() == "{ not json"


def test_gemini_install_says_the_folder_must_be_trusted_and_doctor_agrees(
    project: GitRepo,
) -> None:
    proc = project.tddgit("agent", "install", "gemini", check=True)
    assert "to do:" in proc.stdout and "TRUST_FOLDER" in proc.stdout
    doctor = project.tddgit("agent", "doctor", "gemini")
    assert doctor.returncode == 1 and "trust" in doctor.stdout
    folders = Path.home() / ".gemini" / "trustedFolders.json"
    folders.parent.mkdir(exist_ok=True)
    folders.write_text(json.dumps({str(project.root): "TRUST_FOLDER"}))
    env_path = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    doctor = project.tddgit("agent", "doctor", "gemini", env={"PATH": env_path})
    assert doctor.returncode == 0, doctor.stdout
    assert "is active" in doctor.stdout
    folders.unlink()


def test_doctor_says_an_agent_cli_slow_to_answer_instead_of_failing(
    project: GitRepo, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    slow = bin_dir / "gemini"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(0o755)
    project.tddgit("agent", "install", "gemini", "--user", check=True)
    path = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]])
    env = {"PATH": path, "TDDGIT_AGENT_VERSION_TIMEOUT": "0.5"}
    doctor = project.tddgit("agent", "doctor", "gemini", "--user", env=env)
    assert doctor.returncode != 3, doctor.stderr
    assert "gave no answer within 0.5 s" in doctor.stdout, doctor.stdout + doctor.stderr


def test_doctor_finds_a_matcher_that_misses_the_shell_tool(project: GitRepo) -> None:
    project.tddgit("agent", "install", "codex", check=True)
    path = project.root / ".codex/hooks.json"
    data = json.loads(path.read_text())
    data["hooks"]["PreToolUse"][0]["matcher"] = "^apply_patch$"  # an older install
    path.write_text(json.dumps(data))
    doctor = project.tddgit("agent", "doctor", "codex")
    assert doctor.returncode == 1
    assert "hooks.PreToolUse matches '^apply_patch$'" in doctor.stdout
    assert "/hooks" in doctor.stdout  # Codex's hook trust, said every time
