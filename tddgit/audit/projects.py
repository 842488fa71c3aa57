"""The audit of a repository of several projects (docs/monorepo.md): one lineage per project.

Each project gets its own ``Auditor`` (its classifier, its part of each evidence note) and
sees only its part of each commit; a commit it has no part in leaves its lineage as it was
(``Auditor.carry``). So a backend red is closed only by a backend green, and a commit that
touches two projects is a step in each. The report's records, cycles, episodes and findings
are then put back in history order, each cycle and finding naming its project, and
``parts`` gives each project's own for its metrics.

The projects are the repository's as they are now (its `projects:` configuration, else
those discovered in the index): discovering them again at every commit would cost a tree
read per commit, and a project's directory rarely moves. Merges, a shallow clone's boundary
and commits that touch no project's code are recorded once, on a lineage of their own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tddgit.audit.engine import Auditor
from tddgit.audit.model import CommitRecord, Cycle, Episode, Finding
from tddgit.audit.recording import summarise

if TYPE_CHECKING:
    from tddgit.blobs import BlobReader
    from tddgit.evidence import Evidence, EvidenceError
    from tddgit.model import Commit, FileChange
    from tddgit.paths import Classifier
    from tddgit.projects import Projects, Scope

    Note = Evidence | EvidenceError

_CODE = ("test", "production")


@dataclasses.dataclass(frozen=True)
class Part:
    """One project's share of the audit, for its metrics."""

    label: str
    records: Sequence[CommitRecord]
    findings: Sequence[Finding]
    cycles: Sequence[Cycle]
    episodes: Sequence[Episode]


class _ScopedNotes(Mapping[str, "Note"]):
    """The evidence notes as one project sees them: its own part of each."""

    def __init__(self, notes: Mapping[str, Note], scope: Scope) -> None:
        self._notes = notes
        self._scope = scope

    def __getitem__(self, sha: str) -> Note:
        note = self._notes[sha]
        from tddgit.evidence import EvidenceError

        if isinstance(note, EvidenceError):
            return note
        mine = note.of_project(self._scope)
        if mine is None:
            raise KeyError(sha)
        return mine

    def get(self, sha: str, default: Any = None) -> Any:
        try:
            return self[sha]
        except KeyError:
            return default

    def __iter__(self) -> Iterator[str]:
        return iter(self._notes)

    def __len__(self) -> int:
        return len(self._notes)


class _Lane:
    def __init__(self, label: str, classifier: Classifier, auditor: Auditor) -> None:
        self.label = label
        self.classifier = classifier
        self.auditor = auditor


