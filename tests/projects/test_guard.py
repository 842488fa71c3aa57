"""The agent guard per project (docs/monorepo.md): in a backend (pytest) + frontend (vitest)
repository, a backend red lets the agent write backend production code and not the
frontend's, and the check after a write runs the touched project's tests with its own
runner in its own directory. Fired through the installed Claude Code hooks with Claude
Code's payloads, as tests/guard/ do."""

from __future__ import annotations

from typing import Any

from tests.conftest import GitRepo
from tests.guard.conftest import fire, reply
from tests.guard.test_claude_code import stop, tool, write_through_hooks
from tests.projects.shop import (
    CART_COUNT,
    CART_COUNT_REFACTORED,
    CART_TEST_COUNT,
    NEG,
    NEG_TEST_TWICE,
    NEG_TWICE,
    shop,
)


def step(repo: GitRepo, phase: str, message: str) -> None:
    """A step declared with its trailer (the lineage reads the trailer)."""
    repo.commit(f"{message}\n\nGSD-Phase: {phase}")


def gate(repo: GitRepo, phase: str, message: str) -> None:
    """A step made by the gate (its evidence names the red's targets)."""
    repo.add()
    repo.tddgit(phase, "-m", message, check=True)


def installed_shop(repo: GitRepo) -> GitRepo:
    shop(repo)
    repo.tddgit("agent", "install", "claude-code", check=True)
    return repo


def pre_write(repo: GitRepo, path: str, content: str) -> dict[str, Any]:
    return reply(
        fire(repo, "claude-code", tool(repo, "PreToolUse", "Write", path, content=content))
    )


def test_a_backend_red_opens_the_backend_only(repo: GitRepo) -> None:
    installed_shop(repo)
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    gate(repo, "red", "test count")

    refused = pre_write(repo, "frontend/src/neg.ts", NEG_TWICE)
    decision = refused["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "[write-needs-red]" in decision["permissionDecisionReason"]
    assert pre_write(repo, "backend/src/shop/cart.py", CART_COUNT) == {}
    # the backend red's target file may not change; the frontend's tests may
    target = pre_write(repo, "backend/tests/test_cart.py", "")
    assert "[test-edited-in-green]" in target["hookSpecificOutput"]["permissionDecisionReason"]
    assert pre_write(repo, "frontend/test/neg.test.ts", NEG_TEST_TWICE) == {}


def test_a_write_is_checked_with_its_own_projects_runner(repo: GitRepo) -> None:
    installed_shop(repo)
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    step(repo, "red", "test count")
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    step(repo, "green", "count")
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    step(repo, "red", "test twice")
    repo.write("frontend/src/neg.ts", NEG_TWICE, dedent=False)
    step(repo, "green", "twice")

    # backend: pytest in backend/ (its src layout imports only there)
    assert write_through_hooks(repo, "backend/src/shop/cart.py", CART_COUNT_REFACTORED) == {}
    assert (repo.root / "backend/src/shop/cart.py").read_text() == CART_COUNT_REFACTORED
    broken = write_through_hooks(
        repo, "backend/src/shop/cart.py", CART_COUNT_REFACTORED.replace("sum(", "max(")
    )
    assert "[write-breaks-tests]" in broken["reason"], broken
    assert "backend/tests/test_cart.py::test_total" in broken["reason"]
    assert (repo.root / "backend/src/shop/cart.py").read_text() == CART_COUNT_REFACTORED

    # frontend: vitest in frontend/
    kept = NEG_TWICE.replace("2 * x", "x + x")
    assert write_through_hooks(repo, "frontend/src/neg.ts", kept) == {}
    wrong = write_through_hooks(
        repo, "frontend/src/neg.ts", NEG + NEG_TWICE[len(NEG) :].replace("2 * x", "x")
    )
    assert "[write-breaks-tests]" in wrong["reason"], wrong
    assert "frontend/test/neg.test.ts" in wrong["reason"]
    assert (repo.root / "frontend/src/neg.ts").read_text() == kept


def test_stop_runs_each_projects_suite(repo: GitRepo) -> None:
    """A backend red's failing target does not block the stop; each project's suite runs
    in its own directory (pytest at the top would not import the backend)."""
    installed_shop(repo)
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    gate(repo, "red", "test count")
    assert reply(fire(repo, "claude-code", stop(repo))) == {}
    # a failing frontend test that is no red's target blocks it
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    blocked = reply(fire(repo, "claude-code", stop(repo)))
    assert blocked["decision"] == "block"
    assert "frontend/test/neg.test.ts" in blocked["reason"]


def test_session_start_tells_each_projects_state(repo: GitRepo) -> None:
    installed_shop(repo)
    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    step(repo, "red", "test count")
    payload = {
        "session_id": "5d6a4f3e-claude-session",
        "transcript_path": str(repo.root / ".transcript.jsonl"),
        "cwd": str(repo.root / "frontend"),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    context = reply(fire(repo, "claude-code", payload))["hookSpecificOutput"]["additionalContext"]
    assert "per project: backend red open, frontend no step yet" in context
