"""The audit's checks: each sees one commit and yields findings.

A check sees one commit (``tddgit.audit.checkview.CommitView``: the commit, the phase the
audit gave it, its files split by kind, the lineage state before it, its evidence) and
yields findings of the rules in ``tddgit.audit.ruleset``; what needs file contents waits
for a batch (``tddgit.audit.stubjudge``). ``test-after-fact`` keeps an index across commits
(``tddgit.audit.afterfact``). Each check is registered with when it can fire
(``tddgit.audit.registry``, where the detector rules' checks arrive with the detectors).
docs/rules.md explains each rule to users.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tddgit.audit.answercache import question
from tddgit.audit.checkview import CommitView, count, finding
from tddgit.audit.model import Finding
from tddgit.audit.registry import register_check
from tddgit.audit.state import in_scope, red_covers
from tddgit.audit.stubjudge import StubJudge, change_names
from tddgit.model import Commit, FileChange, Light, Outcome

if TYPE_CHECKING:
    from tddgit.audit.state import State
    from tddgit.evidence import Evidence


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
    if f.status == "D" or not c.parents:
        return True
    key = question("bends", c.sha, *change_names((f,)))
    known = stubs.answers.get(key)
    if known is not None:
        return known == "1"
    # imported only now: a warm audit has the answer and never parses a test
    from tddgit.audit.changes import changes_existing_checks
    from tddgit.blobs import as_text

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