class ProjectsAuditor:
    """``Auditor``'s interface (``feed``, ``finish``, ``records``, ``positions``,
    ``episodes``, ``agents``, ``tally``) over one lineage per project."""

    def __init__(
        self,
        projects: Projects,
        classifier_of: Callable[[Classifier], Classifier],
        notes: Mapping[str, Note],
        blobs: BlobReader,
        *,
        boundary: frozenset[str] = frozenset(),
        by_tree: Callable[[str, str], Evidence | None] | None = None,
        red_window: tuple[int, int],
        green_window: int,
    ) -> None:
        from tddgit.paths import Classifier

        def auditor(classifier: Classifier, scope: Scope | None) -> Auditor:
            tree = by_tree
            if scope is not None and by_tree is not None:
                tree = _scoped_tree(by_tree, scope)
            return Auditor(
                classifier,
                notes if scope is None else _ScopedNotes(notes, scope),
                blobs,
                boundary=boundary,
                by_tree=tree,
                red_window=red_window,
                green_window=green_window,
            )

        self._projects = projects
        self._lanes: list[_Lane] = []
        for p in projects.all:
            classifier = classifier_of(Classifier.from_config(p.config))
            self._lanes.append(_Lane(p.label, classifier, auditor(classifier, p.scope)))
        self._index = {p.dir: i for i, p in enumerate(projects.all)}
        outside = classifier_of(Classifier.from_config(projects.top))
        self._outside = _Lane("", outside, auditor(outside, None))
        self._notes = notes
        self._boundary = boundary
        self._lane_of: dict[str, int] = {}  # path -> its project's lane, -1: none
        # Each commit in history order: (its files, [(lane, position in its records)]).
        self._order: list[tuple[tuple[FileChange, ...], list[tuple[int, int]]]] = []
        self._positions: dict[str, int] = {}
        self.records: list[CommitRecord] = []
        self.episodes: list[Episode] = []
        self.agents: dict[str, str] = {}
        self._parts: list[Part] = []

    def _lane(self, path: str) -> int:
        at = self._lane_of.get(path)
        if at is None:
            project = self._projects.of(path)
            at = self._lane_of[path] = -1 if project is None else self._index[project.dir]
        return at

    def _auditor(self, lane: int) -> Auditor:
        return self._outside.auditor if lane < 0 else self._lanes[lane].auditor

    def prepare(self) -> None:
        """``Auditor.prepare`` of each project's lineage."""
        for lane in (*self._lanes, self._outside):
            lane.auditor.prepare()

    def feed(self, c: Commit) -> None:
        self._positions[c.sha] = len(self._order)
        taking: list[int] = []
        groups: dict[int, list[int]] = {}
        if len(c.parents) <= 1 and not (not c.parents and c.sha in self._boundary):
            for i, f in enumerate(c.files):
                groups.setdefault(self._lane(f.path), []).append(i)
            taking = self._taking(c, groups)
        if not taking:  # a merge, a boundary, or no project's code: its own lineage
            self._outside.auditor.feed(c)
            for lane in self._lanes:
                lane.auditor.carry(c)
            self._order.append((c.files, [(-1, len(self._outside.auditor.records) - 1)]))
            return
        self._outside.auditor.carry(c)
        entries = []
        for i, lane in enumerate(self._lanes):
            if i not in taking:
                lane.auditor.carry(c)
                continue
            own = groups[i]
            part = dataclasses.replace(
                c,
                files=tuple(c.files[k] for k in own),
                blobs=tuple(c.blobs[k] for k in own) if c.blobs else (),
            )
            lane.auditor.feed(part)
            entries.append((i, len(lane.auditor.records) - 1))
        self._order.append((c.files, entries))

    def _taking(self, c: Commit, groups: Mapping[int, Sequence[int]]) -> list[int]:
        """The projects ``c`` is a step of: those whose tests or code it changes (its
        evidence note, when it names projects, says which), else those it touches."""
        touched = sorted(i for i in groups if i >= 0)
        note = self._notes.get(c.sha) if self._notes else None
        parts = getattr(note, "projects", None)
        if parts:
            named = [i for i in touched if self._projects.all[i].dir in parts]
            if named:
                return named
        files = c.files
        code = [
            i
            for i in touched
            if any(self._lanes[i].classifier.kind(files[k].path).value in _CODE for k in groups[i])
        ]
        return code or touched

    def positions(self) -> dict[str, int]:
        return self._positions

    def tally(self) -> None:
        """The metrics count the combined records themselves."""
        return None

    def finish(self) -> tuple[list[Finding], list[Cycle]]:
        lanes = [*self._lanes, self._outside]
        finished = [lane.auditor.finish() for lane in lanes]
        pos = self._positions
        # Cycles: numbered again in the order of their reds, each naming its project.
        ranked = sorted(
            (
                (pos.get(cy.red, -1), n, cy)
                for n, (_, cycles) in enumerate(finished)
                for cy in cycles
            ),
            key=lambda t: (t[0], t[1]),
        )
        ids: dict[tuple[int, int], int] = {}
        cycles: list[Cycle] = []
        for new, (_, n, cy) in enumerate(ranked):
            ids[n, cy.id] = new
            label = lanes[n].label if n < len(self._lanes) else None
            cycles.append(dataclasses.replace(cy, id=new, project=label))
        # Findings: each project's tagged with it, in history order.
        found: list[tuple[int, Finding]] = []
        per_lane: list[list[Finding]] = []
        for n, (findings, _) in enumerate(finished):
            mine = []
            for f in findings:
                if n < len(self._lanes):
                    f = dataclasses.replace(f, data={**f.data, "project": lanes[n].label})
                mine.append(f)
                found.append((pos.get(f.commit, -1), f))
            per_lane.append(mine)
        found.sort(key=lambda t: t[0])
        self.records = [self._combined(files, entries, ids) for files, entries in self._order]
        episodes = [(pos.get(e.last, -1), e) for lane in lanes for e in lane.auditor.episodes]
        episodes.sort(key=lambda t: t[0])
        self.episodes = [e for _, e in episodes]
        for lane in lanes:
            self.agents.update(lane.auditor.agents)
        self._parts = [
            Part(
                lane.label,
                lane.auditor.records,
                per_lane[n],
                finished[n][1],
                lane.auditor.episodes,
            )
            for n, lane in enumerate(self._lanes)
        ]
        return [f for _, f in found], cycles

    def parts(self) -> list[Part]:
        """Each project's records, findings, cycles and episodes (after ``finish``)."""
        return self._parts

    def _combined(
        self,
        files: tuple[FileChange, ...],
        entries: Sequence[tuple[int, int]],
        ids: Mapping[tuple[int, int], int],
    ) -> CommitRecord:
        """One record of a commit from its projects' records: all its files, the phase of
        the first project that gave it one, each project's phase under ``projects``."""
        records = [(lane, self._auditor(lane).records[at]) for lane, at in entries]
        lane, chosen = next(((n, r) for n, r in records if r.phase is not None), records[0])
        if lane < 0:
            return chosen
        kinds_of = {
            f.path: k for _, r in records for f, k in zip(r.files, r.file_kinds, strict=False)
        }
        kinds = tuple(kinds_of.get(f.path) or self._kind(f.path) for f in files)
        note = self._notes.get(chosen.sha) if self._notes else None
        cycle = None if chosen.cycle is None else ids.get((lane, chosen.cycle))
        return dataclasses.replace(
            chosen,
            files=files,
            file_kinds=kinds,
            kind=_kind(kinds) if chosen.kind not in ("merge", "boundary") else chosen.kind,
            evidence=summarise(note) if note is not None else None,
            cycle=cycle,
            projects=tuple((self._lanes[n].label, r.phase) for n, r in records),
        )

    def _kind(self, path: str) -> str:
        return self._outside.classifier.kind(path).value


def _kind(kinds: tuple[str, ...]) -> str:
    if not kinds:
        return "empty"
    if "test" in kinds:
        return "mixed" if "production" in kinds else "test"
    return "production" if "production" in kinds else "other"


def _scoped_tree(
    by_tree: Callable[[str, str], Evidence | None], scope: Scope
) -> Callable[[str, str], Evidence | None]:
    def lookup(tree: str, phase: str) -> Evidence | None:
        found = by_tree(tree, phase)
        return None if found is None else found.of_project(scope)

    return lookup
