"""The gate's early start of pytest (issue 24: the red gate <= 1.3x plain `python -m
pytest`, warm and cold): `tddgit red` spawns the pytest runner's exact command before the
gate reads the index, and the run it judges is that one only when it is exactly the run
the gate would make. Real pytest and git, seen through wrappers that log each start and
then exec the real tool: git on PATH, the interpreter as the project's `$VIRTUAL_ENV`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.runners.cycles import gate, stage, targets
from tests.runners.startlog import log_starts, spawn_order, starts, which
from tests.runners.test_process import gone

pytestmark = pytest.mark.slow


PYPROJECT = """\
[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.tddgit.red]
scope = "all"
"""
CALC = "def add(a, b):\n    return a + b\n"
ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
MUL_TEST = "import calc\n\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"


@pytest.fixture
def py(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> GitRepo:
    repo.write("pyproject.toml", PYPROJECT, dedent=False)
    repo.write(".gitignore", "__pycache__/\n", dedent=False)
    repo.write("calc.py", CALC, dedent=False)
    repo.write("tests/test_calc.py", ADD_TEST, dedent=False)
    repo.commit("start")
    tools = {"git": which("git"), "python": sys.executable}
    log_starts(tools, tmp_path / "venv" / "bin", tmp_path, monkeypatch)
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))  # python = auto: this one
    return repo


def pytests(seen: list[list[str]]) -> list[list[str]]:
    return [s for s in seen if s[0] == "python" and s[3:6] == ["-m", "pytest", "-p"]]


def test_pytest_starts_before_the_gate_reads_the_index(py: GitRepo, tmp_path: Path) -> None:
    stage(py, {"tests/test_mul.py": MUL_TEST})
    starts(tmp_path)
    code, data = gate(py, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {"tests/test_mul.py::test_mul": ("failed", "not-implemented")}, data
    seen = starts(tmp_path)
    runs = pytests(seen)
    assert len(runs) == 1, seen  # the early run is the gate's run: pytest once
    assert Path(runs[0][2]) == py.root.resolve(), runs
    # Only the early start's own look at the work tree (is it the index?) comes first:
    # the gate's reading of the index (`write-tree`, `rev-parse`) comes after pytest.
    reads = [s for s in seen if s[0] == "git" and s[3] in ("write-tree", "rev-parse")]
    first_read = min(spawn_order(tmp_path, s) for s in reads) if reads else 0
    assert reads and spawn_order(tmp_path, runs[0]) < first_read, seen
    assert not list((tmp_path / "scratch").glob("tddgit-*")), "the run's files stay"


def test_a_work_tree_unlike_the_index_is_judged_on_the_staged_tree(
    py: GitRepo, tmp_path: Path
) -> None:
    """Where the work tree differs from the index the gate runs on a snapshot: no early
    run in the work tree, and the verdict is the staged test's."""
    stage(py, {"tests/test_mul.py": MUL_TEST})
    py.write("calc.py", CALC + "\n\ndef mul(a, b):\n    return a * b\n", dedent=False)  # unstaged
    starts(tmp_path)
    code, data = gate(py, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {"tests/test_mul.py::test_mul": ("failed", "not-implemented")}, data
    runs = pytests(starts(tmp_path))
    assert len(runs) == 1, runs
    assert Path(runs[0][2]) != py.root.resolve(), runs  # the snapshot's


def test_a_gate_that_refuses_before_its_run_ends_the_early_run(py: GitRepo, tmp_path: Path) -> None:
    starts(tmp_path)
    # Nothing staged: refused before the run. A test that would run for minutes shows
    # the early run is killed, not waited for.
    py.write("tests/test_slow.py", "import time\n\ndef test_slow():\n    time.sleep(300)\n")
    py.commit("a slow test")
    starts(tmp_path)
    proc = py.tddgit("red", "--json")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "nothing is staged" in proc.stderr
    runs = pytests(starts(tmp_path))
    assert len(runs) == 1, runs  # it did start early
    assert gone([int(runs[0][1])], within=10.0)  # SIGKILLed; a busy machine reaps late
    assert not list((tmp_path / "scratch").glob("tddgit-*")), "the early run's files stay"
    assert not list(py.root.rglob("__pycache__")), "the early run wrote into the tree"


def test_another_configured_runner_gets_no_early_start(py: GitRepo, tmp_path: Path) -> None:
    py.write(
        "pyproject.toml",
        PYPROJECT + '\n[tool.tddgit]\nrunner = "command"\ntest_command = "python -m pytest -q"\n',
        dedent=False,
    )
    py.commit("the command runner")
    stage(py, {"tests/test_mul.py": MUL_TEST})
    starts(tmp_path)
    code, data = gate(py, "red")
    assert code == 0, data["reasons"]
    assert pytests(starts(tmp_path)) == []  # no `-m pytest -p tddgit_probe`: never started


def test_a_red_of_the_changed_tests_only_gets_no_early_start(py: GitRepo, tmp_path: Path) -> None:
    """The default red scope runs the staged test files, known only from the index: no
    guess, so no wasted run beside the gate's."""
    py.write("pyproject.toml", PYPROJECT.split("[tool.tddgit")[0], dedent=False)
    py.commit("default scope")
    stage(py, {"tests/test_mul.py": MUL_TEST})
    starts(tmp_path)
    code, data = gate(py, "red")
    assert code == 0, data["reasons"]
    runs = pytests(starts(tmp_path))
    assert len(runs) == 1 and runs[0][-1] == "tests/test_mul.py", runs


def early_and_once(tmp_path: Path) -> None:
    """pytest ran once, before the gate's first look at the index."""
    seen = starts(tmp_path)
    runs = pytests(seen)
    assert len(runs) == 1, seen
    reads = [s for s in seen if s[0] == "git" and s[3] in ("write-tree", "rev-parse")]
    first_read = min(spawn_order(tmp_path, s) for s in reads) if reads else 0
    assert reads and spawn_order(tmp_path, runs[0]) < first_read, seen


def test_a_yaml_configuration_starts_early_in_a_fresh_clone_and_after(
    py: GitRepo, tmp_path: Path
) -> None:
    """A fresh clone has no parse cache of ``.tddgit.yaml``: a plain file is read as plain
    keys (no YAML parser before the spawn); later, the parse a gate cached is used."""
    py.write("pyproject.toml", PYPROJECT.split("[tool.tddgit")[0], dedent=False)
    config = py.write(".tddgit.yaml", "# the gates\nred:\n  scope: all  # every test\n")
    py.commit("yaml configuration")
    for n, cached in enumerate((False, True)):
        if cached:
            os.utime(config, (1_600_000_000, 1_600_000_000))  # long unchanged: cached
            py.git("update-index", "--refresh")  # a new mtime is no change (`git status`)
            assert py.tddgit("red", "--no-commit").returncode == 0  # leaves the cache
        assert (py.root / ".git" / "tddgit" / "config-cache.json").exists() is cached
        stage(py, {"tests/test_mul.py": MUL_TEST.replace("6", str(7 + n))})
        starts(tmp_path)
        proc = py.tddgit("red", "--no-commit")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        early_and_once(tmp_path)


def test_a_yaml_configuration_beyond_plain_keys_gets_no_early_start(
    py: GitRepo, tmp_path: Path
) -> None:
    py.write("pyproject.toml", PYPROJECT.split("[tool.tddgit")[0], dedent=False)
    py.write(".tddgit.yaml", "red: {scope: all}\n")  # flow style: not read before the gate
    py.commit("yaml configuration")
    stage(py, {"tests/test_mul.py": MUL_TEST})
    starts(tmp_path)
    code, data = gate(py, "red")
    assert code == 0, data["reasons"]
    seen = starts(tmp_path)
    runs = pytests(seen)
    assert len(runs) == 1, seen
    first_git = next(i for i, s in enumerate(seen) if s[0] == "git")
    assert seen[first_git][3:5] == ["rev-parse", "--path-format=absolute"], seen  # no early look
