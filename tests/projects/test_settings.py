"""The `projects` configuration: each project's keys and where they came from, and bad
input refused with one clear line (exit code 2); `python = ".venv"` found in the project;
discovery cached per index."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tddgit.errors import ConfigError
from tddgit.git import find_repo
from tddgit.projects import load_projects
from tests.conftest import GitRepo
from tests.projects.shop import BACKEND_PYPROJECT, CART, CART_TEST, ok, tddgit_in


def two(repo: GitRepo, config: str) -> None:
    repo.write("api/pyproject.toml", "[project]\nname = 'a'\n", dedent=False)
    repo.write("web/package.json", "{}\n", dedent=False)
    repo.write("fixtures/package.json", "{}\n", dedent=False)
    if config:
        repo.write(".tddgit.yaml", config)
    repo.commit("start")


def test_listed_projects_replace_discovery_and_keep_their_sources(repo: GitRepo) -> None:
    two(
        repo,
        """\
        green:
          yagni: off
        projects:
          - dir: api
            runner: pytest
            test_globs: ["spec/**"]
          - dir: web
            test_command: make test
        """,
    )
    repo.write("web/.tddgit.yaml", "timeout: 9\n")
    projects = load_projects(find_repo(repo.root))
    assert [p.dir for p in projects.all] == ["api", "web"]  # fixtures/ is not listed
    api, web = projects.all
    assert api.origin == "projects"
    assert api.sources["runner"] == ".tddgit.yaml projects[api]"
    assert api.config.globs("test_globs") == ("api/spec/**",)  # relative to the project
    assert api.config.get("green.yagni") == "off"  # the top-level keys hold in each
    assert web.config.timeout == 9 and web.sources["timeout"] == "web/.tddgit.yaml"
    assert web.config.test_command == "make test"
    assert web.scope.owns("web/a.ts") and not web.scope.owns("api/a.py")
    assert projects.of("api/spec/x.py") == api and projects.of("README.md") is None


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ("projects:\n  - dir: api\n    mode: strict\n", "key `mode` is set for the whole"),
        ("projects:\n  - dir: ../x\n", "inside the repository"),
        ("projects:\n  - dir: api\n  - dir: api/\n", "listed twice"),
        ("projects:\n  - runner: pytest\n", "has no `dir`"),
        ("projects:\n  - dir: nowhere\n", "'nowhere', which is not a directory"),
        ("projects: api\n", "must be a list of tables"),
        ("root: api\nprojects:\n  - dir: web\n", "both `root` and `projects`"),
        ("projects:\n  - dir: api\n    runner: maven\n", "expected one of"),
    ],
)
def test_bad_projects_are_refused_clearly(repo: GitRepo, config: str, says: str) -> None:
    two(repo, config)
    with pytest.raises(ConfigError) as caught:
        load_projects(find_repo(repo.root))
    assert says in str(caught.value), str(caught.value)


def test_a_bad_project_entry_exits_2_from_any_command(repo: GitRepo) -> None:
    two(repo, "projects:\n  - dir: api\n    hooks:\n      run_gate: false\n")
    for args in (["config"], ["status"], ["run"]):
        proc = tddgit_in(repo, "web", *args)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "projects` entry 1 (api): key `hooks.run_gate`" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_a_project_python_names_its_own_venv(repo: GitRepo) -> None:
    """`python = ".venv"` is the project's .venv (here a link to the interpreter running
    these tests, which has pytest), not a name looked up on PATH."""
    repo.write(".gitignore", ".venv\n__pycache__/\n.pytest_cache/\n", dedent=False)
    repo.write("backend/pyproject.toml", BACKEND_PYPROJECT, dedent=False)
    repo.write("backend/src/shop/__init__.py", "", dedent=False)
    repo.write("backend/src/shop/cart.py", CART, dedent=False)
    repo.write("backend/tests/test_cart.py", CART_TEST, dedent=False)
    repo.write("web/package.json", "{}\n", dedent=False)
    repo.write(".tddgit.yaml", "projects:\n  - dir: backend\n    python: .venv\n  - dir: web\n")
    repo.commit("start")
    os.symlink(Path(sys.executable).parent.parent, repo.root / "backend" / ".venv")
    config = json.loads(ok(tddgit_in(repo, ".", "config", "--json")).stdout)
    backend = config["projects"][0]
    assert backend["command"].startswith(str(repo.root / "backend" / ".venv"))
    run = json.loads(ok(tddgit_in(repo, "backend/src", "run", "--json")).stdout)
    assert [t["id"] for t in run["tests"]] == ["backend/tests/test_cart.py::test_total"]


def test_discovery_is_cached_per_index(repo: GitRepo) -> None:
    two(repo, "")
    found = find_repo(repo.root)
    assert [p.dir for p in load_projects(found).all] == ["api", "fixtures", "web"]
    cache = found.tddgit_dir / "projects-cache.json"
    entry = json.loads(cache.read_text())
    assert entry["dirs"] == ["api", "fixtures", "web"]
    # the same index: the cached answer is used (a planted one shows it)
    cache.write_text(json.dumps({**entry, "dirs": ["api"]}))
    assert [p.dir for p in load_projects(found).all] == ["api"]
    # a new index: discovered again
    repo.write("tools/go.mod", "module tools\n", dedent=False)
    repo.add()
    assert [p.dir for p in load_projects(found).all] == ["api", "fixtures", "tools", "web"]
