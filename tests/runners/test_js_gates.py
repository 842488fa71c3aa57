"""JavaScript TDD end to end, for each of node's test runner, jest and vitest: real
repositories, the real runners (jest and vitest from the npm cache, ``tests.jsdeps``),
the real ``tddgit red`` / ``green`` CLI with runner auto-detection from package.json."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import GitRepo, isolated_git
from tests.jsdeps import PINNED, Unavailable, node_modules
from tests.npmcache import unavailable


@dataclass(frozen=True)
class Flavour:
    """How one runner's tests are written."""

    name: str
    header: str  # the test file's imports of the test functions
    package: dict[str, object]

    def eq(self, actual: str, expected: str) -> str:
        if self.name == "node":
            return f"assert.equal({actual}, {expected});"
        return f"expect({actual}).toBe({expected});"


FLAVOURS = {
    "node": Flavour(
        "node",
        "import { describe, test } from 'node:test';\nimport assert from 'node:assert/strict';\n",
        {"name": "calc", "type": "module"},
    ),
    "jest": Flavour(
        "jest",
        "",
        {"name": "calc", "type": "module", "devDependencies": {"jest": PINNED["jest"]}},
    ),
    "vitest": Flavour(
        "vitest",
        "import { describe, test, expect } from 'vitest';\n",
        {"name": "calc", "type": "module", "devDependencies": {"vitest": PINNED["vitest"]}},
    ),
}

CALC = "export function add(a, b) {\n  return a + b;\n}\n"
WORDS = "export function shout(s) {\n  return s.toUpperCase();\n}\n"


def calc_test(f: Flavour, extra_imports: str = "", tail: str = "", in_describe: str = "") -> str:
    return (
        f.header
        + f"import {{ add{extra_imports} }} from '../src/calc.js';\n"
        + "import * as calc from '../src/calc.js';\n\n"
        + "describe('calc', () => {\n"
        + f"  test('adds', () => {{\n    {f.eq('add(2, 3)', '5')}\n  }});\n"
        + in_describe
        + "});\n"
        + tail
    )


def words_test(f: Flavour, whispers: bool = True) -> str:
    text = f.header + "import { shout } from '../src/words.js';\n\n"
    text += "test('shouts', () => {\n  " + f.eq("shout('a')", "'A'") + "\n});\n"
    if whispers:
        text += "\ntest('whispers', () => {\n  " + f.eq("'A'.toLowerCase()", "'a'") + "\n});\n"
    return text


def start(repo: GitRepo, flavour: Flavour) -> None:
    """A committed project with passing tests for one runner (jest and vitest linked to
    the shared cache's node_modules)."""
    if flavour.name != "node":
        try:
            modules = node_modules()
        except Unavailable as exc:
            unavailable(flavour.name, exc)
        os.symlink(modules, repo.root / "node_modules")
    repo.write("package.json", json.dumps(flavour.package), dedent=False)
    repo.write(".gitignore", "node_modules\n", dedent=False)
    repo.write("src/calc.js", CALC, dedent=False)
    repo.write("src/words.js", WORDS, dedent=False)
    repo.write("test/calc.test.js", calc_test(flavour), dedent=False)
    repo.write("test/words.test.js", words_test(flavour), dedent=False)
    repo.commit("start")


@pytest.fixture(params=sorted(FLAVOURS))
def js(request: pytest.FixtureRequest, repo: GitRepo) -> tuple[GitRepo, Flavour]:
    flavour = FLAVOURS[request.param]
    start(repo, flavour)
    return repo, flavour


def gate(repo: GitRepo, phase: str, *args: str) -> tuple[int, dict[str, object]]:
    proc = repo.tddgit(phase, "--json", *args, "-m", f"{phase} step")
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def reasons(data: dict[str, object]) -> list[tuple[str, str | None, str | None]]:
    found = data["reasons"]
    assert isinstance(found, list)
    return [(r["rule"], r.get("test"), r.get("cause")) for r in found]


def targets(data: dict[str, object]) -> dict[str, tuple[str, str | None]]:
    evidence = data["evidence"]
    assert isinstance(evidence, dict), data
    found = evidence["targets"]
    return {t["id"]: (t["outcome"], t["cause"]) for t in found}


