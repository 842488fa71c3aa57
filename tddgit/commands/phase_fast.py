"""``tddgit red|green|refactor`` without click (reached from ``tddgit.__main__``).

The gate's start-up is overhead on every test run it makes (PRODUCT.md §11: the red gate
≤ 1.3× the plain test command): plain arguments are parsed here and go straight to
``run_phase``; anything else (help, ``--``, ``-F``, an unknown or malformed option)
returns None and takes the click command line, which parses, validates and explains.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` itself is not imported before the spawn

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

PHASES = ("red", "green", "refactor")
# option -> run_phase's parameter (the click command's names for them)
_FLAGS = {
    "--no-commit": "no_commit",
    "--json": "as_json",
    "-s": "signoff",
    "--signoff": "signoff",
    "--no-edit": "no_edit",
    "-e": "edit",
    "--edit": "edit",
    "--amend": "amend",
}
_VALUES = {"-m": "messages", "--message": "messages", "--author": "author", "--task": "task"}


def parse(argv: Sequence[str]) -> dict[str, Any] | None:
    """``run_phase``'s keyword arguments for the arguments after the phase (the values
    click would give), or None when click should handle them."""
    options: dict[str, Any] = dict.fromkeys(_FLAGS.values(), False)
    options.update(author=None, task=None, msg_file=None)  # -F: click checks the path
    tests: list[str] = []
    messages: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-"):
            tests.append(arg)
            continue
        if arg in _FLAGS:
            options[_FLAGS[arg]] = True
            continue
        name, eq, value = arg.partition("=")
        if not eq and arg.startswith("-m") and len(arg) > 2:
            name, value, eq = "-m", arg[2:], "="
        if name not in _VALUES or arg.startswith("-m="):
            return None  # unknown, --help, --, -F, a bundle of short flags: click's to judge
        if not eq:
            if i >= len(argv) or argv[i].startswith("-"):
                return None  # a missing value (or one that looks like an option)
            value = argv[i]
            i += 1
        if _VALUES[name] == "messages":
            messages.append(value)
        else:
            options[_VALUES[name]] = value
    return {**options, "tests": tuple(tests), "messages": tuple(messages)}


def fast_path(phase: str, argv: Sequence[str], *, then_exit: bool = False) -> int | None:
    """Run ``tddgit PHASE ARGV`` without click; None: hand it to the click command line.
    ``then_exit``: the process ends right after (the console script)."""
    options = parse(argv)
    if options is None:
        return None
    import gc

    # A phase command is one short process whose imports and run allocate enough for
    # the cyclic collector to walk the young objects some twenty times in a Rust red:
    # ~2 ms of CPU beside the cargo it waits for (issue 29). Reference counting frees
    # them all the same; the few cycles left go with the process.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _gate(phase, options)
    finally:
        # Given back to a caller that goes on; not to a process about to end, where its
        # first walk would take in every object made since (~0.6 ms after the verdict).
        if collecting and not then_exit:
            gc.enable()


def _gate(phase: str, options: dict[str, Any]) -> int:
    from tddgit import early
    from tddgit.early.defer import NEEDS, PURE, defer

    # Standard modules this gate may never use, loaded at their first use: CPU the test
    # command needs. These without a look at the disk, before the early start (which
    # imports pathlib, and pathlib ipaddress); the others after it.
    defer(*PURE)
    early.begin(os.getcwd(), phase)  # the test command first: the gate's work overlaps it
    defer(*NEEDS)
    # Whole before the gate starts a thread: ``dataclasses`` reads ``typing`` from
    # ``sys.modules`` without the import lock, so its first import in one thread (a
    # runner's module) while another made a dataclass gave that one a half-made module
    # ("partially initialized module 'typing'"). After the early start: beside its run.
    import typing  # noqa: F401

    try:
        from pathlib import Path

        from tddgit.commands.phase_step import run_phase
        from tddgit.entry import debug_env, guarded

        return guarded(lambda: run_phase(phase, Path.cwd(), **options), debug_env())
    finally:
        early.discard()  # a gate that refused before its run, or ran another command
