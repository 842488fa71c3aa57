"""A small Python project inside a test repository, for gate and hook tests."""

from __future__ import annotations

import json

from tests.conftest import GitRepo

PYPROJECT = """\
[project]
name = "calc"
version = "0.1.0"

[tool.pytest.ini_options]
pythonpath = ["."]
testpaths = ["tests"]
"""

CALC = '''\
"""A tiny calculator."""


def add(a, b):
    return a + b
'''

TEST_CALC = """\
import calc


def test_add():
    assert calc.add(2, 3) == 5
"""

TEST_SUB = """\
import calc


def test_add():
    assert calc.add(2, 3) == 5


def test_sub():
    assert calc.sub(5, 3) == 2
"""

CALC_SUB = (
    CALC
    + """

def sub(a, b):
    return a - b
"""
)


def start_project(repo: GitRepo) -> str:
    """A committed project with one passing test; returns the commit sha."""
    repo.write("pyproject.toml", PYPROJECT, dedent=False)
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n", dedent=False)
    repo.write("calc.py", CALC, dedent=False)
    repo.write("tests/test_calc.py", TEST_CALC, dedent=False)
    return repo.commit("start")


def stage_red(repo: GitRepo) -> None:
    repo.write("tests/test_calc.py", TEST_SUB, dedent=False)
    repo.add("tests/test_calc.py")


def stage_green(repo: GitRepo) -> None:
    repo.write("calc.py", CALC_SUB, dedent=False)
    repo.add("calc.py")


def trailer(repo: GitRepo, rev: str = "HEAD") -> str:
    return repo.git("log", "-1", "--format=%(trailers:key=GSD-Phase,valueonly)", rev).strip()


def snapshot_state(repo: GitRepo) -> dict[str, object]:
    """Everything a gate must leave untouched: work tree bytes, index, untracked, refs."""
    files = {}
    for p in sorted(repo.root.rglob("*")):
        if ".git" in p.relative_to(repo.root).parts or not p.is_file():
            continue
        files[str(p.relative_to(repo.root))] = p.read_bytes()
    return {
        "files": files,
        "index": repo.git("ls-files", "-s"),
        "status": repo.git("status", "--porcelain=v1", "--untracked-files=all"),
        "refs": repo.git("for-each-ref"),
        "stash": repo.git("stash", "list"),
    }


def verdict(repo: GitRepo, *args: str) -> tuple[int, dict[str, object]]:
    """A gate's JSON verdict; a step that holds commits (with ``-m step`` unless a message
    or ``--no-commit`` is given: never an editor waiting in a test)."""
    message = () if "-m" in args or "--no-commit" in args else ("-m", "step")
    proc = repo.tddgit(*args, *message, "--json")
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def rules(data: dict[str, object]) -> list[str]:
    reasons = data["reasons"]
    assert isinstance(reasons, list)
    return [r["rule"] for r in reasons]
