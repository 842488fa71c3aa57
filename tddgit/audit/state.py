"""Lineage state (PRODUCT.md §1): what is open after a commit, as a function of its first
parent's state and the commit itself, so branches and merges are followed correctly.

States are immutable and shared: a commit that changes nothing (a merge, an attempt)
reuses its parent's state object, so memory grows only with real steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from tddgit.audit.model import Cycle, Episode


class EpisodeAcc(NamedTuple):
    """The commits of an episode that has not ended yet (see tddgit.audit.metrics).

    Named tuples rather than frozen dataclasses, here and in ``State``: the audit makes one
    of each per commit of the history, and a tuple is built several times faster.
    """

    start: int  # author time of its first commit
    first: str
    commits: int = 0  # how many so far
    test_first: bool = False  # a test change came before any production change
    prod_first: bool = False  # a production change came before any test change
    tests: bool = False
    prods: bool = False
    red: bool = False  # a red step is part of it
    test_after: bool = False  # test-after-fact fired inside it

    def add(self, tests: bool, prods: bool, red: bool, test_after: bool) -> EpisodeAcc:
        return EpisodeAcc(
            self.start,
            self.first,
            self.commits + 1,
            self.test_first or (tests and not prods and not self.prods),
            self.prod_first or (prods and not tests and not self.tests),
            self.tests or tests,
            self.prods or prods,
            self.red or red,
            self.test_after or test_after,
        )

    def kind(self, closing_phase: str | None) -> str:
        """The Zorro/Besouro class of the episode, once it has ended."""
        if closing_phase == "refactor" and not self.red and not self.test_after:
            return "refactoring"
        if self.prods and (self.red or self.test_first) and not self.test_after:
            return "test-first"
        if self.prods and self.tests and (self.test_after or self.prod_first):
            return "test-last"
        if self.tests and not self.prods:
            return "test-addition"
        if self.prods and not self.tests:
            return "production"
        return "unknown"


class State(NamedTuple):
    """What the lineage up to a commit leaves open."""

    phase: str | None = None  # the last phase step on the lineage
    red: str | None = None  # the red commit still waiting for its green
    red_tests: frozenset[str] = frozenset()  # test files of that red
    cycle: int = -1  # index of the lineage's current cycle
    episode: EpisodeAcc | None = None
    last_end: int | None = None  # author time of the lineage's last episode end


ROOT = State()


@dataclass
class CycleBuilder:
    """A cycle while the history is read; frozen into ``Cycle`` at the end."""

    id: int
    red: str
    red_time: int
    author_name: str
    author_email: str
    green: str | None = None
    green_time: int | None = None
    refactors: list[str] = field(default_factory=list)
    last_time: int | None = None
    superseded: bool = False  # a new red opened on its lineage before it went green
    removed: bool = False  # its red was undone by a revert

    def freeze(self) -> Cycle:
        status = "complete" if self.green else ("broken" if self.superseded else "open")
        time_in_red = None
        if self.green_time is not None:
            time_in_red = max(0, self.green_time - self.red_time)
        return Cycle.fast(  # one per cycle of the history: see CommitRecord.fast
            {
                "id": self.id,
                "status": status,
                "red": self.red,
                "green": self.green,
                "refactors": tuple(self.refactors),
                "author_name": self.author_name,
                "author_email": self.author_email,
                "started": self.red_time,
                "ended": self.last_time if self.green else None,
                "time_in_red": time_in_red,
            }
        )


def close_episode(
    acc: EpisodeAcc,
    closing: tuple[str, str | None, int],
    last_end: int | None,
    who: tuple[str, str],
) -> Episode:
    """The finished episode; ``closing`` is the last commit's (sha, phase, author time)."""
    sha, phase, end = closing
    start = last_end if last_end is not None else acc.start
    return Episode(
        kind=acc.kind(phase),
        first=acc.first,
        last=sha,
        size=acc.commits,
        author_name=who[0],
        author_email=who[1],
        duration=max(0, end - start),
    )
