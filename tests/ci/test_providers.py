"""The CI run read from a provider's environment (no git needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tddgit.ci.providers import detect
from tddgit.errors import UsageError

A, B = "a" * 40, "b" * 40


def test_github_base_ref_without_a_payload() -> None:
    run = detect({"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main", "GITHUB_SHA": B})
    assert (run.provider, run.range, run.pull_request) == ("github", f"origin/main..{B}", True)


def test_github_push_event(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"before": A, "after": B}))
    run = detect({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event)})
    assert run.range == f"{A}..{B}" and not run.pull_request


def test_a_new_branch_push_audits_its_whole_history(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"before": "0" * 40, "after": B}))
    run = detect({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": B})
    assert run.base is None and run.range == B


def test_gitlab_branch_pipeline() -> None:
    run = detect({"GITLAB_CI": "true", "CI_COMMIT_SHA": B, "CI_COMMIT_BEFORE_SHA": A})
    assert run.range == f"{A}..{B}" and not run.pull_request


def test_an_unreadable_payload_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the GitHub event payload"):
        detect({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(tmp_path / "none.json")})
