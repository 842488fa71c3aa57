"""The audit report's edges a new user meets: an empty range under a threshold, the
heading's filters, one rounding of time in red in every format."""

from __future__ import annotations

import json
import re

import pytest

from tddgit.audit.model import AuditRange, AuditReport, Finding
from tddgit.audit.render_sarif import sarif_document
from tests.audit.helpers import T0
from tests.conftest import GitRepo, isolated_git
from tests.project import stage_red, start_project
from tests.sarif import assert_valid_sarif
from tests.test_yagni import CALC_SUB_BRANCH


def commit_at(repo, seconds: int, message: str, files: dict[str, str], phase: str) -> None:
    for path, content in files.items():
        repo.write(path, content)
        repo.add(path)
    date = f"@{T0 + seconds} +0000"
    env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    repo.git("commit", "-q", "-m", f"{message}\n\nGSD-Phase: {phase}\n", env=env)


@pytest.fixture
def two_cycles(repo):
    """Two red -> green cycles, 2 s and 3 s in red: the median is 2.5 s."""
    for n, (start, red_for) in enumerate(((0, 2), (100, 3))):
        test = f"tests/test_m{n}.py"
        commit_at(repo, start, f"test {n}", {test: f"def test_{n}():\n    assert 0\n"}, "red")
        commit_at(repo, start + red_for, f"pass {n}", {f"m{n}.py": "X = 1\n"}, "green")
    return repo


def test_an_empty_range_with_a_threshold_is_bad_input(two_cycles):
    proc = two_cycles.tddgit("audit", "--author", "nobody", "--fail-under", "80")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1
    assert "no commits in the range" in proc.stderr
    assert "Traceback" not in proc.stderr
    # without a threshold an empty range is a report like any other
    assert two_cycles.tddgit("audit", "--author", "nobody").returncode == 0


def test_the_heading_names_the_author_filter(two_cycles):
    text = two_cycles.tddgit("audit", "--author", "nobody", "--since", "2000-01-01").stdout
    assert "--author=nobody" in text.splitlines()[0]
    markdown = two_cycles.tddgit("audit", "--author", "nobody", "--format", "markdown").stdout
    assert markdown.startswith("# tddgit audit of HEAD --author=nobody\n")


def test_median_time_in_red_is_rounded_once_for_every_format(two_cycles):
    doc = json.loads(two_cycles.tddgit("audit", "--json", check=True).stdout)
    median = doc["metrics"]["time_in_red"]["median_seconds"]
    assert median == 3  # 2.5 s, half up: the value text and HTML show
    text = two_cycles.tddgit("audit", check=True).stdout
    assert re.search(r"time in red \(median\)\s+3 s\b", text), text
    html = two_cycles.tddgit("audit", "--format", "html", check=True).stdout
    assert '"median_seconds":3,' in html


@pytest.fixture(scope="module")
def yagni_green(tmp_path_factory):
    """A real red, then a real green adding a branch no test takes (calc.py line 11)."""
    with isolated_git(tmp_path_factory.mktemp("home")):
        root = tmp_path_factory.mktemp("yagni") / "repo"
        root.mkdir()
        repo = GitRepo(root)
        repo.git("init", "-q")
        start_project(repo)
        stage_red(repo)
        repo.tddgit("red", "-m", "red: sub", check=True)
        repo.write("calc.py", CALC_SUB_BRANCH, dedent=False)
        repo.add("calc.py")
        repo.tddgit("green", "-m", "green: sub", check=True)
        yield repo


def test_the_yagni_finding_names_its_location_once(yagni_green):
    doc = json.loads(yagni_green.tddgit("audit", "--json", check=True).stdout)
    [found] = [f for f in doc["findings"] if f["rule"] == "yagni"]
    assert found["message"] == "calc.py:11: 1 added line no test executed (coverage)"


def test_sarif_results_have_the_known_line_ranges_and_a_valid_log(yagni_green):
    log = json.loads(yagni_green.tddgit("audit", "--format", "sarif", check=True).stdout)
    [result] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "yagni"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "calc.py"
    assert location["region"] == {"startLine": 11}
    assert_valid_sarif(log)


def test_a_finding_over_several_ranges_is_one_region_and_related_ones():
    finding = Finding(
        "yagni",
        "note",
        "c" * 40,
        "app.py:3-9,12: 8 added lines no test executed",
        files=("app.py",),
        data={"file": "app.py", "lines": [[3, 9], [12, 12]], "method": "coverage"},
    )
    report = AuditReport(AuditRange(revs=("HEAD",)), [], [finding], [], [], {})
    [result] = sarif_document(report)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "endLine": 9}
    [related] = result["relatedLocations"]
    assert related["physicalLocation"]["region"] == {"startLine": 12}
    assert_valid_sarif(sarif_document(report))
