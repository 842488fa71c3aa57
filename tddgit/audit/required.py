"""`--require-evidence`: a declared phase with no evidence counts against the result.

By default ``missing-evidence`` says nothing about the order of work and leaves the
conformance score alone (the notes may simply not have been fetched). A team that
requires evidence turns that off for an audit: inside ``evidence_required()`` the metrics
count a ``missing-evidence`` finding like any other warning (its commit is not clean), and
the command's gate fails when a declared phase has no evidence.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

RULE = "missing-evidence"
_REQUIRED: ContextVar[bool] = ContextVar("tddgit_evidence_required", default=False)


@contextmanager
def evidence_required(on: bool = True) -> Iterator[None]:
    token = _REQUIRED.set(on)
    try:
        yield
    finally:
        _REQUIRED.reset(token)


def not_process(base: frozenset[str]) -> frozenset[str]:
    """The rules that do not lower conformance in the audit running now."""
    return base - {RULE} if _REQUIRED.get() else base
