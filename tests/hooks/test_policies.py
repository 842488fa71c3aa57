"""Strict mode and its exemptions, the pre-commit hook, and crashes inside hooks."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GitRepo
from tests.hooks.conftest import git_commit, write_config
from tests.project import stage_green, stage_red

CRASH = "TDDGIT_HOOK_TEST_CRASH"


@pytest.fixture
def strict(hooked: GitRepo) -> GitRepo:
    write_config(hooked, "mode: strict\nexempt: ['scripts/**']\n")
    return hooked


def test_strict_refuses_production_change_without_phase(strict: GitRepo) -> None:
    before = strict.head()
    stage_green(strict)
    proc = git_commit(strict, "-m", "add sub")
    assert proc.returncode != 0
    text = " ".join(proc.stderr.split())
    assert "calc.py" in text and "without a GSD-Phase trailer" in text and "exempt" in text
    assert strict.head() == before


@pytest.mark.parametrize("subject", ["fixup! start", "squash! start", "amend! start"])
def test_strict_exempts_fixup_squash_amend(strict: GitRepo, subject: str) -> None:
    stage_green(strict)
    assert git_commit(strict, "-m", subject).returncode == 0


def test_strict_exempts_exempt_paths_and_non_production(strict: GitRepo) -> None:
    strict.write("scripts/release.py", "print('release')\n")
    strict.write("README.md", "# calc\n")
    strict.add("scripts/release.py", "README.md")
    assert git_commit(strict, "-m", "release script").returncode == 0


def test_strict_exempts_reverts(strict: GitRepo) -> None:
    stage_red(strict)
    strict.tddgit("red", "-m", "test sub", check=True)
    stage_green(strict)
    strict.tddgit("green", "-m", "implement sub", check=True)
    proc = strict.git("revert", "--no-edit", "HEAD", check=False)
    assert strict.git("log", "-1", "--format=%s").startswith('Revert "'), proc


def test_strict_accepts_a_declared_phase(strict: GitRepo) -> None:
    stage_red(strict)
    proc = git_commit(strict, "-m", "test sub", "--trailer", "GSD-Phase: red")
    assert proc.returncode == 0, proc.stderr


def test_opt_in_lets_undeclared_commits_through(hooked: GitRepo) -> None:
    stage_green(hooked)
    assert git_commit(hooked, "-m", "add sub").returncode == 0


def test_crash_with_allow_warns_records_and_lets_the_commit_through(hooked: GitRepo) -> None:
    stage_green(hooked)
    proc = git_commit(hooked, "-m", "x", "--trailer", "GSD-Phase: green", env={CRASH: "commit-msg"})
    assert proc.returncode == 0, proc.stderr
    assert "tddgit crashed inside the commit-msg hook" in proc.stderr
    assert "NOT checked" in proc.stderr
    log = hooked.root / ".git" / "tddgit" / "hook-errors.log"
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["hook"] == "commit-msg" and record["policy"] == "allow"
    assert "RuntimeError" in record["error"]


def test_crash_with_block_refuses(hooked: GitRepo) -> None:
    write_config(hooked, "hooks:\n  on_internal_error: block\n")
    before = hooked.head()
    stage_red(hooked)
    proc = git_commit(hooked, "-m", "x", env={CRASH: "all"})
    assert proc.returncode != 0
    assert "internal error" in proc.stderr and "blocked" in proc.stderr
    assert hooked.head() == before


OVER_MOCKED = """\
from unittest import mock


def test_many_mocks():
    with mock.patch("os.getcwd"), mock.patch("os.getpid"), mock.patch("os.getuid"):
        with mock.patch("os.getppid"), mock.patch("os.getgid"):
            assert True is not False
"""


def test_pre_commit_warns_on_staged_over_mocking(hooked: GitRepo) -> None:
    hooked.write("tests/test_mocks.py", OVER_MOCKED, dedent=False)
    hooked.add("tests/test_mocks.py")
    hooked.write("tests/test_mocks.py", "def test_fine():\n    assert 1 == 1\n")  # unstaged
    proc = git_commit(hooked, "-m", "mocky test")
    assert proc.returncode == 0, proc.stderr
    assert "over-mocking" in proc.stderr  # the staged version was read, not the work tree


def test_pre_commit_blocks_when_configured(hooked: GitRepo) -> None:
    write_config(hooked, "hooks:\n  detectors: block\n")
    hooked.write("tests/test_mocks.py", OVER_MOCKED, dedent=False)
    hooked.add("tests/test_mocks.py")
    proc = git_commit(hooked, "-m", "mocky test")
    assert proc.returncode != 0 and "over-mocking" in proc.stderr


def test_strict_warns_on_an_exempt_production_commit_without_test(strict: GitRepo) -> None:
    stage_green(strict)
    proc = git_commit(strict, "-m", "fixup! start")  # exempt for commit-msg
    assert proc.returncode == 0
    said = " ".join(proc.stderr.split())
    assert "no test change and no open red" in said and "commit-msg: warning" in said
