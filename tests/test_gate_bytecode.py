"""A cold gate compiles only the project (issue 24): the project's bytecode goes to
tddgit's own cache, pytest's and the libraries' stay where Python keeps them, and nothing
lands in the user's tree."""

from __future__ import annotations

import os

from tests.conftest import GitRepo
from tests.project import stage_red, start_project


def test_only_the_project_is_compiled_into_tddgit_cache(repo: GitRepo) -> None:
    start_project(repo)
    stage_red(repo)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = repo.tddgit("red", "--no-commit", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cache = repo.root / ".git" / "tddgit" / "pycache"
    compiled = sorted(p for p in cache.rglob("*.pyc"))
    mirror = cache / repo.root.resolve().relative_to(repo.root.resolve().anchor)
    assert any(p.name.startswith("calc.") for p in compiled), compiled
    assert any(p.name.startswith("test_calc.") for p in compiled), compiled
    strangers = [p for p in compiled if mirror not in p.parents]
    assert strangers == [], strangers[:5]  # pytest, pluggy, the stdlib: not recompiled here
    left = [p for p in repo.root.rglob("__pycache__") if ".git" not in p.parts]
    assert left == []


def test_each_directory_is_judged_for_itself(repo: GitRepo) -> None:
    """The probe decides once per directory whose bytecode is diverted: the project's
    nested packages are, a site-packages directory inside the repository is not."""
    start_project(repo)
    repo.write("shop/__init__.py", "", dedent=False)
    repo.write("shop/money/__init__.py", "", dedent=False)
    repo.write("shop/money/cents.py", "def cents(x):\n    return x * 100\n", dedent=False)
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\nlibs/\n", dedent=False)
    repo.write("libs/site-packages/helper.py", "VALUE = 1\n", dedent=False)
    repo.commit("a package and a library")
    repo.write(
        "tests/test_cents.py",
        "import helper\nfrom shop.money.cents import cents\n\n"
        "def test_cents():\n    assert cents(helper.VALUE) == 100\n",
        dedent=False,
    )
    repo.add("tests/test_cents.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(repo.root / "libs" / "site-packages")
    proc = repo.tddgit("red", "--no-commit", env=env)
    assert "test_cents" in proc.stdout, proc.stdout + proc.stderr
    compiled = {p.name.split(".")[0] for p in (repo.root / ".git/tddgit/pycache").rglob("*.pyc")}
    assert {"cents", "test_cents"} <= compiled, compiled
    assert "helper" not in compiled
    left = [p for p in repo.root.rglob("__pycache__") if ".git" not in p.parts]
    assert left == [repo.root / "libs" / "site-packages" / "__pycache__"]
