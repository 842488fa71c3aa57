"""Interleaved TDD cycles in a backend (pytest, src layout) + frontend (vitest, TypeScript)
repository: each project's red, green and refactor are its own, whichever directory each
step starts in, through ``tddgit`` and through plain ``git commit --trailer`` with the
hooks installed."""

from __future__ import annotations

import pytest

from tests.conftest import GitRepo
from tests.projects.shop import (
    CART_COUNT,
    CART_COUNT_REFACTORED,
    CART_TEST_COUNT,
    CART_TEST_RENAMED,
    NEG_TEST_TWICE,
    NEG_TWICE,
    git_in,
    note,
    ok,
    shop,
    tddgit_in,
)

# Where each step starts: the top, each project, nested directories (one cycle walks them
# all; a whole cycle per directory would cost minutes of real vitest and pytest runs).
PLACES = {
    "top-first": [".", "frontend", "backend/src/shop", "frontend/src", "backend", "."],
    "projects-first": ["backend", "frontend/test", ".", "frontend", "backend/tests", "."],
}


def ids(evidence: dict[str, object], key: str = "targets") -> list[str]:
    found = evidence[key]
    assert isinstance(found, list)
    return sorted(t["id"] if isinstance(t, dict) else t for t in found)


@pytest.mark.parametrize("order", sorted(PLACES))
def test_interleaved_cycles_through_tddgit(repo: GitRepo, order: str) -> None:
    shop(repo)
    places = iter(PLACES[order])
    # a backend red, then a frontend red: two open reds, one per project; the backend's
    # target named relative to wherever the command starts
    where = next(places)
    target = {".": "backend/tests/test_cart.py", "backend": "tests/test_cart.py"}[where]
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, where, "red", f"{target}::test_count", "-m", "test count"))
    assert ids(note(repo)) == ["backend/tests/test_cart.py::test_count"]
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    repo.add()
    ok(tddgit_in(repo, next(places), "red", "-m", "test twice"))
    assert ids(note(repo)) == ["frontend/test/neg.test.ts::doubles"]
    # the frontend's green closes its own red only: the backend red does not block it
    repo.write("frontend/src/neg.ts", NEG_TWICE, dedent=False)
    repo.add()
    ok(tddgit_in(repo, next(places), "green", "-m", "twice"))
    green = note(repo)
    assert ids(green) == ["frontend/test/neg.test.ts::doubles"]
    assert all(t.startswith("frontend/") for t in ids(green, "test_ids"))
    # a frontend refactor while the backend red is still open
    repo.write("frontend/src/neg.ts", NEG_TWICE.replace("2 * x", "x + x"), dedent=False)
    repo.add()
    ok(tddgit_in(repo, next(places), "refactor", "-m", "twice by adding"))
    # the backend green: its tests run in backend/ with its own settings
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    repo.add()
    ok(tddgit_in(repo, next(places), "green", "-m", "count"))
    assert ids(note(repo)) == ["backend/tests/test_cart.py::test_count"]
    # a backend test rename: only the backend's previous ids are compared
    repo.write("backend/tests/test_cart.py", CART_TEST_RENAMED, dedent=False)
    repo.add()
    ok(tddgit_in(repo, next(places), "refactor", "-m", "rename a test"))
    renamed = note(repo)
    assert renamed["schema"] == "tddgit.evidence/2"
    assert list(renamed["projects"]) == ["backend"]  # type: ignore[call-overload]
    assert renamed["removed"] == ["backend/tests/test_cart.py::test_count"]
    assert renamed["added"] == ["backend/tests/test_cart.py::test_count_items"]


def test_interleaved_cycles_through_git_commit_with_hooks(repo: GitRepo) -> None:
    shop(repo)
    ok(repo.tddgit("hooks", "install"))
    places = iter(["backend", "frontend/src", ".", "backend/src/shop", "frontend"])

    def commit(phase: str, message: str) -> None:
        repo.add()
        trailer = f"GSD-Phase: {phase}"
        ok(git_in(repo, next(places), "commit", "-q", "-m", message, "--trailer", trailer))

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
