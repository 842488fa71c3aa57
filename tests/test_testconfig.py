"""Which changes are test configuration (issue 24, item 1): each file kind, key by key.
Pure functions over file texts; the gates' end-to-end cases are in test_gate_test_config."""

from __future__ import annotations

import json

import pytest

from tddgit.gates.testconfig import _dash_p, _file_changes, _js_references

PYPROJECT = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


@pytest.mark.parametrize(
    ("path", "old", "new", "expected"),
    [
        ("pyproject.toml", PYPROJECT, PYPROJECT + 'addopts = "-k x"\n', ["[tool.pytest] addopts"]),
        ("pyproject.toml", PYPROJECT, PYPROJECT.replace('"x"', '"y"'), []),  # not pytest's
        ("sub/conftest.py", None, "collect_ignore = ['a.py']\n", ["conftest.py"]),
        ("pytest.ini", None, "[pytest]\naddopts = -m 'not slow'\n", ["[pytest] addopts"]),
        (".pytest.ini", "[pytest]\n", "[pytest]\nmarkers = slow\n", ["[pytest] markers"]),
        ("setup.cfg", "[metadata]\nname = x\n", "[metadata]\nname = y\n", []),
        ("setup.cfg", None, "[tool:pytest]\naddopts = -x\n", ["[tool:pytest] addopts"]),
        ("tox.ini", "[tox]\n", "[tox]\n[pytest]\nnorecursedirs = t\n", ["[pytest] norecursedirs"]),
        ("vitest.config.ts", "a", "b", ["vitest.config.ts"]),
        ("jest.config.cjs", None, "module.exports = {}", ["jest.config.cjs"]),
        ("src/calc.py", "a", "b", []),
    ],
)
def test_what_changed(path: str, old: str | None, new: str | None, expected: list[str]) -> None:
    found = _file_changes(path, old, new)
    assert [f.split(" (")[0] for f in found] == expected


def test_package_json_keys_a_runner_reads() -> None:
    old = {"name": "x", "scripts": {"test": "vitest run", "build": "tsc"}, "dependencies": {}}
    new = {
        "name": "x",
        "version": "2",
        "scripts": {"test": "vitest run -t adds", "build": "tsc -b"},
        "jest": {"setupFiles": ["./setup.js"]},
        "dependencies": {"left-pad": "1"},
    }
    found = _file_changes("package.json", json.dumps(old), json.dumps(new))
    assert found == ["jest", "scripts.test"]


def test_plugins_named_by_dash_p() -> None:
    assert list(_dash_p("-p shop._compat -pother -p no:cacheprovider -q")) == [
        "shop._compat",
        "other",
    ]


def test_files_a_js_configuration_names() -> None:
    text = "export default { test: { setupFiles: ['./src/setup.ts', 'vitest.setup.js'] } }"
    assert list(_js_references("vitest.config.js", text)) == ["./src/setup.ts", "vitest.setup.js"]
    pkg = json.dumps({"jest": {"setupFilesAfterEach": ["<rootDir>/test/setup.js"]}})
    assert list(_js_references("package.json", pkg)) == ["<rootDir>/test/setup.js"]
