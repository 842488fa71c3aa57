"""The audit's one pass: each commit, parents before children, judged in O(its files).

For every commit: the kind of each file (cached by path), the phase and its source
(``tddgit.audit.phases``), the lineage state before it (its first parent's), the checks
of ``tddgit.audit.rules``, then the state after it, the cycle it belongs to and the
episode it extends or ends (``tddgit.audit.lineage``).
"""

from __future__ import annotations

import gc
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from tddgit.audit.afterfact import TestAfterIndex, placeholder
from tddgit.audit.answercache import MAX_VALUE, AnswerCache, question
from tddgit.audit.changes import adds_test_behaviour_many
from tddgit.audit.checkview import CommitView, count, finding
from tddgit.audit.importlines import pack, unpack
from tddgit.audit.imports import ImportResolver, drives_app
from tddgit.audit.lineage import Lineage, continues_green
from tddgit.audit.model import (
    PHASES,
    CommitRecord,
    Cycle,
    Episode,
    EvidenceSummary,
    Finding,
    Tally,
    TallyKey,
)
from tddgit.audit.naming import Key, imported_keys, module_key, production_key, test_key
from tddgit.audit.phases import (
    AGENT_KEY,
    TRAILER_KEY,
    leading_mark,
    match_message,
    reverted_commit,
    says_tests_after,
    trailer_phase,
)
from tddgit.audit.registry import active_checks, checks_for
from tddgit.audit.squash import KEY as SQUASH_KEY
from tddgit.audit.squash import squashed_steps
from tddgit.audit.state import ROOT, State, red_covers
from tddgit.audit.stubjudge import StubJudge
from tddgit.blobs import as_text
from tddgit.model import Commit, FileChange

# An inferred red lapses after this many steps on its lineage or this many seconds.
RED_WINDOW = (10, 14 * 86400)
# Commits with no phase looked back over for the code new tests were written after.
PREVIOUS_WINDOW = 3

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from tddgit.audit.rules import Check
    from tddgit.blobs import BlobReader
    from tddgit.evidence import Evidence, EvidenceError
    from tddgit.paths import Classifier


