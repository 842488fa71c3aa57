"""The report of a finished audit pass: its records, findings, cycles and episodes (or,
with a selection by path, date or author, those of the selected commits) and their
metrics (``tddgit.audit.metrics``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tddgit.audit.model import AuditRange, AuditReport, CommitRecord, Cycle, Episode, Finding, Tally

if TYPE_CHECKING:
    from tddgit.audit.engine import Auditor
    from tddgit.audit.projects import Part, ProjectsAuditor


def pass_report(
    rng: AuditRange,
    auditor: Auditor | ProjectsAuditor,
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    notes: Sequence[str],
    selected: frozenset[str] | None = None,
) -> AuditReport:
    """The report of a finished pass (its records, episodes, index and counts); with
    ``selected`` (a path filter's commits), of those commits only."""
    from tddgit import __version__
    from tddgit.audit.projects import ProjectsAuditor

    records, episodes = auditor.records, auditor.episodes
    agents = auditor.agents
    parts = auditor.parts() if isinstance(auditor, ProjectsAuditor) else []
    if selected is None:
        positions, tally = auditor.positions(), auditor.tally()
        return report_of(
            rng,
            records,
            findings,
            cycles,
            episodes,
            notes,
            __version__,
            positions,
            tally,
            agents,
            parts,
        )
    records = [r for r in records if r.sha in selected]
    shown = {r.cycle for r in records if r.cycle is not None}
    return report_of(
        rng,
        records,
        [f for f in findings if f.commit in selected],
        [c for c in cycles if c.id in shown],
        [e for e in episodes if e.first in selected or e.last in selected],
        notes,
        __version__,
        agents=agents,
        parts=[_selected(part, selected) for part in parts],
    )


def _selected(part: Part, selected: frozenset[str]) -> Part:
    from dataclasses import replace

    records = [r for r in part.records if r.sha in selected]
    shown = {r.cycle for r in records if r.cycle is not None}
    return replace(
        part,
        records=records,
        findings=[f for f in part.findings if f.commit in selected],
        cycles=[c for c in part.cycles if c.id in shown],
        episodes=[e for e in part.episodes if e.first in selected or e.last in selected],
    )


def report_of(
    rng: AuditRange,
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
    notes: Sequence[str],
    version: str,
    positions: Mapping[str, int] | None = None,
    tally: Tally | None = None,
    agents: Mapping[str, str] | None = None,
    parts: Sequence[Part] = (),
) -> AuditReport:
    from tddgit.audit.metrics import compute, per_agent, per_project

    metrics = compute(records, findings, cycles, episodes, positions, tally)
    if agents:  # only histories with model-made steps get the key
        metrics["agents"] = per_agent(records, findings, cycles, episodes, agents)
    if parts:  # only repositories of several projects get the key
        metrics["projects"] = per_project(parts)
    return AuditReport(
        range=rng,
        commits=records,
        findings=findings,
        cycles=cycles,
        episodes=episodes,
        metrics=metrics,
        notes=tuple(notes),
        tool_version=version,
    )
