"""Helpers for audit tests: real commits with dates and trailers, real evidence notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tddgit.audit import AuditOptions, run_audit
from tddgit.audit.metrics import compute
from tddgit.audit.model import AuditReport, CommitRecord
from tddgit.config import load_config
from tddgit.git import find_repo
from tests.conftest import GitRepo

T0 = 1_700_000_000  # 2023-11-14T22:13:20Z


def when(minutes: float) -> str:
    """A git date ``minutes`` after T0 (author and committer date)."""
    return f"@{int(T0 + minutes * 60)} +0000"


class Steps:
    """Write files and commit them at increasing, known times."""

    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self.minute = 0.0

    def commit(
        self,
        message: str,
        files: dict[str, str | None] | None = None,
        *,
        phase: str | None = None,
        at: float | None = None,
    ) -> str:
        for path, content in (files or {}).items():
            if content is None:
                self.repo.git("rm", "-q", "--", path)
            else:
                self.repo.write(path, content)
                self.repo.add(path)
        if phase:
            message = f"{message}\n\nGSD-Phase: {phase}\n"
        self.minute = self.minute + 10 if at is None else at
        env = {"GIT_AUTHOR_DATE": when(self.minute), "GIT_COMMITTER_DATE": when(self.minute)}
        args = ["commit", "-q", "--allow-empty", "--allow-empty-message", "-m", message]
        self.repo.git(*args, env=env)
        return self.repo.head()


def note(
    repo: GitRepo,
    sha: str,
    phase: str,
    targets: list[dict[str, Any]] | None = None,
    *,
    tree: str | None = None,
    parent: str | None = None,
    raw: str | None = None,
) -> None:
    """Attach a ``tddgit.evidence/1`` note to ``sha``, as the gates do."""
    if raw is None:
        tree = tree or repo.git("rev-parse", f"{sha}^{{tree}}").strip()
        default = {"id": "tests/test_x.py::test_a", "outcome": "failed", "cause": "assertion"}
        if phase != "red":
            default = {"id": "tests/test_x.py::test_a", "outcome": "passed", "cause": None}
        raw = json.dumps(
            {
                "schema": "tddgit.evidence/1",
                "phase": phase,
                "tree": tree,
                "parent": parent,
                "runner": "pytest",
                "command": ["pytest"],
                "started": 1700000000.0,
                "duration": 1.0,
                "tddgit_version": "0.1.0",
                "scope": "changed",
                "targets": targets if targets is not None else [default],
                "suite": {"passed": 1, "failed": 0},
                "test_ids": [],
                "changes": {"test": [], "production": [], "other": []},
                "findings": [],
                "coarse": False,
            }
        )
    repo.git("notes", "--ref=tddgit", "add", "-f", "-m", raw, sha)


def audit(
    repo: GitRepo | Path, *revs: str, paths: tuple[str, ...] = (), **select: str
) -> AuditReport:
    """The audit of ``revs`` (HEAD); ``select`` takes ``since``, ``until``, ``author``."""
    root = repo.root if isinstance(repo, GitRepo) else repo
    r = find_repo(root)
    options = AuditOptions(revs=revs or ("HEAD",), paths=paths, **select)
    report = run_audit(r, load_config(r.root), options)
    # The metrics counted as the pass made the records (reverts included) are the ones
    # counted from the final records.
    again = compute(report.commits, report.findings, report.cycles, report.episodes)
    assert report.metrics == again
    return report


def by_subject(report: AuditReport) -> dict[str, CommitRecord]:
    return {c.subject: c for c in report.commits}


def phases(report: AuditReport) -> list[tuple[str, str | None, str]]:
    """(subject, phase, source) of every commit, oldest first."""
    return [(c.subject, c.phase, c.phase_source) for c in report.commits]


def rules_fired(report: AuditReport) -> list[tuple[str, str]]:
    """(rule, subject of its commit) of every finding, in history order."""
    subject = {c.sha: c.subject for c in report.commits}
    return [(f.rule, subject[f.commit]) for f in report.findings]
