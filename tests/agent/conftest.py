"""Fixtures for the model-driven phases: the fake Messages API and a small project."""

from __future__ import annotations

import contextlib
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakeapi import FakeMessagesAPI, serve
from tests.conftest import GitRepo, isolated_git
from tests.project import CALC, start_project

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


SUB_TESTS = '''\
import calc


def test_tc_1_five_minus_three():
    assert calc.sub(5, 3) == 2


def test_tc_2_negative():
    """TC-2: a negative result."""
    assert calc.sub(3, 5) == -2
'''

SUB_RIGHT = CALC + "\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture(scope="session")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The calc project (spec committed) after a committed red of `calc.sub` (two failing
    tests, with evidence) and after its green: built once per session, copied per test."""
    base = tmp_path_factory.mktemp("agent-cycle")
    with isolated_git(tmp_path_factory.mktemp("home")):
        repo = GitRepo(base / "build")
        repo.root.mkdir()
        repo.git("init", "-q")
        start_project(repo)
        repo.write("specs/sub.yaml", SPEC, dedent=False)
        repo.commit("spec", "specs/sub.yaml")
        repo.write("tests/test_sub.py", SUB_TESTS, dedent=False)
        repo.add("tests/test_sub.py")
        repo.tddgit("red", "-m", "red: sub", check=True)
        shutil.copytree(repo.root, base / "red", symlinks=True)
        repo.write("calc.py", SUB_RIGHT, dedent=False)
        repo.add("calc.py")
        repo.tddgit("green", "-m", "green: sub", check=True)
        shutil.copytree(repo.root, base / "green", symlinks=True)
        yield {"red": base / "red", "green": base / "green"}


def at(cycle: dict[str, Path], stage: str, tmp_path: Path) -> GitRepo:
    root = tmp_path / stage
    shutil.copytree(cycle[stage], root, symlinks=True)
    return GitRepo(root)


def generate(repo: GitRepo, *args: str, phase: str = "red") -> tuple[int, str, str]:
    """``tddgit generate PHASE ARGS`` in this process (exit code, stdout, stderr)."""
    return in_process(repo, "generate", phase, *args)


def in_process(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    """``tddgit ARGS`` in this process, in ``repo`` (exit code, stdout, stderr).

    In-process, so the SDK is imported once per test worker rather than once per run; the
    gates still run the project's tests in real subprocesses. The CLI's SIGTERM handler is
    put back afterwards."""
    from tddgit.cli import run

    previous = signal.getsignal(signal.SIGTERM)
    # Real files, not StringIO: `git commit` may be handed sys.stderr as its stdout.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run(["-C", str(repo.root), *args])
        finally:
            signal.signal(signal.SIGTERM, previous)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    return code, stdout, stderr
