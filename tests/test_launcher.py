"""The `tddgit` command is a launcher of its own (``scripts/tddgit``), not a console-script
entry point: an older pip's wrapper imports ``re`` before tddgit's first line, 2-6 ms
before a gate's early test command starts and in the agent guard's check after each tool
call (issue 29). What pip installs is the
launcher, its first line pointed at the environment's Python."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "scripts" / "tddgit"


def _imports(source: str) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
    return names


def test_the_launcher_imports_only_sys_before_tddgit() -> None:
    assert _imports(LAUNCHER.read_text()) == ["sys", "tddgit.__main__"]


def test_the_package_installs_the_launcher_as_its_only_command() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["script-files"] == ["scripts/tddgit"]
    assert "scripts" not in project["project"]  # no entry point of the same name


def test_the_installed_command_is_the_launcher() -> None:
    """The development install's `tddgit` (pip rewrote its first line only)."""
    installed = Path(sys.executable).parent / "tddgit"
    first, _, rest = installed.read_text().partition("\n")
    assert first.startswith("#!") and "python" in first
    assert rest == LAUNCHER.read_text().partition("\n")[2]
    out = subprocess.run([installed, "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("tddgit ")
