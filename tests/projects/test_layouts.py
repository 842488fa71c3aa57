"""Other layouts: a JS/TS project alone in `web/`; a staged change spanning two projects;
a Python, a JS/TS and a Makefile project side by side; a project inside a project."""

from __future__ import annotations

import json

from tests.conftest import GitRepo
from tests.projects.shop import (
    CART_COUNT,
    CART_TEST_COUNT,
    NEG_TEST_TWICE,
    NEG_TWICE,
    backend,
    frontend,
    git_in,
    note,
    ok,
    shop,
    tddgit_in,
)
from tests.test_schemas import validate


def test_a_typescript_project_alone_in_web(repo: GitRepo) -> None:
    repo.write(".gitignore", "node_modules\n", dedent=False)
    frontend(repo, "web")
    repo.commit("start")
    ok(repo.tddgit("hooks", "install"))
    # the default targets are written repository-relative; vitest's ids are mapped to them
    repo.write("web/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    repo.add()
    ok(tddgit_in(repo, ".", "red", "-m", "test twice"))
    red = note(repo)
    assert [t["id"] for t in red["targets"]] == ["web/test/neg.test.ts::doubles"]  # type: ignore[attr-defined]
    assert "projects" not in red  # one project: the evidence is as it always was
    repo.write("web/src/neg.ts", NEG_TWICE, dedent=False)
    repo.add()
    ok(git_in(repo, "web/test", "commit", "-q", "-m", "twice", "--trailer", "GSD-Phase: green"))
    assert note(repo)["phase"] == "green"
    run = json.loads(ok(tddgit_in(repo, ".", "run", "--json")).stdout)
    assert sorted(t["id"] for t in run["tests"]) == [
        "web/test/neg.test.ts::doubles",
        "web/test/neg.test.ts::neg > negates",
    ]


def test_a_change_spanning_two_projects_is_judged_in_each(repo: GitRepo) -> None:
    shop(repo)
    # the backend part is no red (its new test passes): the refusal names the project
    passing = CART_TEST_COUNT.replace("from shop.cart import count", "count = len")
    repo.write("backend/tests/test_cart.py", passing, dedent=False)
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    repo.add()
    refused = tddgit_in(repo, ".", "red", "--json", "-m", "two tests")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    verdict = json.loads(refused.stdout)
    assert [(r["rule"], r["test"]) for r in verdict["reasons"]] == [
        ("target-passes", "backend/tests/test_cart.py::test_count")
    ]
    assert verdict["reasons"][0]["message"].startswith("[backend] ")
    assert any("spans 2 projects (backend, frontend)" in n for n in verdict["notes"])
    # both parts red: the step holds, and its evidence records each project's
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "frontend", "red", "-m", "two tests"))
    red = note(repo)
    validate("evidence.schema.json", red)
    assert sorted(red["projects"]) == ["backend", "frontend"]  # type: ignore[call-overload]
    assert sorted(t["id"] for t in red["targets"]) == [  # type: ignore[attr-defined]
        "backend/tests/test_cart.py::test_count",
        "frontend/test/neg.test.ts::doubles",
    ]
    parts = red["projects"]
    assert isinstance(parts, dict)
    assert parts["backend"]["runner"] == "pytest" and parts["frontend"]["runner"] == "junit"
    # each project's green closes its own red: the backend first, alone
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "backend", "green", "-m", "count"))
    status = json.loads(ok(tddgit_in(repo, ".", "status", "--json")).stdout)
    open_reds = {p["dir"]: p["open_targets"] for p in status["projects"]}
    assert open_reds == {"backend": [], "frontend": ["frontend/test/neg.test.ts::doubles"]}


MAKEFILE = "test:\n\tpython3 tests/check.py\n"
GREET = "def hi():\n    return 'hi'\n"
CHECK = "import sys\n\nsys.path.insert(0, '.')\nimport greet\n\nassert greet.hi() == 'hi'\n"
CHECK_LOUD = CHECK + "assert greet.loud() == 'HI'\n"
GREET_LOUD = GREET + "\n\ndef loud():\n    return hi().upper()\n"


