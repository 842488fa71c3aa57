"""Signal handling shared by the CLI and the hook fast path (no click import here)."""

from __future__ import annotations

import signal


def terminate_as_interrupt() -> None:
    """Make SIGTERM unwind like Ctrl-C, so every ``finally`` runs (test process groups
    are killed, snapshots removed) instead of the interpreter dying on the spot."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:
        pass  # not the main thread (embedded use): leave signals alone
