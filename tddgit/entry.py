"""The one error handler of every command-line entry point, click-free: the click command
line (``tddgit.cli.run``) and the phase commands' fast path (``tddgit.commands.phase_fast``)
map errors to exit codes and one line the same way (PRODUCT.md §2)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator

from tddgit.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, TddgitError
from tddgit.signals import terminate_as_interrupt


def debug_env() -> bool:
    return os.environ.get("TDDGIT_DEBUG", "") not in ("", "0")


@contextlib.contextmanager
def scratch() -> Iterator[None]:
    """Every temporary file of this run lives in one ``tddgit-<pid>-*`` directory, removed
    at exit; a later run removes it if this one is killed (tddgit.snapshot)."""
    from tddgit.snapshot import use_scratch_dir

    try:
        context = use_scratch_dir()
        context.__enter__()
    except OSError:
        yield  # an unwritable TMPDIR is reported by whatever needs it
        return
    try:
        yield
    finally:
        context.__exit__(None, None, None)


def guarded(call: Callable[[], object], debug: bool) -> int:
    """Run ``call`` (its int result is the exit code) and map every error to its exit code
    and one line; ``debug`` adds the traceback."""
    from tddgit import console

    terminate_as_interrupt()
    try:
        with scratch():
            rv = call()
    except TddgitError as exc:
        if debug:
            _print_traceback()
        console.error_line(exc.one_line())
        return exc.exit_code
    except KeyboardInterrupt:
        console.err("tddgit: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # stdout closed early (e.g. `| head`): not an error worth a traceback
        console.stdout_gone()
        return 0
    except Exception as exc:
        if debug:
            _print_traceback()
        console.error_line(
            f"internal error: {type(exc).__name__}: {exc} — "
            "rerun with --debug for the traceback and report it"
        )
        return EXIT_INTERNAL
    try:
        sys.stdout.flush()  # now, not at exit, where a closed pipe would print a warning
    except BrokenPipeError:
        console.stdout_gone()
    return int(rv) if isinstance(rv, int) else 0


def _print_traceback() -> None:
    # Imported here, on the way out: ``traceback`` brings ``linecache``, ``tokenize`` and
    # ``textwrap``, CPU that every gate spent beside its test command for an error path.
    import traceback

    traceback.print_exc()
