"""The junit runner on real node, jest and vitest runs: one project per runner with every
kind of failure a JS/TS TDD cycle meets, run once (module-scoped), read as tddgit reads it
by default (auto-detected from package.json); plus the no-vanishing guard on a reporter
that drops a test file that failed to load."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from tddgit.config import load_config
from tddgit.model import RunResult
from tddgit.runners import RunRequest, get_runner
from tddgit.runners.jscauses import missing_export
from tests.jsdeps import PINNED, Unavailable, node_modules
from tests.npmcache import unavailable

CALC = """\
export function add(a, b) { return a + b; }
export const settings = undefined;
"""
# Every file's tests; HEAD is the runner's imports of the test functions.
CASES = {
    "test/calc.test.js": """\
        HEAD
        import { add } from '../src/calc.js';
        import * as calc from '../src/calc.js';
        import * as path from 'node:path';

        describe('calc', () => {
          test('adds', () => { EQ(add(2, 3), 5); });
          test('adds wrongly', () => { EQ(add(2, 2), 5); });
          test('  spaced title  ', () => { EQ(1, 1); });
          test('multiplies', () => { EQ(calc.mul(2, 3), 6); });
          test('builds', () => { EQ(new calc.Stack().size, 0); });
          test('reads config', () => { EQ(calc.config.debug, false); });
          test('broken test', () => { EQ(calc.add.nope(), 1); });
          test('third party', () => { EQ(path.nope('a'), 1); });
        });
        """,
    "test/export.test.js": """\
        HEAD
        import { sub } from '../src/calc.js';
        test('subtracts', () => { EQ(sub(3, 1), 2); });
        """,
    "test/nofile.test.js": """\
        HEAD
        import { mul } from '../src/mul.js';
        test('multiplies', () => { EQ(mul(2, 3), 6); });
        """,
    "test/package.test.js": """\
        HEAD
        import pad from 'left-pad-not-installed';
        test('pads', () => { EQ(pad('1', 2), ' 1'); });
        """,
    "test/syntax.test.js": """\
        HEAD
        test('breaks', () => { EQ(1, 1);
        """,
}
HEADS = {
    "node": (
        "import { describe, test } from 'node:test';\nimport assert from 'node:assert/strict';",
        "assert.equal",
    ),
    "jest": ("", "expect"),
    "vitest": ("import { describe, test, expect } from 'vitest';", "expect"),
}


Run = tuple[str, dict[str, tuple[str, str | None]]]  # the runner and its outcomes by id


def write_project(root: Path, runner: str) -> None:
    head, eq = HEADS[runner]
    deps = {runner: PINNED[runner]} if runner in PINNED else {}
    files = {
        "package.json": json.dumps({"name": "calc", "type": "module", "devDependencies": deps}),
        "src/calc.js": CALC,
    }
    for path, text in CASES.items():
        text = textwrap.dedent(text).replace("HEAD", head)
        if eq == "expect":
            text = text.replace("EQ(", "expectEq(")
            text += "\nfunction expectEq(a, b) { expect(a).toBe(b); }\n"
        else:
            text = text.replace("EQ(", "assert.equal(")
        files[path] = text
    if runner == "vitest":  # CommonJS require of a missing project file
        files["test/require.test.js"] = (
            "import { test, expect } from 'vitest';\n"
            "const { mul } = require('../src/mul.cjs');\n"
            "test('multiplies', () => { expect(mul(2, 3)).toBe(6); });\n"
        )
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def run(root: Path) -> dict[str, tuple[str, str | None]]:
    runner = get_runner(load_config(root), root)
    result: RunResult = runner.run(RunRequest(root=root, timeout=120))
    return {t.id: (t.outcome.value, t.cause.value if t.cause else None) for t in result.tests}


@pytest.fixture(scope="module", params=["node", "jest", "vitest"])
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    name = request.param
    root = tmp_path_factory.mktemp(name)
    if name != "node":
        try:
            os.symlink(node_modules(), root / "node_modules")
        except Unavailable as exc:
            unavailable(name, exc)
    write_project(root, name)
    return name, run(root)


def test_ids_are_file_qualified_describe_paths_without_stray_whitespace(
    outcomes: Run,
) -> None:
    _, got = outcomes
    assert got["test/calc.test.js::calc > adds"] == ("passed", None)
    assert got["test/calc.test.js::calc > spaced title"] == ("passed", None)
    assert got["test/calc.test.js::calc > adds wrongly"] == ("failed", "assertion")


def test_a_missing_function_or_class_of_a_project_module_is_not_implemented(
    outcomes: Run,
) -> None:
    _, got = outcomes
    assert got["test/calc.test.js::calc > multiplies"] == ("failed", "not-implemented")
    assert got["test/calc.test.js::calc > builds"] == ("failed", "not-implemented")
    assert got["test/calc.test.js::calc > reads config"] == ("failed", "not-implemented")


def test_a_name_the_module_has_or_a_package_lacks_stays_amber(
    outcomes: Run,
) -> None:
    _, got = outcomes
    assert got["test/calc.test.js::calc > broken test"] == ("failed", "other")
    assert got["test/calc.test.js::calc > third party"] == ("failed", "other")


def test_missing_exports_files_and_packages(
    outcomes: Run,
) -> None:
    name, got = outcomes
    if name == "vitest":  # vite binds a missing export to undefined: the test runs
        assert got["test/export.test.js::subtracts"] == ("failed", "not-implemented")
        assert got["test/require.test.js"] == ("error", "not-implemented")
    else:  # node's and jest's linker refuse the whole file
        assert got["test/export.test.js"] == ("error", "not-implemented")
    assert got["test/nofile.test.js"] == ("error", "not-implemented")
    assert got["test/package.test.js"] == ("error", "environment")
    assert got["test/syntax.test.js"] == ("error", "syntax")


def test_a_missing_export_of_a_package_is_the_environment() -> None:
    text = "SyntaxError: The requested module 'left-pad' does not provide an export named 'x'"
    found = missing_export(text)
    assert found is not None and found[0].value == "environment"


# --- no vanishing test files -------------------------------------------------------------

# What jest-junit writes without reportTestSuiteErrors when test/mul.test.js cannot load:
# only the suite that ran, and jest exits 1.
ONLY_PASSES = """\
<testsuites><testsuite name="calc" tests="1">
<testcase classname="calc adds" name="calc adds" file="test/calc.test.js"/>
</testsuite></testsuites>
"""


def reporter_dropping_a_file(root: Path) -> RunResult:
    (root / "test").mkdir(parents=True)
    (root / "test/calc.test.js").write_text("test('adds', () => {});\n")
    (root / "test/mul.test.js").write_text("import { mul } from '../src/mul.js';\n")
    (root / "report.xml").write_text(ONLY_PASSES)
    config = {"runner": "junit", "test_command": "cp report.xml {junit}; exit 1"}
    (root / ".tddgit.yaml").write_text(json.dumps(config))
    return get_runner(load_config(root), root).run(RunRequest(root=root, timeout=30))


def test_a_failed_run_whose_reports_show_no_failure_names_the_unreported_files(
    tmp_path: Path,
) -> None:
    result = reporter_dropping_a_file(tmp_path)
    got = {t.id: (t.outcome.value, t.cause.value if t.cause else None) for t in result.tests}
    assert got["test/mul.test.js"] == ("error", "collection")
    assert "test/calc.test.js" not in got  # reported: its test passed
    assert got["calc adds"] == ("passed", None)


@pytest.mark.parametrize(
    ("message", "cause"),
    [
        ("(0 , _calc.sub) is not a function", "not-implemented"),  # babel (jest, CommonJS)
        ("sub is not a function", "not-implemented"),  # a require()d name
        ("lib.sub is not a function", "not-implemented"),  # a require()d module
        ("_lodash.sub is not a function", "other"),  # a package
        ("add is not a function", "other"),  # the module has it: the test is wrong
        ("Cannot read properties of undefined (reading 'x')", "other"),  # not an import's
    ],
)
def test_compiled_and_commonjs_imports_are_resolved(
    tmp_path: Path, message: str, cause: str
) -> None:
    from tddgit.model import Cause, Outcome, TestResult
    from tddgit.runners.jscauses import explain

    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src/calc.js").write_text("exports.add = (a, b) => a + b;\n")
    (tmp_path / "test/calc.test.js").write_text(
        "import { add as plus } from '../src/calc';\n"  # babel calls this module _calc
        "const { add, sub } = require('../src/calc');\nconst lib = require('../src/calc');\n"
        "const _ = require('lodash');\ntest('x', () => { expect(sub(1)).toBe(1); });\n"
    )
    failed = TestResult(
        "test/calc.test.js::x", Outcome.FAILED, Cause.OTHER, message, file="test/calc.test.js"
    )
    [got] = explain((failed,), tmp_path)
    assert got.cause is Cause(cause)


@pytest.mark.parametrize(
    ("content", "note"),
    [("{not json", "is not JSON"), ('{"tests": []}', "is not a jest/vitest JSON report")],
)
def test_a_bad_json_report_is_a_note_never_a_traceback(
    tmp_path: Path, content: str, note: str
) -> None:
    (tmp_path / "bad.json").write_text(content)
    config = {"runner": "junit", "test_command": "cp bad.json {junit_dir}/jest.json"}
    (tmp_path / ".tddgit.yaml").write_text(json.dumps(config))
    result = get_runner(load_config(tmp_path), tmp_path).run(RunRequest(root=tmp_path))
    assert result.tests == ()
    assert any(note in n and "jest.json" in n for n in result.notes), result.notes
