"""Whether the gate's run is predictable as a Rust crate's ``cargo test``, and which.

A cheap, conservative look at a few files (no git, no configuration parsing): the
repository's top directory is a cargo package, nothing there would make detection pick
another runner first, no nextest configuration, and no tddgit configuration that names
a runner or projects. A wrong guess costs only the early run: the runner claims it only
when its own command line, directory and environment are exactly these
(``tddgit.early.claim``).
"""

from __future__ import annotations

import os
from pathlib import Path

from tddgit.cargocmd import cargo_argv, cargo_env, doc_tests_possible
from tddgit.importpaths import import_env

# Files at the top that detection weighs before Cargo.toml (``runners/detect.py``), or
# that configure the run another way: with any of them, no early start.
_OTHERS = (
    "pyproject.toml",
    "pytest.ini",
    ".pytest.ini",
    "setup.cfg",
    "tox.ini",
    "conftest.py",
    "package.json",
    "pom.xml",
    "go.mod",
    ".config/nextest.toml",
)
_CONFIGS = (".tddgit.yaml", ".tddgit.yml")
_STEERING = ("root", "projects", "runner")  # top-level configuration keys that move the run


def guess(cwd: Path) -> tuple[list[str], Path, dict[str, str]] | None:
    """(argv, directory, environment) of the rust runner's run in place, or None."""
    if any(os.environ.get(v) for v in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")):
        return None
    root = _top(cwd)
    if root is None or not _plain_crate(root):
        return None
    for name in _CONFIGS:
        if (root / name).is_file() and _steers(root / name):
            return None
    argv = cargo_argv(doc_tests_possible(root))
    return argv, root, cargo_env({**os.environ, **import_env(root)})


def _top(cwd: Path) -> Path | None:
    for folder in (cwd, *cwd.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def _plain_crate(root: Path) -> bool:
    try:
        with (root / "Cargo.toml").open("rb") as fh:
            manifest = fh.read(256 * 1024)
    except OSError:
        return False
    if b"[package]" not in manifest:
        return False  # a workspace root: the runner names a package's directory
    if any(os.path.lexists(root / name) for name in _OTHERS):
        return False
    for where in (root, root / "tests", root / "test"):
        try:
            if any(name.endswith(".py") for name in os.listdir(where)):
                return False  # Python tests: detection may pick pytest
        except OSError:
            continue
    return True


def _steers(path: Path) -> bool:
    """Whether a YAML configuration may name another runner, a project root or projects
    (read as lines, not parsed: a doubt means no early start)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if not colon or key.strip() not in _STEERING:
            continue
        if key.strip() != "runner" or value.strip().strip("\"'") not in ("rust", "auto"):
            return True
    return False