def stage(repo: GitRepo, files: dict[str, str]) -> None:
    for path, text in files.items():
        repo.write(path, text, dedent=False)
    repo.add(*files)


def open_red(repo: GitRepo, f: Flavour) -> None:
    """A red step: a test of a missing ``calc.mul`` (not a function on a project import)."""
    test = f"\ntest('multiplies', () => {{\n  {f.eq('calc.mul(2, 3)', '6')}\n}});\n"
    stage(repo, {"test/calc.test.js": calc_test(f, tail=test)})
    code, data = gate(repo, "red")
    assert code == 0, data
    assert targets(data) == {"test/calc.test.js::multiplies": ("failed", "not-implemented")}


@pytest.fixture(scope="module", params=sorted(FLAVOURS))
def red_template(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Flavour]:
    """One project per runner with an open red (``open_red``), built once per module."""
    flavour = FLAVOURS[request.param]
    root = tmp_path_factory.mktemp(f"red-{flavour.name}") / "repo"
    root.mkdir()
    with isolated_git(tmp_path_factory.mktemp("home")):
        repo = GitRepo(root)
        repo.git("init", "-q")
        start(repo, flavour)
        open_red(repo, flavour)
    return root, flavour


@pytest.fixture
def red(red_template: tuple[Path, Flavour], tmp_path: Path) -> tuple[GitRepo, Flavour]:
    """A copy of the open-red project for one test (node_modules stays a link)."""
    template, flavour = red_template
    root = tmp_path / "repo"
    shutil.copytree(template, root, symlinks=True)
    return GitRepo(root), flavour


MUL = CALC + "\nexport function mul(a, b) {\n  return a * b;\n}\n"


# --- red -------------------------------------------------------------------------------


def test_a_failing_test_added_to_an_existing_file_is_the_only_target(
    js: tuple[GitRepo, Flavour],
) -> None:
    repo, f = js
    new = "  test('adds strings', () => {\n    " + f.eq("add('1', '2')", "3") + "\n  });\n"
    stage(repo, {"test/calc.test.js": calc_test(f, in_describe=new)})
    code, data = gate(repo, "red")
    assert code == 0, data
    assert targets(data) == {"test/calc.test.js::calc > adds strings": ("failed", "assertion")}
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    assert {t["id"] for t in evidence["others"]} == {
        "test/calc.test.js::calc > adds",
        "test/words.test.js::shouts",
        "test/words.test.js::whispers",
    }


