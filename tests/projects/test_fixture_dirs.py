"""Test data is not a project: a `package.json` (or any marker) inside a test directory of
another project — `tests/fixtures/app/package.json` in a Python project — belongs to that
project's tests, for discovery, `tddgit config` and the gate; a `projects` list still
makes it a project when that is what the user wants."""

from __future__ import annotations

import json

from tddgit.git import find_repo
from tddgit.projects import load_projects
from tddgit.projects.discover import discover, projects_from_paths
from tests.conftest import GitRepo
from tests.projects.shop import frontend, note, ok, tddgit_in

PYPROJECT = "[project]\nname = 'calc'\n"
CALC = "def add(a, b):\n    return a + b\n"
READS_FIXTURE = """\
import json
from pathlib import Path

from calc import add


def test_version_sum():
    data = json.loads((Path(__file__).parent / "fixtures/app/package.json").read_text())
    assert add(*data["parts"]) == 4
"""


def python_with_fixture(repo: GitRepo) -> None:
    """A Python project whose tests read a fixture app with its own package.json."""
    repo.write(".gitignore", "node_modules\n__pycache__/\n.pytest_cache/\n", dedent=False)
    repo.write("pyproject.toml", PYPROJECT, dedent=False)
    repo.write("calc.py", CALC, dedent=False)
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        dedent=False,
    )
    repo.write(
        "tests/fixtures/app/package.json", '{"name": "app", "parts": [1, 1]}\n', dedent=False
    )
    repo.write("tests/fixtures/app/index.js", "module.exports = 1;\n", dedent=False)
    repo.commit("start")


def test_a_package_json_in_a_python_projects_fixtures_is_no_project(repo: GitRepo) -> None:
    python_with_fixture(repo)
    assert discover(find_repo(repo.root)) == ("",)
    config = json.loads(ok(tddgit_in(repo, "tests/fixtures/app", "config", "--json")).stdout)
    assert [p["dir"] for p in config["projects"]] == [""]
    assert config["project"] == ""  # started in the fixture: the Python project's keys


def test_the_gate_judges_a_fixture_change_with_its_projects_tests(repo: GitRepo) -> None:
    """A red that adds a test and changes the fixture it reads is one project's step,
    judged by pytest: not a second, JavaScript project with no tests of its own."""
    python_with_fixture(repo)
    repo.write(
        "tests/fixtures/app/package.json", '{"name": "app", "parts": [2, 1]}\n', dedent=False
    )
    repo.write("tests/test_fixture.py", READS_FIXTURE, dedent=False)
    repo.add()
    proc = ok(tddgit_in(repo, ".", "red", "-m", "the fixture's parts add up"))
    assert "spans" not in proc.stdout + proc.stderr
    evidence = note(repo)
    assert "projects" not in evidence  # a repository of one project
    targets = evidence["targets"]
    assert [t["id"] for t in targets] == ["tests/test_fixture.py::test_version_sum"]  # type: ignore[attr-defined]


def test_fixtures_of_a_nested_project_and_go_testdata_are_no_projects() -> None:
    paths = [
        "pyproject.toml",
        "web/package.json",
        "web/test/fixtures/site/package.json",  # the web project's test data
        "web/__tests__/__fixtures__/pkg/package.json",
        "svc/go.mod",
        "svc/testdata/mod/go.mod",  # go's own convention: testdata is no module
        "tests/package.json",  # a tests directory of its own (an e2e suite): a project
        "tests/fixtures/proj/pyproject.toml",
        "tests/fixtures/proj/Makefile",
    ]
    assert projects_from_paths(paths, lambda _p: True) == ("", "svc", "tests", "web")


def test_without_a_project_around_it_a_fixtures_dir_stays_what_it_was() -> None:
    """Only a test directory *of another project* makes test data: a `fixtures/` at a top
    that is no project, beside other projects, is found as before."""
    paths = ["api/pyproject.toml", "web/package.json", "fixtures/package.json"]
    assert projects_from_paths(paths) == ("api", "fixtures", "web")


def test_a_python_project_with_no_marker_but_fixture_apps_is_the_top(repo: GitRepo) -> None:
    """Plain `calc.py` and `tests/` (no pyproject.toml): the fixture apps are all there is
    besides, so the top is the one project, not the fixtures."""
    paths = ["tests/fixtures/a/package.json", "test/fixtures/b/go.mod"]
    assert projects_from_paths(paths) == ("",)


def test_listed_projects_make_a_fixture_dir_a_project_again(repo: GitRepo) -> None:
    python_with_fixture(repo)
    repo.write(".tddgit.yaml", "projects:\n  - dir: .\n  - dir: tests/fixtures/app\n")
    repo.commit("config")
    projects = load_projects(find_repo(repo.root))
    assert [p.dir for p in projects.all] == ["", "tests/fixtures/app"]


def test_a_nested_js_project_keeps_its_own_tests(repo: GitRepo) -> None:
    """A project whose tests live in `test/` (vitest here) is unaffected: only markers
    *below* a test directory are test data."""
    repo.write(".gitignore", "node_modules\n", dedent=False)
    repo.write("pyproject.toml", PYPROJECT, dedent=False)
    frontend(repo, "web")
    repo.commit("start")
    assert discover(find_repo(repo.root)) == ("", "web")


def test_pytests_own_layout_is_one_project() -> None:
    """pytest's repository: a `pytest.ini` for the docs' examples and for the test data
    under `testing/` configure runs of one Python project; none is a project of its own."""
    paths = [
        "pyproject.toml",
        "tox.ini",
        "doc/en/pytest.ini",
        "doc/en/example/customdirectory/pytest.ini",
        "testing/example_scripts/pytest.ini",
        "testing/example_scripts/collect/collect_init_tests/pytest.ini",
        "testing/plugins_integration/pytest.ini",
    ]
    assert projects_from_paths(paths) == ("",)


def test_numpys_layout_is_one_project() -> None:
    """numpy's: `setup.cfg` of a subpackage inside the Python project is that project's."""
    paths = [
        "pyproject.toml",
        "pytest.ini",
        "numpy/f2py/setup.cfg",
        "numpy/_core/tests/examples/cython/setup.py",
        "tools/swig/test/setup.py",
    ]
    assert projects_from_paths(paths) == ("",)


def test_a_python_service_with_only_a_pytest_ini_in_a_js_repository_is_a_project() -> None:
    """A run configuration alone is folded only into an enclosing *Python* project: in a
    JavaScript workspace it is the one sign of a Python project."""
    paths = ["package.json", "services/api/pytest.ini", "tools/lint/tox.ini"]
    assert projects_from_paths(paths) == ("", "services/api", "tools/lint")


def test_a_packaged_python_project_inside_another_stays_a_project() -> None:
    paths = ["pyproject.toml", "plugins/extra/pyproject.toml", "plugins/extra/pytest.ini"]
    assert projects_from_paths(paths) == ("", "plugins/extra")


def test_a_run_configuration_listed_before_the_top_s_marker_is_still_the_top_s() -> None:
    """git lists `doc/pytest.ini` before `pyproject.toml`: the top must be judged first."""
    paths = ["doc/pytest.ini", "pyproject.toml", "testing/example/pytest.ini"]
    assert projects_from_paths(paths) == ("",)
