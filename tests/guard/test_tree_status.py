"""tree.head_side: HEAD's blob of each listed path read from the one git status the tree
check runs, the same answer as asking git (`git ls-tree`), on a real repository holding
each kind of change."""

from __future__ import annotations

import os
from pathlib import Path

from tddgit.git import Repo
from tddgit.guard import tree
from tests.conftest import GitRepo


def test_head_side_agrees_with_ls_tree(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.root.mkdir()
    repo.git("init", "-q")
    for name in ("kept.txt", "changed.txt", "deleted.txt", "uncached.txt", "staged.txt"):
        (repo.root / name).write_text(f"{name}\n")
    os.symlink("kept.txt", repo.root / "link")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "base", "--no-verify")
    (repo.root / "changed.txt").write_text("changed\n")
    (repo.root / "deleted.txt").unlink()
    repo.git("rm", "-q", "--cached", "uncached.txt")  # in HEAD, untracked now
    (repo.root / "staged.txt").write_text("staged\n")
    repo.git("add", "staged.txt")
    (repo.root / "added.txt").write_text("added\n")
    repo.git("add", "added.txt")  # not in HEAD, in the index
    (repo.root / "new.txt").write_text("new\n")  # in neither
    os.unlink(repo.root / "link")
    os.symlink("changed.txt", repo.root / "link")

    git = Repo(repo.root, repo.root / ".git", repo.root / ".git")
    raw = tree.status_output(git)
    head = repo.git("rev-parse", "HEAD").strip()
    listed = list(tree.status(git, raw))
    side = tree.head_side(raw)
    assert (
        set(side)
        == set(listed)
        == {
            "changed.txt",
            "deleted.txt",
            "uncached.txt",
            "staged.txt",
            "added.txt",
            "new.txt",
            "link",
        }
    )
    assert side == tree.head_blobs(git, head, listed)
    assert side["uncached.txt"] is not None and side["new.txt"] is None
    assert side["added.txt"] is None


def test_the_guards_own_copies_agree_with_their_sources() -> None:
    """Constants and digests the hot path takes without importing their home modules."""
    import hashlib

    from tddgit.guard import quick, snapshots
    from tddgit.hooks.dispatch import CRASH_ENV

    assert quick.CRASH_ENV == CRASH_ENV
    text = "session é \udcff"
    want = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    assert snapshots._sha(text) == want
