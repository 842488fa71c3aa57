"""`tddgit detect` end to end in real repositories, and the SARIF builder it uses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tddgit.sarif import SARIF_VERSION, SarifResult, SarifRule, rule_name, sarif_log
from tests.conftest import GitRepo
from tests.sarif import assert_valid_sarif

OVER_MOCKED = """
from unittest import mock as m

@m.patch("app.clock")
@m.patch("app.db")
def test_checkout(db, clock, mailer):
    with m.patch("app.payments"):
        assert db.save.called
"""

CONFTEST = """
import pytest
from unittest.mock import MagicMock

@pytest.fixture
def mailer():
    return MagicMock()
"""

CLEAN = """
def test_add():
    assert 1 + 1 == 2
"""

NO_ASSERT = """
def test_runs():
    print("hello")
"""

JS_OVER_MOCKED = """
describe('cart', () => {
  beforeEach(() => { jest.fn(); jest.fn(); });
  it('adds', () => { jest.spyOn(api, 'get'); vi.fn(); });
});
"""


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    repo.write("app/__init__.py", "def add(a, b):\n    return a + b\n")
    repo.write("tests/__init__.py", "")
    repo.write("tests/conftest.py", CONFTEST)
    repo.write("tests/test_checkout.py", OVER_MOCKED)
    repo.write("tests/test_clean.py", CLEAN)
    repo.write("web/cart.test.js", JS_OVER_MOCKED)
    repo.write("web/cart.js", "export const add = (a, b) => a + b;\n")
    repo.commit("project")
    return repo


def _json(repo: GitRepo, *args: str) -> tuple[int, dict[str, Any]]:
    proc = repo.tddgit("detect", "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_default_checks_every_test_file_with_conftest_fixtures(project: GitRepo) -> None:
    code, data = _json(project)
    assert code == 1
    assert data["schema"] == "tddgit.detect/1"
    # conftest.py, __init__.py, two test modules, one JS test; never production code
    assert data["files"] == 5
    found = {(f["path"], f["test"], f["rule"], f["count"]) for f in data["findings"]}
    assert found == {
        ("tests/test_checkout.py", "test_checkout", "over-mocking", 4),
        ("web/cart.test.js", "cart > adds", "over-mocking", 4),
    }
    line = next(f["line"] for f in data["findings"] if f["path"] == "tests/test_checkout.py")
    assert line == 6


def test_text_output_groups_by_file(project: GitRepo) -> None:
    proc = project.tddgit("detect")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == "tests/test_checkout.py"
    assert lines[1].split() == [
        "6",
        "warning",
        "over-mocking",
        "test_checkout:",
        "4",
        "mocks",
        "(max",
        "3):",
        "patch×3,",
        "MagicMock",
    ]
    assert lines[2] == "web/cart.test.js"
    assert "2 findings in 5 test files" in proc.stderr


def test_config_thresholds_and_overrides(project: GitRepo) -> None:
    project.write(".tddgit.yaml", "antipatterns:\n  max_mocks: 4\n")
    code, data = _json(project)
    assert (code, data["findings"]) == (0, [])
    assert data["thresholds"] == {"max_mocks": 4, "max_asserts": 5}
    code, data = _json(project, "--max-mocks", "1")
    assert code == 1
    assert len(data["findings"]) == 2


def test_explicit_paths_and_directories(project: GitRepo) -> None:
    project.write("tests/test_untracked.py", NO_ASSERT)
    code, data = _json(project, "tests/test_clean.py")
    assert (code, data["files"], data["findings"]) == (0, 1, [])
    code, data = _json(project, "tests")
    assert code == 1
    assert data["files"] == 5  # the directory walk includes the untracked test file
    rules = {(f["test"], f["rule"]) for f in data["findings"]}
    assert ("test_runs", "broad-assertion") in rules
    # a directory only contributes its test files: web/cart.js is production code
    code, data = _json(project, "web")
    assert [f["path"] for f in data["findings"]] == ["web/cart.test.js"]
    assert data["files"] == 1


def test_untracked_but_not_ignored_tests_count_by_default(project: GitRepo) -> None:
    project.write("tests/test_new.py", NO_ASSERT)
    project.write("tests/test_ignored.py", NO_ASSERT)
    project.write(".gitignore", "tests/test_ignored.py\n")
    _, data = _json(project)
    paths = {f["path"] for f in data["findings"]}
    assert "tests/test_new.py" in paths
    assert "tests/test_ignored.py" not in paths


def test_severity_threshold_sets_the_exit_code(project: GitRepo) -> None:
    assert project.tddgit("detect", "--severity", "error").returncode == 0
    project.write("tests/test_broken.py", "def test_x(:\n")
    proc = project.tddgit("detect", "tests/test_broken.py")
    assert proc.returncode == 0  # a parse error is a note: below the default threshold
    assert "parse-error" in proc.stdout
    assert project.tddgit("detect", "--severity", "note", "tests/test_broken.py").returncode == 1


def test_sarif_output_is_valid(project: GitRepo) -> None:
    proc = project.tddgit("detect", "--format", "sarif")
    assert proc.returncode == 1
    log = json.loads(proc.stdout)
    _check_sarif(log)
    results = log["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"over-mocking"}
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"tests/test_checkout.py", "web/cart.test.js"}
    again = json.loads(project.tddgit("detect", "--format", "sarif").stdout)
    assert [r["partialFingerprints"] for r in again["runs"][0]["results"]] == [
        r["partialFingerprints"] for r in results
    ]


def test_odd_file_names_and_encodings(repo: GitRepo) -> None:
    repo.write("tests/test with space.py", NO_ASSERT)
    (repo.root / "tests/test_latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\ndef test_e():\n    assert name() == '\xe9'\n"
    )
    (repo.root / "tests/test_binary.py").write_bytes(b"\0\1\2")
    (repo.root / "tests/test_bad_utf8.js").write_bytes(b"it('\xff', () => {});\n")
    repo.commit("odd")
    _, data = _json(repo)
    by_path = {f["path"]: f for f in data["findings"]}
    assert by_path["tests/test with space.py"]["rule"] == "broad-assertion"
    assert "tests/test_latin.py" not in by_path  # decoded with its declared encoding
    assert by_path["tests/test_binary.py"]["message"] == "not checked: binary file"
    assert "UTF-8" in by_path["tests/test_bad_utf8.js"]["message"]
    sarif = json.loads(repo.tddgit("detect", "--format", "sarif").stdout)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    ]
    assert "tests/test%20with%20space.py" in uris


def test_errors_are_one_line(repo: GitRepo, tmp_path: Any) -> None:
    proc = repo.tddgit("detect", "tests/nope.py")
    assert proc.returncode == 2
    assert "no such file or directory: tests/nope.py" in proc.stderr
    assert "Traceback" not in proc.stderr
    outside = tmp_path / "outside"
    outside.mkdir()
    proc = repo.tddgit("-C", str(outside), "detect")
    assert proc.returncode == 2
    assert "not a git repository" in proc.stderr


def test_explicit_files_outside_a_repository_use_the_defaults(repo: GitRepo, tmp_path: Any) -> None:
    outside = tmp_path / "loose"
    outside.mkdir()
    (outside / "test_loose.py").write_text(NO_ASSERT)
    proc = repo.tddgit("-C", str(outside), "detect", "--json", "test_loose.py")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["findings"][0]["test"] == "test_runs"


def test_no_test_files(repo: GitRepo) -> None:
    repo.write("README.md", "hi\n")
    repo.commit("docs")
    proc = repo.tddgit("detect")
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert "0 findings in 0 test files" in proc.stderr


# --- the SARIF builder -----------------------------------------------------------------------


def _check_sarif(log: dict[str, Any]) -> None:
    """The fields SARIF 2.1.0 requires (and code-scanning UIs read)."""
    assert_valid_sarif(log)
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    assert log["version"] == SARIF_VERSION
    assert isinstance(log["runs"], list) and log["runs"]
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert driver["name"] == "tddgit"
        rule_ids = [r["id"] for r in driver["rules"]]
        assert len(set(rule_ids)) == len(rule_ids)
        for rule in driver["rules"]:
            assert rule["shortDescription"]["text"]
            assert rule["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
        for result in run["results"]:
            assert isinstance(result["ruleId"], str)
            assert result["message"]["text"]
            assert result["level"] in ("none", "note", "warning", "error")
            if "ruleIndex" in result:
                assert rule_ids[result["ruleIndex"]] == result["ruleId"]
            for loc in result.get("locations", []):
                physical = loc["physicalLocation"]
                assert physical["artifactLocation"]["uri"]
                if "region" in physical:
                    assert physical["region"]["startLine"] >= 1


def test_sarif_log_structure() -> None:
    rules = [
        SarifRule("over-mocking", "OverMocking", "Too many mocks", "https://example.com/r"),
        SarifRule("missing-evidence", "MissingEvidence", "No evidence note", None, "note"),
    ]
    results = [
        SarifResult("over-mocking", "warning", "5 mocks", "tests/t.py", 3, "abc", {"n": 5}),
        SarifResult("missing-evidence", "note", "commit 1234 has no note"),
        SarifResult("unknown-rule", "error", "no line", "a b/c#d.py", None),
    ]
    log = sarif_log(rules, results, tool_version="9.9.9")
    _check_sarif(log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["version"] == "9.9.9"
    assert run["tool"]["driver"]["rules"][0]["helpUri"] == "https://example.com/r"
    assert "helpUri" not in run["tool"]["driver"]["rules"][1]
    assert run["tool"]["driver"]["rules"][1]["defaultConfiguration"]["level"] == "note"
    first, second, third = run["results"]
    assert first["ruleIndex"] == 0
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}
    assert first["partialFingerprints"] == {"tddgit/v1": "abc"}
    assert first["properties"] == {"n": 5}
    assert "locations" not in second and "properties" not in second
    assert "ruleIndex" not in third
    physical = third["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "a%20b/c%23d.py"
    assert "region" not in physical
    json.dumps(log)  # serialisable as is


@pytest.mark.parametrize(
    ("rule_id", "name"),
    [("over-mocking", "OverMocking"), ("yagni", "Yagni"), ("test_after-fact", "TestAfterFact")],
)
def test_rule_name(rule_id: str, name: str) -> None:
    assert rule_name(rule_id) == name
