"""The audit's records: one per commit, finding and cycle, and the whole report.

Frozen dataclasses, filled in one pass over the history (``tddgit.audit.engine``) and read
by the metrics and the renderers. ``to_json`` gives the ``tddgit.audit/1`` shapes that
docs/schemas/audit.md documents; those field names are a contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tddgit.model import FileChange

SCHEMA = "tddgit.audit/1"

PHASES = ("red", "green", "refactor")
SOURCES = ("trailer", "message", "files", "none")
# What a commit's files say (the `kind` field).
KINDS = ("test", "production", "mixed", "other", "empty", "merge", "boundary")
# Commits that are tries rather than steps: TCR's own commits and reverted work.
ATTEMPTS = ("tcr-pass", "tcr-fail", "tcr-revert", "revert", "undone")
SEVERITIES = ("error", "warning", "note")

_new = object.__new__
_set = object.__setattr__


@dataclass(frozen=True)
class EvidenceSummary:
    """What the audit shows of a commit's evidence note (validated, never executed)."""

    valid: bool
    phase: str | None = None
    tree: str | None = None
    runner: str | None = None
    targets: tuple[Mapping[str, Any], ...] = ()
    suite: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        if not self.valid:
            return {"valid": False, "error": self.error}
        return {
            "valid": True,
            "phase": self.phase,
            "tree": self.tree,
            "runner": self.runner,
            "targets": [dict(t) for t in self.targets],
            "suite": dict(self.suite),
        }


@dataclass(frozen=True)
class CommitRecord:
    """One commit as the audit judged it."""

    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    time: int  # author time, unix seconds
    subject: str
    phase: str | None
    phase_source: str  # trailer | message | files | none
    rule: str | None  # the message rule (or "files:<kind>") that gave the phase
    kind: str
    files: tuple[FileChange, ...]
    file_kinds: tuple[str, ...]  # the kind of each entry of ``files``
    attempt: str | None = None
    evidence: EvidenceSummary | None = None
    cycle: int | None = None
    # A repository of several projects (docs/monorepo.md): (project, its phase) for each
    # project that took this step; empty otherwise.
    projects: tuple[tuple[str, str | None], ...] = ()

    @property
    def basis(self) -> str | None:
        """How its phase is known: ``proven`` (a valid evidence note of that phase),
        ``declared`` (a trailer or message says it), ``inferred`` (its files alone), or
        None without a phase."""
        if self.phase is None:
            return None
        ev = self.evidence
        if ev is not None and ev.valid and ev.phase == self.phase:
            return "proven"
        return "inferred" if self.phase_source == "files" else "declared"

    @classmethod
    def fast(
        cls,
        sha: str,
        parents: tuple[str, ...],
        author_name: str,
        author_email: str,
        time: int,
        subject: str,
        phase: str | None,
        phase_source: str,
        rule: str | None,
        kind: str,
        files: tuple[FileChange, ...],
        file_kinds: tuple[str, ...],
        attempt: str | None,
        evidence: EvidenceSummary | None,
        cycle: int | None,
        projects: tuple[tuple[str, str | None], ...] = (),
    ) -> CommitRecord:
        """A record from exactly its fields, without the frozen dataclass's per-field
        ``__setattr__``: the audit makes one per commit of the history, so this is twice
        as fast as ``CommitRecord(...)`` and gives an equal object.

        The ``__dict__`` is built here, in an interpreted module, on purpose: a dict display
        compiled by mypyc is made by ``_PyDict_NewPresized``, whose keys table takes any
        key (24 bytes an entry), while the interpreter's takes only strings (16 bytes). At
        100k records that is 16 MiB of the compiled audit's peak memory
        (``tests/test_compiled.py`` checks the size).
        """
        record = _new(cls)
        _set(
            record,
            "__dict__",
            {
                "sha": sha,
                "parents": parents,
                "author_name": author_name,
                "author_email": author_email,
                "time": time,
                "subject": subject,
                "phase": phase,
                "phase_source": phase_source,
                "rule": rule,
                "kind": kind,
                "files": files,
                "file_kinds": file_kinds,
                "attempt": attempt,
                "evidence": evidence,
                "cycle": cycle,
                "projects": projects,
            },
        )
        return record

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def is_step(self) -> bool:
        """A commit that counts for the process: not a merge, not an attempt."""
        return not self.is_merge and self.attempt in (None, "tcr-pass")

    @property
    def changes_code(self) -> bool:
        return self.kind in ("test", "production", "mixed")

    def to_json(self) -> dict[str, Any]:
        return {
            "sha": self.sha,
            "parents": list(self.parents),
            "author": {"name": self.author_name, "email": self.author_email},
            "time": self.time,
            "subject": self.subject,
            "phase": self.phase,
            "phase_source": self.phase_source,
            "rule": self.rule,
            "kind": self.kind,
            "attempt": self.attempt,
            "merge": self.is_merge,
            "cycle": self.cycle,
            "files": [
                {"status": f.status, "path": f.path, "old_path": f.old_path, "kind": k}
                for f, k in zip(self.files, self.file_kinds, strict=False)
            ],
            "evidence": self.evidence.to_json() if self.evidence else None,
            "basis": self.basis,
            **({"projects": dict(self.projects)} if self.projects else {}),
        }


