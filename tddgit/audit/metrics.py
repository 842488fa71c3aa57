"""Process metrics of an audit; the exact definitions are in docs/audit.md.

- phase counts, phase sources, trailer and evidence coverage;
- cycles (complete / open / broken) and time in red (red commit -> its green);
- Zorro/Besouro episode classes and the four measures of Fucci et al. 2017:
  SEQ (% test-first episodes), GRA (median episode duration, minutes),
  UNI (median absolute deviation of the durations, minutes), REF (% refactoring episodes);
- conformance, 0-100: the mean of the share of code commits without a process finding and
  the share of test-first episodes among the episodes that wrote production code.

Everything again per author (by e-mail address).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import attrgetter, sub
from statistics import median
from typing import Any

from tddgit.audit.model import PHASES, SOURCES, CommitRecord, Cycle, Episode, Finding

EPISODE_KINDS = ("test-first", "test-last", "test-addition", "refactoring", "production", "unknown")
# Findings that say nothing about the order of work: they do not lower conformance. The
# detector rules judge how tests are written, not whether they came first.
NOT_PROCESS = frozenset({"missing-evidence", "over-mocking", "broad-assertion", "yagni"})


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def _minutes(seconds: float) -> float:
    return round(seconds / 60.0, 2)


def _median_of_sorted(values: Sequence[float]) -> float:
    """``statistics.median`` of an already sorted list (the same value)."""
    i = len(values) // 2
    return values[i] if len(values) % 2 else (values[i - 1] + values[i]) / 2


def process_measures(episodes: Sequence[Episode]) -> dict[str, float | None]:
    """SEQ, GRA, UNI, REF (Fucci et al. 2017) over commit episodes."""
    return _measures(Counter(map(_KIND, episodes)), list(map(_DURATION, episodes)))


_KIND = attrgetter("kind")
_DURATION = attrgetter("duration")


def _measures(kinds: Counter[str], durations: list[int]) -> dict[str, float | None]:
    n = len(durations)
    if not n:
        return {"seq": None, "gra": None, "uni": None, "ref": None}
    durations.sort()
    mid = _median_of_sorted(durations)
    deviations = sorted(map(abs, map(sub, durations, repeat(mid))))  # all in C
    return {
        "seq": _pct(kinds["test-first"], n),
        "gra": _minutes(mid),
        "uni": _minutes(_median_of_sorted(deviations)),
        "ref": _pct(kinds["refactoring"], n),
    }


def conformance(
    records: Sequence[CommitRecord], findings: Sequence[Finding], episodes: Sequence[Episode]
) -> float | None:
    """0-100, or None when there is no code commit to judge (formula in docs/audit.md)."""
    judged = [r.sha for r in records if r.is_step and r.changes_code]
    if not judged:
        return None
    flagged = {
        f.commit
        for f in findings
        if f.severity in ("error", "warning") and f.rule not in NOT_PROCESS
    }
    clean = sum(1 for sha in judged if sha not in flagged)
    return _conformance(len(judged), clean, Counter(e.kind for e in episodes))


def summary(
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
) -> dict[str, Any]:
    """Every metric of one set of commits (the whole audit, or one author's share)."""
    acc = _Counts()
    for key, n in Counter(map(_KEY, records)).items():
        acc.add(key, n)
    acc.proven = sum(1 for r in records if r.evidence is not None and _proven(r))
    acc.code_clean = acc.code - _flagged_code(records, _flagged(findings))[1]
    return _summary(acc, findings, cycles, episodes)


# What the counts need of a commit; few distinct values, so counted in C, then summed.
_KEY = attrgetter("author_email", "phase", "phase_source", "attempt", "kind")
_CODE_KINDS = frozenset({"test", "production", "mixed"})  # CommitRecord.changes_code
_STATUS = attrgetter("status")
_TIME_IN_RED = attrgetter("time_in_red")
_RULE = attrgetter("rule")


def _proven(r: CommitRecord) -> bool:
    return r.phase_source == "trailer" and r.evidence is not None and r.evidence.valid


def _flagged(findings: Sequence[Finding]) -> set[str]:
    """Commits with a finding about the order of work (see ``conformance``)."""
    return {
        f.commit
        for f in findings
        if f.severity in ("error", "warning") and f.rule not in NOT_PROCESS
    }


def _flagged_code(records: Sequence[CommitRecord], flagged: set[str]) -> tuple[Counter[str], int]:
    """Code commits with a finding about the order of work: per author e-mail, and all."""
    per: Counter[str] = Counter(
        r.author_email
        for r in records
        if r.sha in flagged and r.kind in _CODE_KINDS and r.attempt in (None, "tcr-pass")
    )
    return per, sum(per.values())


class _Counts:
    """What the metrics need of the commits, summed from ``_KEY`` counts."""

    __slots__ = (
        "attempts",
        "code",
        "code_clean",
        "code_trailer",
        "declared",
        "phases",
        "proven",
        "records",
        "sources",
        "steps",
    )

    def __init__(self) -> None:
        self.records = self.steps = self.code = self.code_trailer = self.code_clean = 0
        self.declared = self.proven = 0
        self.phases: Counter[str] = Counter()
        self.sources: Counter[str] = Counter()
        self.attempts: Counter[str] = Counter()

    def add(self, key: tuple[str, str | None, str, str | None, str], n: int) -> None:
        """``n`` commits that share ``key`` (see ``_KEY``)."""
        _, phase, source, attempt, kind = key
        self.records += n
        if kind == "merge":  # the engine gives merges, and only merges, this kind
            return
        self.steps += n
        self.phases[phase or "none"] += n
        self.sources[source] += n
        if attempt:
            self.attempts[attempt] += n
        if source == "trailer":
            self.declared += n
        if (attempt is None or attempt == "tcr-pass") and kind in _CODE_KINDS:
            self.code += n
            if source == "trailer":
                self.code_trailer += n


def _summary(
    acc: _Counts,
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
) -> dict[str, Any]:
    status = Counter(map(_STATUS, cycles))
    reds = [t for t in map(_TIME_IN_RED, cycles) if t is not None]
    kinds = Counter(map(_KIND, episodes))
    return {
        "commits": acc.steps,
        "merges": acc.records - acc.steps,
        "code_commits": acc.code,
        "phases": {p: acc.phases[p] for p in (*PHASES, "none")},
        "phase_sources": {s: acc.sources[s] for s in SOURCES},
        "attempts": dict(sorted(acc.attempts.items())),
        "trailer_coverage": _pct(acc.code_trailer, acc.code),
        "evidence_coverage": _pct(acc.proven, acc.declared),
        "cycles": {
            "total": len(cycles),
            "complete": status["complete"],
            "open": status["open"],
            "broken": status["broken"],
        },
        "time_in_red": {
            "count": len(reds),
            "median_seconds": median(reds) if reds else None,
            "mean_seconds": round(sum(reds) / len(reds), 1) if reds else None,
            "max_seconds": max(reds) if reds else None,
        },
        "episodes": {"total": len(episodes), **{k: kinds[k] for k in EPISODE_KINDS}},
        "process": _measures(kinds, list(map(_DURATION, episodes))),
        "findings": dict(sorted(Counter(map(_RULE, findings)).items())),
        "conformance": _conformance(acc.code, acc.code_clean, kinds),
    }


def _conformance(judged: int, clean: int, kinds: Counter[str]) -> float | None:
    """The conformance formula (docs/audit.md), from counts: the mean of the share of
    judged commits without a process finding and the share of test-first episodes."""
    if not judged:
        return None
    share = clean / judged
    coded = kinds["test-first"] + kinds["test-last"] + kinds["production"]
    if not coded:
        return round(100.0 * share, 1)
    return round(100.0 * (share + kinds["test-first"] / coded) / 2.0, 1)


def compute(
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
) -> dict[str, Any]:
    """The audit's ``metrics`` object: the whole range, then ``authors[]``.

    The commits are counted by a few fields at once (``_KEY``, in C), so a 100k-commit
    history costs a few passes of C loops plus one small Python loop per distinct key.
    """
    per: dict[str, _Counts] = defaultdict(_Counts)
    for key, n in Counter(map(_KEY, records)).items():
        per[key[0]].add(key, n)
    for r in [r for r in records if r.evidence is not None]:  # few have a note
        if _proven(r):
            per[r.author_email].proven += 1
    flagged_per, _ = _flagged_code(records, _flagged(findings))
    for email, acc in per.items():
        acc.code_clean = acc.code - flagged_per[email]
    out = _summary(_total(per.values()), findings, cycles, episodes)
    order = sorted(per.items(), key=lambda kv: (-kv[1].records, kv[0]))
    names = {r.author_email: r.author_name for r in reversed(records)}  # first name seen
    authors = []
    if len(per) == 1:
        email = order[0][0]
        authors.append({"name": names[email], "email": email, **out})
    elif order:
        author_of = {r.sha: r.author_email for r in records}
        by_findings: dict[str, list[Finding]] = defaultdict(list)
        for f in findings:
            by_findings[author_of.get(f.commit, "")].append(f)
        by_cycles: dict[str, list[Cycle]] = defaultdict(list)
        for c in cycles:
            by_cycles[c.author_email].append(c)
        by_episodes: dict[str, list[Episode]] = defaultdict(list)
        for e in episodes:
            by_episodes[e.author_email].append(e)
        for email, acc in order:
            part = _summary(acc, by_findings[email], by_cycles[email], by_episodes[email])
            authors.append({"name": names[email], "email": email, **part})
    out["authors"] = authors
    return out


def _total(parts: Iterable[_Counts]) -> _Counts:
    total = _Counts()
    for p in parts:
        total.records += p.records
        total.steps += p.steps
        total.code += p.code
        total.code_trailer += p.code_trailer
        total.code_clean += p.code_clean
        total.declared += p.declared
        total.proven += p.proven
        total.phases.update(p.phases)
        total.sources.update(p.sources)
        total.attempts.update(p.attempts)
    return total
