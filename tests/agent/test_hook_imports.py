"""The hook path imports no LLM code: not the SDK, not its HTTP stack, not tddgit.agent.

Checked on a repository whose stored evidence carries an agent block (the case where the
prepare-commit-msg hook adds `GSD-Agent`), for every hook git calls.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from tests.conftest import GitRepo, isolated_git
from tests.hookprobe import loaded_modules
from tests.project import stage_red, start_project

HEAVY = ("anthropic", "httpx", "httpx2", "pydantic", "rich", "tddgit.agent", "tddgit.spec")


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitRepo]:
    """A red staged with its evidence stored (built once; the hooks change no state)."""
    with isolated_git(tmp_path_factory.mktemp("hook-imports-home")):
        root = tmp_path_factory.mktemp("hook-imports") / "repo"
        root.mkdir()
        repo = GitRepo(root)
        repo.git("init", "-q")
        start_project(repo)
        stage_red(repo)
        repo.tddgit("red", "--no-commit", check=True)
        with_agent(repo)
        yield repo


@pytest.mark.parametrize(
    "args",
    [
        ("prepare-commit-msg", ".git/COMMIT_EDITMSG", "message"),
        ("commit-msg", ".git/COMMIT_EDITMSG"),
        ("pre-commit",),
    ],
)
def test_the_hooks_import_no_llm_code(staged: GitRepo, args: tuple[str, ...]) -> None:
    repo = staged
    (repo.root / ".git" / "COMMIT_EDITMSG").write_text("tests for sub\n")
    loaded = loaded_modules(repo.root, ["hook", *args])
    assert loaded.under(HEAVY) == [], loaded.stderr
    assert loaded.code == 0, loaded.stderr
    if args[0] == "prepare-commit-msg":
        message = (repo.root / ".git" / "COMMIT_EDITMSG").read_text()
        assert "GSD-Phase: red" in message and "GSD-Agent: claude-test-1" in message


def with_agent(repo: GitRepo) -> None:
    """The stored evidence of the index tree, as `generate red` stores it."""
    from tddgit.evidence import cache_get, cache_put
    from tddgit.git import find_repo

    r = find_repo(repo.root)
    tree = repo.git("write-tree").strip()
    evidence = cache_get(r, tree)
    assert evidence is not None
    cache_put(r, dataclasses.replace(evidence, agent={"model": "claude-test-1", "turns": 1}))
