"""A cheap, conservative look at a repository's top for the early start's guesses
(``tddgit.early.rust``, ``tddgit.early.go``): a few stats and small reads, no git, no
configuration parsing. A doubt means no early start; a wrong guess costs only the early
run (the runner claims it only when it is exactly its own, ``tddgit.early.claim``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

# Files at the top that make detection pick pytest (``runners/detect.py``): with any of
# them, no early start of another runner.
PYTEST_FILES = (
    "pyproject.toml",
    "pytest.ini",
    ".pytest.ini",
    "setup.cfg",
    "tox.ini",
    "conftest.py",
)
CONFIGS = (".tddgit.yaml", ".tddgit.yml")
STEERING = ("root", "projects", "runner")  # top-level configuration keys that move the run


def redirected() -> bool:
    """Whether git is pointed elsewhere (a hook's index, another work tree)."""
    return any(os.environ.get(v) for v in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"))


def top(cwd: Path) -> Path | None:
    """The work tree's top directory (the nearest holding ``.git``), or None."""
    for folder in (cwd, *cwd.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def detected_first(root: Path, others: Iterable[str]) -> bool:
    """Whether detection may pick another runner first: one of ``others`` exists at the
    top, or Python files lie at the top or in ``tests/`` / ``test/``."""
    if any(os.path.lexists(root / name) for name in others):
        return True
    for where in (root, root / "tests", root / "test"):
        try:
            if any(name.endswith(".py") for name in os.listdir(where)):
                return True  # Python tests: detection may pick pytest
        except OSError:
            continue
    return False


def steered(root: Path, runner: str, keys: tuple[str, ...] = STEERING) -> bool:
    """Whether a tddgit configuration may name another runner or set one of ``keys``
    (read as lines, not parsed: a doubt means no early start). A key matches by its last
    dotted part too (``red.scope`` and a nested ``scope:`` alike)."""
    for name in CONFIGS:
        path = root / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return True
        for line in text.splitlines():
            key, colon, value = line.partition(":")
            key = key.strip().strip("\"'").rsplit(".", 1)[-1]
            if not colon or key not in keys:
                continue
            if key != "runner" or value.strip().strip("\"'") not in (runner, "auto"):
                return True
    return False
