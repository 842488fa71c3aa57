"""Whether the gate's run is predictable as a Rust crate's ``cargo test``, and which.

A cheap, conservative look at a few files (``tddgit.early.look``): the repository's top
directory is a cargo package, nothing there would make detection pick another runner
first, no nextest configuration, and no tddgit configuration that names a runner or
projects. A wrong guess costs only the early run: the runner claims it only when its own
command line, directory and environment are exactly these (``tddgit.early.claim``).
"""

from __future__ import annotations

import os
from pathlib import Path

from tddgit.cargocmd import cargo_argv, cargo_env, doc_tests_possible
from tddgit.early.look import PYTEST_FILES, detected_first, redirected, steered, top
from tddgit.importpaths import import_env

# Files at the top that detection weighs before Cargo.toml (``runners/detect.py``), or
# that configure the run another way: with any of them, no early start.
_OTHERS = (*PYTEST_FILES, "package.json", "pom.xml", "go.mod", ".config/nextest.toml")


def guess(cwd: Path) -> tuple[list[str], Path, dict[str, str]] | None:
    """(argv, directory, environment) of the rust runner's run in place, or None."""
    if redirected():
        return None
    root = top(cwd)
    if root is None or not _plain_crate(root) or steered(root, "rust"):
        return None
    argv = cargo_argv(doc_tests_possible(root))
    return argv, root, cargo_env({**os.environ, **import_env(root)})


def _plain_crate(root: Path) -> bool:
    try:
        with (root / "Cargo.toml").open("rb") as fh:
            manifest = fh.read(256 * 1024)
    except OSError:
        return False
    if b"[package]" not in manifest:
        return False  # a workspace root: the runner names a package's directory
    return not detected_first(root, _OTHERS)
