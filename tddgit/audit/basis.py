"""What each finding rests on (issue 27 item 6: proven outranks inferred).

A finding is only as sure as the phases it is judged from: its commit's phase, and the
phases of the commits it relates to (the red a refactor came during, the red a green
closed). Each is ``proven`` (a valid evidence note of that phase), ``declared`` (a
trailer or the message says it) or ``inferred`` (only the files say it); a finding's
basis is the weakest of them. A commit with no phase is judged from what its files say
the lineage was (no red open, code added), so a finding on it is ``inferred`` unless a
related step it names is known better — then that step's basis, still capped by what
the files alone say (``inferred`` is never raised by a related commit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tddgit.audit.model import CommitRecord, Finding

BASES = ("inferred", "declared", "proven")  # weakest first
_RANK = {b: i for i, b in enumerate(BASES)}


def basis_of(f: Finding, record: Callable[[str], CommitRecord | None]) -> str:
    """The basis of ``f``: the weakest basis of its commit and its related commits."""
    own = record(f.commit)
    first = own.basis if own is not None else None
    weakest = first if first is not None else "inferred"
    for sha in f.related:
        r = record(sha)
        b = r.basis if r is not None else None
        if b is not None and _RANK[b] < _RANK[weakest]:
            weakest = b
    return weakest


def attach(
    findings: Sequence[Finding],
    records: Sequence[CommitRecord],
    positions: dict[str, int],
) -> None:
    """Set each finding's ``basis`` (findings are frozen: written once, here, before any
    report encodes them)."""

    def record(sha: str) -> CommitRecord | None:
        at = positions.get(sha)
        return records[at] if at is not None else None

    for f in findings:
        if f.__dict__.get("basis") is None:
            f.__dict__["basis"] = basis_of(f, record)
