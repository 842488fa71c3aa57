"""Red targets: tests defined or changed in the staged test files, by AST."""

from __future__ import annotations

from tddgit.config import default_config
from tddgit.git import find_repo
from tddgit.paths import Classifier
from tddgit.staged import staged_change
from tddgit.targets import belongs, python_tests, staged_targets
from tests.conftest import GitRepo


def targets(repo: GitRepo) -> list[str]:
    r = find_repo(repo.root)
    return staged_targets(r, staged_change(r, Classifier.from_config(default_config())))


def test_python_tests_finds_functions_methods_and_unittest() -> None:
    src = (
        "import unittest\n"
        "def test_a(): pass\n"
        "def helper(): pass\n"
        "class TestX:\n    def test_b(self): pass\n    class TestInner:\n        def test_c(self): pass\n"
        "class Case(unittest.TestCase):\n    def test_d(self): pass\n"
        "class NotTests:\n    def test_e(self): pass\n"
    )
    found = python_tests(src)
    assert found is not None
    assert sorted(found) == ["Case::test_d", "TestX::TestInner::test_c", "TestX::test_b", "test_a"]
    assert python_tests("def (:") is None


def test_new_changed_and_untouched_tests(repo: GitRepo) -> None:
    repo.write(
        "tests/test_m.py", "def test_same():\n    assert 1\n\ndef test_edit():\n    assert 1\n"
    )
    repo.commit("base")
    repo.write(
        "tests/test_m.py",
        "# a comment moves lines\n\ndef test_same():\n    assert 1\n\n"
        "def test_edit():\n    assert 2\n\ndef test_new():\n    assert 3\n",
    )
    repo.write("tests/conftest.py", "import pytest\n")
    repo.write("tests/test_js.spec.js", "test('x', () => {})\n")  # a new JS test file
    repo.write("tests/data/input.json", "{}\n")  # test data: a test change, not a target
    repo.add()
    assert sorted(targets(repo)) == [
        "tests/test_js.spec.js::x",
        "tests/test_m.py::test_edit",
        "tests/test_m.py::test_new",
    ]


def test_renamed_test_file_keeps_unchanged_tests_out(repo: GitRepo) -> None:
    body = "def test_a():\n    assert 1\n\ndef test_b():\n    assert 1\n" + "# pad\n" * 20
    repo.write("tests/test_old.py", body)
    repo.commit("base")
    repo.git("mv", "tests/test_old.py", "tests/test_new.py")
    repo.write("tests/test_new.py", body + "\ndef test_c():\n    assert 0\n")
    repo.add()
    assert targets(repo) == ["tests/test_new.py::test_c"]


def test_belongs() -> None:
    assert belongs("t.py::test_a[1-2]", "t.py", "t.py::test_a")
    assert belongs("t.py::TestX::test_a", "t.py", "t.py::TestX")
    assert belongs("t.py::test_a", "t.py", "t.py")
    assert not belongs("t.py::test_ab", "t.py", "t.py::test_a")


# --- JS / TS: test block by test block ---------------------------------------------------

JS_BEFORE = """\
import { add } from '../src/calc.js';

describe('calc', () => {
  test('adds', () => {
    expect(add(2, 3)).toBe(5);
  });
});

test('alone', () => { expect(1).toBe(1); });
"""


def js_targets_of(repo: GitRepo, path: str, before: str | None, after: str) -> list[str]:
    if before is not None:
        repo.write(path, before, dedent=False)
        repo.commit("before")
    else:
        repo.commit("empty", allow_empty=True)
    repo.write(path, after, dedent=False)
    repo.add(path)
    return targets(repo)


def test_js_a_test_appended_inside_a_describe_is_the_only_target(repo: GitRepo) -> None:
    after = JS_BEFORE.replace(
        "  });\n});",
        "  });\n\n  it('adds three', () => {\n    expect(add(1, 1, 1)).toBe(3);\n  });\n});",
    )
    assert js_targets_of(repo, "test/calc.test.js", JS_BEFORE, after) == [
        "test/calc.test.js::calc > adds three"
    ]


def test_js_a_test_appended_outside_every_describe_in_ts(repo: GitRepo) -> None:
    after = JS_BEFORE + "\ntest(' subtracts ', (): void => {\n  expect(sub(3, 1)).toBe(2);\n});\n"
    assert js_targets_of(repo, "test/calc.test.ts", JS_BEFORE, after) == [
        "test/calc.test.ts::subtracts"
    ]


def test_js_a_changed_body_is_a_target_and_formatting_is_not(repo: GitRepo) -> None:
    after = JS_BEFORE.replace("toBe(5)", "toBe(6)").replace(
        "test('alone', () => { expect(1).toBe(1); });",
        "// reformatted\ntest('alone', () => {\n  expect(1).toBe(1)\n});",
    )
    assert js_targets_of(repo, "test/calc.test.mjs", JS_BEFORE, after) == [
        "test/calc.test.mjs::calc > adds"
    ]


def test_js_a_new_file_targets_each_test_and_cjs_is_read(repo: GitRepo) -> None:
    src = "const { test } = require('node:test');\ntest('a', () => {});\ntest('b', () => {});\n"
    assert js_targets_of(repo, "test/x.test.cjs", None, src) == [
        "test/x.test.cjs::a",
        "test/x.test.cjs::b",
    ]


def test_js_a_computed_title_targets_the_whole_file(repo: GitRepo) -> None:
    after = JS_BEFORE + "\ntest.each([1, 2])('n %i', (n) => { expect(n).toBeTruthy(); });\n"
    assert js_targets_of(repo, "test/calc.test.jsx", JS_BEFORE, after) == ["test/calc.test.jsx"]


def test_js_a_test_file_without_test_blocks_is_targeted_whole(repo: GitRepo) -> None:
    assert js_targets_of(repo, "test/helpers.test.js", None, "export const x = 1;\n") == [
        "test/helpers.test.js"
    ]
