"""`tddgit ci` in a GitHub Actions- or GitLab CI-shaped job, on a depth-1 clone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.ci.prshape import github_env, gitlab_env, make_pull_request, shallow_clone
from tests.conftest import TDDGIT, GitRepo
from tests.sarif import assert_valid_sarif


def run(clone: GitRepo, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TDDGIT, "ci", *args], cwd=clone.root, env=env, capture_output=True, text=True
    )


def test_github_pull_request_on_a_depth_1_clone(tmp_path: Path) -> None:
    pr = make_pull_request(tmp_path)
    clone = shallow_clone(pr, tmp_path / "runner")
    env = github_env(pr, tmp_path)
    proc = run(clone, env, "--fail-under", "90", "--require-evidence")
    assert proc.returncode == 0, proc.stderr
    assert "deepening" in proc.stderr or "fetching" in proc.stderr
    assert f"{pr.base}..{pr.head}: 3 commits, conformance 100.0, evidence coverage 100.0" in (
        proc.stdout
    )
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("#") and "conformance" in summary.lower()
    sarif = json.loads((clone.root / "tddgit.sarif").read_text())
    assert_valid_sarif(sarif)
    assert (clone.root / "tddgit-audit.html").read_text().lstrip().startswith("<!")
    outputs = (tmp_path / "output.txt").read_text()
    assert f"sarif={clone.root / 'tddgit.sarif'}" in outputs


def test_without_the_notes_require_evidence_fails(tmp_path: Path) -> None:
    pr = make_pull_request(tmp_path)
    clone = shallow_clone(pr, tmp_path / "runner")
    clone.git("fetch", "-q", "--unshallow", "origin", "main:refs/remotes/origin/main")
    proc = run(clone, github_env(pr, tmp_path), "--no-fetch", "--require-evidence")
    assert proc.returncode == 1
    assert "--require-evidence: 3 declared step(s) without evidence" in proc.stderr


def test_gitlab_merge_request_writes_a_code_quality_report(tmp_path: Path) -> None:
    pr = make_pull_request(tmp_path)
    clone = shallow_clone(pr, tmp_path / "runner")
    # a finding: the refactor's evidence note is replaced by one of the wrong phase
    proc = run(clone, gitlab_env(pr), "--fail-on", "evidence-contradiction")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((clone.root / "gl-code-quality-report.json").read_text())
    assert report == []  # a clean pull request
    bad = GitRepo(tmp_path / "dev")
    bad.git("notes", "--ref=tddgit", "add", "-f", "-m", '{"schema": "nope"}', pr.head)
    bad.git("push", "-q", "-f", str(pr.remote), "refs/notes/tddgit")
    clone2 = shallow_clone(pr, tmp_path / "runner2")
    proc = run(clone2, gitlab_env(pr), "--fail-on", "evidence-contradiction")
    assert proc.returncode == 1
    (issue,) = json.loads((clone2.root / "gl-code-quality-report.json").read_text())
    assert issue["check_name"] == "evidence-contradiction"
    assert issue["severity"] == "major"
    assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
    assert issue["location"]["path"] and issue["location"]["lines"]["begin"] >= 1
    assert len(issue["fingerprint"]) >= 16


def test_a_fork_without_push_rights_gets_its_report(tmp_path: Path) -> None:
    pr = make_pull_request(tmp_path)
    hook = pr.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'read-only token' >&2\nexit 1\n")
    hook.chmod(0o755)
    clone = shallow_clone(pr, tmp_path / "runner")
    proc = run(clone, github_env(pr, tmp_path), "--fail-under", "90")
    assert proc.returncode == 0, proc.stderr
    assert "conformance 100.0" in proc.stdout
    assert (tmp_path / "summary.md").exists()


def test_outside_ci_is_one_line_exit_2(tmp_path: Path, repo: GitRepo) -> None:
    repo.commit("x", allow_empty=True)
    env = {k: v for k, v in github_env(make_pull_request(tmp_path), tmp_path).items()}
    del env["GITHUB_ACTIONS"]
    proc = run(repo, env)
    assert proc.returncode == 2
    assert "not running in GitHub Actions or GitLab CI" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_shallow_clone_audit_of_a_missing_base_says_how_to_fetch(tmp_path: Path) -> None:
    pr = make_pull_request(tmp_path)
    clone = shallow_clone(pr, tmp_path / "runner")
    proc = clone.tddgit("audit", "origin/main..HEAD")
    assert proc.returncode == 2
    assert "shallow clone" in proc.stderr and "tddgit ci" in proc.stderr
    head = clone.tddgit("audit", "HEAD")
    assert (
        "1 in all = 0 non-merge (0 change code) + 0 merges + 1 at a shallow clone's boundary"
    ) in head.stdout
