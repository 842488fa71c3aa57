"""The audit's checks: each sees one commit and yields findings.

A check sees one commit (``CommitView``: the commit, the phase the audit gave it, its
files split by kind, the lineage state before it, its evidence) and yields findings of
the rules in ``tddgit.audit.ruleset``. ``test-after-fact`` keeps an index across commits
(``tddgit.audit.afterfact``). Each check is registered with when it can fire
(``tddgit.audit.registry``, where the detector rules' checks arrive with the detectors).
docs/rules.md explains each rule to users.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from tddgit.audit.answercache import AnswerCache, question
from tddgit.audit.model import Finding
from tddgit.audit.registry import register_check
from tddgit.audit.ruleset import RULES
from tddgit.audit.state import in_scope, red_covers
from tddgit.model import Commit, FileChange, Light, Outcome

if TYPE_CHECKING:
    from tddgit.audit.state import State
    from tddgit.blobs import BlobReader
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


class Deferred(Protocol):
    """A check's work that waits for the end of the pass (to read blobs in one batch)."""

    def resolve(self) -> list[Finding]: ...


STUB_BATCH = 256
# Files of the pending candidates at most: their blobs (old and new, up to 512 KB each)
# are held together while the batch is judged, and one reformat of a big project touches
# thousands (peak RSS, issue 27 item 9).
STUB_BATCH_FILES = 512
# Outside a red, a modified file up to this size is judged for stubs (a version string, a
# declaration); a longer one that adds code is code: parsing every long module of a real
# history would break the audit's speed budget.
STUB_JUDGED_BYTES = 30_000  # stub candidates judged together (one pipelined read of their blobs)


class StubJudge:
    """Does a change add real production code, or only stubs? (Python files by AST, JS/TS
    by the detectors' tokenizer.)

    Judging needs file contents, so candidates are collected during the pass and judged
    together at the end (``resolve``), their blobs read in one pipelined batch.
    """

    def __init__(self, blobs: BlobReader, answers: AnswerCache | None = None) -> None:
        self.blobs = blobs
        # answers of earlier audits (tddgit.audit.answercache): a judged change is not read
        self.answers = answers if answers is not None else AnswerCache(None)
        # (commit, changed files, where, files it deleted or renamed: code may move from them)
        self._pending: list[tuple[Commit, tuple[FileChange, ...], str, tuple[FileChange, ...]]] = []
        self._pending_files = 0  # the files of _pending's changes
        self.settled: list[Finding] = []  # findings of batches judged during the pass
        self._later: dict[str, Deferred] = {}

    def defer(
        self,
        commit: Commit,
        changes: tuple[FileChange, ...],
        where: str,
        gone: tuple[FileChange, ...] = (),
    ) -> None:
        """Judge ``changes`` later: with a batch of others, during the pass (their blob
        reads then overlap with git's stream; the findings wait in ``settled`` for the
        pass to take them), or at the end (``resolve``)."""
        self._pending.append((commit, changes, where, gone))
        self._pending_files += len(changes) + len(gone)
        if len(self._pending) >= STUB_BATCH or self._pending_files >= STUB_BATCH_FILES:
            self.settled += self._resolve_stubs()

    def later(self, key: str, make: Callable[[BlobReader], Deferred]) -> Deferred:
        """This audit's instance of another check's deferred work (made on first use)."""
        found = self._later.get(key)
        if found is None:
            found = self._later[key] = make(self.blobs)
        return found

    def resolve(self) -> list[Finding]:
        """The findings of all deferred work not yet taken: stubs first, then the other
        checks'."""
        out = self.settled + self._resolve_stubs()
        self.settled = []
        for work in self._later.values():
            out += work.resolve()
        self._later.clear()
        return out

    def _resolve_stubs(self) -> list[Finding]:
        """The ``pre-test-code`` findings of every deferred candidate."""
        answers = self.answers
        known: list[str | None] = []  # the first non-stub line of each ("": none)
        keys: list[str] = []
        wanted: list[tuple[str, str]] = []
        for c, changes, where, gone in self._pending:
            key = question("stubs", c.sha, where, *_names(changes), "", *_names(gone))
            keys.append(key)
            found = answers.get(key)
            known.append(found)
            if found is not None:
                continue
            for f in _judged(changes):
                wanted.append((c.sha, f.path))
                if c.parents and f.status in ("M", "R", "C", "T"):
                    wanted.append((c.parents[0], f.old_path or f.path))
            if c.parents:
                wanted += [(c.parents[0], f.old_path or f.path) for f in gone]
        blobs = dict(zip(wanted, self.blobs.read_many(wanted), strict=True))
        out = []
        for (c, changes, where, gone), key, found in zip(self._pending, keys, known, strict=True):
            if found is None:
                lines = _non_stub(c, changes, blobs, gone, where)
                answers.put(key, lines[0] if lines else "")
            else:
                lines = [found] if found else []
            if lines:
                out.append(
                    finding(
                        "pre-test-code",
                        c.sha,
                        f"{where} production code with no failing test: {lines[0]}",
                        files=tuple(f.path for f in changes),
                    )
                )
        self._pending.clear()
        self._pending_files = 0
        return out


