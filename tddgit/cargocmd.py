"""The ``rust`` runner's ``cargo test`` command line and environment (``runners/rust.py``).

Light on purpose (``os`` only: no ``re``, no ``pathlib``): the gate's early start
(``tddgit.early``) spawns exactly this command before anything else is imported.

libtest's ``--format json`` is unstable: ``RUSTC_BOOTSTRAP=1`` is set for this run only,
in the test process's environment. ``--no-fail-fast`` runs every test binary. Cargo runs
with ``--offline`` when ``CARGO_NET_OFFLINE`` is set.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` itself is not imported before the spawn

if TYPE_CHECKING:
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
# Read without `re` (its import delays the early start): `_doc_code` is the search of
# (?m)```|~~~|\bdoc\s*=|/\*[*!]|^\s*//[/!] {5,}\S
_MARKS = ("```", "~~~", "/**", "/*!")
MAX_DOC_SCAN = 2000  # .rs files; a larger package keeps its doc tests unread


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"  # re's \w


def _doc_code(text: str) -> bool:
    if any(mark in text for mark in _MARKS):
        return True
    at = text.find("doc")
    while at >= 0:
        if at == 0 or not _word(text[at - 1]):  # \bdoc
            end = at + 3
            while end < len(text) and text[end].isspace():  # \s*
                end += 1
            if text[end : end + 1] == "=":
                return True
        at = text.find("doc", at + 1)
    for line in text.split("\n"):  # (?m)^ begins a line after \n only
        line = line.lstrip()  # \s* (past blank lines too: a later line's own match)
        if line.startswith(("///", "//!")):
            body = line[3:]
            indent = len(body) - len(body.lstrip(" "))
            if indent >= 5 and body[indent : indent + 1] and not body[indent].isspace():
                return True
    return False


# In a library's source, what brings code from elsewhere (a module at another path, an
# included file): its doc tests may lie outside ``src/``.
_ELSEWHERE = ("#[path", "include!")


def _library_sources(package: Path | str) -> str:
    """Where rustdoc can find the package's doc tests: its library target, in ``src/``
    for a plain package. A manifest with a ``[lib]`` section (which may place the library
    elsewhere) or a ``[workspace]`` (whose members ``cargo test`` may test): the whole
    package. Not ``tests/``, ``examples/`` or ``benches/``: rustdoc tests the library."""
    try:
        with open(os.path.join(package, "Cargo.toml"), encoding="utf-8", errors="replace") as fh:
            manifest = fh.read()
    except OSError:
        return str(package)
    if "[lib]" in manifest or "[workspace]" in manifest:
        return str(package)
    return os.path.join(package, "src")


def doc_tests_possible(package: Path | str) -> bool:
    """Whether the package's library could hold a doc test. ``--no-fail-fast`` runs them
    after a failing test, where plain ``cargo test`` stops first; with none, the gate
    would pay a rustdoc build of the crate for nothing. Unsure means yes. Only the
    library's sources are read: every file of ``tests/`` read here was read before the
    early start could spawn cargo (issue 29)."""
    seen = 0
    for folder, dirs, files in os.walk(_library_sources(package)):
        dirs[:] = [d for d in dirs if d != "target" and not d.startswith(".")]
        for name in files:
            if not name.endswith(".rs"):
                continue
            seen += 1
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                return True
            if seen > MAX_DOC_SCAN or _doc_code(text) or any(m in text for m in _ELSEWHERE):
                return True
    return False
