"""``tddgit audit`` of the current branch without click (PRODUCT.md §11).

The audit of a long history is measured against ``git log``: importing click and the
command line costs ~10 ms of every audit, more than the command line's own work. An
audit whose arguments are only a report format and an output file is run from here, as
the click command would run it (``tddgit.commands.audit_run.execute``, the same error
handling: ``tddgit.entry.guarded``); anything else — another option, a revision, a path,
``--help``, an output that click would refuse — returns None and goes to click, which
says what it says of it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

_FORMATS = ("text", "json")  # the two a person or a script reads a whole history in


def fast_path(args: Sequence[str], where: str | None) -> int | None:
    """Run ``tddgit [-C where] audit ARGS`` when ARGS are plain; None otherwise."""
    plain = _plain(args)
    if plain is None or (where is not None and os.path.exists(where) and not os.path.isdir(where)):
        return None  # (-C naming a file: click's usage error says so)
    fmt, output = plain
    from tddgit.appcontext import AppContext
    from tddgit.commands.audit_run import AuditRequest, execute
    from tddgit.entry import debug_env, guarded

    cwd = Path(where) if where is not None else Path.cwd()

    def call() -> None:
        execute(AppContext(cwd=cwd, debug=debug_env()), AuditRequest(fmt=fmt, output=output))

    return guarded(call, debug_env())


def _plain(args: Sequence[str]) -> tuple[str, Path | None] | None:
    """(format, output) of ``--format text|json``, ``--json`` and ``-o/--output FILE``
    (each at most once); None for any other argument."""
    fmt: str | None = None
    output: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name in ("--format", "--output") and eq:
            i += 1
        elif arg in ("--format", "-o", "--output") and i + 1 < len(args):
            name, value = arg, args[i + 1]
            i += 2
        elif arg == "--json" and fmt in (None, "json"):
            fmt, i = "json", i + 1
            continue
        else:
            return None
        if name == "--format" and fmt is None and value in _FORMATS:
            fmt = value
        elif name in ("-o", "--output") and output is None and _writable(value):
            output = value
        else:
            return None  # twice, an unknown format or an unwritable path: click says so
    return fmt or "text", Path(output) if output is not None else None


def _writable(path: str) -> bool:
    """What click's ``Path(dir_okay=False, writable=True)`` accepts without a word: a
    path that is not a directory, writable if it exists."""
    if not path or path.startswith("-"):
        return False
    if os.path.isdir(path):
        return False
    return not os.path.exists(path) or os.access(path, os.W_OK)
