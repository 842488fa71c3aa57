"""Lineage state: declared phases along first parents, cached per commit."""

from __future__ import annotations

from tddgit.git import find_repo
from tddgit.lineage import State, allowed, state_at, step
from tests.conftest import GitRepo


def phase_commit(repo: GitRepo, phase: str | None, name: str) -> str:
    repo.write(f"{name}.txt", name)
    msg = f"{name}\n\nGSD-Phase: {phase}" if phase else name
    return repo.commit(msg)


def test_step_and_allowed() -> None:
    s = step(State(), "r1", "red")
    assert s.open_reds == ("r1",) and allowed(s, "green") is None
    assert allowed(s, "refactor") == "refactor-while-red"
    s = step(s, "g1", "green")
    assert s.open_reds == () and s.phase == "green"
    assert allowed(s, "green") == "green-without-red"
    assert allowed(State(), "refactor") == "refactor-without-green"
    assert step(s, "x", None) == s


def test_state_follows_first_parents_through_merges(repo: GitRepo) -> None:
    phase_commit(repo, None, "base")
    r1 = phase_commit(repo, "red", "r1")
    repo.git("checkout", "-q", "-b", "side")
    phase_commit(repo, "green", "side-green")
    repo.git("checkout", "-q", "main")
    phase_commit(repo, None, "plain")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    r = find_repo(repo.root)
    state = state_at(r, repo.head())
    # main's first-parent line never saw the green: the red is still open
    assert state.phase == "red" and state.open_reds == (r1,)
    side = state_at(r, repo.git("rev-parse", "side").strip())
    assert side.phase == "green" and side.open_reds == ()


def test_state_is_cached_and_extends_incrementally(repo: GitRepo) -> None:
    phase_commit(repo, "red", "r1")
    r = find_repo(repo.root)
    first = state_at(r, repo.head())
    assert (r.tddgit_dir / "lineage" / repo.head()[:2] / repo.head()[2:]).exists()
    g = phase_commit(repo, "green", "g1")
    after = state_at(r, g)
    assert first.cycles == 1 and after.phase == "green" and after.phase_commit == g


def test_lowercase_and_last_trailer_wins(repo: GitRepo) -> None:
    repo.write("a", "a")
    repo.commit("x\n\nGSD-Phase: Red")
    assert state_at(find_repo(repo.root), repo.head()).phase == "red"


def test_unborn_branch(repo: GitRepo) -> None:
    assert state_at(find_repo(repo.root), None) == State()
