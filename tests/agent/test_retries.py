"""Patient retries: an overloaded or rate-limited provider is waited for, honouring its
retry-after, with a line per wait; configurable; a cycle keeps its committed steps and
says how to resume. Waits are short: retry-after 0 or 1 s, and llm.retry_wait 0."""

from __future__ import annotations

import io
import sys

import pytest

from tests.agent.conftest import generate
from tests.agent.fakeapi import FakeMessagesAPI, Status
from tests.agent.test_generate_red import finish, write_tests
from tests.conftest import GitRepo
from tests.cycle.helpers import cycle, red_step
from tests.project import snapshot_state


def no_backoff(project: GitRepo, retries: int | None = None) -> None:
    extra = f"  max_retries: {retries}\n" if retries is not None else ""
    project.write(".tddgit.yaml", f"llm:\n  retry_wait: 0\n{extra}")
    project.commit("no backoff in tests", ".tddgit.yaml")


def test_overload_and_rate_limits_are_waited_for_with_a_line_per_wait(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    no_backoff(project)
    fake_api.push(
        Status(529, retry_after="1"),
        Status(529, retry_after=None),  # no retry-after: llm.retry_wait (0 here)
        Status(429, "rate_limit_error", retry_after="0"),
        Status(529),
        Status(503, "api_error"),
        write_tests(),
        finish(),
    )
    code, out, err = generate(project, "specs/sub.yaml")
    assert code == 0, out + err
    assert "provider overloaded, retrying in 1 s (1/6)" in err
    assert "provider overloaded, retrying in 0 s (2/6)" in err
    assert "provider rate-limited, retrying in 0 s (3/6)" in err
    assert "(5/6)" in err and "(6/6)" not in err
    assert len(fake_api.requests) == 7


def test_retries_run_out_after_the_configured_number(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    no_backoff(project, retries=3)
    before = snapshot_state(project)
    fake_api.push(*[Status(529)] * 4)
    code, _, err = generate(project, "specs/sub.yaml")
    assert code == 1
    assert "(3/3)" in err
    assert "the model provider is unavailable (HTTP 529, overloaded_error) after 3 retries" in err
    assert len(fake_api.requests) == 4
    assert snapshot_state(project) == before


def test_a_cycle_keeps_its_committed_steps_and_says_how_to_resume(
    project: GitRepo, fake_api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no terminal to ask
    no_backoff(project, retries=1)
    base = project.head()
    fake_api.push(*red_step(), Status(529), Status(529))
    code, out, err = cycle(project, "specs/sub.yaml", "--yes")
    assert code == 1, out + err
    assert "provider overloaded, retrying in 0 s (1/1)" in err
    assert "stopped: green: the model provider is unavailable" in out
    assert "  red: held" in out
    assert "resume: the committed steps stay on tddgit/SPEC-SUB-1" in out
    assert "`tddgit generate green --commit`" in out
    branch = project.git("rev-list", f"{base}..tddgit/SPEC-SUB-1").split()
    assert len(branch) == 1  # the red commit, kept
