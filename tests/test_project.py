"""A monorepo whose Python project lives in `backend/` (its own pyproject.toml and pytest
settings): the gates run its tests from there, from the repository's top or from
`backend/`, and every git-facing id stays relative to the repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import TDDGIT, GitRepo

BACKEND_PYPROJECT = """\
[project]
name = "calc"
version = "0.1.0"

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]

[tool.tddgit]
green.yagni = "off"
"""

TEST_ADD = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
TEST_SUB = TEST_ADD + "\n\ndef test_sub():\n    from calc import sub\n\n    assert sub(5, 3) == 2\n"
CALC = "def add(a, b):\n    return a + b\n"
CALC_SUB = CALC + "\n\ndef sub(a, b):\n    return a - b\n"


def monorepo(repo: GitRepo) -> None:
    repo.write("README.md", "# a monorepo\n")
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n")
    repo.write("frontend/index.html", "<p>hi</p>\n")
    repo.write("backend/pyproject.toml", BACKEND_PYPROJECT, dedent=False)
    repo.write("backend/src/calc/__init__.py", CALC, dedent=False)
    repo.write("backend/tests/test_calc.py", TEST_ADD, dedent=False)
    repo.commit("start")


def tddgit_in(repo: GitRepo, where: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TDDGIT, *args], cwd=repo.root / where, capture_output=True, text=True, check=False
    )


def note(repo: GitRepo) -> dict[str, object]:
    return dict(json.loads(repo.git("notes", "--ref=tddgit", "show", "HEAD")))


@pytest.mark.parametrize("where", [".", "backend"])
def test_a_whole_cycle_in_backend(repo: GitRepo, where: str) -> None:
    monorepo(repo)
    repo.write("backend/tests/test_calc.py", TEST_SUB, dedent=False)
    repo.add()
    red = tddgit_in(repo, where, "red", "-m", "test sub")
    assert red.returncode == 0, red.stdout + red.stderr
    assert [t["id"] for t in note(repo)["targets"]] == ["backend/tests/test_calc.py::test_sub"]  # type: ignore[attr-defined]
    repo.write("backend/src/calc/__init__.py", CALC_SUB, dedent=False)
    repo.add()
    green = tddgit_in(repo, where, "green", "-m", "implement sub")
    assert green.returncode == 0, green.stdout + green.stderr
    evidence = note(repo)
    assert evidence["phase"] == "green"
    assert sorted(evidence["test_ids"]) == [  # type: ignore[call-overload]
        "backend/tests/test_calc.py::test_add",
        "backend/tests/test_calc.py::test_sub",
    ]
    audit = json.loads(tddgit_in(repo, where, "audit", "--format", "json").stdout)
    assert [c["phase"] for c in audit["commits"]][-2:] == ["red", "green"]
    assert not [f for f in audit["findings"] if f["rule"] == "evidence-contradiction"]


@pytest.mark.parametrize("where", [".", "backend", "backend/tests"])
def test_run_uses_the_backend_settings(repo: GitRepo, where: str) -> None:
    monorepo(repo)
    proc = tddgit_in(repo, where, "run", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ids = [t["id"] for t in json.loads(proc.stdout)["tests"]]
    assert ids == ["backend/tests/test_calc.py::test_add"]


def test_backend_tddgit_table_is_honoured(repo: GitRepo) -> None:
    monorepo(repo)
    out = tddgit_in(repo, ".", "config").stdout
    assert "green.yagni" in out and "pyproject.toml" in out.split("green.yagni", 1)[1][:80]


def test_root_key_sets_the_project_explicitly(repo: GitRepo) -> None:
    monorepo(repo)
    # a package.json at the top would make the top the project; `root` says otherwise
    repo.write("package.json", '{"name": "tools", "private": true}\n')
    repo.write(".tddgit.yaml", "root: backend\nrunner: pytest\n")
    repo.commit("tools")
    proc = tddgit_in(repo, ".", "run", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [t["id"] for t in json.loads(proc.stdout)["tests"]] == [
        "backend/tests/test_calc.py::test_add"
    ]


def test_root_key_outside_the_repository_is_a_config_error(repo: GitRepo) -> None:
    monorepo(repo)
    repo.write(".tddgit.yaml", "root: ../elsewhere\n")
    proc = tddgit_in(repo, ".", "run")
    assert proc.returncode == 2
    assert "`root`" in proc.stderr and "Traceback" not in proc.stderr


def test_projects_are_discovered_from_tracked_files(tmp_path: Path) -> None:
    from tddgit.git import find_repo
    from tddgit.projects import load_projects

    repo = GitRepo(tmp_path)
    repo.git("init", "-q")
    repo.write("api/pyproject.toml", "[project]\nname='a'\n")
    repo.write("web/package.json", "{}\n")
    repo.write("web/node_modules/left-pad/package.json", "{}\n")
    repo.write("tools/vendor/x/go.mod", "module x\n")
    repo.write("docs/Makefile", "html:\n\tsphinx-build . _build\n")
    repo.write("ops/Makefile", "test:\n\t./check.sh\n")
    repo.write("env/pyvenv.cfg", "home = /usr\n")
    repo.write("env/lib/site/pkg/setup.cfg", "[metadata]\n")
    repo.commit("projects")
    found = find_repo(tmp_path)
    assert [p.dir for p in load_projects(found).all] == ["api", "ops", "web"]
    (tmp_path / "web" / "package.json").unlink()
    repo.commit("one project less")
    assert [p.dir for p in load_projects(found).all] == ["api", "ops"]
    repo.write("setup.py", "from setuptools import setup\nsetup()\n")
    repo.commit("the top is a project of its own")
    projects = load_projects(found)
    assert [p.dir for p in projects.all] == ["", "api", "ops"]
    assert projects.of("api/tests/test_x.py::t").dir == "api"  # type: ignore[union-attr]
    assert projects.of("README.md").dir == ""  # type: ignore[union-attr]
    assert projects.all[0].scope.owns("tests/x.py")
    assert not projects.all[0].scope.owns("api/x.py")
