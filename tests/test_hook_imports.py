"""The hook paths run on every commit and every agent edit: they import nothing heavy
(PRODUCT.md §7, §11). Checked by running each the way it is really called and listing the
modules it loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.hookprobe import loaded_modules
from tests.project import TEST_SUB, start_project

HEAVY = ("rich", "anthropic", "git", "click", "coverage", "pytest", "yaml", "jsonschema")
HEAVY_TDDGIT = ("tddgit.audit", "tddgit.gates", "tddgit.runners", "tddgit.yagni", "tddgit.cli")


def heavy_loaded(repo: GitRepo, argv: list[str], stdin: str = "") -> tuple[list[str], list[str]]:
    """Every module the command loaded, and the heavy ones among them."""
    loaded = loaded_modules(repo.root, argv, stdin)
    assert loaded.code in (0, 1), loaded.stderr
    return list(loaded.modules), loaded.under(HEAVY + HEAVY_TDDGIT)


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    start_project(repo)
    return repo


def test_commit_msg_hook_imports_nothing_heavy(project: GitRepo, tmp_path: Path) -> None:
    msg = tmp_path / "MSG"
    msg.write_text("plain message\n")
    modules, heavy = heavy_loaded(project, ["hook", "commit-msg", str(msg)])
    assert "tddgit.hooks.commit_msg" in modules
    assert heavy == []


@pytest.mark.parametrize("target", ["calc.py", "tests/test_calc.py"])
def test_agent_pre_write_hook_imports_nothing_heavy(project: GitRepo, target: str) -> None:
    payload = {
        "session_id": "s",
        "cwd": str(project.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(project.root / target)},
    }
    modules, heavy = heavy_loaded(project, ["agent", "hook", "claude-code"], json.dumps(payload))
    assert "tddgit.guard.rules" in modules
    assert heavy == []


def test_commit_msg_hook_in_a_repository_of_projects_imports_nothing_heavy(
    repo: GitRepo, tmp_path: Path
) -> None:
    """Discovering the projects and reading each one's configuration stays light."""
    repo.write("api/pyproject.toml", "[project]\nname = 'a'\n\n[tool.tddgit]\ntimeout = 9\n")
    repo.write("web/package.json", "{}\n")
    repo.write("tools/Makefile", "test:\n\ttrue\n")
    repo.commit("three projects")
    msg = tmp_path / "MSG"
    msg.write_text("plain message\n")
    modules, heavy = heavy_loaded(repo, ["hook", "commit-msg", str(msg)])
    assert "tddgit.projects.discover" in modules
    assert heavy == []


# The gate's start-up is overhead on every test run it makes (PRODUCT.md §11, issue 29):
# the phase commands parse plain arguments without click, and nothing below loads before
# or after the tests run. (The gate itself and the runner are what it is for.)
GATE_HEAVY = ("rich", "anthropic", "git", "click", "yaml", "jsonschema", "coverage", "pytest")
GATE_HEAVY_TDDGIT = ("tddgit.cli", "tddgit.audit", "tddgit.yagni", "tddgit.commands.phase")


def test_red_gate_loads_no_command_line_machinery(project: GitRepo) -> None:
    project.write("tests/test_calc.py", TEST_SUB, dedent=False)
    project.git("add", "tests/test_calc.py")
    loaded = loaded_modules(project.root, ["red", "--no-commit"])
    assert loaded.code == 0, loaded.stderr
    assert "tddgit.gates.gate" in loaded.modules
    assert loaded.under(GATE_HEAVY + GATE_HEAVY_TDDGIT) == []


def test_phase_help_still_goes_through_click(project: GitRepo) -> None:
    loaded = loaded_modules(project.root, ["red", "--help"])
    assert loaded.code == 0
    assert "click" in loaded.modules


def test_commit_msg_hook_that_runs_the_gate_loads_no_command_line(
    project: GitRepo, tmp_path: Path
) -> None:
    """`git commit` with a `GSD-Phase` trailer and no stored evidence: the hook runs the gate
    and prints its verdict, without click."""
    project.write("tests/test_calc.py", TEST_SUB, dedent=False)
    project.git("add", "tests/test_calc.py")
    msg = tmp_path / "MSG"
    msg.write_text("add sub\n\nGSD-Phase: red\n")
    loaded = loaded_modules(project.root, ["hook", "commit-msg", str(msg)])
    assert loaded.code == 0, loaded.stderr
    assert "tddgit.gates.gate" in loaded.modules
    assert loaded.under(GATE_HEAVY + GATE_HEAVY_TDDGIT) == []
