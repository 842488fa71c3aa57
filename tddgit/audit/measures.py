"""The audit's two summary measures (definitions in docs/audit.md): the four process
measures of Fucci et al. 2017 over commit episodes — SEQ (% test-first episodes), GRA
(median episode duration, minutes), UNI (median absolute deviation of the durations,
minutes), REF (% refactoring episodes) — and conformance, 0-100. ``metrics`` computes
them per author, agent and project from its counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import attrgetter, sub

from tddgit.audit.model import CommitRecord, Episode, Finding
from tddgit.audit.required import not_process

# Findings that say nothing about the order of work: they do not lower conformance. The
# detector rules judge how tests are written, not whether they came first.
NOT_PROCESS = frozenset(
    {"missing-evidence", "over-mocking", "broad-assertion", "yagni", "squashed-steps"}
)


def pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def _minutes(seconds: float) -> float:
    return round(seconds / 60.0, 2)


def whole_seconds(seconds: float) -> int:
    """A median of whole seconds, rounded half up (2.5 -> 3): the one value every format
    shows (``round`` would give 2, JavaScript's ``Math.round`` 3)."""
    return int(seconds + 0.5)


def median_of_sorted(values: Sequence[float]) -> float:
    """``statistics.median`` of an already sorted list (the same value)."""
    i = len(values) // 2
    return values[i] if len(values) % 2 else (values[i - 1] + values[i]) / 2


def process_measures(episodes: Sequence[Episode]) -> dict[str, float | None]:
    """SEQ, GRA, UNI, REF (Fucci et al. 2017) over commit episodes."""
    return episode_measures(Counter(map(_KIND, episodes)), list(map(_DURATION, episodes)))


_KIND = attrgetter("kind")
_DURATION = attrgetter("duration")


def episode_measures(kinds: Mapping[str, int], durations: list[int]) -> dict[str, float | None]:
    n = len(durations)
    if not n:
        return {"seq": None, "gra": None, "uni": None, "ref": None}
    durations.sort()
    mid = median_of_sorted(durations)
    deviations = sorted(map(abs, map(sub, durations, repeat(mid))))  # all in C
    return {
        "seq": pct(kinds.get("test-first", 0), n),
        "gra": _minutes(mid),
        "uni": _minutes(median_of_sorted(deviations)),
        "ref": pct(kinds.get("refactoring", 0), n),
    }


def conformance(
    records: Sequence[CommitRecord], findings: Sequence[Finding], episodes: Sequence[Episode]
) -> float | None:
    """0-100, or None when there is no code commit to judge (formula in docs/audit.md)."""
    judged = [r.sha for r in records if r.is_step and r.changes_code]
    if not judged:
        return None
    skip = not_process(NOT_PROCESS)
    flagged = {
        f.commit for f in findings if f.severity in ("error", "warning") and f.rule not in skip
    }
    clean = sum(1 for sha in judged if sha not in flagged)
    return conformance_of(len(judged), clean, Counter(e.kind for e in episodes))


def conformance_of(judged: int, clean: int, kinds: Mapping[str, int]) -> float | None:
    """The conformance formula (docs/audit.md), from counts: the mean of the share of
    judged commits without a process finding and the share of test-first episodes."""
    if not judged:
        return None
    share = clean / judged
    first = kinds.get("test-first", 0)
    coded = first + kinds.get("test-last", 0) + kinds.get("production", 0)
    if not coded:
        return round(100.0 * share, 1)
    return round(100.0 * (share + first / coded) / 2.0, 1)