def test_an_esm_import_of_a_missing_export_is_red(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    test = f"\ntest('subtracts', () => {{\n  {f.eq('sub(5, 3)', '2')}\n}});\n"
    stage(repo, {"test/calc.test.js": calc_test(f, extra_imports=", sub", tail=test)})
    code, data = gate(repo, "red")
    assert code == 0, data
    # node and jest cannot link the file (one result for it), vitest runs the test.
    assert set(targets(data).items()) in (
        {("test/calc.test.js", ("error", "not-implemented"))},
        {("test/calc.test.js::subtracts", ("failed", "not-implemented"))},
    ), data


def test_not_a_function_on_a_project_import_is_red(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    open_red(repo, f)


def red_with_sub(repo: GitRepo, f: Flavour, body: str) -> tuple[int, dict[str, object]]:
    """A red step adding a test of ``sub`` and ``sub`` itself with ``body``."""
    calc = CALC + f"\nexport function sub(a, b) {{\n  {body}\n}}\n"
    test = f"\ntest('subtracts', () => {{\n  {f.eq('sub(5, 3)', '2')}\n}});\n"
    tests = calc_test(f, extra_imports=", sub", tail=test)
    stage(repo, {"src/calc.js": calc, "test/calc.test.js": tests})
    return gate(repo, "red")


def test_a_stub_function_is_allowed_in_a_red(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    code, data = red_with_sub(repo, f, "throw new Error('not implemented');")
    assert code == 0, data
    assert targets(data) == {"test/calc.test.js::subtracts": ("failed", "not-implemented")}


def test_real_code_is_not_a_stub_in_a_red(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    code, data = red_with_sub(repo, f, "return a - b + 1;")
    assert code != 0
    assert ("pre-test-code", None, None) in reasons(data), data


def test_green_holds_after_a_red_whose_test_file_could_not_load(
    js: tuple[GitRepo, Flavour],
) -> None:
    """node and jest report the red's file as one result (the missing export); at the
    green its tests are back under their own ids: nothing was removed."""
    repo, f = js
    test = f"\ntest('subtracts', () => {{\n  {f.eq('sub(5, 3)', '2')}\n}});\n"
    stage(repo, {"test/calc.test.js": calc_test(f, extra_imports=", sub", tail=test)})
    code, data = gate(repo, "red")
    assert code == 0, data
    sub = CALC + "\nexport function sub(a, b) {\n  return a - b;\n}\n"
    stage(repo, {"src/calc.js": sub})
    code, data = gate(repo, "green")
    assert code == 0, data
    assert all(outcome == "passed" for outcome, _ in targets(data).values()), data


def test_a_syntax_error_in_the_test_is_amber(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    broken = f"\ntest('breaks', () => {{\n  {f.eq('add(1, 1)', '3')}\n"
    stage(repo, {"test/calc.test.js": calc_test(f, tail=broken)})
    code, data = gate(repo, "red")
    assert code != 0
    assert [r for r in reasons(data) if r[0] == "target-amber"], data
    assert {cause for _, cause in targets(data).values()} == {"syntax"}, data


def test_a_missing_third_party_package_is_amber_environment(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    test = "import pad from 'left-pad-not-installed';\n" + calc_test(
        f, tail="\ntest('pads', () => {\n  " + f.eq("pad('1', 2)", "' 1'") + "\n});\n"
    )
    stage(repo, {"test/calc.test.js": test})
    code, data = gate(repo, "red")
    assert code != 0
    # The file did not load: its one result stands for the new test.
    [reason] = data["reasons"]  # type: ignore[misc]
    assert (reason["rule"], reason["test"], reason["cause"]) == (
        "target-amber",
        "test/calc.test.js",
        "environment",
    )
    assert "npm install --save-dev left-pad-not-installed" in reason["detail"]


# --- green -----------------------------------------------------------------------------


def test_a_module_that_fails_to_load_in_green_is_refused_naming_its_file(
    red: tuple[GitRepo, Flavour],
) -> None:
    repo, _ = red
    stage(repo, {"src/calc.js": MUL, "src/words.js": WORDS + "export function (\n"})
    code, data = gate(repo, "green")
    assert code != 0, data
    assert "test/words.test.js" in json.dumps(data["reasons"]), data


def test_green_holds_when_the_feature_is_written(red: tuple[GitRepo, Flavour]) -> None:
    repo, _ = red
    stage(repo, {"src/calc.js": MUL})
    code, data = gate(repo, "green")
    assert code == 0, data
    assert targets(data) == {"test/calc.test.js::multiplies": ("passed", None)}


def test_a_test_deleted_in_green_is_refused(red: tuple[GitRepo, Flavour]) -> None:
    repo, f = red
    stage(repo, {"src/calc.js": MUL, "test/words.test.js": words_test(f, whispers=False)})
    code, data = gate(repo, "green")
    assert code != 0, data
    assert ("tests-removed", "test/words.test.js::whispers") in [r[:2] for r in reasons(data)]


def test_a_run_on_a_snapshot_of_the_index_finds_the_installed_packages(
    js: tuple[GitRepo, Flavour],
) -> None:
    repo, f = js
    test = f"\ntest('multiplies', () => {{\n  {f.eq('calc.mul(2, 3)', '6')}\n}});\n"
    stage(repo, {"test/calc.test.js": calc_test(f, tail=test)})
    repo.write("src/words.js", WORDS + "// unstaged work in progress\n", dedent=False)
    code, data = gate(repo, "red")
    assert code == 0, data
    assert any("snapshot" in n for n in data["notes"]), data  # type: ignore[union-attr]
    assert targets(data) == {"test/calc.test.js::multiplies": ("failed", "not-implemented")}
    if f.name != "node":  # removing the snapshot removed the link, not the packages
        assert (repo.root / "node_modules" / ".bin").is_dir()
