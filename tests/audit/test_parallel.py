"""The audit's two-core paths (forked children) give exactly the single-process report."""

from __future__ import annotations

import shutil

from tests.conftest import GitRepo

MOCKY = "from unittest import mock\n\n\ndef test_{n}():\n{mocks}    assert m0\n"


def _history(repo: GitRepo) -> None:
    """Twelve versions of test files, some over the mock threshold, some not."""
    repo.write("src/app.py", "def f():\n    return 1\n")
    repo.commit("start")
    for i in range(12):
        mocks = "".join(f"    m{j} = mock.Mock()\n" for j in range(i % 6 + 1))
        repo.write(f"tests/test_m{i % 4}.py", MOCKY.format(n=i, mocks=mocks))
        repo.commit(f"test {i}\n\nGSD-Phase: red" if i % 2 else f"test {i}")


def _audit(repo: GitRepo, min_items: str) -> str:
    shutil.rmtree(repo.root / ".git" / "tddgit", ignore_errors=True)  # a cold blob cache
    proc = repo.tddgit(
        "audit", "--format", "json", "--detectors", env={"TDDGIT_PARALLEL_MIN_ITEMS": min_items}
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def test_two_halves_match_one_process(repo: GitRepo) -> None:
    _history(repo)
    forked = _audit(repo, "2")  # every list of blobs is split over two processes
    single = _audit(repo, "1000000")
    assert forked == single
    assert '"rule":"over-mocking"' in forked.replace(" ", "")
