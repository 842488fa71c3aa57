"""Interleaved TDD cycles in a backend (pytest) + frontend (vitest, TypeScript) repository:
each project's red, green and refactor are its own, from every directory, through
``tddgit`` and through plain ``git commit --trailer`` with the hooks installed."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import GitRepo
from tests.projects.shop import (
    CART_COUNT,
    CART_COUNT_REFACTORED,
    CART_TEST_COUNT,
    NEG_TEST_TWICE,
    NEG_TWICE,
    git_in,
    note,
    ok,
    shop,
)
from tests.projects.shop import tddgit_in as run_in

# Each step starts somewhere else: the top, each project, a nested directory (one cycle
# walks them all; a run per directory would cost minutes of real vitest and pytest).
WHERE = [".", "backend", "frontend", "backend/src/shop", "frontend/src", "."]


def ids(evidence: dict[str, object], key: str = "targets") -> list[str]:
    found = evidence[key]
    assert isinstance(found, list)
    return sorted(t["id"] if isinstance(t, dict) else t for t in found)


@pytest.mark.parametrize("shift", [0, 1])
def test_interleaved_cycles_through_tddgit(repo: GitRepo, shift: int) -> None:
    shop(repo)
    steps = iter(WHERE[shift:] + WHERE[:shift])

    def tddgit_in(_: GitRepo, __: str, *args: str) -> subprocess.CompletedProcess[str]:
        return run_in(repo, next(steps), *args)

    # a backend red, then a frontend red: two open reds, one per project
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "", "red", "-m", "test count"))
    assert ids(note(repo)) == ["backend/tests/test_cart.py::test_count"]
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "", "red", "-m", "test twice"))
    assert ids(note(repo)) == ["frontend/test/neg.test.ts::doubles"]
    # the frontend's green closes its own red only: the backend red does not block it
    repo.write("frontend/src/neg.ts", NEG_TWICE, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "", "green", "-m", "twice"))
    green = note(repo)
    assert ids(green) == ["frontend/test/neg.test.ts::doubles"]
    assert all(t.startswith("frontend/") for t in ids(green, "test_ids"))
    # a frontend refactor while the backend red is still open
    repo.write("frontend/src/neg.ts", NEG_TWICE.replace("2 * x", "x + x"), dedent=False)
    repo.add()
    ok(tddgit_in(repo, "", "refactor", "-m", "twice by adding"))
    # the backend green: its tests run in backend/ with its own settings
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "", "green", "-m", "count"))
    assert ids(note(repo)) == ["backend/tests/test_cart.py::test_count"]
    repo.write("backend/src/shop/cart.py", CART_COUNT_REFACTORED, dedent=False)
    repo.add()
    ok(tddgit_in(repo, "", "refactor", "-m", "count any iterable"))
    assert note(repo)["schema"] == "tddgit.evidence/2"
    assert list(note(repo)["projects"]) == ["backend"]  # type: ignore[call-overload]


def test_interleaved_cycles_through_git_commit_with_hooks(repo: GitRepo) -> None:
    shop(repo)
    ok(repo.tddgit("hooks", "install"))
    steps = iter(WHERE[1:])

    def commit(phase: str, message: str) -> None:
        repo.add()
        where = next(steps)
        proc = git_in(
            repo, where, "commit", "-q", "-m", message, "--trailer", f"GSD-Phase: {phase}"
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr

    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    commit("red", "test count")
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    commit("red", "test twice")
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    commit("green", "count")
    repo.write("backend/src/shop/cart.py", CART_COUNT_REFACTORED, dedent=False)
    commit("refactor", "count any iterable")
    assert ids(note(repo), "test_ids") == [
        "backend/tests/test_cart.py::test_count",
        "backend/tests/test_cart.py::test_total",
    ]
    repo.write("frontend/src/neg.ts", NEG_TWICE, dedent=False)
    commit("green", "twice")
    assert ids(note(repo)) == ["frontend/test/neg.test.ts::doubles"]