def test_three_projects_python_typescript_and_make(repo: GitRepo) -> None:
    repo.write(".gitignore", "node_modules\n__pycache__/\n.pytest_cache/\n", dedent=False)
    backend(repo, "api")
    frontend(repo, "web")
    repo.write("tools/Makefile", MAKEFILE, dedent=False)
    repo.write("tools/greet.py", GREET, dedent=False)
    repo.write("tools/tests/check.py", CHECK, dedent=False)
    repo.write("docs/Makefile", "html:\n\techo docs\n", dedent=False)  # no project
    repo.commit("start")
    config = json.loads(ok(tddgit_in(repo, "web/src", "config", "--json")).stdout)
    assert config["project"] == "web"
    assert [(p["dir"], p["runner"]) for p in config["projects"]] == [
        ("api", "pytest"),
        ("tools", "command"),
        ("web", "junit"),
    ]
    assert "vitest" in config["gate"]["command"]
    assert config["projects"][1]["command"] == "make test"
    # interleaved: a make red, a python red, the make green, the python green
    repo.write("tools/tests/check.py", CHECK_LOUD, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "tools", "red", "tests/check.py", "-m", "loud"))  # named from tools/
    repo.write("api/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "web", "red", "-m", "count"))
    repo.write("tools/greet.py", GREET_LOUD, dedent=False)
    repo.add()
    ok(tddgit_in(repo, ".", "green", "-m", "loud"))
    assert note(repo)["runner"] == "command"
    repo.write("api/src/shop/cart.py", CART_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "api/src", "green", "-m", "count"))
    assert [t["id"] for t in note(repo)["targets"]] == ["api/tests/test_cart.py::test_count"]  # type: ignore[attr-defined]


PYPROJECT = """\
[project]
name = "calc"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]
"""
CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
CALC_TEST_SUB = (
    CALC_TEST + "\n\ndef test_sub():\n    import calc\n\n    assert calc.sub(3, 1) == 2\n"
)


def test_a_project_inside_a_project(repo: GitRepo) -> None:
    """A Python project at the top and a TypeScript project in `web/` inside it: each path
    belongs to the nearest project."""
    repo.write(".gitignore", "node_modules\n__pycache__/\n.pytest_cache/\n", dedent=False)
    repo.write("pyproject.toml", PYPROJECT, dedent=False)
    repo.write("calc.py", "def add(a, b):\n    return a + b\n", dedent=False)
    repo.write("tests/test_calc.py", CALC_TEST, dedent=False)
    frontend(repo, "web")
    repo.commit("start")
    repo.write("tests/test_calc.py", CALC_TEST_SUB, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "web", "red", "-m", "sub"))
    repo.write("web/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    repo.add()
    ok(tddgit_in(repo, ".", "red", "-m", "twice"))
    assert list(note(repo)["projects"]) == ["web"]  # type: ignore[call-overload]
    repo.write(
        "calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    repo.add()
    ok(tddgit_in(repo, "web/src", "green", "-m", "sub"))
    green = note(repo)
    assert list(green["projects"]) == [""]  # type: ignore[call-overload]
    assert sorted(green["test_ids"]) == [  # type: ignore[call-overload]
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_sub",
    ]


def test_run_at_the_top_runs_every_project_in_its_own_directory(repo: GitRepo) -> None:
    repo.write(".gitignore", "node_modules\n__pycache__/\n.pytest_cache/\n", dedent=False)
    backend(repo, "api")
    repo.write("tools/Makefile", MAKEFILE, dedent=False)
    repo.write("tools/greet.py", GREET, dedent=False)
    repo.write("tools/tests/check.py", CHECK, dedent=False)
    repo.commit("start")
    run = json.loads(ok(tddgit_in(repo, ".", "run", "--json")).stdout)
    assert sorted(t["id"] for t in run["tests"]) == [
        "api/tests/test_cart.py::test_total",
        "make test",
    ]
    only = json.loads(ok(tddgit_in(repo, "tools", "run", "--json")).stdout)
    assert [t["id"] for t in only["tests"]] == ["make test"]
    named = json.loads(ok(tddgit_in(repo, "tools", "run", "--json", "../api/tests")).stdout)
    assert [t["id"] for t in named["tests"]] == ["api/tests/test_cart.py::test_total"]
