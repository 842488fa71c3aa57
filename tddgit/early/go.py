"""Whether the gate's run is predictable as a Go module's ``go test -json``, and which.

The go runner runs the packages of its selection (``tddgit.gocmd``): a red (scope
``changed``) the packages of the staged test files, a green or a refactor (scope ``all``)
``./...``. So a red's guess costs one cheap git call, the staged file names against HEAD
(``git diff-index --cached``: the index and one tree, no look at the work tree); the
rest is a few files (``tddgit.early.look``): go.mod at the top, nothing there that
detection weighs first, no tddgit configuration that names a runner, projects, a scope
or which files are tests. A wrong guess costs only the early run: the runner claims it
only when its own command line, directory and environment are exactly these
(``tddgit.early.claim``); a work tree unlike the index makes the gate run on a snapshot,
elsewhere, so the early run is never its evidence.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tddgit.early.look import PYTEST_FILES, STEERING, detected_first, steered
from tddgit.gocmd import go_argv, packages_for
from tddgit.importpaths import import_env
from tddgit.worktop import redirected, top

_OTHERS = (*PYTEST_FILES, "package.json", "pom.xml")  # detection picks their runner first
# Keys that change which packages the gate runs: the scope, which files are tests.
_KEYS = (*STEERING, "scope", "test_globs", "source_globs", "other_globs", "vendored_globs")
# The phases' default scopes (``configkeys``): a red runs what changed, the others all.
_WHOLE = ("green", "refactor")


def guess(cwd: Path, phase: str) -> tuple[list[str], Path, dict[str, str]] | None:
    """(argv, directory, environment) of the go runner's run in place, or None."""
    if phase not in ("red", *_WHOLE) or redirected():
        return None
    found = top(str(cwd))
    root = Path(found) if found is not None else None
    if root is None or not (root / "go.mod").is_file():
        return None
    if detected_first(root, _OTHERS) or steered(root, "go", _KEYS):
        return None
    packages = ["./..."] if phase in _WHOLE else packages_for(_staged_tests(root), "")
    if packages == ["./..."] and phase not in _WHOLE:
        return None  # a red with no staged test file: the gate refuses it
    return go_argv(packages), root, {**os.environ, **import_env(root)}


def _staged_tests(root: Path) -> list[str]:
    """The staged Go test files (added, changed or renamed; not deleted), in the order
    the gate lists them (git's, by path)."""
    git = ["git", "diff-index", "--cached", "--name-only", "-z", "--no-renames"]
    proc = subprocess.run(
        [*git, "--diff-filter=d", "HEAD", "--"],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        return []  # no HEAD yet (the gate compares with the empty tree): no guess
    names = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [name for name in names if name.endswith("_test.go")]
