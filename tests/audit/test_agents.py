"""`tddgit audit` per agent: the commits a model made (`GSD-Agent`) get the authors' metrics."""

from __future__ import annotations

import json

from tests.conftest import GitRepo
from tests.project import CALC_SUB, TEST_SUB, start_project


def test_the_audit_reports_phases_cycles_and_findings_per_agent(repo: GitRepo) -> None:
    start_project(repo)
    repo.write("tests/test_calc.py", TEST_SUB, dedent=False)
    repo.add("tests/test_calc.py")
    agent_red = ["--trailer", "GSD-Phase: red", "--trailer", "GSD-Agent: claude-x"]
    repo.git("commit", "-q", "-m", "sub: tests", *agent_red)
    repo.write("calc.py", CALC_SUB, dedent=False)
    repo.add("calc.py")
    repo.git("commit", "-q", "-m", "sub: implement", "--trailer", "GSD-Phase: green")
    repo.write("tests/test_more.py", "def test_more():\n    assert 1\n", dedent=False)
    repo.add("tests/test_more.py")
    repo.git("commit", "-q", "-m", "more", "--trailer", "GSD-Agent: claude-y")
    proc = repo.tddgit("audit", "--format", "json")
    metrics = json.loads(proc.stdout)["metrics"]
    agents = {a["agent"]: a for a in metrics["agents"]}
    assert sorted(agents) == ["claude-x", "claude-y"]
    x = agents["claude-x"]
    assert x["commits"] == 1 and x["phases"]["red"] == 1
    assert x["cycles"]["total"] == 1 and x["cycles"]["complete"] == 1
    assert "authors" not in x
    assert agents["claude-y"]["phases"]["red"] == 1  # by its files: a test-only commit
    assert metrics["commits"] == 4  # the whole range is unchanged
    markdown = repo.tddgit("audit", "--format", "markdown").stdout
    assert "## Agents" in markdown and "| claude-x | 1 |" in markdown


def test_a_history_without_agents_has_no_agents_key(repo: GitRepo) -> None:
    start_project(repo)
    metrics = json.loads(repo.tddgit("audit", "--format", "json").stdout)["metrics"]
    assert "agents" not in metrics
