"""Lineage state (PRODUCT.md §1): what is open after a commit, as a function of its first
parent's state and the commit itself, so branches and merges are followed correctly.

States are immutable and shared: a commit that changes nothing (a merge, an attempt)
reuses its parent's state object, so memory grows only with real steps.
"""

from __future__ import annotations

from typing import NamedTuple

from tddgit.audit.model import Cycle

# What an episode has seen so far, as bits of one int (see ``EpisodeAcc``).
TEST_FIRST = 1  # a test change came before any production change
PROD_FIRST = 2  # a production change came before any test change
TESTS = 4
PRODS = 8
RED = 16  # a red step is part of it
TEST_AFTER = 32  # test-after-fact fired inside it


def _next_flags(flags: int, tests: bool, prods: bool, red: bool, test_after: bool) -> int:
    if tests and not prods and not flags & PRODS:
        flags |= TEST_FIRST
    if prods and not tests and not flags & TESTS:
        flags |= PROD_FIRST
    return (
        flags
        | (TESTS if tests else 0)
        | (PRODS if prods else 0)
        | (RED if red else 0)
        | (TEST_AFTER if test_after else 0)
    )


def _kind(flags: int, closing_refactor: bool) -> str:
    """The Zorro/Besouro class of an episode that has ended (docs/audit.md)."""
    prods, tests = bool(flags & PRODS), bool(flags & TESTS)
    test_after = bool(flags & TEST_AFTER)
    if closing_refactor and not flags & RED and not test_after:
        return "refactoring"
    if prods and flags & (RED | TEST_FIRST) and not test_after:
        return "test-first"
    if prods and tests and (test_after or flags & PROD_FIRST):
        return "test-last"
    if tests and not prods:
        return "test-addition"
    if prods and not tests:
        return "production"
    return "unknown"


# The two functions above as tables, because the audit steps an episode once per commit:
# NEXT_FLAGS[flags << 4 | tests << 3 | prods << 2 | red << 1 | test_after] and
# KIND[flags << 1 | closing_refactor].
NEXT_FLAGS = tuple(
    _next_flags(f, bool(i & 8), bool(i & 4), bool(i & 2), bool(i & 1))
    for f in range(64)
    for i in range(16)
)
KIND = tuple(_kind(f, bool(r)) for f in range(64) for r in range(2))


class EpisodeAcc(NamedTuple):
    """The commits of an episode that has not ended yet (see tddgit.audit.metrics).

    Named tuples rather than frozen dataclasses, here and in ``State``: the audit makes one
    of each per commit of the history, and a tuple is built several times faster.
    """

    start: int  # author time of its first commit
    first: str
    commits: int = 0  # how many so far
    flags: int = 0  # TEST_FIRST | PROD_FIRST | TESTS | PRODS | RED | TEST_AFTER


class State(NamedTuple):
    """What the lineage up to a commit leaves open."""

    phase: str | None = None  # the last phase step on the lineage
    red: str | None = None  # the red commit still waiting for its green
    red_tests: frozenset[str] = frozenset()  # test files of that red
    cycle: int = -1  # index of the lineage's current cycle
    episode: EpisodeAcc | None = None
    last_end: int | None = None  # author time of the lineage's last episode end
    # The open red: when it was committed (committer time), whether only its files made it
    # a red (inferred: it lapses after a window, docs/audit.md), and how many steps the
    # lineage made since.
    red_time: int = 0
    red_inferred: bool = False
    red_steps: int = 0
    # A green made over several commits: the production files of the inferred green that
    # closed the red, and how many more production-only commits may continue it.
    green_dirs: frozenset[str] = frozenset()
    green_left: int = 0
    # An inferred red's scope: the production files its tests import (tddgit.audit.imports);
    # empty when they import none of the project's (a functional test through a browser);
    # None for a declared or proven red.
    red_scope: frozenset[str] | None = None


def red_covers(before: State, paths: tuple[str, ...]) -> bool:
    """Is the open red a test of a change to ``paths``? A declared or proven red, or an
    inferred one whose tests drive the whole application, for any; another inferred red
    only for the production its tests import (``red_scope``)."""
    scope = before.red_scope
    return not scope or in_scope(scope, paths)


def in_scope(scope: frozenset[str], paths: tuple[str, ...]) -> bool:
    """Does one of ``paths`` belong to ``scope``: one of its files, or a file under the
    directory of one of them (a view's template)?"""
    dirs = tuple({s.rsplit("/", 1)[0] + "/" for s in scope if "/" in s})
    return any(p in scope or (dirs and p.startswith(dirs)) for p in paths)


ROOT = State()


class CycleBuilder:
    """A cycle while the history is read, and its ``Cycle`` record, kept in step.

    The record is made with the cycle and brought up to date (``sync``) after each change
    the pass makes, so the end of the audit has nothing left to build: a history has a
    cycle for every few commits.
    """

    __slots__ = (
        "author_email",
        "author_name",
        "cycle",
        "green",
        "green_time",
        "id",
        "last_time",
        "red",
        "red_time",
        "refactor_times",
        "refactors",
        "removed",
        "superseded",
    )

    def __init__(
        self,
        id: int,
        red: str,
        red_time: int,
        author_name: str,
        author_email: str,
        task: str | None = None,
    ):
        self.id = id
        self.red = red
        self.red_time = red_time
        self.author_name = author_name
        self.author_email = author_email
        self.green: str | None = None
        self.green_time: int | None = None
        self.refactors: list[str] = []
        self.refactor_times: list[int] = []
        self.last_time: int = red_time
        self.superseded = False  # a new red opened on its lineage before it went green
        self.removed = False  # its red was undone by a revert
        self.cycle = Cycle.fast(  # one per cycle of the history: see CommitRecord.fast
            id, red, author_name, author_email, red_time, task
        )

    def set_task(self, task: str) -> None:
        """The plan task a later step of the cycle names (its red named none)."""
        self.cycle.__dict__["task"] = task

    def add_refactor(self, sha: str, time: int) -> None:
        self.refactors.append(sha)
        self.refactor_times.append(time)
        self.last_time = time
        self.sync()

    def undo(self, sha: str) -> None:
        """``sha``, one of this cycle's commits, was undone by a revert."""
        if sha == self.red:
            self.removed = True
        if sha == self.green:
            self.green = self.green_time = None
        if sha in self.refactors:
            i = self.refactors.index(sha)
            del self.refactors[i], self.refactor_times[i]
            last = self.refactor_times[-1] if self.refactor_times else self.green_time
            self.last_time = last if last is not None else self.red_time
        self.sync()

    def sync(self) -> None:
        """Bring the record up to date after a change (it is not shared with anyone yet)."""
        fields = self.cycle.__dict__
        green = self.green
        fields["status"] = "complete" if green else ("broken" if self.superseded else "open")
        fields["green"] = green
        fields["refactors"] = tuple(self.refactors)
        fields["ended"] = self.last_time if green else None
        fields["time_in_red"] = (
            None if self.green_time is None else max(0, self.green_time - self.red_time)
        )
