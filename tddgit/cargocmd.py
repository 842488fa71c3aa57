"""The ``rust`` runner's ``cargo test`` command line and environment (``runners/rust.py``).

Light on purpose (the standard library only): the gate's early start (``tddgit.early``)
spawns exactly this command before the gate's own modules are imported.

libtest's ``--format json`` is unstable: ``RUSTC_BOOTSTRAP=1`` is set for this run only,
in the test process's environment. ``--no-fail-fast`` runs every test binary. Cargo runs
with ``--offline`` when ``CARGO_NET_OFFLINE`` is set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

CARGO_ARGS = ("cargo", "test", "--no-fail-fast", "--message-format", "json")
LIBTEST_ARGS = ("--", "-Z", "unstable-options", "--format", "json", "--report-time")


def offline() -> bool:
    return os.environ.get("CARGO_NET_OFFLINE", "").lower() in ("1", "true", "yes")


def cargo_argv(doc_tests: bool = True) -> list[str]:
    """``doc_tests=False``: every target plain ``cargo test`` tests or builds but the doc
    tests (``--tests --examples``), for a package that has none."""
    targets = [] if doc_tests else ["--tests", "--examples"]
    return [*CARGO_ARGS, *(["--offline"] if offline() else []), *targets, *LIBTEST_ARGS]


def cargo_env(base: Mapping[str, str]) -> dict[str, str]:
    """The test process's environment: ``base`` with libtest's JSON unlocked."""
    return {**base, "RUSTC_BOOTSTRAP": "1"}


# What a doc test needs in a source: a fenced or indented code block in a doc comment, or
# a doc attribute (`#![doc = include_str!("../README.md")]` brings a file's examples).
_DOC_CODE = re.compile(r"(?m)```|~~~|\bdoc\s*=|/\*[*!]|^\s*//[/!] {5,}\S")
MAX_DOC_SCAN = 2000  # .rs files; a larger package keeps its doc tests unread


def doc_tests_possible(package: Path) -> bool:
    """Whether the package's sources could hold a doc test. ``--no-fail-fast`` runs them
    after a failing test, where plain ``cargo test`` stops first; with none, the gate
    would pay a rustdoc build of the crate for nothing. Unsure means yes."""
    seen = 0
    for folder, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "target" and not d.startswith(".")]
        for name in files:
            if not name.endswith(".rs"):
                continue
            seen += 1
            try:
                text = (Path(folder) / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                return True
            if seen > MAX_DOC_SCAN or _DOC_CODE.search(text):
                return True
    return False
