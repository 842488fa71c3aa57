"""What the audit's pass makes of a commit once it is judged (``tddgit.audit.engine``):
the kind of the commit (from its files' kinds), the summary of its evidence note, the
metrics' tally key of its record, and where the records go as they are made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tddgit.audit.model import CommitRecord, EvidenceSummary, TallyKey
from tddgit.model import FileChange

if TYPE_CHECKING:
    from tddgit.evidence import Evidence, EvidenceError


class RecordSink(Protocol):
    """Takes the records as the pass makes them (``tddgit.audit.spool.Spool``)."""

    def add(self, record: CommitRecord) -> None: ...

    def replace(self, index: int, record: CommitRecord) -> None: ...


def tally_key(r: CommitRecord) -> TallyKey:
    return (r.author_email, r.phase, r.phase_source, r.attempt, r.kind)


def kind_of(
    kinds: tuple[str, ...], tests: tuple[FileChange, ...], prods: tuple[FileChange, ...]
) -> str:
    if not kinds:
        return "empty"
    if tests:
        return "mixed" if prods else "test"
    return "production" if prods else "other"


def summarise(note: Evidence | EvidenceError) -> EvidenceSummary:
    from tddgit.evidence import EvidenceError

    if isinstance(note, EvidenceError):
        return EvidenceSummary(valid=False, error=str(note))
    return EvidenceSummary(
        valid=True,
        phase=note.phase,
        tree=note.tree,
        runner=note.runner,
        targets=tuple(
            {"id": t.id, "outcome": t.outcome.value, "cause": t.cause.value if t.cause else None}
            | {"light": t.light.value}
            for t in note.targets
        ),
        suite=dict(note.suite),
    )
