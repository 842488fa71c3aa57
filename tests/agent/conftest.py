"""Fixtures for the model-driven phases: the fake Messages API and a small project."""

from __future__ import annotations

import contextlib
import signal
import tempfile
from collections.abc import Iterator

import pytest

from tests.agent.fakeapi import FakeMessagesAPI, serve
from tests.conftest import GitRepo
from tests.project import start_project

SPEC = """\
spec_id: SPEC-SUB
title: Subtraction
components:
  - name: calc
    type: module
    file_path: calc.py
    interface:
      methods:
        - signature: "sub(a, b)"
          description: a minus b
test_cases:
  - id: TC-1
    component: calc
    description: five minus three
    then: 2
  - id: TC-2
    component: calc
    description: a negative result
"""


@pytest.fixture
def fake_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    """The fake server, with the SDK pointed at it (ANTHROPIC_BASE_URL) and a key set."""
    for server in serve():
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-secret")
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        yield server


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    """The calc project with one passing test and a committed spec."""
    start_project(repo)
    repo.write("specs/sub.yaml", SPEC, dedent=False)
    repo.commit("spec", "specs/sub.yaml")
    return repo


def generate(repo: GitRepo, *args: str, phase: str = "red") -> tuple[int, str, str]:
    """``tddgit generate PHASE ARGS`` in this process (exit code, stdout, stderr).

    In-process, so the SDK is imported once per test worker rather than once per run; the
    gates still run the project's tests in real subprocesses. The CLI's SIGTERM handler is
    put back afterwards."""
    from tddgit.cli import run

    previous = signal.getsignal(signal.SIGTERM)
    # Real files, not StringIO: `git commit` may be handed sys.stderr as its stdout.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run(["-C", str(repo.root), "generate", phase, *args])
        finally:
            signal.signal(signal.SIGTERM, previous)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    return code, stdout, stderr