def _names(files: tuple[FileChange, ...]) -> list[str]:
    """The files of a question, as its key names them (status, old path, path)."""
    return [f"{f.status}:{f.old_path or ''}:{f.path}" for f in files]


def _is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _is_js(path: str) -> bool:
    return path.endswith((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"))


def _judged(changes: tuple[FileChange, ...]) -> list[FileChange]:
    """The files of a change whose contents are read to judge it (all of them: whether a
    change adds code at all is read from any language's lines)."""
    return list(changes)


def _non_stub(
    c: Commit,
    changes: tuple[FileChange, ...],
    blobs: dict[tuple[str, str], bytes | None],
    gone: tuple[FileChange, ...] = (),
    where: str = "",
) -> list[str]:
    from tddgit.audit.changes import adds_code, lines_of, only_stubs
    from tddgit.audit.stubunits import non_stub_additions_py
    from tddgit.audit.typingonly import same_at_runtime
    from tddgit.blobs import as_text
    from tddgit.detectors.jsstubs import non_stub_additions_js

    # Lines the commit's other files had before: code moved between files is not new.
    elsewhere: set[str] = set()
    if c.parents and (gone or len(changes) > 1):
        for f in (*changes, *gone):
            if f.status != "A":
                elsewhere |= lines_of(as_text(blobs.get((c.parents[0], f.old_path or f.path))))
    for f in changes:
        is_js = _is_js(f.path)
        new = as_text(blobs.get((c.sha, f.path)))
        if new is None:
            return [f"{f.path}: unreadable or too large to judge"]
        old = None
        if c.parents and f.status in ("M", "R", "C", "T"):
            old = as_text(blobs.get((c.parents[0], f.old_path or f.path)))
        if not adds_code(old, new, f.path, elsewhere):
            continue  # deletions, comments, docstrings, annotations: no code added
        if not _is_python(f.path) and only_stubs(old, new):
            continue  # declarations and stubs, line by line (C#, Kotlin, Java, JS, Go ...)
        if not is_js and not _is_python(f.path):
            return [f"{f.path}: production code"]  # stubs are judged for Python and JS/TS
        if where == "adds" and f.status != "A" and len(new) > STUB_JUDGED_BYTES:
            lines = [f"{f.path}: production code"]
        else:
            with warnings.catch_warnings():  # old code's invalid escapes warn when parsed
                warnings.simplefilter("ignore")
                judge = non_stub_additions_js if is_js else non_stub_additions_py
                lines = judge(old, new, f.path)
        # Typing and exception chaining change no behaviour (a refactor): asked last, of
        # the files that would be found only (tddgit.audit.typingonly).
        if lines and not (not is_js and same_at_runtime(old, new, f.path)):
            return lines
    return []


# A check returns its findings (usually none: an empty tuple, the fast path).
Check = Callable[[CommitView, StubJudge], Sequence[Finding]]
_NONE: tuple[Finding, ...] = ()


def check_pre_test_code(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    """Candidates only: the stub judgement needs blobs, so it is deferred (``resolve``)."""
    if v.attempt not in (None, "tcr-pass") or v.phase in ("green", "refactor"):
        return _NONE
    if v.phase != "red" and (
        v.tests or (v.before.red and red_covers(v.before, tuple(f.path for f in v.prods)))
    ):
        return _NONE
    # Deletions add nothing; renames and copies (R/C) move code that already existed.
    changed = tuple(f for f in v.prods if f.status in ("A", "M", "T"))
    if not changed:
        return _NONE
    gone = tuple(f for f in v.prods if f.status in ("D", "R"))
    if v.phase == "red":
        stubs.defer(v.commit, changed, "a red step adds", gone)  # the gate: stubs allowed
        return _NONE
    # Judged from both versions of each file, with the others of its batch: a change that
    # only deletes, or only touches comments, docstrings or annotations adds no code
    # (tddgit.audit.changes), and stubs are allowed as in a red.
    stubs.defer(v.commit, changed, "adds", gone)
    return _NONE


def check_green_without_red(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    if v.phase != "green" or v.before.red is not None:
        return _NONE
    if v.source == "files" and v.before.green_left > 0:
        return _NONE  # a green made over several commits (tddgit.audit.lineage)
    return (
        finding(
            "green-without-red",
            v.sha,
            f"declares green ({v.source}) but no red is open on its lineage",
            files=tuple(f.path for f in v.prods),
        ),
    )


def check_test_edited_in_green(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    red = v.before.red
    if v.phase != "green" or red is None or not v.tests:
        return _NONE
    edited = tuple(
        f.path
        for f in v.tests
        if f.status != "A"
        and (f.old_path or f.path) in v.before.red_tests
        and _bends(v.commit, f, stubs)
    )
    if not edited:
        return _NONE
    more = f" and {len(edited) - 1} more" if len(edited) > 1 else ""
    return (
        finding(
            "test-edited-in-green",
            v.sha,
            f"green changes the red's test file {edited[0]}{more}",
            related=(red,),
            files=edited,
        ),
    )


def _bends(c: Commit, f: FileChange, stubs: StubJudge) -> bool:
    """Does a green's change to its red's test file alter or remove a check the test had
    (new cases beside them bend nothing)? Kept for the next audit (``stubs.answers``)."""
    from tddgit.audit.changes import changes_existing_checks
    from tddgit.blobs import as_text

    if f.status == "D" or not c.parents:
        return True
    key = question("bends", c.sha, *_names((f,)))
    known = stubs.answers.get(key)
    if known is not None:
        return known == "1"
    blobs = stubs.blobs
    old = as_text(blobs.read(c.parents[0], f.old_path or f.path))
    bent = changes_existing_checks(old, as_text(blobs.read(c.sha, f.path)), f.path)
    stubs.answers.put(key, "1" if bent else "0")
    return bent


def _refactor_binds(before: State, files: tuple[str, ...]) -> bool:
    """Is a refactor made while ``before.red`` is open a refactor *under* that red? Always
    for a declared or proven red; for an inferred one only when it touches the production
    the red's tests import (its scope) — a red whose tests import none of the project's
    (an outer-loop functional test) leaves refactors under green unit tests alone."""
    scope = before.red_scope
    return scope is None or (bool(scope) and in_scope(scope, files))


def check_refactor(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    if v.phase != "refactor":
        return _NONE
    out = []
    files = tuple(f.path for f in (*v.tests, *v.prods))
    if v.before.red is not None and _refactor_binds(v.before, files):
        out.append(
            finding(
                "refactor-while-red",
                v.sha,
                f"refactor while the red of {v.before.red[:12]} is still open",
                related=(v.before.red,),
                files=files,
            )
        )
    if v.tests and v.prods:
        out.append(
            finding(
                "refactor-changes-tests",
                v.sha,
                f"refactor changes {count(len(v.tests), 'test file')} and "
                f"{count(len(v.prods), 'production file')} in one step",
                files=files,
            )
        )
    return out


def check_tests_removed(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    """A step whose evidence lists removed test ids (a test-side refactor)."""
    ev = v.evidence
    removed = getattr(ev, "removed", ())
    if not removed:
        return _NONE
    more = f" (and {len(removed) - 1} more)" if len(removed) > 1 else ""
    added = getattr(ev, "added", ())
    return (
        finding(
            "tests-removed",
            v.sha,
            f"{v.phase or 'the step'} removes the test {removed[0]}{more}",
            files=tuple(sorted({t.split("::", 1)[0] for t in removed}))[:10],
            data={"removed": list(removed), "added": list(added)},
        ),
    )


def check_evidence(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    ev = v.evidence
    if ev is None:
        if v.source != "trailer":
            return _NONE
        return (
            finding(
                "missing-evidence",
                v.sha,
                f"declares {v.phase} in its GSD-Phase trailer but has no tddgit evidence note",
            ),
        )
    from tddgit.evidence import EvidenceError

    if isinstance(ev, EvidenceError):
        return (finding("evidence-contradiction", v.sha, f"the evidence note is invalid: {ev}"),)
    reasons = evidence_problems(ev, v.commit.tree, v.phase)
    if not reasons:
        return _NONE
    more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
    return (
        finding(
            "evidence-contradiction",
            v.sha,
            reasons[0] + more,
            files=tuple(sorted({t.id.split("::", 1)[0] for t in ev.targets}))[:10],
            data={"reasons": reasons},
        ),
    )


def evidence_problems(ev: Evidence, tree: str, phase: str | None) -> list[str]:
    """Why a (valid) evidence note does not support the commit it is attached to."""
    out: list[str] = []
    if ev.phase != phase:
        out.append(f"evidence says {ev.phase} but the commit is {phase or 'not a phase step'}")
    if ev.tree != tree:
        out.append(f"evidence was recorded for tree {ev.tree[:12]}, the commit has {tree[:12]}")
    if ev.phase == "red" and ev.coarse:
        # The exit code only (the command runner): the red proves that the test command
        # failed, no more -- what its gate said it proves (gates/gate.py `_coarse_note`).
        if all(t.outcome in (Outcome.PASSED, Outcome.XPASSED) for t in (*ev.targets, *ev.others)):
            out.append("red evidence shows the test command passing")
    elif ev.phase == "red":
        if not ev.targets:
            out.append("red evidence names no target test")
        for t in ev.targets:
            if t.light is not Light.RED:
                why = t.cause.value if t.cause else t.outcome.value
                out.append(f"red target {t.id} did not fail for the right reason ({why})")
    elif ev.phase == "green":
        for t in ev.targets:
            if t.outcome not in (Outcome.PASSED, Outcome.XPASSED):
                out.append(f"green target {t.id} did not pass ({t.outcome.value})")
    return out


register_check(check_pre_test_code, phases=(None, "red"))
register_check(check_green_without_red, phases=("green",))
register_check(check_test_edited_in_green, phases=("green",))
register_check(check_refactor, phases=("refactor",))
register_check(check_evidence, evidence=True)
register_check(check_tests_removed, phases=("refactor",), evidence=True)


def count(n: int, noun: str) -> str:
    """``1 commit``, ``7 commits`` (kept here: the audit's compiled modules import no
    console code)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
