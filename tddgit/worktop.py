"""The work tree's top from the file system alone: the nearest directory holding ``.git``,
and whether the environment points git elsewhere. No git process and no ``pathlib``: the
early starts (the gate's ``tddgit.early``, the audit's ``tddgit.earlywalk``) guess with
it before anything is imported, and a doubt means no early start.
"""

from __future__ import annotations

import os


def redirected() -> bool:
    """Whether git is pointed elsewhere (a hook's index, another work tree)."""
    return any(os.environ.get(v) for v in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"))


def top(cwd: str) -> str | None:
    """The work tree's top directory (the nearest holding ``.git``), or None. Strings, not
    ``pathlib``: the Rust guess runs before it is imported."""
    folder = os.path.abspath(cwd)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
