"""``tddgit red|green|refactor`` without click (reached from ``tddgit.__main__``).

The gate's start-up is overhead on every test run it makes (PRODUCT.md §11: the red gate
≤ 1.3× the plain test command): plain arguments are parsed here and go straight to
``run_phase``; anything else (help, ``--``, ``-F``, an unknown or malformed option)
returns None and takes the click command line, which parses, validates and explains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

PHASES = ("red", "green", "refactor")
_FLAGS = ("--no-commit", "--json", "-s", "--signoff", "--no-edit", "-e", "--edit", "--amend")
_VALUES = {"-m": "-m", "--message": "-m", "--author": "--author", "--task": "--task"}


@dataclass
class Args:
    tests: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)


def parse(argv: Sequence[str]) -> Args | None:
    """The arguments after the phase, or None when click should handle them."""
    parsed = Args()
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-"):
            parsed.tests.append(arg)
            continue
        if arg in _FLAGS:
            parsed.flags.add(arg)
            continue
        name, eq, value = arg.partition("=")
        if not eq and arg.startswith("-m") and len(arg) > 2:
            name, value, eq = "-m", arg[2:], "="
        if name not in _VALUES or arg.startswith("-m="):
            return None  # unknown, --help, --, -F, a bundle of short flags: click's to judge
        if not eq:
            if i >= len(args) or args[i].startswith("-"):
                return None  # a missing value (or one that looks like an option)
            value = args[i]
            i += 1
        if _VALUES[name] == "-m":
            parsed.messages.append(value)
        else:
            parsed.values[_VALUES[name]] = value
    return parsed


def fast_path(phase: str, argv: Sequence[str]) -> int | None:
    """Run ``tddgit PHASE ARGV`` without click; None: hand it to the click command line."""
    a = parse(argv)
    if a is None:
        return None
    from tddgit.commands.phase_step import run_phase
    from tddgit.entry import debug_env, guarded

    return guarded(
        lambda: run_phase(
            phase,
            Path.cwd(),
            tuple(a.tests),
            tuple(a.messages),
            None,  # -F goes through click (it checks the path)
            no_commit="--no-commit" in a.flags,
            as_json="--json" in a.flags,
            author=a.values.get("--author"),
            signoff=bool({"-s", "--signoff"} & a.flags),
            no_edit="--no-edit" in a.flags,
            edit=bool({"-e", "--edit"} & a.flags),
            amend="--amend" in a.flags,
            task=a.values.get("--task"),
        ),
        debug_env(),
    )
