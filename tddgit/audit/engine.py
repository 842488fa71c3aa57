"""The audit's one pass: each commit, parents before children, judged in O(its files).

For every commit: the kind of each file (cached by path), the phase and its source
(``tddgit.audit.phasereader``), the lineage state before it (its first parent's), the checks
of ``tddgit.audit.rules``, then the state after it, the cycle it belongs to and the
episode it extends or ends (``tddgit.audit.lineage``).
"""

from __future__ import annotations

import gc
from dataclasses import replace
from typing import TYPE_CHECKING

from tddgit.audit.afterfact import TestAfterIndex
from tddgit.audit.answercache import AnswerCache, classifier_digest
from tddgit.audit.checkview import CommitView, count, finding
from tddgit.audit.imports import ImportResolver
from tddgit.audit.lineage import Lineage
from tddgit.audit.model import CommitRecord, Cycle, Episode, Finding, Tally, TallyKey
from tddgit.audit.phasereader import PhaseReader, nearest_step
from tddgit.audit.phases import reverted_commit
from tddgit.audit.recording import RecordSink, kind_of, summarise, tally_key
from tddgit.audit.registry import active_checks, checks_for
from tddgit.audit.squash import KEY as SQUASH_KEY
from tddgit.audit.squash import squashed_steps
from tddgit.audit.state import ROOT, State
from tddgit.audit.stubjudge import StubJudge
from tddgit.model import Commit, FileChange

# An inferred red lapses after this many steps on its lineage or this many seconds.
RED_WINDOW = (10, 14 * 86400)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from tddgit.audit.rules import Check
    from tddgit.blobs import BlobReader
    from tddgit.evidence import Evidence, EvidenceError
    from tddgit.paths import Classifier


