"""A cheap, conservative look at a repository's top for the early start's guesses
(``tddgit.early.rust``, ``tddgit.early.go``): a few stats and small reads, no git, no
configuration parsing (the work tree's top: ``tddgit.worktop``). A doubt means no early start; a wrong guess costs only the early
run (the runner claims it only when it is exactly its own, ``tddgit.early.claim``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` itself is not imported before the spawn

if TYPE_CHECKING:
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


def detected_first(root: str | Path, others: Iterable[str]) -> bool:
    """Whether detection may pick another runner first: one of ``others`` exists at the
    top, or Python files lie at the top or in ``tests/`` / ``test/``."""
    if any(os.path.lexists(os.path.join(root, name)) for name in others):
        return True
    for where in (root, os.path.join(root, "tests"), os.path.join(root, "test")):
        try:
            if any(name.endswith(".py") for name in os.listdir(where)):
                return True  # Python tests: detection may pick pytest
        except OSError:
            continue
    return False


def steered(root: str | Path, runner: str, keys: tuple[str, ...] = STEERING) -> bool:
    """Whether a tddgit configuration may name another runner or set one of ``keys``
    (read as lines, not parsed: a doubt means no early start). A key matches by its last
    dotted part too (``red.scope`` and a nested ``scope:`` alike)."""
    for name in CONFIGS:
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
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