# What the metrics count of a commit: (author e-mail, phase, phase source, attempt, kind).
TallyKey = tuple[str, str | None, str, str | None, str]


class Tally(NamedTuple):
    """The metrics' counts of an audit's records, made as the pass makes the records (one
    pass less over them afterwards; ``tddgit.audit.metrics.compute``)."""

    keys: Mapping[TallyKey, int]  # how many records have each key
    noted: Sequence[CommitRecord]  # the records with an evidence note
    # The episodes, per author e-mail: how many of each kind, and their durations.
    episode_kinds: Mapping[tuple[str, str], int] | None = None
    durations: Mapping[str, Sequence[int]] | None = None


@dataclass(frozen=True)
class Finding:
    """One rule that fired on one commit."""

    rule: str
    severity: str
    commit: str
    message: str
    related: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)  # rule-specific facts (lag, ...)
    # what it rests on: proven | declared | inferred phases (tddgit.audit.basis); set once
    # the pass is done
    basis: str | None = None

    @classmethod
    def fast(
        cls,
        rule: str,
        severity: str,
        commit: str,
        message: str,
        related: tuple[str, ...],
        files: tuple[str, ...],
        data: Mapping[str, Any],
        basis: str | None = None,
    ) -> Finding:
        """A finding from exactly its fields (see ``CommitRecord.fast``): a history can
        have one per commit (``missing-evidence`` on every undocumented trailer)."""
        found = _new(cls)
        _set(
            found,
            "__dict__",
            {
                "rule": rule,
                "severity": severity,
                "commit": commit,
                "message": message,
                "related": related,
                "files": files,
                "data": data,
                "basis": basis,
            },
        )
        return found

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity,
            "commit": self.commit,
            "related": list(self.related),
            "files": list(self.files),
            "message": self.message,
            "basis": self.basis,
        }
        if self.data:
            out["data"] = dict(self.data)
        return out


@dataclass(frozen=True)
class Cycle:
    """red -> green -> refactor*: one TDD cycle on one lineage."""

    id: int
    status: str  # complete | open | broken
    red: str
    green: str | None
    refactors: tuple[str, ...]
    author_name: str
    author_email: str
    started: int
    ended: int | None
    time_in_red: int | None  # seconds from the red commit to its green (author time)
    task: str | None = None  # the plan task its red (else its green) names: GSD-Task
    # The project whose lineage it is, in a repository of several (docs/monorepo.md).
    project: str | None = None

    @classmethod
    def fast(
        cls, id: int, red: str, author_name: str, author_email: str, started: int, task: str | None
    ) -> Cycle:
        """An open cycle, just red, from its fields (see ``CommitRecord.fast``); the
        engine's ``CycleBuilder`` keeps the rest of its ``__dict__`` up to date."""
        cycle = _new(cls)
        _set(
            cycle,
            "__dict__",
            {
                "id": id,
                "status": "open",
                "red": red,
                "green": None,
                "refactors": (),
                "author_name": author_name,
                "author_email": author_email,
                "started": started,
                "ended": None,
                "time_in_red": None,
                "task": task,
                "project": None,
            },
        )
        return cycle

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "red": self.red,
            "green": self.green,
            "refactors": list(self.refactors),
            "author": {"name": self.author_name, "email": self.author_email},
            "started": self.started,
            "ended": self.ended,
            "time_in_red": self.time_in_red,
            "task": self.task,
            **({"project": self.project} if self.project is not None else {}),
        }


@dataclass(frozen=True)
class Episode:
    """A Zorro/Besouro episode over commits: the run up to one that leaves tests passing."""

    kind: str  # test-first | test-last | test-addition | refactoring | production | unknown
    first: str  # its first commit
    last: str  # the commit that ended it
    size: int  # number of commits
    author_name: str
    author_email: str
    duration: int  # seconds (author time)

    @classmethod
    def fast(
        cls,
        kind: str,
        first: str,
        last: str,
        size: int,
        author_name: str,
        author_email: str,
        duration: int,
    ) -> Episode:
        """An episode from exactly its fields (see ``CommitRecord.fast``)."""
        episode = _new(cls)
        _set(
            episode,
            "__dict__",
            {
                "kind": kind,
                "first": first,
                "last": last,
                "size": size,
                "author_name": author_name,
                "author_email": author_email,
                "duration": duration,
            },
        )
        return episode

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "first": self.first,
            "last": self.last,
            "size": self.size,
            "author": {"name": self.author_name, "email": self.author_email},
            "duration": self.duration,
        }


@dataclass(frozen=True)
class AuditRange:
    """What the audit was asked to read: revisions, dates, author and paths."""

    revs: tuple[str, ...]
    since: str | None = None
    until: str | None = None
    author: str | None = None
    paths: tuple[str, ...] = ()
    shallow: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "revs": list(self.revs),
            "since": self.since,
            "until": self.until,
            "author": self.author,
            "paths": list(self.paths),
            "shallow": self.shallow,
        }


@dataclass(frozen=True)
class AuditReport:
    """Everything an audit found, as every format renders it."""

    range: AuditRange
    commits: Sequence[CommitRecord]  # topological order, parents before children
    findings: Sequence[Finding]
    cycles: Sequence[Cycle]
    episodes: Sequence[Episode]
    metrics: Mapping[str, Any]
    notes: tuple[str, ...] = ()
    tool_version: str = ""
