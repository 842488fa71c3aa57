"""The work tree's top from the file system alone: the nearest directory holding ``.git``,
and whether the environment points git elsewhere. No git process and no ``pathlib``: the
early starts (the gate's ``tddgit.early``, the audit's ``tddgit.earlywalk``) guess with
it before anything is imported, and a doubt means no early start.
"""

from __future__ import annotations

import os

# What points git elsewhere than the nearest `.git` (a hook's index, another work tree or
# common directory) or stops its search for it before (a ceiling).
_REDIRECTING = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
)


def redirected() -> bool:
    """Whether git may find another repository, work tree or index than ``top`` guesses."""
    return any(os.environ.get(v) for v in _REDIRECTING)


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
