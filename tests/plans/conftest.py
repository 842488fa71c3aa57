"""Plans: a hand-made valid plan, and one real repository where a plan's tasks were
worked through `tddgit red|green|refactor --task` (built once per session)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from tddgit.plans.model import Plan, PlannedTest, Task
from tests.conftest import GitRepo, isolated_git
from tests.project import start_project

# Shipped as package data: read it the way an installed tddgit's user would.
SCHEMA = json.loads(resources.files("tddgit.plans").joinpath("plan.schema.json").read_text())


def _task(n: int, name: str, deps: tuple[str, ...], cases: int) -> Task:
    return Task(
        id=f"IMPL-{n}",
        title=f"calc.{name}",
        components=(name,),
        files=("calc.py", "tests/test_calc.py"),
        depends_on=deps,
        tests=tuple(
            PlannedTest(f"TC-{n}.{i}", "unit", f"{name} case {i}", "two numbers", name, "a result")
            for i in range(1, cases + 1)
        ),
        test_files=("tests/test_calc.py",),
        implement=(f"def {name}(a, b)",),
        production_files=("calc.py",),
        look_at=("duplication in calc.py",),
    )


SAMPLE = Plan(
    spec_id="calc",
    title="Calculator",
    spec="specs/calc.yaml",
    source="spec",
    tasks=(
        _task(1, "sub", (), 1),
        _task(2, "mul", ("IMPL-1",), 1),
        _task(3, "div", ("IMPL-2",), 2),
        _task(4, "mod", ("IMPL-3",), 1),
    ),
)


@pytest.fixture
def plan_json() -> dict[str, Any]:
    """A fresh copy of a valid plan's JSON, to break by hand."""
    data: dict[str, Any] = json.loads(SAMPLE.dumps())
    return data


CALC_STEPS = {
    "sub": "\n\ndef sub(a, b):\n    return a - b\n",
    "mul": "\n\ndef mul(a, b):\n    return a * b\n",
    "div": "\n\ndef div(a, b):\n    return a / b\n",
}
TEST_STEPS = {
    "sub": "\n\ndef test_sub():\n    assert calc.sub(5, 3) == 2\n",
    "mul": "\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n",
    "div": "\n\ndef test_div():\n    assert calc.div(6, 3) == 2\n",
}


def _append(repo: GitRepo, path: str, text: str) -> None:
    p = repo.root / path
    p.write_text(p.read_text() + text)
    repo.add(path)


def _write_plan(root: Path) -> None:
    plans = root / ".tddgit" / "plans" / "calc"
    plans.mkdir(parents=True)
    (plans / "plan.json").write_text(SAMPLE.dumps())


@pytest.fixture(scope="session")
def _tracked_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """IMPL-1: red, green, refactor (a copy is kept at that point: "impl1"); IMPL-2: red,
    green; IMPL-3: red through tddgit, then a green by plain `git commit` with both
    trailers and no evidence ("tracked"). All real gates; SAMPLE's plan.json untracked."""
    with isolated_git(tmp_path_factory.mktemp("plans-home")):
        base = tmp_path_factory.mktemp("plans")
        root = base / "repo"
        root.mkdir()
        repo = GitRepo(root)
        repo.git("init", "-q")
        start_project(repo)
        for n, name in enumerate(("sub", "mul"), 1):
            _append(repo, "tests/test_calc.py", TEST_STEPS[name])
            repo.tddgit("red", "--task", f"IMPL-{n}", "-m", f"{name}: test", check=True)
            _append(repo, "calc.py", CALC_STEPS[name])
            repo.tddgit("green", "--task", f"IMPL-{n}", "-m", f"{name}: implement", check=True)
            if n == 1:
                calc = repo.root / "calc.py"
                calc.write_text(calc.read_text().replace("return a - b", "return a + -b"))
                repo.add("calc.py")
                repo.tddgit("refactor", "--task", "IMPL-1", "-m", "sub: tidy", check=True)
                shutil.copytree(root, base / "impl1", symlinks=True)
                _write_plan(base / "impl1")
        _append(repo, "tests/test_calc.py", TEST_STEPS["div"])
        repo.tddgit("red", "--task", "IMPL-3", "-m", "div: test", check=True)
        _append(repo, "calc.py", CALC_STEPS["div"])
        repo.git(
            "commit", "-q", "-m", "div: implement",
            "--trailer", "GSD-Phase: green", "--trailer", "GSD-Task: IMPL-3",
        )  # fmt: skip
        _write_plan(root)
        return {"tracked": root, "impl1": base / "impl1"}


@pytest.fixture
def tracked(_tracked_build: dict[str, Path], tmp_path: Path) -> Iterator[GitRepo]:
    """A copy of the tracked repository, free to change."""
    root = tmp_path / "tracked"
    shutil.copytree(_tracked_build["tracked"], root, symlinks=True)
    yield GitRepo(root)


@pytest.fixture
def impl1(_tracked_build: dict[str, Path], tmp_path: Path) -> Iterator[GitRepo]:
    """A copy of the repository when IMPL-1 (sub) was complete: red, green and refactor,
    with evidence; IMPL-2 (mul) depends on it, IMPL-3 (div) on IMPL-2."""
    root = tmp_path / "impl1"
    shutil.copytree(_tracked_build["impl1"], root, symlinks=True)
    yield GitRepo(root)
