"""The hook paths run on every commit and every agent edit: they import nothing heavy
(PRODUCT.md §7, §11). Checked by running each the way it is really called and listing the
modules it loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.project import start_project

HEAVY = ("rich", "anthropic", "git", "click", "coverage", "pytest", "yaml", "jsonschema")
HEAVY_TDDGIT = ("tddgit.audit", "tddgit.gates", "tddgit.runners", "tddgit.yagni", "tddgit.cli")

PROBE = """\
import json, sys
from tddgit.__main__ import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as fh:
    json.dump(sorted(sys.modules), fh)
sys.exit(code)
"""


def loaded(repo: GitRepo, tmp_path: Path, argv: list[str], stdin: str = "") -> list[str]:
    out = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *argv],
        cwd=repo.root,
        input=stdin,
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    modules: list[str] = json.loads(out.read_text())
    return modules


def heavy(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m.split(".")[0] in HEAVY or any(m == h or m.startswith(h + ".") for h in HEAVY_TDDGIT)
    ]


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    start_project(repo)
    return repo


def test_commit_msg_hook_imports_nothing_heavy(project: GitRepo, tmp_path: Path) -> None:
    msg = tmp_path / "MSG"
    msg.write_text("plain message\n")
    modules = loaded(project, tmp_path, ["hook", "commit-msg", str(msg)])
    assert "tddgit.hooks.commit_msg" in modules
    assert heavy(modules) == []


@pytest.mark.parametrize("target", ["calc.py", "tests/test_calc.py"])
def test_agent_pre_write_hook_imports_nothing_heavy(
    project: GitRepo, tmp_path: Path, target: str
) -> None:
    payload = {
        "session_id": "s",
        "cwd": str(project.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(project.root / target)},
    }
    modules = loaded(project, tmp_path, ["agent", "hook", "claude-code"], json.dumps(payload))
    assert "tddgit.guard.rules" in modules
    assert heavy(modules) == []
