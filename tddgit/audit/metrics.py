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
from statistics import median
from typing import Any

from tddgit.audit.model import PHASES, SOURCES, CommitRecord, Cycle, Episode, Finding

EPISODE_KINDS = ("test-first", "test-last", "test-addition", "refactoring", "production", "unknown")
# Findings that say nothing about the order of work: they do not lower conformance.
NOT_PROCESS = frozenset({"missing-evidence"})


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def _minutes(seconds: float) -> float:
    return round(seconds / 60.0, 2)


def _mad(values: Sequence[float]) -> float:
    mid = median(values)
    return median(abs(v - mid) for v in values)


def process_measures(episodes: Sequence[Episode]) -> dict[str, float | None]:
    """SEQ, GRA, UNI, REF (Fucci et al. 2017) over commit episodes."""
    n = len(episodes)
    if not n:
        return {"seq": None, "gra": None, "uni": None, "ref": None}
    kinds = Counter(e.kind for e in episodes)
    durations = [float(e.duration) for e in episodes]
    return {
        "seq": _pct(kinds["test-first"], n),
        "gra": _minutes(median(durations)),
        "uni": _minutes(_mad(durations)),
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
    clean = sum(1 for sha in judged if sha not in flagged) / len(judged)
    kinds = Counter(e.kind for e in episodes)
    coded = kinds["test-first"] + kinds["test-last"] + kinds["production"]
    if not coded:
        return round(100.0 * clean, 1)
    return round(100.0 * (clean + kinds["test-first"] / coded) / 2.0, 1)


def summary(
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
) -> dict[str, Any]:
    """Every metric of one set of commits (the whole audit, or one author's share)."""
    acc = _Counts()
    flagged = _flagged(findings)
    for r in records:
        acc.add(r, flagged)
    return _summary(acc, findings, cycles, episodes)


def _flagged(findings: Sequence[Finding]) -> set[str]:
    """Commits with a finding about the order of work (see ``conformance``)."""
    return {
        f.commit
        for f in findings
        if f.severity in ("error", "warning") and f.rule not in NOT_PROCESS
    }


class _Counts:
    """What the metrics need of the commits, gathered in one pass over them."""

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

    def add(self, r: CommitRecord, flagged: set[str]) -> None:
        self.records += 1
        if len(r.parents) > 1:
            return  # a merge
        self.steps += 1
        self.phases[r.phase or "none"] += 1
        source = r.phase_source
        self.sources[source] += 1
        attempt = r.attempt
        if attempt:
            self.attempts[attempt] += 1
        if source == "trailer":
            self.declared += 1
            if r.evidence is not None and r.evidence.valid:
                self.proven += 1
        if (attempt is None or attempt == "tcr-pass") and r.kind in _CODE_KINDS:
            self.code += 1
            if source == "trailer":
                self.code_trailer += 1
            if r.sha not in flagged:
                self.code_clean += 1


_CODE_KINDS = frozenset({"test", "production", "mixed"})  # CommitRecord.changes_code


def _summary(
    acc: _Counts,
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
) -> dict[str, Any]:
    status = Counter(c.status for c in cycles)
    reds = [c.time_in_red for c in cycles if c.time_in_red is not None]
    kinds = Counter(e.kind for e in episodes)
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
        "process": process_measures(episodes),
        "findings": dict(sorted(Counter(f.rule for f in findings).items())),
        "conformance": _conformance(acc.code, acc.code_clean, kinds),
    }


def _conformance(judged: int, clean: int, kinds: Counter[str]) -> float | None:
    """``conformance`` from counts already gathered."""
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

    One pass over the commits fills the counts of every author at once; the whole range
    is their sum.
    """
    flagged = _flagged(findings)
    per: dict[str, _Counts] = {}
    names: dict[str, str] = {}
    author_of: dict[str, str] = {}
    for r in records:
        email = r.author_email
        acc = per.get(email)
        if acc is None:
            acc = per[email] = _Counts()
            names[email] = r.author_name
        acc.add(r, flagged)
        author_of[r.sha] = email
    out = _summary(_total(per.values()), findings, cycles, episodes)
    authors = []
    order = sorted(per.items(), key=lambda kv: (-kv[1].records, kv[0]))
    if len(per) == 1:
        authors.append({"name": names[order[0][0]], "email": order[0][0], **out})
    elif order:
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
        for name in ("records", "steps", "code", "code_trailer", "code_clean"):
            setattr(total, name, getattr(total, name) + getattr(p, name))
        total.declared += p.declared
        total.proven += p.proven
        total.phases.update(p.phases)
        total.sources.update(p.sources)
        total.attempts.update(p.attempts)
    return total