class RecordSink(Protocol):
    """Takes the records as the pass makes them (``tddgit.audit.spool.Spool``)."""

    def add(self, record: CommitRecord) -> None: ...

    def replace(self, index: int, record: CommitRecord) -> None: ...


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
        self._notes = notes
        # a trailer commit without a note: the evidence cached for its tree, if any (a
        # commit made with --no-verify after `--no-commit`, a copy git gave no note)
        self._by_tree = by_tree
        self._blobs = blobs
        self._read_text = blobs.text
        # the test files _test_only read for the commit being judged: test-after-fact
        # reads the same new test files again (sha, {path: text})
        self._texts: tuple[str, dict[str, str | None]] = ("", {})
        self._stubs = StubJudge(blobs, AnswerCache(blobs.repo.tddgit_dir))
        self._checks = active_checks()
        # (phase, has evidence or a trailer) -> the checks that can fire on such a commit
        self._checks_by: dict[tuple[str | None, bool], tuple[Check, ...]] = {}
        self._tests_after = TestAfterIndex()
        # what a test imports, resolved against the tree (an inferred red's scope)
        self._imports = ImportResolver(str(blobs.repo.git_dir))
        self._scope: frozenset[str] | None = None  # the scope of the red _phase just found
        # A shallow clone's boundary commits: git shows them without their parents, so
        # what they change is not known and they are not judged.
        self._boundary = boundary
        self.records: list[CommitRecord] = []
        self._index: dict[str, int] = {}  # sha -> position in records
        # For each record, the position of the nearest non-merge record on its first
        # parent's line (itself when it is no merge; -1: none), so that the walk back
        # of _tests_previous skips a run of merges in one step: on a history merged by
        # pull requests the first parent's line is mostly merges, and walking them one
        # by one made that walk as long as the history (a quarter of a warm sympy audit).
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
        self.agents: dict[str, str] = {}  # sha -> the model its GSD-Agent trailer names

    def prepare(self) -> None:
        """Load the answers of earlier audits now (while git walks the history)."""
        self._stubs.answers.load()

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
        phase, source, rule, attempt = self._phase(c, subject, tests, prods, before)
        note = self._notes.get(c.sha) if self._notes else None
        if note is None and source == "trailer" and phase and self._by_tree is not None:
            note = self._by_tree(c.tree, phase)
        view = CommitView(c, phase, source, attempt, tests, prods, before, note)
        index = len(self.records)
        found = self.findings
        after_fact: list[Finding] = []
        if tests or prods:
            after_fact = self._tests_after.observe(
                view, index, self._text_of, self._resolve, self._placeholder
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
            scope = self._scope if phase == "red" and source == "files" else None
            after = self._lineage.step(c, view, bool(after_fact), scope)
        elif attempt == "revert":
            after = self._undo(c, before)
        else:
            after = before
        cycle = None if phase is None else self._lineage.cycle_of(c.sha, phase, before, after)
        kind = _kind_of(kinds, tests, prods)
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
        kind = _kind_of(kinds, tests, prods)
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

    def _phase(
        self,
        c: Commit,
        subject: str,
        tests: tuple[FileChange, ...],
        prods: tuple[FileChange, ...],
        before: State,
    ) -> tuple[str | None, str, str | None, str | None]:
        """(phase, source, rule, attempt) of a non-merge commit."""
        if c.trailers:
            agent = c.trailer(AGENT_KEY)
            if agent:
                self.agents[c.sha] = agent.strip()
            declared = trailer_phase(c.trailer(TRAILER_KEY))
            if declared:
                return declared, "trailer", "trailer", None
        if reverted_commit(c.message):
            return None, "message", "revert", "revert"
        m = match_message(subject)
        if m is not None:
            if m.phase in PHASES:
                return m.phase, "message", m.rule, None
            if m.phase.startswith("tcr-"):
                return None, "message", m.rule, m.phase
            if m.phase == "red-if-tests" and any(f.status != "D" for f in tests):
                if prods:
                    return "red", "message", m.rule, None
                # a `test:` commit is red only when it checks something new
                judged = self._test_only(c, subject, tests)
                return ("red", "message", m.rule, None) if judged[0] == "red" else judged
            if m.phase == "green-if-red" and before.red is not None:
                return "green", "message", m.rule, None
        elif tests and not subject.isascii():
            mark = leading_mark(subject)
            if mark == "cross" and any(f.status != "D" for f in tests):
                return "red", "message", "cross-mark", None
            if mark == "check" and not prods and before.red is None:
                return None, "message", "test-after:message", None
        if tests and not prods and any(f.status != "D" for f in tests):
            return self._test_only(c, subject, tests)
        if prods and before.red is not None and red_covers(before, tuple(f.path for f in prods)):
            return "green", "files", "files:mixed" if tests else "files:production", None
        if prods and not tests and continues_green(before, tuple(f.path for f in prods)):
            return "green", "files", "files:green-continues", None
        return None, "none", None, None

    def _test_only(
        self, c: Commit, subject: str, tests: tuple[FileChange, ...]
    ) -> tuple[str | None, str, str | None, str | None]:
        """A commit that changes only tests: red when it adds or changes what they check
        and says nothing of tests written after the code (docs/audit.md)."""
        changed = [f for f in tests if f.status != "D"]
        # Whether the change adds test behaviour, answered by an earlier audit (then no
        # test file is read).
        key = question("tests", c.sha, *(f"{f.status}:{f.old_path or ''}:{f.path}" for f in tests))
        known = self._stubs.answers.get(key)  # "0", or "1" and the files' import lines
        if known == "0":
            self._texts = (c.sha, {})
            return None, "files", "files:tests-unchanged", None
        # what the rest reads of the texts: their import lines (tddgit.audit.importlines)
        texts = unpack(known[1:], [f.path for f in changed]) if known else None
        if texts is not None:
            self._texts = (c.sha, texts)
        else:  # "1" alone: it adds, but its import lines were too long to keep
            texts = self._judge_tests(c, tests, changed, key, known == "1")
            if texts is None:
                return None, "files", "files:tests-unchanged", None
        if says_tests_after(subject):
            return None, "message", "test-after:message", None
        if self._tests_previous(c, texts):
            return None, "files", "test-after:previous", None
        # its scope: what the tests import; none (any production) when they drive the
        # whole application through a test client or a browser
        self._scope = (
            frozenset()
            if any(drives_app(t) for t in texts.values())
            else frozenset().union(
                *(self._imports.resolve(p, t, self._is_production) for p, t in texts.items())
            )
        )
        return "red", "files", "files:test", None

    def _judge_tests(
        self,
        c: Commit,
        tests: tuple[FileChange, ...],
        changed: list[FileChange],
        key: str,
        adds: bool = False,
    ) -> dict[str, str | None] | None:
        """The changed test files' texts when the change adds test behaviour (``adds``:
        known to), else None; the answer is kept (with the import lines, when they are
        short enough) for the next audit."""
        wanted: list[tuple[str, str]] = []
        for f in changed:
            wanted.append((c.sha, f.path))
            if not adds and c.parents and f.status not in ("A", "C"):
                wanted.append((c.parents[0], f.old_path or f.path))
        blobs = dict(zip(wanted, self._blobs.read_many(wanted), strict=True))
        texts: dict[str, str | None] = {}
        self._texts = (c.sha, texts)
        versions: list[tuple[str, str | None, str | None]] = []
        for f in changed:
            new = as_text(blobs.get((c.sha, f.path)))
            texts[f.path] = new
            old = None
            if not adds and c.parents and f.status not in ("A", "C"):
                old = as_text(blobs.get((c.parents[0], f.old_path or f.path)))
            versions.append((f.path, old, new))
        if adds:
            # "1" alone was kept (import lines longer than an answer could be): keep them
            # now that they fit, so the next audit reads nothing
            self._stubs.answers.put(key, "1" + pack(texts))
            return texts
        # tests deleted in the same commit may have moved into the changed files
        for f in tests:
            if f.status == "D" and c.parents:
                wanted_old = as_text(self._blobs.read(c.parents[0], f.path))
                versions.append((f.path, wanted_old, ""))
        if not adds_test_behaviour_many(versions):
            self._stubs.answers.put(key, "0")
            return None
        value = "1" + pack(texts)
        self._stubs.answers.put(key, value if len(value) <= MAX_VALUE else "1")
        return texts

    def _text_of(self, sha: str, path: str) -> str | None:
        """A file's text at a commit, without reading again what ``_test_only`` read."""
        at, texts = self._texts
        if at == sha and path in texts:
            return texts[path]
        if self._kind(path) != "test":
            return self._read_text(sha, path)
        # A test file's text serves only its imports: kept as its import lines
        # (tddgit.audit.importlines) for the next audit, which then reads nothing.
        key = question("imports", sha, path)
        known = self._stubs.answers.get(key)
        found = unpack(known, [path]) if known is not None else None
        if found is not None:
            return found[path]
        text = self._read_text(sha, path)
        self._stubs.answers.put(key, pack({path: text}))
        return text

    def _placeholder(self, sha: str, path: str) -> bool:
        """Is the file an empty placeholder at ``sha`` (``afterfact.placeholder``)? Kept
        for the next audit, which then reads no production file for it."""
        key = question("placeholder", sha, path)
        known = self._stubs.answers.get(key)
        if known is not None:
            return known == "1"
        empty = placeholder(self._read_text(sha, path))
        self._stubs.answers.put(key, "1" if empty else "0")
        return empty

    def _resolve(self, path: str, text: str | None) -> frozenset[str]:
        return self._imports.resolve(path, text, self._is_production)

    def _is_production(self, path: str) -> bool:
        return (self._kinds.get(path) or self._kind(path)) == "production"

    def _tests_previous(self, c: Commit, texts: dict[str, str | None]) -> bool:
        """The tests import a module that one of the few commits just before (on the first
        parent's line, back to the last phase) changed with no phase: they were written
        after that code."""
        made: set[Key] = set()
        at = self._fp_step_of(c.parents)
        seen = 0
        while at >= 0 and seen < PREVIOUS_WINDOW:
            prev = self.records[at]  # no merge: merges are skipped by _fp_step
            if prev.phase is not None or prev.attempt is not None or prev.kind == "mixed":
                break  # a step, or code that came with its tests: the new tests are new
            seen += 1
            for f, k in zip(prev.files, prev.file_kinds, strict=True):
                if k == "production":
                    key = module_key(f.path)
                    if key is not None:
                        made.add(key)
            at = self._fp_step_of(prev.parents)
        if not made:
            return False
        for path, text in texts.items():
            family = (test_key(path) or production_key(path) or ("", ""))[1]
            if text and family and made & imported_keys(text, family):
                return True
        return False

    def _fp_step_of(self, parents: tuple[str, ...]) -> int:
        """The nearest non-merge record on the line of ``parents[0]`` (-1: none)."""
        at = self._index.get(parents[0]) if parents else None
        return -1 if at is None else self._fp_step[at]

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
        tally[_tally_key(rec)] -= 1
        key = _tally_key(self.records[i])
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
        self._fp_step.append(self._fp_step_of(c.parents) if kind == "merge" else index)
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
        self._stubs.answers.save()
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


def _tally_key(r: CommitRecord) -> TallyKey:
    return (r.author_email, r.phase, r.phase_source, r.attempt, r.kind)


def _kind_of(
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