class Auditor:
    """Feed commits in topological order (parents first), then call ``finish``."""

    def __init__(
        self,
        classifier: Classifier,
        notes: Mapping[str, Evidence | EvidenceError],
        blobs: BlobReader,
        *,
        boundary: frozenset[str] = frozenset(),
        sink: RecordSink | None = None,
        by_tree: Callable[[str, str], Evidence | None] | None = None,
        red_window: tuple[int, int] = RED_WINDOW,
        green_window: int = RED_WINDOW[0],
    ) -> None:
        # An inferred red (only its files said red) lapses after this many steps on its
        # lineage or this many seconds without a green (docs/audit.md).
        self._red_window = red_window
        self._lapsed: set[str] = set()
        self._classifier = classifier
        self._sink = sink  # gets each record as it is made, and any later replacement
        self._kinds: dict[str, str] = {}
        self._kinds_read = 0  # how many of them an earlier audit classified (prepare)
        self._notes = notes
        # a trailer commit without a note: the evidence cached for its tree, if any (a
        # commit made with --no-verify after `--no-commit`, a copy git gave no note)
        self._by_tree = by_tree
        self._stubs = StubJudge(blobs, AnswerCache(blobs.repo.tddgit_dir))
        self._checks = active_checks()
        # (phase, has evidence or a trailer) -> the checks that can fire on such a commit
        self._checks_by: dict[tuple[str | None, bool], tuple[Check, ...]] = {}
        self._tests_after = TestAfterIndex()
        # what a test imports, resolved against the tree (an inferred red's scope)
        self._imports = ImportResolver(str(blobs.repo.git_dir))
        # A shallow clone's boundary commits: git shows them without their parents, so
        # what they change is not known and they are not judged.
        self._boundary = boundary
        self.records: list[CommitRecord] = []
        self._index: dict[str, int] = {}  # sha -> position in records
        # For each record, the position of the nearest non-merge record on its first
        # parent's line (itself when it is no merge; -1: none), so that the walk back of
        # PhaseReader._tests_previous skips a run of merges in one step: on a history
        # merged by pull requests the first parent's line is mostly merges, and walking
        # them one by one made that walk as long as the history (a quarter of a warm
        # sympy audit).
        self._fp_step: list[int] = []
        self._found_at: list[int] = []  # the position of each finding's commit
        self._states: dict[str, State] = {}
        self.findings: list[Finding] = []
        self._lineage = Lineage(green_window)  # the cycles and episodes
        self.episodes: list[Episode] = self._lineage.episodes
        self._undone: set[str] = set()
        # The metrics' counts of the records, kept as they are made (``tally``).
        self._tally: dict[TallyKey, int] = {}
        self._noted: list[int] = []  # positions of the records with an evidence note
        # the phase of each commit, and the reads that decide it
        self._phases = PhaseReader(
            blobs,
            self._stubs.answers,
            self._imports,
            self._kind,
            self._kinds,
            self.records,
            self._index,
            self._fp_step,
        )
        self.agents: dict[str, str] = self._phases.agents  # sha -> its GSD-Agent's model

    def prepare(self) -> None:
        """Load the answers of earlier audits now (while git walks the history), and the
        kinds they gave the history's paths."""
        answers = self._stubs.answers
        answers.load()
        kinds = answers.kinds(classifier_digest(self._classifier))
        if kinds:
            self._kinds.update(kinds)
            self._kinds_read = len(self._kinds)

    # --- per commit ------------------------------------------------------------------

    def feed(self, c: Commit) -> None:
        # The hot loop of the audit (once per commit of the whole history): locals, no
        # intermediate copies, and the common cases tested first.
        before = self._before(c)
        if len(c.parents) > 1:
            self._record(c, c.subject, None, "none", None, "merge", (), None, None)
            self._states[c.sha] = before
            return
        if not c.parents and self._boundary and c.sha in self._boundary:
            self._record(
                replace(c, files=()), c.subject, None, "none", None, "boundary", (), None, None
            )
            self._states[c.sha] = ROOT
            return
        if before.red is not None and before.red_inferred:
            before = self._lapse(c, before)
        files = c.files
        tests: tuple[FileChange, ...] = ()
        prods: tuple[FileChange, ...] = ()
        known = self._kinds
        if len(files) == 1:  # most commits
            only = known.get(files[0].path) or self._kind(files[0].path)
            kinds: tuple[str, ...] = (only,)
            if only == "test":
                tests = files
            elif only == "production":
                prods = files
        elif files:
            kinds = tuple([known.get(f.path) or self._kind(f.path) for f in files])
            if "test" in kinds:
                tests = tuple([f for f, k in zip(files, kinds, strict=True) if k == "test"])
            if "production" in kinds:
                prods = tuple([f for f, k in zip(files, kinds, strict=True) if k == "production"])
        else:
            kinds = ()
        if prods:
            self._imports.saw(c.parents, prods)
        subject = c.subject
        if SQUASH_KEY in c.message:
            steps = squashed_steps(c.message)
            if steps:
                self._squashed(c, steps, tests, prods, kinds, before)
                return
        phases = self._phases
        phase, source, rule, attempt = phases.phase(c, subject, tests, prods, before)
        note = self._notes.get(c.sha) if self._notes else None
        if note is None and source == "trailer" and phase and self._by_tree is not None:
            note = self._by_tree(c.tree, phase)
        view = CommitView(c, phase, source, attempt, tests, prods, before, note)
        index = len(self.records)
        found = self.findings
        after_fact: list[Finding] = []
        if tests or prods:
            after_fact = self._tests_after.observe(
                view, index, phases.text_of, phases.resolve, phases.is_placeholder
            )
        if after_fact:
            found.extend(after_fact)
            self._found_at += [index] * len(after_fact)
            if source == "files" and phase == "red":
                # a test written for code that already exists is not a red step
                phase, source, rule = None, "none", None
                view = view._replace(phase=None, source="none")
        stubs = self._stubs
        proven = note is not None or source == "trailer"
        checks = self._checks_by.get((phase, proven))
        if checks is None:
            checks = self._checks_by[phase, proven] = checks_for(self._checks, phase, proven)
        for check in checks:
            hits = check(view, stubs)
            if hits:
                found.extend(hits)
                self._found_at += [index] * len(hits)
        if attempt is None or attempt == "tcr-pass":
            scope = phases.scope if phase == "red" and source == "files" else None
            after = self._lineage.step(c, view, bool(after_fact), scope)
        elif attempt == "revert":
            after = self._undo(c, before)
        else:
            after = before
        cycle = None if phase is None else self._lineage.cycle_of(c.sha, phase, before, after)
        kind = kind_of(kinds, tests, prods)
        self._record(c, subject, phase, source, rule, kind, kinds, attempt, note, cycle)
        self._states[c.sha] = after
        if stubs.settled:  # a batch of stub candidates was judged during this commit
            at = self._index
            found.extend(stubs.settled)
            self._found_at += [at.get(f.commit, -1) for f in stubs.settled]
            stubs.settled.clear()

    def carry(self, c: Commit) -> None:
        """``c`` takes no step on this lineage (in a repository of several projects, it
        is another project's: ``tddgit.audit.projects``): what is open after it is what
        was open before it."""
        self._states[c.sha] = self._before(c)

    def _squashed(
        self,
        c: Commit,
        steps: tuple[str, ...],
        tests: tuple[FileChange, ...],
        prods: tuple[FileChange, ...],
        kinds: tuple[str, ...],
        before: State,
    ) -> None:
        """A squash merge (``tddgit.audit.squash``): the lineage goes through each squashed
        step in order; the per-step checks do not run (the commit holds every step's files
        at once), a ``squashed-steps`` note says so."""
        note = self._notes.get(c.sha) if self._notes else None
        state, cycle = before, None
        for phase in steps:
            view = CommitView(
                c, phase, "trailer", None,
                tests if phase == "red" else (), prods if phase != "red" else (),
                state, note,
            )  # fmt: skip
            after = self._lineage.step(c, view, False)
            at = self._lineage.cycle_of(c.sha, phase, state, after)
            cycle = at if cycle is None else cycle
            state = after
        said = [
            finding(
                "squashed-steps",
                c.sha,
                f"squashes {len(steps)} steps ({' → '.join(steps)}); read from its message",
                data={"steps": list(steps)},
            )
        ]
        if note is None:
            said.append(
                finding("missing-evidence", c.sha, "a squash merge without a tddgit evidence note")
            )
        self.findings.extend(said)
        self._found_at += [len(self.records)] * len(said)
        kind = kind_of(kinds, tests, prods)
        self._record(c, c.subject, steps[-1], "trailer", "squash", kind, kinds, None, note, cycle)
        self._states[c.sha] = state

    def _before(self, c: Commit) -> State:
        if not c.parents:
            return ROOT
        return self._states.get(c.parents[0], ROOT)

    def _kind(self, path: str) -> str:
        kind = self._kinds.get(path)
        if kind is None:
            kind = self._classifier.kind(path).value
            self._kinds[path] = kind
        return kind

    def _lapse(self, c: Commit, before: State) -> State:
        """``before`` without its inferred red when the red has outlived its window: the
        red is reported once (``red-lapsed``) and opens no more greens or refactors."""
        steps, seconds = self._red_window
        red = before.red
        assert red is not None
        age = c.committer_time - before.red_time
        if before.red_steps < steps and age <= seconds:
            return before
        if red not in self._lapsed:
            self._lapsed.add(red)
            self.findings.append(
                finding(
                    "red-lapsed",
                    red,
                    f"red inferred from its test files never went green within "
                    f"{count(steps, 'commit')} or {seconds // 86400} days: it lapsed",
                    files=tuple(sorted(before.red_tests))[:10],
                    data={"steps": before.red_steps, "seconds": max(0, age)},
                )
            )
            self._found_at.append(self._index.get(red, len(self.records)))
            if before.cycle >= 0:
                cb = self._lineage.cycles[before.cycle]
                if cb.green is None:
                    cb.superseded = True
                    cb.sync()
        return before._replace(red=None, red_tests=frozenset(), red_inferred=False, red_steps=0)

    def _undo(self, c: Commit, before: State) -> State:
        """A revert: its target becomes an undone attempt; an immediate revert also
        restores the lineage state from before the target."""
        target = reverted_commit(c.message)
        i = self.positions().get(target or "")
        if i is None:
            return before
        rec = self.records[i]
        self.records[i] = replace(rec, phase=None, attempt="undone", cycle=None)
        if self._sink is not None:
            self._sink.replace(i, self.records[i])
        tally = self._tally
        tally[tally_key(rec)] -= 1
        key = tally_key(self.records[i])
        tally[key] = tally.get(key, 0) + 1
        self._undone.add(rec.sha)
        self._lineage.undo(rec.sha)
        if c.parents and c.parents[0] == rec.sha:
            return self._states.get(rec.parents[0], ROOT) if rec.parents else ROOT
        return before

    def _record(
        self,
        c: Commit,
        subject: str,
        phase: str | None,
        source: str,
        rule: str | None,
        kind: str,
        kinds: tuple[str, ...],
        attempt: str | None,
        note: Evidence | EvidenceError | None,
        cycle: int | None = None,
    ) -> None:
        index = self._index[c.sha] = len(self.records)
        key = (c.author_email, phase, source, attempt, kind)
        self._tally[key] = self._tally.get(key, 0) + 1
        if note is not None:
            self._noted.append(index)
        record = CommitRecord.fast(
            sha=c.sha,
            parents=c.parents,
            author_name=c.author_name,
            author_email=c.author_email,
            time=c.author_time,
            subject=subject,
            phase=phase,
            phase_source=source,
            rule=rule,
            kind=kind,
            files=c.files,
            file_kinds=kinds,
            attempt=attempt,
            evidence=summarise(note) if note is not None else None,
            cycle=cycle,
        )
        self.records.append(record)
        self._fp_step.append(
            nearest_step(self._index, self._fp_step, c.parents) if kind == "merge" else index
        )
        if self._sink is not None:
            self._sink.add(record)

    def positions(self) -> dict[str, int]:
        """sha -> position in ``records`` (kept as the pass goes: while a record is being
        made its data is at hand, after the pass a lookup per record costs a cache miss)."""
        return self._index

    def tally(self) -> Tally:
        """What the metrics count of the records, counted as the pass made them."""
        return Tally(
            {k: n for k, n in self._tally.items() if n},
            [self.records[i] for i in self._noted],
            self._lineage.episode_kinds,
            self._lineage.durations,
        )

    # --- the end ---------------------------------------------------------------------

    def finish(self) -> tuple[list[Finding], list[Cycle]]:
        # In history order, but for stub batches settled on the way and deferred work:
        # sorted by the position of each finding's commit (a stable sort, in C).
        later = self._stubs.resolve()
        answers = self._stubs.answers
        if len(self._kinds) > self._kinds_read:  # paths classified for the first time
            answers.keep_kinds(classifier_digest(self._classifier), self._kinds)
        answers.save()
        found = self.findings + later
        keys = self._found_at + [self._index.get(f.commit, -1) for f in later]
        found = [found[i] for i in sorted(range(len(found)), key=keys.__getitem__)]
        undone = self._undone
        findings = [f for f in found if f.commit not in undone] if undone else found
        cycles = [cb.cycle for cb in self._lineage.cycles if not cb.removed]
        if not gc.isenabled():
            # The audit runs its pass with the cyclic GC off (``run_audit``): the records
            # live until the report is written and hold no reference cycles. Frozen, the
            # collector never walks them once it is back on; otherwise its first runs
            # after the pass would walk millions of objects (0.2 s and more at 100k).
            gc.freeze()
        return findings, cycles
