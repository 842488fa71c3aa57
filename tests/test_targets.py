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
    repo.write("tests/test_js.spec.js", "test('x', () => {})\n")
    repo.write("tests/data/input.json", "{}\n")  # test data: a test change, not a target
    repo.add()
    assert sorted(targets(repo)) == [
        "tests/test_js.spec.js",
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
