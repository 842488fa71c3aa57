"""What a step does to its lineage: the cycle it opens, completes or extends, the episode it
extends or ends, and the lineage state it leaves (one compiled module of the pass).

``tddgit.audit.engine`` calls ``step`` for each commit that takes part (not a merge, not a
failed or reverting attempt); the cycles and episodes made here are the report's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tddgit.audit.model import Episode
from tddgit.audit.state import KIND, NEXT_FLAGS, CycleBuilder, EpisodeAcc, State
from tddgit.plans import TASK_TRAILER as TASK_KEY

if TYPE_CHECKING:
    from tddgit.audit.checkview import CommitView
    from tddgit.model import Commit

_NO_TESTS: frozenset[str] = frozenset()


def _files(view: CommitView) -> frozenset[str]:
    return frozenset(f.path for f in view.prods)


def continues_green(before: State, prods: tuple[str, ...]) -> bool:
    """A production-only commit right after an inferred green, to the same files: the same
    green made over several commits (its test may still fail between them). Only for
    inferred greens: a declared or proven green says where the green ends."""
    if before.green_left <= 0:
        return False
    made = before.green_dirs
    # The same files, or files under the directory of one of them (a view, then the
    # template it renders: lists/views.py, lists/templates/home.html); never the root's.
    dirs = {p.rsplit("/", 1)[0] + "/" for p in made if "/" in p}
    return all(p in made or p.startswith(tuple(dirs)) for p in prods)


class Lineage:
    """The cycles and episodes of one pass, built as its steps come (parents first)."""

    def __init__(self, green_window: int = 10) -> None:
        self.green_window = green_window  # production commits a green may continue over
        self.cycles: list[CycleBuilder] = []
        self._cycle_at: dict[str, int] = {}  # red, green or refactor commit -> its cycle
        self.episodes: list[Episode] = []
        self.episode_kinds: dict[tuple[str, str], int] = {}  # (e-mail, kind) -> episodes
        self.durations: dict[str, list[int]] = {}  # e-mail -> its episodes' durations

    def step(
        self,
        c: Commit,
        view: CommitView,
        after_fact: bool,
        scope: frozenset[str] | None = None,
    ) -> State:
        """The lineage state after ``c``; ``after_fact``: test-after-fact fired on it;
        ``scope``: an inferred red's (``State.red_scope``)."""
        phase, red, red_tests, cycle = self._transition(c, view)
        episode, last_end = self._episode(c, view, after_fact)
        s = view.before
        red_scope = s.red_scope if red is not None else None
        if view.phase == "red":
            red_scope = scope
            # The window is read on the committer's clock: a rebased or cherry-picked
            # history keeps its old author dates out of order, so a red could lapse at its
            # very next commit (a TDD book's example project, rebased chapter by chapter).
            red_time, inferred, steps = c.committer_time, view.source == "files", 0
        elif red is not None:
            red_time, inferred, steps = s.red_time, s.red_inferred, s.red_steps + 1
        else:
            red_time, inferred, steps = 0, False, 0
        dirs: frozenset[str] = _NO_TESTS
        left = 0
        if view.phase == "green" and view.prods and not view.tests and view.source == "files":
            if s.red is not None:
                dirs, left = _files(view), self.green_window
            elif s.green_left > 0:
                dirs, left = s.green_dirs | _files(view), s.green_left - 1
        elif not view.prods and not view.tests and view.attempt is None:
            # Neither tests nor production (a generated migration, docs, config): the green
            # made over several commits goes on across it.
            dirs, left = s.green_dirs, s.green_left
        return State(
            phase,
            red,
            red_tests,
            cycle,
            episode,
            last_end,
            red_time,
            inferred,
            steps,
            dirs,
            left,
            red_scope,
        )

    def cycle_of(self, sha: str, phase: str | None, before: State, after: State) -> int | None:
        """The cycle the step ``sha`` belongs to, if any."""
        if phase == "red" or (phase == "green" and before.red is not None):
            return after.cycle
        if phase == "refactor" and after.cycle >= 0 and sha in self.cycles[after.cycle].refactors:
            return after.cycle
        return None

    def undo(self, sha: str) -> None:
        """``sha`` was undone by a revert: it leaves its cycle, if it was in one."""
        at = self._cycle_at.pop(sha, None)  # a commit is in one cycle at most
        if at is not None:
            self.cycles[at].undo(sha)

    def _transition(
        self, c: Commit, v: CommitView
    ) -> tuple[str | None, str | None, frozenset[str], int]:
        """(phase, open red, its tests, cycle) after a step; builds and extends cycles."""
        s = v.before
        if v.phase == "red":
            if s.red is not None and s.cycle >= 0:
                old = self.cycles[s.cycle]
                old.superseded = True
                old.sync()
            task = c.trailer(TASK_KEY) if c.trailers else None
            cb = CycleBuilder(
                len(self.cycles), c.sha, c.author_time, c.author_name, c.author_email, task
            )
            self.cycles.append(cb)
            self._cycle_at[c.sha] = cb.id
            tests = frozenset(f.path for f in v.tests if f.status != "D")
            return "red", c.sha, tests, cb.id
        if v.phase == "green":
            if s.red is not None and s.cycle >= 0:
                cb = self.cycles[s.cycle]
                if cb.green is None:
                    cb.green, cb.green_time, cb.last_time = c.sha, c.author_time, c.author_time
                    cb.sync()
                    self._cycle_at[c.sha] = cb.id
                    if c.trailers and cb.cycle.task is None:
                        task = c.trailer(TASK_KEY)
                        if task:
                            cb.set_task(task)
            return "green", None, _NO_TESTS, s.cycle
        if v.phase == "refactor":
            if s.red is None and s.cycle >= 0 and self.cycles[s.cycle].green is not None:
                cb = self.cycles[s.cycle]
                cb.add_refactor(c.sha, c.author_time)
                self._cycle_at[c.sha] = cb.id
            return "refactor", s.red, s.red_tests, s.cycle
        return s.phase, s.red, s.red_tests, s.cycle

    def _episode(
        self, c: Commit, v: CommitView, after_fact: bool
    ) -> tuple[EpisodeAcc | None, int | None]:
        """(open episode, last episode end) after a step; records an episode that ends."""
        b = v.before
        phase = v.phase
        prods = bool(v.prods)
        step = bool(v.tests) << 3 | prods << 2 | (phase == "red") << 1 | after_fact
        acc = b.episode
        if acc is None:
            start, first, size, flags = c.author_time, c.sha, 1, NEXT_FLAGS[step]
        else:
            start, first, size = acc.start, acc.first, acc.commits + 1
            flags = NEXT_FLAGS[acc.flags << 4 | step]
        if not (
            phase == "green"
            or phase == "refactor"
            or (phase is None and prods)
            or v.attempt == "tcr-pass"
        ):
            return EpisodeAcc(start, first, size, flags), b.last_end
        end = c.author_time
        if b.last_end is not None:
            start = b.last_end
        kind = KIND[flags << 1 | (phase == "refactor")]
        email = c.author_email
        duration = end - start if end > start else 0
        self.episodes.append(
            Episode.fast(
                kind=kind,
                first=first,
                last=c.sha,
                size=size,
                author_name=c.author_name,
                author_email=email,
                duration=duration,
            )
        )
        key = (email, kind)
        self.episode_kinds[key] = self.episode_kinds.get(key, 0) + 1
        durations = self.durations.get(email)
        if durations is None:
            durations = self.durations[email] = []
        durations.append(duration)
        return None, end
