"""Deterministic fault injection: named points where a test can make tddgit die.

``TDDGIT_FAULT=<point>[:<signal>]`` (signal ``KILL``, ``TERM`` or ``INT``; default ``KILL``)
makes the process send that signal to itself when it reaches ``point(<point>)``. The
reliability tests (tests/reliability/, docs/reliability.md) use it to prove PRODUCT.md §10:
whatever kills tddgit at any of these points, no work is lost and no half-written record is
ever read as valid.

``TDDGIT_FAULT_LOG=<file>`` appends ``<point> <signal> <pid>`` to that file just before the
signal is sent, so a test can tell the point was really reached.

Cost when unset: one ``os.environ.get``; nothing else is imported. The variable is read at
each point (not once) so hooks started by a ``git commit`` that tddgit runs see it too.

Points (``docs/reliability.md`` lists where each one sits):

=====================  ==============================================================
``phase.before-gate``  a phase command, before the gate reads the index
``run.before``         the test runner, before the test process starts
``run.started``        the test process (and its watchdog) are running
``evidence.write``     the evidence cache: temp file written, not renamed
``lineage.write``      the lineage cache: temp file written, not renamed
``phase.before-commit``  the gate held and evidence is cached; ``git commit`` not run
``phase.after-commit``   the commit exists; its evidence note is not written yet
``note.write``         right before ``git notes add``
``hook.<name>``        inside hook ``<name>``, after its configuration is read
=====================  ==============================================================
"""

from __future__ import annotations

import os

ENV = "TDDGIT_FAULT"
LOG_ENV = "TDDGIT_FAULT_LOG"
SIGNALS = ("KILL", "TERM", "INT")
POINTS = (
    "phase.before-gate",
    "run.before",
    "run.started",
    "evidence.write",
    "lineage.write",
    "phase.before-commit",
    "phase.after-commit",
    "note.write",
    "hook.pre-commit",
    "hook.prepare-commit-msg",
    "hook.commit-msg",
    "hook.post-commit",
)


def point(name: str) -> None:
    """Die here with the configured signal when ``$TDDGIT_FAULT`` names this point."""
    spec = os.environ.get(ENV)
    if spec:
        _maybe_fire(name, spec)


def _maybe_fire(name: str, spec: str) -> None:
    where, _, sig = spec.partition(":")
    if where != name:
        return
    import signal

    signum = getattr(signal, f"SIG{(sig or 'KILL').upper()}", None)
    if (sig and sig.upper() not in SIGNALS) or signum is None:
        raise ValueError(f"{ENV}={spec!r}: the signal must be one of {', '.join(SIGNALS)}")
    log = os.environ.get(LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{name} {(sig or 'KILL').upper()} {os.getpid()}\n")
    # CPython runs the handler before os.kill returns when a process signals itself, so
    # SIGTERM/SIGINT (KeyboardInterrupt in tddgit) unwind from exactly this point.
    os.kill(os.getpid(), signum)
