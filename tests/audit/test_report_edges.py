"""The audit report's edges a new user meets: an empty range under a threshold, the
heading's filters, one rounding of time in red in every format."""

from __future__ import annotations

import json
import re

import pytest

from tests.audit.helpers import T0
from tests.project import stage_red, start_project
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


def test_the_yagni_finding_names_its_location_once(repo):
    """A real green with a branch no test takes: the gate's message already says where."""
    start_project(repo)
    stage_red(repo)
    repo.tddgit("red", "-m", "red: sub", check=True)
    repo.write("calc.py", CALC_SUB_BRANCH, dedent=False)
    repo.add("calc.py")
    repo.tddgit("green", "-m", "green: sub", check=True)
    doc = json.loads(repo.tddgit("audit", "--json", check=True).stdout)
    [found] = [f for f in doc["findings"] if f["rule"] == "yagni"]
    assert found["message"] == "calc.py:11: 1 added line no test executed (coverage)"
