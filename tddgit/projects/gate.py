"""A step judged per project (docs/monorepo.md): the staged change is split by project, each
touched project's gate runs with its own runner, directory and settings
(``tddgit.gates.run_gate`` with the project's configuration, whose ``scope`` keeps its
lineage, targets and earlier evidence its own), and the step holds when every touched
project's holds. The verdict names the project of each refusal; its evidence records each
project's under ``projects``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence

from tddgit.gates import Reason, Verdict, run_gate
from tddgit.git import Repo
from tddgit.paths import Classifier, Kind
from tddgit.projects.model import Project, Projects
from tddgit.staged import StagedChange, staged_change

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from tddgit.evidence import Evidence


def touched(
    repo: Repo,
    projects: Projects,
    tests: Sequence[str] = (),
    *,
    amend: bool = False,
    head: tuple[str | None, str] | None = None,
) -> tuple[StagedChange, list[Project]]:
    """The staged change, and the projects it (and the tests named) touch, in order."""
    change = staged_change(repo, Classifier.from_config(projects.top), amend=amend, head=head)
    paths = [f.path for f in change.files] + [f.old_path for f in change.files if f.old_path]
    return change, list(projects.split([*paths, *tests]))


def run_step(
    repo: Repo,
    projects: Projects,
    phase: str,
    tests: Sequence[str] = (),
    *,
    on_progress: Callable[[str], None] | None = None,
    amend: bool = False,
    head: tuple[str | None, str] | None = None,
) -> Verdict:
    """Judge the staged change as a ``phase`` step in every project it touches. ``tests``
    are repository-relative ids; each goes to the gate of the project holding it.
    ``head``: HEAD's commit and tree, when the caller has read them."""
    if not projects.multi:
        only = projects.all[0].config
        return run_gate(repo, only, phase, tests, on_progress=on_progress, amend=amend, head=head)
    stray = projects.outside(tests)
    if stray:
        from tddgit.errors import UsageError

        raise UsageError(
            f"{stray[0]} is in none of the repository's projects "
            f"({', '.join(p.label for p in projects.all)})",
            "name the test relative to the repository, its project or the current directory",
        )
    change, mine = touched(repo, projects, tests, amend=amend, head=head)
    if not mine:  # nothing any project holds: judged as the whole repository
        return run_gate(
            repo, projects.top, phase, tests, on_progress=on_progress, amend=amend, head=head
        )
    verdicts = []
    for project in mine:
        own = tuple(t for t in tests if projects.of(t) == project)
        progress = _labelled(on_progress, project.label) if len(mine) > 1 else on_progress
        verdicts.append(
            (
                project,
                run_gate(
                    repo,
                    project.config,
                    phase,
                    own,
                    on_progress=progress,
                    amend=amend,
                    head=head,
                ),
            )
        )
    return combine(phase, verdicts, change)


def _labelled(
    on_progress: Callable[[str], None] | None, label: str
) -> Callable[[str], None] | None:
    if on_progress is None:
        return None
    show = on_progress
    return lambda line: show(f"{label}: {line}")


def combine(
    phase: str, verdicts: Sequence[tuple[Project, Verdict]], change: StagedChange
) -> Verdict:
    """One verdict of the step: it holds when each project's does; each reason and note
    names its project."""
    many = len(verdicts) > 1
    reasons: list[Reason] = []
    notes: list[str] = []
    if many:
        names = ", ".join(p.label for p, _ in verdicts)
        notes.append(f"the staged change spans {len(verdicts)} projects ({names}): judged in each")
    for project, verdict in verdicts:
        tag = f"[{project.label}] "
        reasons += [dataclasses.replace(r, message=tag + r.message) for r in verdict.reasons]
        notes += [tag + n for n in verdict.notes] if many else list(verdict.notes)
        if not many:
            notes.append(f"judged in project {project.label}")
    holds = all(v.holds for _, v in verdicts)
    first = verdicts[0][1]
    failing = next((v for _, v in verdicts if not v.holds), None)
    evidence = _evidence(verdicts) if holds else None
    runs = [v.run for _, v in verdicts if v.run is not None]
    run = None
    if runs:
        run = dataclasses.replace(
            runs[0],
            tests=tuple(t for r in runs for t in r.tests),
            duration=sum(r.duration for r in runs),
            notes=tuple(n for r in runs for n in r.notes),
        )
    return Verdict(
        phase,
        holds,
        tuple(reasons),
        dataclasses.replace(change, kinds={**change.kinds, **_kinds(verdicts)}),
        first.state,
        evidence=evidence,
        run=run,
        notes=tuple(notes),
        next_step=(failing or first).next_step,
    )


def _kinds(verdicts: Sequence[tuple[Project, Verdict]]) -> dict[str, Kind]:
    """Each file's kind as its own project classifies it."""
    return {path: kind for _, v in verdicts for path, kind in v.change.kinds.items()}


def _evidence(verdicts: Sequence[tuple[Project, Verdict]]) -> Evidence:
    parts = {p.dir: v.evidence for p, v in verdicts if v.evidence is not None}
    evs = list(parts.values())
    base = evs[0]
    suite: Counter[str] = Counter()
    changes: dict[str, tuple[str, ...]] = {}
    for ev in evs:
        suite.update(ev.suite)
        for kind, paths in ev.changes.items():
            changes[kind] = (*changes.get(kind, ()), *paths)
    return dataclasses.replace(
        base,
        runner="+".join(dict.fromkeys(ev.runner for ev in evs)),
        command=tuple(c for ev in evs for c in ev.command),
        started=min(ev.started for ev in evs),
        duration=sum(ev.duration for ev in evs),
        targets=tuple(t for ev in evs for t in ev.targets),
        others=tuple(t for ev in evs for t in ev.others),
        suite=dict(suite),
        test_ids=tuple(t for ev in evs for t in ev.test_ids),
        changes=changes,
        findings=tuple(f for ev in evs for f in ev.findings),
        coarse=any(ev.coarse for ev in evs),
        removed=tuple(t for ev in evs for t in ev.removed),
        added=tuple(t for ev in evs for t in ev.added),
        projects=parts,
    )
