"""The ``go`` runner's ``go test`` command line (``runners/go.py``).

Light on purpose (the standard library only): the gate's early start (``tddgit.early.go``)
spawns exactly this command before the gate's own modules are imported.

A selection (test files or ids) runs the packages they lie in, whole: Go compiles a
package's tests together, so a test that does not build yet breaks its package anyway.
No selection runs ``./...``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

GO_TEST_ARGS = ("go", "test", "-json")


def go_argv(packages: Sequence[str]) -> list[str]:
    return [*GO_TEST_ARGS, *packages]


def packages_for(tests: Sequence[str], subdir: str) -> list[str]:
    """The package arguments for a selection of test files or ids (relative to the
    repository root); ``./...`` for none."""
    dirs: list[str] = []
    for test in tests:
        path = test.split("::", 1)[0]
        if "::" not in test and path.endswith(".go"):
            path = posixpath.dirname(path)
        path = posixpath.normpath(path or ".")
        if subdir:
            inner = posixpath.relpath(path, posixpath.normpath(subdir))
            if inner.startswith(".."):
                continue  # outside the project: not a package of this module
            path = inner
        package = "." if path == "." else "./" + path
        if package not in dirs:
            dirs.append(package)
    return dirs or ["./..."]
