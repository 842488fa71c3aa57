"""`tddgit run` end to end: the real CLI in a subprocess, in a real repo, running the real
pytest through the probe."""

from __future__ import annotations

import json

from tests.conftest import GitRepo

UTF8 = {"PYTHONIOENCODING": "utf-8"}


def project(repo: GitRepo) -> None:
    repo.write(
        "calc.py",
        """
        def add(a, b):
            return a + b
        """,
    )
    repo.write(
        "tests/test_calc.py",
        """
        import calc

        def test_add():
            assert calc.add(1, 2) == 3

        def test_wrong():
            assert calc.add(2, 2) == 5

        def test_mul_not_written():
            assert calc.mul(2, 3) == 6
        """,
    )
    repo.write("tests/test_broken.py", "def test_x(:\n    pass\n")
    repo.write("tests/test_ok.py", "def test_ok():\n    pass\n")
    repo.commit("a project with green, red and amber tests")


def test_json_is_one_object_with_every_tests_light(repo: GitRepo) -> None:
    project(repo)
    proc = repo.tddgit("run", "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)  # exactly one JSON document on stdout
    assert {"runner", "exit_code", "tests", "totals"} <= set(data)
    assert data["runner"] == "pytest"
    lights = {t["id"]: (t["outcome"], t["cause"], t["light"]) for t in data["tests"]}
    assert lights == {
        "tests/test_calc.py::test_add": ("passed", None, "green"),
        "tests/test_calc.py::test_wrong": ("failed", "assertion", "red"),
        "tests/test_calc.py::test_mul_not_written": ("failed", "not-implemented", "red"),
        "tests/test_broken.py": ("error", "syntax", "amber"),
        "tests/test_ok.py::test_ok": ("passed", None, "green"),
    }
    for t in data["tests"]:
        assert set(t) >= {"id", "outcome", "cause", "light", "message", "file", "line"}
    assert data["totals"]["total"] == 5 and data["totals"]["light_red"] == 2
    assert repo.git("status", "--porcelain") == ""  # no __pycache__, no .pytest_cache


def test_text_shows_symbol_light_id_cause_and_totals(repo: GitRepo) -> None:
    project(repo)
    proc = repo.tddgit("run", env=UTF8)
    assert proc.returncode == 1
    out = proc.stdout
    assert "✓ GREEN  tests/test_calc.py::test_add" in out
    assert (
        "✗ RED    tests/test_calc.py::test_wrong  [assertion]  AssertionError: assert 4 == 5" in out
    )
    assert "[not-implemented]" in out
    assert "! AMBER  tests/test_broken.py  [syntax]" in out
    assert "5 tests: 2 passed, 2 failed, 1 error | lights: 2 red, 1 amber, 2 green" in out


def test_selected_tests_relative_to_the_current_directory(repo: GitRepo) -> None:
    project(repo)
    proc = repo.tddgit("-C", "tests", "run", "test_ok.py", "test_calc.py::test_add", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ids = sorted(t["id"] for t in json.loads(proc.stdout)["tests"])
    assert ids == ["tests/test_calc.py::test_add", "tests/test_ok.py::test_ok"]


def test_a_test_that_no_longer_exists_fails_the_run(repo: GitRepo) -> None:
    project(repo)
    proc = repo.tddgit("run", "tests/test_ok.py::test_deleted", env=UTF8)
    assert proc.returncode == 1
    assert "! AMBER  tests/test_ok.py::test_deleted  [collection]  not collected" in proc.stdout


def test_no_tests_is_not_a_failure_but_says_so(repo: GitRepo) -> None:
    repo.write("app.py", "X = 1\n")
    repo.write("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-q'\n")
    repo.commit("no tests yet")
    proc = repo.tddgit("run")
    assert proc.returncode == 0
    assert "0 tests" in proc.stdout and "note: no tests collected" in proc.stdout


def test_outside_a_repo_is_a_usage_error(repo: GitRepo) -> None:
    outside = repo.root.parent / "not-a-repo"
    outside.mkdir()
    proc = repo.tddgit("-C", str(outside), "run")
    assert proc.returncode == 2
    assert "not a git repository" in proc.stderr and proc.stdout == ""
