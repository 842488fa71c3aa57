"""Entry point for the ``tddgit`` console script and ``python -m tddgit``."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        # Ctrl-C while Python still imports the command line, before the command's own
        # handler (tddgit.entry.guarded) is in place: its one line, not a traceback.
        import os

        os.write(2, b"tddgit: interrupted\n")
        return 130  # tddgit.errors.EXIT_INTERRUPTED


def _main(argv: list[str] | None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 and args[0] == "hook":
        # Hooks run on every commit: skip click and the CLI machinery (PRODUCT.md §11).
        from tddgit.hooks.dispatch import fast_path

        code = fast_path(args[1:])
        if code is not None:
            return code
    if len(args) == 3 and args[0] == "agent" and args[1] == "hook":
        # After every tool call of an agent: "nothing changed" is answered before anything
        # but the stdlib is imported (guard/quick.py); the rest goes on to the full check.
        from tddgit.guard.quick import POST_EVENTS
        from tddgit.guard.quick import main as quick_main

        if args[2] in POST_EVENTS:
            return quick_main(args[2])
    if len(args) > 2 and args[0] == "agent" and args[1] == "hook":
        # The agent guard's hooks run on every edit an agent makes: no click either.
        from tddgit.guard.dispatch import fast_path as guard_fast_path

        code = guard_fast_path(args[2:])
        if code is not None:
            return code
    if args and args[0] in ("red", "green", "refactor"):
        # Every gate's start-up is overhead on its test run: no click for plain arguments.
        from tddgit.commands.phase_fast import fast_path as phase_fast_path

        code = phase_fast_path(args[0], args[1:], then_exit=argv is None)
        if code is not None:
            return code if argv is not None else _exit_now(code)
    at = 2 if args[:1] == ["-C"] else 0  # tddgit -C PATH audit ...
    if len(args) > at and args[at] == "audit":
        # The history's git starts now, while the command line and the audit are imported.
        from tddgit.earlywalk import start_early

        start_early(args[at + 1 :], args[1] if at else ".")
        # A plain audit (a format and an output file at most) needs no click either.
        from tddgit.commands.audit_fast import fast_path as audit_fast_path

        code = audit_fast_path(args[at + 1 :], args[1] if at else None)
        if code is not None:
            return code
    from tddgit.cli import run

    return run(args)


def _exit_now(code: int) -> int:
    """End the process with ``code`` without the interpreter's teardown (freeing every
    module and object: ~15 ms of CPU after a gate's verdict, on the critical path of a
    test run that took a tenth of a second). The gate has cleaned up by now (its runs
    reaped, its files removed); what ``atexit`` holds still runs, and the output is
    flushed. A thread that is not a daemon still running: the usual exit, which waits."""
    import threading

    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return code
    import atexit
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed or broken pipe: the usual exit would not write it either
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
