"""The agent guard's behaviour check of a refactor candidate (issue 31 item 3).

A refactor candidate (production changed with no red open) is kept when the affected
tests pass and every added line ran. A line can run and still change behaviour no test
pins: `return a + b` → `return a + b if b != 7 else 0`. Here the changed lines are
mutated, only where the change touched them (a span whose text is what it was is the old
code, pinned or not before this change), and each mutant runs against the test files
that passed in the guard's own run, on a snapshot of the work tree (never in it):

- killed: a test demands what the change wrote there;
- survived, and the same mutation of the previous version (the same operator on the span
  the change came from) is killed by the same tests: the change made that behaviour
  unpinned;
- survived, and the span is new (nothing it came from): no test demands the new code;
- survived, and the previous version's mutant survives too: it was unpinned before, not
  this change's doing; not told.

Bounded: at most ``mutation.per_line`` mutants a changed line, ``MAX_MUTANTS`` in all,
started within ``mutation.budget`` seconds, on ``mutation.jobs`` snapshots, cached by
(tree, file, line, operator, mutated file, tests) as the gate's are.
"""

from __future__ import annotations

import bisect
import difflib
from dataclasses import dataclass
from functools import cached_property

from tddgit.config import Config
from tddgit.git import Repo
from tddgit.model import Light, RunResult
from tddgit.mutation import operators
from tddgit.mutation.operators import Candidate, Mutant, line_offsets
from tddgit.mutation.run import KILLED, SURVIVED, Job, run_jobs

RULE = "refactor-unpinned"
MAX_MUTANTS = 8
# operators whose replacement is written from the span's own text: the same mutation on a
# renamed span has another replacement text
_FROM_TEXT = frozenset({"negate-condition", "delete-statement"})


@dataclass(frozen=True)
class Unpinned:
    mutant: Mutant
    tests: tuple[str, ...]
    before: str  # "killed": the previous version's same mutant was killed; "": a new span


@dataclass(frozen=True)
class Verdict:
    unpinned: tuple[Unpinned, ...]
    note: str  # what ran ("" when nothing was mutated)


def check_refactor(
    repo: Repo,
    config: Config,
    path: str,
    old: bytes | None,
    new: bytes,
    result: RunResult,
    executed: frozenset[int] | None = None,
) -> Verdict:
    """Mutate the lines of ``path`` the change from ``old`` to ``new`` touched (and a test
    ran: ``executed``); ``result`` is the guard's run of the affected tests."""
    nothing = Verdict((), "")
    per_line = int(config.get("mutation.per_line"))
    if not path.endswith(".py") or per_line <= 0:
        return nothing
    try:
        old_src = (old or b"").decode("utf-8")
        new_src = new.decode("utf-8")
    except UnicodeDecodeError:
        return nothing
    tests = tuple(
        sorted({t.file or t.id.partition("::")[0] for t in result.tests if t.light is Light.GREEN})
    )
    if not tests:
        return nothing
    diff = _Diff(old_src, new_src)
    lines = diff.changed_lines()
    if executed is not None:
        lines &= set(executed)
    planned = _plan(path, diff, operators.candidates(new_src, lines), per_line)
    if not planned:
        return nothing
    from tddgit.staged import work_tree_tree

    tree = work_tree_tree(repo)
    if tree is None:
        return Verdict((), "mutation: the work tree could not be snapshotted; not checked")
    budget = float(config.get("mutation.budget"))
    timeout = min(float(config.timeout), max(10.0, 3 * result.duration))
    jobs = [Job(m, tests) for m, _ in planned]

    def run(batch_jobs: list[Job]) -> dict[int, str]:
        batch = run_jobs(
            repo,
            config,
            tree,
            batch_jobs,
            budget=budget,
            workers=int(config.get("mutation.jobs")),
            per_mutant_timeout=timeout,
        )
        order = {id(j): n for n, j in enumerate(batch_jobs)}
        return {order[id(r.job)]: r.status for r in batch.results}

    status = run(jobs)
    survivors = [n for n, s in status.items() if s == SURVIVED]
    again = [(n, planned[n][1]) for n in survivors if planned[n][1] is not None]
    before_status = run([Job(m, tests) for _, m in again if m is not None]) if again else {}
    before = {n: before_status.get(k) for k, (n, _) in enumerate(again)}
    unpinned = []
    for n in sorted(survivors):
        mutant, counterpart = planned[n]
        if counterpart is None:
            unpinned.append(Unpinned(mutant, tests, ""))
        elif before.get(n) == KILLED:
            unpinned.append(Unpinned(mutant, tests, KILLED))
    killed = sum(1 for s in status.values() if s == KILLED)
    note = f"mutation: {killed} of {len(status)} mutants of the changed lines killed"
    if len(status) < len(jobs):
        note += f" ({len(status)} of {len(jobs)} run within the budget)"
    return Verdict(tuple(unpinned), note)


