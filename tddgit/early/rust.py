"""Whether the gate's run is predictable as a Rust crate's ``cargo test``, and which.

A cheap, conservative look at a few files (``tddgit.early.look``): the repository's top
directory is a cargo package, nothing there would make detection pick another runner
first, no nextest configuration, and no tddgit configuration that names a runner or
projects. A wrong guess costs only the early run: the runner claims it only when its own
command line, directory and environment are exactly these (``tddgit.early.claim``).

The early cargo builds in the work tree before the gate knows whether it will run there
(a work tree unlike the index runs on a snapshot; a gate may refuse before its run): so
only a crate built here before, whose ``Cargo.lock`` and ``target/`` exist already (the
early run creates neither), and the lock file's bytes go back if the run is not claimed.

Strings and ``os`` only: this runs before anything else is imported.
"""

from __future__ import annotations

import os

from tddgit.cargocmd import cargo_argv, cargo_env, doc_tests_possible
from tddgit.early.look import PYTEST_FILES, detected_first, steered
from tddgit.importpaths import import_env
from tddgit.worktop import redirected, top

# Files at the top that detection weighs before Cargo.toml (``runners/detect.py``), or
# that configure the run another way: with any of them, no early start.
_OTHERS = (*PYTEST_FILES, "package.json", "pom.xml", "go.mod", ".config/nextest.toml")


def guess(cwd: str) -> tuple[list[str], str, dict[str, str], tuple[str, bytes]] | None:
    """(argv, directory, environment, (lock file, its bytes)) of the rust runner's run in
    place, or None."""
    if redirected():
        return None
    root = top(cwd)
    if root is None or not _plain_crate(root) or steered(root, "rust"):
        return None
    lock = os.path.join(root, "Cargo.lock")
    held = _read(lock, -1)  # whole: these bytes may have to go back
    if held is None or not os.path.isdir(os.path.join(root, "target")):
        return None  # the early run would create them: not in a tree it may not build in
    argv = cargo_argv(doc_tests_possible(root))
    return argv, root, cargo_env({**os.environ, **import_env(root)}), (lock, held)


def _read(path: str, limit: int = 256 * 1024) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit)
    except OSError:
        return None


def _plain_crate(root: str) -> bool:
    manifest = _read(os.path.join(root, "Cargo.toml"))
    if manifest is None or b"[package]" not in manifest:
        return False  # a workspace root: the runner names a package's directory
    return not detected_first(root, _OTHERS)
