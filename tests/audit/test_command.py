"""`tddgit audit` end to end: the real CLI in a subprocess on real repositories."""

from __future__ import annotations

import json

import pytest

from tests.audit.helpers import Steps, note

RULE_IDS = (
    "pre-test-code, green-without-red, test-after-fact, red-lapsed, test-edited-in-green, "
    "refactor-changes-tests, tests-removed, refactor-while-red, missing-evidence, "
    "evidence-contradiction, evidence-rebased, squashed-steps, over-mocking, "
    "broad-assertion, yagni, unpinned-green-line"
)


@pytest.fixture
def history(repo):
    s = Steps(repo)
    s.commit("add widget", {"src/widget.py": "def size():\n    return 3\n"})
    red = s.commit(
        "first test", {"tests/test_calc.py": "def test_t():\n    assert 0\n"}, phase="red"
    )
    s.commit("make it pass", {"calc.py": "def t():\n    return 0\n"}, phase="green")
    s.commit("Refactoring: tidy | pipes", {"calc.py": "def t():\n    return 1 - 1\n"})
    note(repo, red, "red")
    return repo


def test_json_report(history):
    proc = history.tddgit("audit", "--format", "json", check=True)
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "tddgit.audit/1"
    assert list(doc) == [
        "schema",
        "tool",
        "range",
        "notes",
        "metrics",
        "tasks",
        "findings",
        "cycles",
        "episodes",
        "commits",
    ]
    assert doc["range"]["revs"] == ["HEAD"]
    commit = doc["commits"][1]
    assert set(commit) >= {"sha", "phase", "phase_source", "kind", "files", "evidence"}
    assert (commit["phase"], commit["phase_source"], commit["kind"]) == ("red", "trailer", "test")
    assert commit["files"] == [
        {"status": "A", "path": "tests/test_calc.py", "old_path": None, "kind": "test"}
    ]
    assert commit["evidence"]["valid"] is True
    assert [(f["rule"], f["severity"]) for f in doc["findings"]] == [
        ("pre-test-code", "warning"),
        ("missing-evidence", "warning"),
    ]
    for f in doc["findings"]:
        assert set(f) >= {"rule", "severity", "commit", "related", "files", "message"}
    assert doc["cycles"][0]["status"] == "complete"
    assert doc["metrics"]["phases"] == {"red": 1, "green": 1, "refactor": 1, "none": 1}
    assert history.tddgit("audit", "--json").stdout == proc.stdout


def test_text_report_has_no_colour_off_a_tty(history):
    proc = history.tddgit("audit", check=True)
    assert "\x1b[" not in proc.stdout
    assert "conformance" in proc.stdout
    assert "pre-test-code" in proc.stdout
    assert "Refactoring: tidy | pipes" in proc.stdout


def test_markdown_report(history):
    out = history.tddgit("audit", "--format", "markdown", check=True).stdout
    assert out.startswith("# tddgit audit of HEAD\n")
    assert "| warning | `pre-test-code` |" in out
    assert "## Summary" in out


def test_sarif_report_to_a_file(history):
    proc = history.tddgit("audit", "--format", "sarif", "-o", "audit.sarif", check=True)
    assert proc.stdout == ""
    doc = json.loads((history.root / "audit.sarif").read_text())
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == RULE_IDS.split(", ")
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["pre-test-code", "missing-evidence"]
    loc = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uri"] == "src/widget.py"
    assert results[0]["level"] == "warning"


def test_fail_under_and_fail_on(history):
    ok = history.tddgit("audit", "--json", "--fail-under", "10")
    assert ok.returncode == 0
    low = history.tddgit("audit", "--json", "--fail-under", "99")
    assert low.returncode == 1
    assert json.loads(low.stdout)["schema"] == "tddgit.audit/1"  # the report is still written
    assert "below --fail-under 99" in low.stderr
    hit = history.tddgit("audit", "--json", "--fail-on", "refactor-while-red,pre-test-code")
    assert hit.returncode == 1
    assert "pre-test-code (1)" in hit.stderr
    quiet = history.tddgit("audit", "--json", "--fail-on", "refactor-while-red")
    assert quiet.returncode == 0


def test_unknown_rule_is_a_usage_error(history):
    proc = history.tddgit("audit", "--fail-on", "pre-test-code,bogus")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert "unknown rule bogus" in proc.stderr
    assert RULE_IDS in proc.stderr


def test_bad_range_is_one_line(history):
    proc = history.tddgit("audit", "nope..HEAD")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "bad revision or range" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_range_and_paths(history):
    doc = json.loads(history.tddgit("audit", "HEAD~2..HEAD", "--json", check=True).stdout)
    assert [c["subject"] for c in doc["commits"]] == ["make it pass", "Refactoring: tidy | pipes"]
    doc = json.loads(history.tddgit("audit", "--json", "--", "src", check=True).stdout)
    assert [c["subject"] for c in doc["commits"]] == ["add widget"]
    assert doc["range"]["paths"] == ["src"]


def test_empty_repository(repo):
    proc = repo.tddgit("audit", "--json", "--fail-under", "90")
    assert proc.returncode == 2  # a threshold on no commits: "no commits in the range"
    doc = json.loads(proc.stdout)
    assert doc["commits"] == [] and doc["findings"] == []
    assert doc["metrics"]["conformance"] is None
    assert "the repository has no commits yet" in doc["notes"]


def test_shallow_clone_is_noted(history, tmp_path):
    clone = tmp_path / "shallow"
    history.git("clone", "-q", "--depth", "2", f"file://{history.root}", str(clone))
    proc = history.tddgit("-C", str(clone), "audit", "--json", check=True)
    doc = json.loads(proc.stdout)
    assert doc["range"]["shallow"] is True
    assert any(n.startswith("shallow clone: history before") for n in doc["notes"])
    assert len(doc["commits"]) == 2


def test_help_has_examples(repo):
    out = repo.tddgit("audit", "--help", check=True).stdout
    assert "--fail-on RULE[,RULE]" in out
    assert "tddgit audit main..HEAD --format markdown" in out


def test_path_filter_keeps_the_lineage_of_the_commits_it_shows(history):
    # `tddgit audit HEAD -- calc.py`: the green's red touched only the test file.
    doc = json.loads(history.tddgit("audit", "HEAD", "--json", "--", "calc.py", check=True).stdout)
    assert [(c["subject"], c["phase"]) for c in doc["commits"]] == [
        ("make it pass", "green"),
        ("Refactoring: tidy | pipes", "refactor"),
    ]
    assert [f["rule"] for f in doc["findings"]] == ["missing-evidence"]
    assert [c["status"] for c in doc["cycles"]] == ["complete"]


def test_shallow_boundary_is_not_judged(history, tmp_path):
    clone = tmp_path / "shallow"
    history.git("clone", "-q", "--depth", "1", f"file://{history.root}", str(clone))
    doc = json.loads(history.tddgit("-C", str(clone), "audit", "--json", check=True).stdout)
    assert [(c["kind"], c["phase"], c["files"]) for c in doc["commits"]] == [("boundary", None, [])]
    assert doc["findings"] == []