def _plan(
    path: str, diff: _Diff, found: list[Candidate], per_line: int
) -> list[tuple[Mutant, Mutant | None]]:
    """The mutants of the spans the change touched, each with the same mutation of the
    previous version (None: the span is new)."""
    old_found: list[Candidate] | None = None
    planned: list[tuple[Mutant, Mutant | None]] = []
    made: dict[int, int] = {}
    for c in found:
        if len(planned) >= MAX_MUTANTS:
            break
        if made.get(c.line, 0) >= per_line:
            continue
        start, end = diff.to_old(c.start), diff.to_old(c.end)
        if (
            start is not None
            and end is not None
            and diff.old[start:end] == diff.new[c.start : c.end]
        ):
            continue  # the old code, untouched by the change
        mutant = operators.apply(path, diff.new, c)
        if mutant is None:
            continue
        if old_found is None:
            old_found = diff.old_candidates()
        same = _counterpart(diff, c, start, end, old_found)
        counterpart = operators.apply(path, diff.old, same) if same is not None else None
        planned.append((mutant, counterpart))
        made[c.line] = made.get(c.line, 0) + 1
    return planned


def _counterpart(
    diff: _Diff, c: Candidate, start: int | None, end: int | None, old: list[Candidate]
) -> Candidate | None:
    """The same mutation of the previous version: the same operator on the span the
    change came from; else (the character alignment moved it: `return a - b` →
    `d = a - b`) the same operator and text in the lines the hunk replaced."""
    alike = [
        o
        for o in old
        if o.operator == c.operator and (o.replacement == c.replacement or c.operator in _FROM_TEXT)
    ]
    for o in alike:
        if (o.start, o.end) == (start, end):
            return o
    lines = diff.old_lines_of(c.line)
    text = diff.new[c.start : c.end]
    for o in alike:
        if o.line in lines and diff.old[o.start : o.end] == text:
            return o
    return None


class _Diff:
    """Where each character of the new text came from: git-like line hunks, then the
    characters within a hunk."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new
        self.old_lines = old.splitlines(keepends=True)
        self.new_lines = new.splitlines(keepends=True)
        self.old_at = line_offsets(self.old_lines)
        self.new_at = line_offsets(self.new_lines)
        matcher = difflib.SequenceMatcher(a=self.old_lines, b=self.new_lines, autojunk=False)
        self.hunks = matcher.get_opcodes()
        self._chars: dict[int, list[tuple[str, int, int, int, int]]] = {}

    def changed_lines(self) -> set[int]:
        """1-based lines of the new text that a hunk replaced or inserted."""
        out: set[int] = set()
        for tag, _i1, _i2, j1, j2 in self.hunks:
            if tag in ("replace", "insert"):
                out.update(range(j1 + 1, j2 + 1))
        return out

    @cached_property
    def _old_changed(self) -> set[int]:
        out: set[int] = set()
        for tag, i1, i2, _j1, _j2 in self.hunks:
            if tag in ("replace", "delete"):
                out.update(range(i1 + 1, i2 + 1))
        return out

    def old_lines_of(self, line: int) -> range:
        """The 1-based old lines the hunk holding new ``line`` replaced."""
        for tag, i1, i2, j1, j2 in self.hunks:
            if tag in ("replace", "insert") and j1 < line <= j2:
                return range(i1 + 1, i2 + 1)
        return range(0)

    def old_candidates(self) -> list[Candidate]:
        return operators.candidates(self.old, self._old_changed)

    def to_old(self, pos: int) -> int | None:
        """The offset in the old text of the new text's offset ``pos`` (None: ``pos`` is
        inside text the change wrote)."""
        line = bisect.bisect_right(self.new_at, pos) - 1
        for n, (tag, i1, _i2, j1, j2) in enumerate(self.hunks):
            if not j1 <= line < j2 and not (line == j2 == len(self.new_lines) and j1 < j2):
                continue
            if tag == "equal":
                return self.old_at[i1] + (pos - self.new_at[j1])
            local = pos - self.new_at[j1]
            for ctag, ci1, ci2, cj1, cj2 in self._char_hunks(n):
                if ctag == "equal" and cj1 <= local < cj2:
                    return self.old_at[i1] + ci1 + (local - cj1)
                if local == cj1:
                    return self.old_at[i1] + ci1
                if local == cj2:
                    return self.old_at[i1] + ci2
            return None
        return len(self.old) if pos >= len(self.new) else None

    def _char_hunks(self, n: int) -> list[tuple[str, int, int, int, int]]:
        if n not in self._chars:
            _tag, i1, i2, j1, j2 = self.hunks[n]
            a = "".join(self.old_lines[i1:i2])
            b = "".join(self.new_lines[j1:j2])
            matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
            self._chars[n] = list(matcher.get_opcodes())
        return self._chars[n]
