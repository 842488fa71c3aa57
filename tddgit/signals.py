"""Signal handling shared by the CLI and the hook fast path (no click import here)."""

from __future__ import annotations

import signal
from types import FrameType

# importlib's own code: a KeyboardInterrupt raised in it (a module lock's weakref callback
# runs whenever another thread's import lets go of a lock) is "ignored" by Python and can
# leave the global import lock held, so every later import, and the run, hangs.
_IMPORT_MACHINERY = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")
RETRY_SECONDS = 0.01


def terminate_as_interrupt() -> None:
    """Make SIGTERM unwind like Ctrl-C, so every ``finally`` runs (test process groups
    are killed, snapshots removed) instead of the interpreter dying on the spot. A SIGTERM
    or SIGINT that arrives inside the import machinery is deferred (``RETRY_SECONDS`` at a
    time) until the interpreter is out of it; a SIGINT that is ignored stays ignored."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if frame is not None and frame.f_code.co_filename in _IMPORT_MACHINERY:
            signal.signal(signal.SIGALRM, handler)
            signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)
            return
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, handler)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, handler)
    except ValueError:
        pass  # not the main thread (embedded use): leave signals alone
