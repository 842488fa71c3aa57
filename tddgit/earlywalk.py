"""The audit's history, started before the command line is even parsed.

``tddgit audit`` of the current branch spends ~50 ms importing click and the audit before
it would start git; on a history that git lists in 0.4 s that is an eighth of the budget
(PRODUCT.md §11). So ``tddgit.__main__`` calls ``start_early`` for it, which starts the
very processes ``tddgit.history.open_history`` would (``git rev-list``, then ``git
diff-tree``: ``tddgit.history._walk``), and ``open_history`` ``claim``s them when the
repository, the range and the commit-graph environment are exactly its own. Any other is
stopped; one nobody claimed is stopped at exit. ``TDDGIT_AUDIT_EARLY=0``: never.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tddgit.git import Repo
from tddgit.worktop import redirected, top

if TYPE_CHECKING:
    from tddgit.history import _Walk

_EARLY: list[_Walk] = []  # at most one


def start_early(args: Sequence[str], where: str = ".") -> None:
    """``tddgit audit`` of the current branch (no revisions, paths, dates or author; the
    output options only), in a plain repository found from ``where`` (``-C``): start
    its history's git now, while Python imports the command line and the audit (~50 ms),
    rather than after. ``open_history`` takes it when the repository, the range and the
    commit-graph environment are exactly those it would start git with; otherwise it is
    stopped, and it is stopped at exit if nothing took it. ``TDDGIT_AUDIT_EARLY=0``: never."""
    import os

    if _EARLY or os.environ.get("TDDGIT_AUDIT_EARLY") == "0" or not _plain_audit(args):
        return
    repo = None if redirected() else _plain_repo(top(where))
    if repo is None:
        return
    import atexit

    from tddgit.commitgraph import walk_env
    from tddgit.history import _walk

    env = walk_env(repo)
    try:
        walked = _walk(repo, ("HEAD",), None, None, None, False, False, env)
    except OSError:
        return
    walked.key = _key(repo, env, False)
    _EARLY.append(walked)
    atexit.register(_discard)


_VALUED = frozenset({"--format", "-o", "--output", "--fail-under", "--fail-on", "--min-evidence"})
_FLAGS = frozenset({"--json", "--require-evidence", "--no-detectors"})


def _plain_audit(args: Sequence[str]) -> bool:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _VALUED:
            i += 2
        elif arg in _FLAGS or (arg.split("=", 1)[0] in _VALUED and "=" in arg):
            i += 1
        else:
            return False  # a revision, a path, a selection: the range is not HEAD's
    return i == len(args)


def _plain_repo(root: str | None) -> Repo | None:
    """The repository of the work tree ``root`` when its ``.git`` is a directory of its
    own; None for anything else (a linked worktree, a submodule's ``.git`` file)."""
    import os
    from pathlib import Path

    if root is None:
        return None
    dot = os.path.join(root, ".git")
    if not os.path.isdir(dot) or os.path.exists(os.path.join(dot, "commondir")):
        return None
    return Repo(root=Path(root), git_dir=Path(dot), common_dir=Path(dot))


def _key(repo: Repo, walk_env: Mapping[str, str], blobs: bool) -> tuple[str, ...]:
    import os

    where = (os.path.realpath(repo.root), os.path.realpath(repo.common_dir), str(blobs))
    return (*where, *(f"{k}={v}" for k, v in sorted(walk_env.items())))


def claim(repo: Repo, walk_env: Mapping[str, str], blobs: bool) -> _Walk | None:
    """The early walk when it is this one (see ``start_early``); any other is stopped.
    ``open_history`` asks, for the audit's read of the current branch."""
    if not _EARLY:
        return None
    walked = _EARLY.pop()
    if walked.key == _key(repo, walk_env, blobs):
        return walked
    walked.stack.close()
    return None


def _discard() -> None:
    while _EARLY:
        _EARLY.pop().stack.close()
