"""What a check of the audit sees of one commit, and how it words what it finds.

``CommitView`` is a check's input (the commit, the phase the audit gave it, its files split
by kind, the lineage state before it, its evidence); ``finding`` makes a check's output, a
finding of one of the rules of ``tddgit.audit.ruleset`` with that rule's severity. The
checks themselves are in ``tddgit.audit.rules``, ``tddgit.audit.afterfact`` and
``tddgit.audit.detector_rules``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tddgit.audit.model import Finding
from tddgit.audit.ruleset import RULES
from tddgit.model import Commit, FileChange

if TYPE_CHECKING:
    from tddgit.audit.state import State
    from tddgit.evidence import Evidence, EvidenceError


def finding(
    rule: str,
    commit: str,
    message: str,
    *,
    related: tuple[str, ...] = (),
    files: tuple[str, ...] = (),
    data: dict[str, object] | None = None,
) -> Finding:
    return Finding.fast(
        rule=rule,
        severity=RULES[rule].severity,
        commit=commit,
        message=message,
        related=related,
        files=files,
        data=data or {},
    )


class CommitView(NamedTuple):
    """One non-merge commit with what the audit decided about it, for the checks.

    A named tuple rather than a frozen dataclass: one is made per commit of the history,
    and a tuple is built several times faster.
    """

    commit: Commit
    phase: str | None
    source: str
    attempt: str | None
    tests: tuple[FileChange, ...]
    prods: tuple[FileChange, ...]
    before: State
    evidence: Evidence | EvidenceError | None

    @property
    def sha(self) -> str:
        return self.commit.sha


def count(n: int, noun: str) -> str:
    """``1 commit``, ``7 commits`` (kept here: the audit's compiled modules import no
    console code)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
